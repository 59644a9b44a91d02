/* problem.h — a resolved problem (DESIGN 3.1/3.2): the kernel source, its
 * launches, the op it implements (tensors with shapes as size expressions,
 * attributes, the reference), sizes, dtypes, ranges, constraints, scratch
 * buffers and tolerance. Engine side: no Lua here. The Lua side (lua_spec.c)
 * builds a dg_problem from a spec file and plugs its reference in through
 * dg_ref_ops; the checker and the fuzzer only see this header.
 *
 * Ownership: a dg_problem owns everything it points to (strings, parsed
 * expressions, launches, its dg_srcmgr and its reference); dg_problem_free
 * releases all of it. Spans in it index p->sm. */
#ifndef DG_PROBLEM_H
#define DG_PROBLEM_H
#include "util.h"
#include "diag.h"
#include "sexpr.h"
#include "launch.h"
#include "pp.h"
#include "dtype.h"     /* dg_dtype, dg_dtypes[] (names, sizes, default tolerances) */

/* ---- value operations: the vocabulary of references ------------------------- */
/* One table: name, arity. Comparisons give 1/0 (a symbolic boolean for terms);
 * WHERE(c, a, b) is a when c != 0. MAX/MIN are binary here (the Lua side folds
 * n-ary calls). */
#define DG_VOPS(X) \
  X(ADD, "add", 2) X(SUB, "sub", 2) X(MUL, "mul", 2) X(DIV, "div", 2) X(NEG, "neg", 1) \
  X(MAX, "max", 2) X(MIN, "min", 2) X(EXP, "exp", 1) X(LOG, "log", 1) X(SQRT, "sqrt", 1) \
  X(RSQRT, "rsqrt", 1) X(TANH, "tanh", 1) X(ERF, "erf", 1) X(ABS, "abs", 1) X(POW, "pow", 2) \
  X(FLOOR, "floor", 1) X(CEIL, "ceil", 1) X(WHERE, "where", 3) \
  X(LT, "lt", 2) X(LE, "le", 2) X(GT, "gt", 2) X(GE, "ge", 2) X(EQ, "eq", 2) X(NE, "ne", 2)

typedef enum {
#define DG_VOP_ENUM(id, name, arity) DG_VOP_##id,
  DG_VOPS(DG_VOP_ENUM)
#undef DG_VOP_ENUM
  DG_VOP__COUNT
} dg_vop;

typedef struct { const char *name; int arity; } dg_vop_info_t;
extern const dg_vop_info_t dg_vop_info[DG_VOP__COUNT];
int dg_vop_lookup(const char *name);                     /* -1 if none */
double dg_vop_num(dg_vop op, const double *args);        /* the concrete semantics */

/* A symbolic value: an opaque id of the symbolic engine's value domain (a term
 * id of term.h). The domain plugs its arithmetic in through this vtable. */
typedef uint32_t dg_symval;
typedef struct dg_sym_ops {
  dg_symval (*constant)(void *ud, double v);
  dg_symval (*apply)(void *ud, dg_vop op, const dg_symval *args);   /* args[arity] */
  void *ud;
} dg_sym_ops;

/* A value a reference reads or returns: a number, or a symbolic value. */
typedef struct { bool is_sym; double num; dg_symval sym; } dg_refval;

/* ---- the reference, as an abstract interface ----------------------------------
 * Three uses, one reference:
 *  (1) concrete, one element:   env.data set (flat row-major doubles per tensor);
 *  (2) concrete, a whole output: eval_all with env.data set (the fast batch path);
 *  (3) symbolic, one element:   env.data NULL; every input element is read
 *      through env.read, which gives a number (index-valued inputs, which must be
 *      concrete) or a symbolic value; arithmetic on symbolic values goes through
 *      env.sym. The result may still be a number (a constant output).
 * Tensor indices are indices into dg_problem.tensors; accumulate outputs are
 * readable (their contents before the launch). */
typedef struct dg_ref_env {
  const int64_t *sizes;                  /* one per dg_problem.sizes, in order */
  const double *const *data;             /* per tensor, or NULL (then read is used) */
  bool (*read)(void *ud, int tensor, const int64_t *idx, dg_refval *out);
  const dg_sym_ops *sym;                 /* needed when read can give symbolic values */
  void *ud;                              /* for read */
  /* Optional (NULL: the attributes as they are): the value the reference
   * reads for float attribute a of dg_problem.attrs (v: its value); the
   * envelope's backward error perturbs them (fuzz_envelope.c). */
  double (*attr)(void *ud, int a, double v);
  /* Optional (0: none): dg_now() past which a reference call stops (the Lua
   * reference looks every 10^4 instructions) with DG_REF_ERROR; the caller
   * tells a budget cut from a failure by the clock (check --budget). */
  double deadline;
} dg_ref_env;

/* The row-major flat offset of idx in a tensor of these dims (rank at most 8),
 * or -1 when an index is out of range: what a dg_ref_env.read does first. */
static inline int64_t dg_flat_index(const int64_t *dims, size_t rank, const int64_t *idx)
{
  int64_t flat = 0;
  for (size_t d = 0; d < rank && d < 8; d++) {
    if (idx[d] < 0 || idx[d] >= dims[d]) return -1;
    flat = flat * dims[d] + idx[d];
  }
  return flat;
}

typedef enum { DG_REF_OK, DG_REF_NIL /* element unchecked */, DG_REF_ERROR } dg_ref_status;

typedef struct dg_ref_ops {
  const char *kind;                      /* "lua", "cuda", "c" */
  /* *err (on DG_REF_ERROR) is a message the caller frees. */
  dg_ref_status (*eval)(void *self, const dg_ref_env *env, int tensor, const int64_t *idx,
                        dg_refval *out, char **err);
  /* Optional: all elements of output `tensor`, concrete; defined[i] = 0 where nil. */
  dg_ref_status (*eval_all)(void *self, const dg_ref_env *env, int tensor, double *out,
                            uint8_t *defined, char **err);
  void (*free)(void *self);
  /* Optional: eval_all, but only when the batch path costs less than about a
   * quarter of `k` per-element evals (the reference estimates both); DG_REF_NIL
   * (nothing defined) when it has no batch path or it would cost more. */
  dg_ref_status (*eval_all_within)(void *self, const dg_ref_env *env, int tensor, int64_t k,
                                   double *out, uint8_t *defined, char **err);
} dg_ref_ops;

typedef struct { const dg_ref_ops *ops; void *self; } dg_ref;

/* ---- the problem ---------------------------------------------------------- */
/* An expression written in a spec or op file, with where it stands. */
typedef struct {
  char *text;            /* owned */
  dg_sexpr *e;           /* owned */
  dg_span span;          /* the field it came from (fallback position) */
  size_t file_off;       /* byte offset of text[0] in span.file, or SIZE_MAX */
} dg_pexpr;

typedef enum { DG_TENSOR_INPUT, DG_TENSOR_OUTPUT, DG_TENSOR_SCRATCH } dg_tensor_role;

typedef struct {
  char *name;
  dg_tensor_role role;
  bool accumulate;       /* output the kernel reads and updates: its old contents are an input */
  DG_VEC(dg_pexpr) shape;  /* rank = shape.n; each a size expression */
  dg_dtype dtype;        /* resolved: spec dtypes > op dtypes > spec dtype > f32 */
  bool has_range;        /* index-valued: drawn in [lo, hi], concrete in references */
  dg_pexpr range_lo, range_hi;
  bool positive;         /* op hint: values are > 0 (a variance, a second moment) */
  dg_pexpr zero_bytes;   /* scratch: leading bytes the host zeroes (text NULL: none) */
  dg_span span;
} dg_tensor;

typedef enum { DG_ATTR_INT, DG_ATTR_FLOAT, DG_ATTR_BOOL, DG_ATTR_STR, DG_ATTR_LIST } dg_attr_kind;
typedef struct {
  char *name;
  dg_attr_kind kind;
  int64_t i;             /* INT, BOOL (0/1) */
  double f;              /* FLOAT; also INT and BOOL as double */
  char *s;               /* STR */
  DG_VEC(double) list;   /* LIST (perm = {0, 2, 1, 3}) */
} dg_attr;

typedef struct {
  char *name;
  int64_t value;         /* the spec's value */
  DG_VEC(int64_t) candidates;   /* the op's candidates (boundaries included); may be empty */
  bool has_realistic;
  int64_t realistic;
  bool from_op;          /* a size symbol of the op (else only the spec/kernel uses it) */
} dg_size;

typedef struct { dg_dtype dtype; dg_tol tol; } dg_dtype_tol;

typedef struct {
  dg_pexpr e;
  bool from_op;          /* the op's (a limit of the op) or the spec's (of this kernel) */
} dg_constraint;

typedef struct dg_problem {
  dg_srcmgr sm;          /* spec file, op file, .cu with a dirigo block */
  char *spec_path;
  char *source;          /* kernel file, joined with the spec's directory; NULL if none */
  dg_span source_span;   /* its `source =` field (file 0: none, as a .cu spec's own):
                            dg_problem_source_at */
  DG_VEC(pp_define) defines;     /* owned strings (cast when freeing) */
  DG_VEC(char *) templ;          /* template arguments, verbatim */
  char *op_name;
  char *op_path;         /* NULL for an inline op */
  DG_VEC(dg_tensor) tensors;     /* inputs, then outputs, then scratch */
  int n_inputs, n_outputs, n_scratch;
  DG_VEC(dg_attr) attrs;         /* op defaults overridden by the spec */
  DG_VEC(dg_size) sizes;
  dg_dtype dtype;
  DG_VEC(dg_launch *) launches;  /* in order: a pipeline */
  DG_VEC(dg_constraint) constraints;
  DG_VEC(dg_dtype_tol) op_tol;   /* the op's tolerance per dtype */
  bool has_tol;                  /* the spec's override */
  dg_tol tol;
  char *bug_pattern, *bug_detail;   /* seeded_bug: for scoring only; the engine never reads it */
  dg_ref ref;
  dg_span span;          /* the `problem {` of the spec */
} dg_problem;

dg_problem *dg_problem_new(void);
/* Where an error about the kernel file points: the spec's source = field, else its problem {. */
static inline dg_span dg_problem_source_at(const dg_problem *p)
{
  return p->source_span.file ? p->source_span : p->span;
}
void dg_problem_free(dg_problem *p);

/* The problem block of a .cu file (DESIGN 3.1): the first comment whose
 * first word is `dirigo:`, with only blanks and other comments before it.
 * Returns its "/" (the opening of the comment) or NULL; *late, when not NULL,
 * is set to such a block found after code (the loader says where it must be). */
const char *dg_spec_block(const char *text, const char **late);

/* Builder helpers for the loader. */
/* Parses text into x (copying it); on error adds "error: …" at the right column. */
bool dg_pexpr_init(dg_pexpr *x, const char *text, dg_span span, size_t file_off,
                   const dg_problem *p, dg_diags *d);
void dg_pexpr_free(dg_pexpr *x);
/* The position of byte `pos` of x->text (exact when file_off is known). */
dg_span dg_pexpr_span(const dg_problem *p, const dg_pexpr *x, size_t pos);
/* The line:col of byte offset off of file (1-based). */
dg_span dg_problem_span_of(const dg_problem *p, uint32_t file, size_t off);
/* Resolves launch arguments (names of tensors, sizes, attrs), checks every
 * symbol used in shapes/launches/constraints is known and the spec's sizes
 * satisfy the constraints. False (with diagnostics) if the problem is unusable. */
bool dg_problem_finish(dg_problem *p, dg_diags *d);

/* ---- queries ----------------------------------------------------------------- */
int dg_problem_tensor(const dg_problem *p, const char *name);      /* index or -1 */
int dg_problem_size(const dg_problem *p, const char *name);        /* index or -1 */
int dg_problem_attr(const dg_problem *p, const char *name);        /* index or -1 */
/* The spec's size values, one per p->sizes (out has p->sizes.n room). */
void dg_problem_default_sizes(const dg_problem *p, int64_t *out);

/* Symbol table of sizes (values given) and integer/boolean attributes. vals
 * needs dg_problem_nsyms(p) room; st stays valid while p, names and vals live. */
size_t dg_problem_nsyms(const dg_problem *p);
void dg_problem_symtab(const dg_problem *p, const int64_t *sizes, const char **names,
                       int64_t *vals, dg_symtab *st);

/* Refuses sizes breaking a constraint (the constraint named, at its position)
 * or giving a negative dimension. */
bool dg_problem_check_sizes(const dg_problem *p, const int64_t *sizes, dg_diags *d);
/* Dimensions of tensor t (rank = p->tensors.v[t].shape.n entries). */
bool dg_problem_shape(const dg_problem *p, int t, const int64_t *sizes, int64_t *dims, dg_diags *d);
int64_t dg_problem_numel(const dg_problem *p, int t, const int64_t *sizes);   /* -1 on error */
bool dg_problem_range(const dg_problem *p, int t, const int64_t *sizes, int64_t *lo, int64_t *hi,
                      dg_diags *d);
bool dg_problem_zero_bytes(const dg_problem *p, int t, const int64_t *sizes, int64_t *n, dg_diags *d);
/* Grid, block and dynamic shared bytes of launch i. */
bool dg_problem_launch_dims(const dg_problem *p, int i, const int64_t *sizes, int64_t grid[3],
                            int64_t block[3], int64_t *shared, dg_diags *d);
/* The kernel launch i names, with its template arguments ("reduce6<float, 256, true>"):
 * the launch's own, else the spec's `template`. Caller frees. *templated (may be
 * NULL) says whether there were any. Emulator and GPU both name instances so. */
char *dg_problem_launch_instance(const dg_problem *p, int i, bool *templated);
/* Where argument a of launch li is written in the spec (the launch's span when unknown). */
dg_span dg_problem_launch_arg_span(const dg_problem *p, int li, int a);
/* Value of an integer argument (DG_ARG_EXPR, DG_ARG_BOOL) of launch i. */
bool dg_problem_arg_int(const dg_problem *p, int i, int arg, const int64_t *sizes, int64_t *v,
                        dg_diags *d);
/* Tolerance for output t: the spec's override, else the op's for t's dtype, else a default. */
dg_tol dg_problem_tol(const dg_problem *p, int t);

/* ---- the reference ------------------------------------------------------------- */
dg_ref_status dg_problem_ref_eval(const dg_problem *p, const dg_ref_env *env, int t,
                                  const int64_t *idx, dg_refval *out, char **err);
/* Batch: falls back to per-element eval when the reference has no batch path. */
dg_ref_status dg_problem_ref_eval_all(const dg_problem *p, const dg_ref_env *env, int t,
                                      double *out, uint8_t *defined, char **err);
/* For sampled validation: the whole output when the reference's batch path is
 * cheaper than k per-element evals (dg_ref_ops.eval_all_within); else DG_REF_NIL. */
dg_ref_status dg_problem_ref_eval_all_within(const dg_problem *p, const dg_ref_env *env, int t, int64_t k,
                                             double *out, uint8_t *defined, char **err);

#endif
