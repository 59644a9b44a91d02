/* ir.h — the typed kernel IR: what the front end produces and the SIMT engine
 * (concrete and symbolic) executes. A tree IR, fully typed after lowering:
 * every implicit conversion is an explicit DG_EX_CAST, every node keeps the
 * span of the user's source it came from (after macro expansion, the span of
 * the macro use). All nodes live in the owning dg_module's arena. */
#ifndef DG_IR_H
#define DG_IR_H
#include "util.h"
#include "diag.h"

/* ---- types (interned per module: compare pointers) ---------------------- */
typedef enum {
  DG_TY_VOID, DG_TY_BOOL,
  DG_TY_I8, DG_TY_U8, DG_TY_I16, DG_TY_U16, DG_TY_I32, DG_TY_U32, DG_TY_I64, DG_TY_U64,
  DG_TY_F16, DG_TY_BF16, DG_TY_F32, DG_TY_F64,
  DG_TY_PTR,     /* elem = pointee */
  DG_TY_ARRAY,   /* elem, count (count < 0: unsized, e.g. extern __shared__ x[]) */
  DG_TY_VEC,     /* elem scalar, count lanes: float2/4, int2/4, half2, ... */
  DG_TY_STRUCT,  /* struct/class with data members: fields[nfields] (name, type, byte
                  * offset), size and align as nvcc lays them out (each field at its
                  * alignment, the size a multiple of the largest); nominal: one type per
                  * definition, compare pointers. As a value it is its scalar slots
                  * slots[nslots] in field order (vector lanes, array elements and nested
                  * structs flattened), as a vector is `count` lanes. */
  DG_TY__COUNT
} dg_tykind;

typedef enum { DG_AS_GENERIC, DG_AS_GLOBAL, DG_AS_SHARED, DG_AS_LOCAL, DG_AS_CONST } dg_addrspace;

typedef struct dg_type dg_type;
typedef struct dg_field dg_field;
typedef struct dg_tyslot dg_tyslot;
struct dg_type {
  dg_tykind kind;
  const dg_type *elem;
  int64_t count;
  uint8_t space;          /* dg_addrspace, for pointers (a hint; runtime pointers know their buffer) */
  bool is_const;          /* pointee const (pointers) */
  const char *name;       /* spelling for printing: "float4", "const float *"; structs: their name */
  /* DG_TY_STRUCT only (zero otherwise): */
  const dg_field *fields;
  int nfields;
  const dg_tyslot *slots; /* the scalar leaves, in memory order of the fields */
  int nslots;
  int64_t size, align;
};

struct dg_field {
  const char *name;
  const dg_type *type;    /* scalar, pointer, vector, fixed-size array or struct */
  int64_t offset;         /* bytes from the start of the struct */
  int slot;               /* index of its first scalar slot in the struct's slots */
};

struct dg_tyslot {
  const dg_type *type;    /* scalar or pointer */
  int64_t offset;         /* bytes from the start of the struct */
};

int64_t dg_type_size(const dg_type *t);     /* bytes, as on the GPU */
int64_t dg_type_align(const dg_type *t);
bool dg_type_is_int(const dg_type *t);      /* bool and all integer kinds */
bool dg_type_is_signed(const dg_type *t);
bool dg_type_is_float(const dg_type *t);    /* f16 bf16 f32 f64 */
bool dg_type_is_scalar(const dg_type *t);

/* ---- variables ------------------------------------------------------------ */
typedef enum {
  DG_VAR_LOCAL,           /* per thread: registers or local arrays; slot in the frame */
  DG_VAR_PARAM,           /* kernel / device-function parameter; slot in the frame */
  DG_VAR_SHARED,          /* __shared__ with a static size, per block */
  DG_VAR_SHARED_EXTERN,   /* extern __shared__ T x[]: the launch's dynamic shared memory */
  DG_VAR_GLOBAL,          /* __device__ / __constant__ variable, per launch */
} dg_varkind;

typedef struct dg_var {
  const char *name;
  const dg_type *type;
  dg_varkind kind;
  int slot;               /* frame slot (locals, params), or index into the owner's shared/global list */
  bool addr_taken;        /* & applied, or an array: lives in memory, not a register */
  bool is_const;          /* const / constexpr with a constant initialiser */
  dg_span span;
  bool by_ref;            /* a C++ reference (T &x): type is T*, uses dereference it,
                           * callers pass the address of an lvalue */
} dg_var;

/* ---- expressions ---------------------------------------------------------- */
typedef enum {
  DG_EX_INT,        /* ival, of type */
  DG_EX_FLOAT,      /* fval, of type (f16/bf16/f32 already rounded) */
  DG_EX_VAR,        /* var (lvalue) */
  DG_EX_BUILTIN,    /* threadIdx etc: builtin + dim */
  DG_EX_UNARY,      /* op: dg_unop, a */
  DG_EX_BINARY,     /* op: dg_binop, a, b (operands already converted) */
  DG_EX_LAND, DG_EX_LOR,  /* short-circuit: b evaluated only where needed */
  DG_EX_COND,       /* a ? b : c */
  DG_EX_ASSIGN,     /* a = b, or a op= b when op != DG_BIN_NONE; value is the new a */
  DG_EX_INCDEC,     /* ++/-- on lvalue a: op DG_BIN_ADD/SUB, post = value before */
  DG_EX_CALL,       /* call of func with args */
  DG_EX_INTRIN,     /* builtin function (builtins.def) with args */
  DG_EX_CAST,       /* a converted to type: cast kind in op (dg_castkind) */
  DG_EX_INDEX,      /* a[b]: a is pointer or array, b integer; lvalue of elem */
  DG_EX_DEREF,      /* *a; lvalue */
  DG_EX_ADDR,       /* &a; a is an lvalue */
  DG_EX_LANE,       /* a.x/.y/.z/.w of a vector: lane index in ival; lvalue if a is */
  DG_EX_VECBUILD,   /* make_float4(...) and friends: args are the lanes. Of a struct type
                     * (aggregate initialisation MD{a, b}): args fill the slots in order,
                     * each as many as it has (one per scalar, a vector's lanes, a nested
                     * struct's slots; array members are one arg per element) */
  DG_EX_COMMA,      /* a, b */
  DG_EX_FIELD,      /* a.f of a struct value a: field index in ival (a->type->fields[ival]),
                     * type the field's; lvalue if a is (p->f is FIELD of DEREF p) */
  DG_EX__COUNT
} dg_exkind;

typedef enum {
  DG_UN_NEG, DG_UN_NOT /* logical ! */, DG_UN_BITNOT, DG_UN__COUNT
} dg_unop;

typedef enum {
  DG_BIN_NONE,
  DG_BIN_ADD, DG_BIN_SUB, DG_BIN_MUL, DG_BIN_DIV, DG_BIN_MOD,
  DG_BIN_SHL, DG_BIN_SHR, DG_BIN_AND, DG_BIN_OR, DG_BIN_XOR,
  DG_BIN_EQ, DG_BIN_NE, DG_BIN_LT, DG_BIN_LE, DG_BIN_GT, DG_BIN_GE,  /* result bool */
  DG_BIN_PTRADD,    /* ptr + integer count of elements (scaled by the engine) */
  DG_BIN_PTRDIFF,   /* ptr - ptr, in elements, type i64 */
  DG_BIN__COUNT
} dg_binop;

typedef enum {
  DG_CAST_CONVERT,  /* value conversion: int<->float, widen, narrow (wraps), f32->f16 rounds */
  DG_CAST_BITCAST,  /* same size, reinterpret bits (__float_as_int, ...) */
  DG_CAST_PTR,      /* pointer to pointer (reinterpret_cast<float4*>), or array decay */
  DG_CAST_PTR2INT, DG_CAST_INT2PTR,
} dg_castkind;

typedef enum {
  DG_BI_THREADIDX, DG_BI_BLOCKIDX, DG_BI_BLOCKDIM, DG_BI_GRIDDIM, DG_BI_WARPSIZE, DG_BI__COUNT
} dg_builtin;

/* Builtin functions: one X-macro table (builtins.def) gives each its name,
 * arity, signature and semantic class; DG_IN_<ID> enumerates them. */
typedef enum {
#define DG_INTRIN(id, name, arity, sig, cls) DG_IN_##id,
#include "builtins.def"
#undef DG_INTRIN
  DG_IN__COUNT
} dg_intrin;

typedef struct dg_func dg_func;
typedef struct dg_expr dg_expr;
struct dg_expr {
  dg_exkind kind;
  int op;                 /* dg_unop / dg_binop / dg_castkind / dg_intrin / dg_builtin */
  const dg_type *type;
  dg_span span;
  bool post;              /* DG_EX_INCDEC: postfix */
  int dim;                /* DG_EX_BUILTIN: 0 x, 1 y, 2 z */
  int64_t ival;           /* DG_EX_INT value; DG_EX_LANE index */
  double fval;            /* DG_EX_FLOAT */
  dg_var *var;            /* DG_EX_VAR */
  dg_func *func;          /* DG_EX_CALL */
  dg_expr *a, *b, *c;
  dg_expr **args;         /* DG_EX_CALL, DG_EX_INTRIN, DG_EX_VECBUILD */
  int nargs;
};

/* ---- statements ----------------------------------------------------------- */
typedef enum {
  DG_ST_BLOCK,      /* body[nbody] */
  DG_ST_DECL,       /* var = init (init may be NULL: uninitialised); arrays: inits[ninits] */
  DG_ST_EXPR,       /* e */
  DG_ST_IF,         /* cond, then, els (els may be NULL) */
  DG_ST_FOR,        /* init (stmt or NULL), cond (NULL: true), step (expr or NULL), then = body */
  DG_ST_WHILE,      /* cond, then = body */
  DG_ST_DO,         /* then = body, cond */
  DG_ST_BREAK, DG_ST_CONTINUE,
  DG_ST_RETURN,     /* e may be NULL */
  DG_ST_SWITCH,     /* cond; body[nbody] with cases[ncases] pointing at statement indices */
  DG_ST_NOP,
  DG_ST__COUNT
} dg_stkind;

typedef struct { int64_t value; bool is_default; int first; } dg_case;

typedef struct dg_stmt dg_stmt;
struct dg_stmt {
  dg_stkind kind;
  dg_span span;
  dg_expr *e;             /* EXPR, RETURN, loop cond, if cond, switch cond */
  dg_var *var;            /* DECL */
  dg_expr **inits;        /* DECL of an array with an initialiser list */
  int ninits;
  dg_stmt *init;          /* FOR */
  dg_expr *step;          /* FOR */
  dg_stmt *then, *els;    /* IF branches; loop body in then */
  dg_stmt **body;         /* BLOCK, SWITCH */
  int nbody;
  dg_case *cases;         /* SWITCH */
  int ncases;
  int unroll;             /* #pragma unroll hint: 0 none, -1 full, n */
};

/* ---- functions and modules ------------------------------------------------ */
struct dg_func {
  const char *name;       /* instances spelled with their arguments: "reduce6<float, 256, true>" */
  const char *base_name;  /* "reduce6" */
  const dg_type *ret;
  dg_var **params;
  int nparams;
  dg_stmt *body;
  int nslots;             /* frame slots: params first, then locals */
  dg_var **locals;        /* every local and param by slot */
  dg_var **shared;        /* __shared__ variables declared in this function */
  int nshared;
  bool is_kernel;         /* __global__ */
  dg_span span;
};

typedef struct {
  const char *text;       /* the launch as written in host code: "k<<<g, b>>>(x, y)" */
  const char *kernel;     /* callee, with template arguments if written */
  dg_span span;
} dg_host_launch;

typedef struct dg_module dg_module;
struct dg_module {
  dg_arena arena;         /* owns every node, type and string of the IR */
  dg_srcmgr *sm;          /* owns the source text the spans point into (not freed with the module) */
  uint32_t file;          /* the main file */
  DG_VEC(dg_func *) funcs;      /* kernels, device functions and template instances */
  DG_VEC(const char *) templates; /* names of templates not yet instantiated */
  DG_VEC(dg_var *) globals;     /* __device__ / __constant__ variables */
  DG_VEC(dg_host_launch) launches; /* launches seen in host code (set aside, listed) */
  DG_VEC(const dg_type *) structs; /* struct types defined in the file, in order */
  dg_diags diags;
  void *fe_private;       /* front-end state kept for on-demand template instantiation */
  struct ir_typetab *types; /* interned derived types (ir_types.c); freed by ir_types_free */
};

/* Type construction (ir_types.c). Scalars are static, shared by every module;
 * derived types are interned in m (same arguments, same pointer) and live in
 * m->arena. Pointer identity includes space and const; compare kinds with
 * ir_type_equiv when those do not matter. */
const dg_type *ir_type_scalar(dg_tykind k);
const dg_type *ir_type_ptr(dg_module *m, const dg_type *elem, dg_addrspace sp, bool is_const);
const dg_type *ir_type_array(dg_module *m, const dg_type *elem, int64_t count);
const dg_type *ir_type_vec(dg_module *m, const dg_type *elem, int count);
/* A new struct type named name (NULL for anonymous) with fields[n] (name and
 * type read; offset and slot computed here), appended to m->structs. NULL
 * if a field's type cannot be part of a struct (void, unsized array) or it
 * would have more than IR_STRUCT_MAX_SLOTS scalar slots. */
#define IR_STRUCT_MAX_SLOTS 4096
const dg_type *ir_type_struct(dg_module *m, const char *name, const dg_field *fields, int n);
/* The field of struct t named name; -1 if none. */
int ir_struct_field(const dg_type *t, const char *name, size_t len);
bool ir_type_equiv(const dg_type *a, const dg_type *b);   /* same shape, ignoring space/const */
void ir_types_free(dg_module *m);

/* Printing (ir_print.c). */
void ir_print_func(dg_buf *out, const dg_module *m, const dg_func *f);
void ir_print_expr(dg_buf *out, const dg_expr *e);
/* The definition, one field a line with its byte offset, size and align. */
void ir_print_struct(dg_buf *out, const dg_type *t);
const char *ir_type_name(const dg_type *t);
const char *ir_binop_name(dg_binop op);   /* "+", "<<", ... */
const char *ir_intrin_name(dg_intrin in);

/* ---- the builtin-function table (ir_builtins.c) --------------------------- */
typedef enum {
#define DG_IC(x) DG_IC_##x,
  DG_IC(MATH_EXP) DG_IC(MATH_EXP2) DG_IC(MATH_LOG) DG_IC(MATH_LOG2) DG_IC(MATH_LOG1P)
  DG_IC(MATH_SQRT) DG_IC(MATH_RSQRT) DG_IC(MATH_TANH) DG_IC(MATH_ERF) DG_IC(MATH_SIN)
  DG_IC(MATH_COS) DG_IC(MATH_POW) DG_IC(MATH_MAX) DG_IC(MATH_MIN) DG_IC(MATH_ABS)
  DG_IC(MATH_FLOOR) DG_IC(MATH_CEIL) DG_IC(MATH_ROUND) DG_IC(MATH_FMA) DG_IC(MATH_DIV)
  DG_IC(MATH_RCP) DG_IC(MATH_SATURATE) DG_IC(MATH_ISNAN) DG_IC(MATH_ISINF)
  DG_IC(MATH_ADD) DG_IC(MATH_SUB) DG_IC(MATH_MUL)
  DG_IC(INT_POPC) DG_IC(INT_CLZ) DG_IC(INT_FFS) DG_IC(INT_MUL24) DG_IC(INT_MULHI)
  DG_IC(CVT_BITS) DG_IC(CVT_ROUND) DG_IC(CVT_VALUE)
  DG_IC(VEC_BUILD) DG_IC(VEC_LOW) DG_IC(VEC_HIGH) DG_IC(LOAD)
  DG_IC(SYNC_BLOCK) DG_IC(SYNC_WARP) DG_IC(FENCE)
  DG_IC(WARP_SHFL) DG_IC(WARP_SHFL_UP) DG_IC(WARP_SHFL_DOWN) DG_IC(WARP_SHFL_XOR)
  DG_IC(WARP_BALLOT) DG_IC(WARP_ANY) DG_IC(WARP_ALL) DG_IC(WARP_ACTIVEMASK)
  DG_IC(ATOMIC_ADD) DG_IC(ATOMIC_SUB) DG_IC(ATOMIC_MAX) DG_IC(ATOMIC_MIN)
  DG_IC(ATOMIC_EXCH) DG_IC(ATOMIC_CAS) DG_IC(ATOMIC_AND) DG_IC(ATOMIC_OR)
  DG_IC(IGNORE) DG_IC(ASSERT)
#undef DG_IC
  DG_IC__COUNT
} dg_iclass;

typedef struct {
  const char *name;
  int arity;              /* most arguments; -1 variadic */
  const char *sig;
  dg_iclass cls;
} dg_intrin_info;

extern const dg_intrin_info dg_intrins[DG_IN__COUNT];
/* Lookup by spelling; -1 if not a builtin. */
int dg_intrin_lookup(const char *name);

#endif
