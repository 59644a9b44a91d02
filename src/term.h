/* term.h — the symbolic term DAG of the checker (DESIGN 1.1, 5).
 *
 * A term_ctx owns every term of one check. Terms are hash-consed: building the
 * same structure twice gives the same dg_term id, so equality of terms is
 * equality of ids. Constructors normalise as they build (term_real.c lists
 * every rewrite with why it is sound over the reals): + * max min are n-ary
 * associative-commutative with operands kept in a canonical persistent set, so
 * a tree reduction and a sequential loop over the same values meet in one id,
 * and adding one operand to a sum of n costs O(log n) memory, not O(n).
 *
 * Float model: a context is created for the REAL model (floats are reals,
 * normalised) or the IEEE model (floats are IEEE floats of their dtype, built
 * as written, no algebraic rewrites). term_float_sort() gives the sort a float
 * dtype has in the context's model; every arithmetic constructor dispatches on
 * the sort of its operands. Mixing sorts is a caller bug and aborts.
 *
 * Ids: 0 (TERM_NONE) is "no term". Ids of operands are always smaller than the
 * id of the term that uses them (walks go in id order, no recursion).
 * Nothing returned here needs freeing except what term_print returns. */
#ifndef DG_TERM_H
#define DG_TERM_H
#include "util.h"

typedef uint32_t dg_term;
#define TERM_NONE ((dg_term)0)
typedef struct term_ctx term_ctx;

/* ---- sorts ---------------------------------------------------------------- */
typedef uint8_t term_sort;
enum {
  TERM_S_NONE = 0x00,
  TERM_S_BOOL = 0x10,
  TERM_S_REAL = 0x20,                        /* the real-model float */
  TERM_S_I8 = 0x30, TERM_S_I16, TERM_S_I32, TERM_S_I64,   /* bit-vectors; signedness is in the ops */
  TERM_S_F16 = 0x40, TERM_S_BF16, TERM_S_F32, TERM_S_F64, /* IEEE floats (bit-precise model) */
};
#define TERM_SK(s) ((s) & 0xF0)              /* kind: TERM_S_BOOL, _REAL, 0x30 ints, 0x40 floats */
#define TERM_SK_INT 0x30
#define TERM_SK_FP 0x40
int term_sort_bits(term_sort s);             /* bit width of ints and floats; 0 otherwise */
const char *term_sort_name(term_sort s);     /* "real", "bv32", "f16", ... */

typedef enum { TERM_MODEL_REAL, TERM_MODEL_IEEE } term_model;

/* ---- context -------------------------------------------------------------- */
term_ctx *term_ctx_new(term_model model);
void term_ctx_free(term_ctx *c);
term_model term_ctx_model(const term_ctx *c);
size_t term_ctx_count(const term_ctx *c);     /* terms created (ids 1..count) */
size_t term_ctx_bytes(const term_ctx *c);     /* memory held by the context, all tables */
/* Lookups of the node table so far (hits and new nodes): the work the
 * constructors did, for tests and benchmarks (term_ctx_count counts only new). */
size_t term_ctx_lookups(const term_ctx *c);
/* The sort of a float dtype (dg_tykind DG_TY_F16/BF16/F32/F64) in the ctx's model. */
term_sort term_float_sort(const term_ctx *c, int dg_tykind);
/* The sort of an integer or bool dtype (dg_tykind). */
term_sort term_int_sort(int dg_tykind);

/* ---- leaves --------------------------------------------------------------- */
dg_term term_true(term_ctx *c);
dg_term term_false(term_ctx *c);
dg_term term_bool(term_ctx *c, bool v);
dg_term term_real(term_ctx *c, double v);               /* a REAL constant (±inf allowed, not NaN) */
dg_term term_fp(term_ctx *c, term_sort s, double v);    /* an IEEE constant, v rounded to s */
dg_term term_int(term_ctx *c, term_sort s, int64_t v);  /* a bit-vector constant, wrapped to s */
/* A float constant in the ctx's model: term_real or term_fp of the dtype's sort. */
dg_term term_float(term_ctx *c, int dg_tykind, double v);

typedef enum {
  TERM_VAR_INPUT,     /* an element of an input tensor: tensor[index] */
  TERM_VAR_UNINIT,    /* the garbage in uninitialised memory: buffer[index] */
  TERM_VAR_FREE,      /* anything else, by name */
} term_varkind;

typedef struct {
  term_varkind kind;
  const char *tensor;   /* tensor / buffer name, or the free variable's name */
  int64_t index;        /* flat element index (0 for free variables) */
  int dtype;            /* dg_tykind of the element, for turning a model into inputs */
  const char *name;     /* display name ("x[3][17]"); NULL: tensor[index] */
} term_varinfo;

/* The variable described by vi, of sort s. Interned by (kind, tensor, index,
 * sort): asking twice gives the same term. The strings are copied. */
dg_term term_var(term_ctx *c, term_sort s, const term_varinfo *vi);
size_t term_var_count(const term_ctx *c);
/* Variables are numbered 0..count-1 in creation order (term_eval's values). */
dg_term term_var_term(const term_ctx *c, size_t ordinal);
const term_varinfo *term_var_info(const term_ctx *c, size_t ordinal);
/* Ordinal of a variable term; -1 if t is not a variable. */
long term_var_ordinal(const term_ctx *c, dg_term t);

/* ---- arithmetic (REAL: normalised; IEEE: as written, round to nearest even;
 * ints: wrapping two's complement) ------------------------------------------ */
dg_term term_add(term_ctx *c, dg_term a, dg_term b);
dg_term term_sub(term_ctx *c, dg_term a, dg_term b);
dg_term term_mul(term_ctx *c, dg_term a, dg_term b);
dg_term term_div(term_ctx *c, dg_term a, dg_term b);   /* floats only; ints: term_idiv */
dg_term term_neg(term_ctx *c, dg_term a);
dg_term term_min(term_ctx *c, dg_term a, dg_term b);   /* ints: signed; see term_iminmax */
dg_term term_max(term_ctx *c, dg_term a, dg_term b);
dg_term term_abs(term_ctx *c, dg_term a);
dg_term term_fma(term_ctx *c, dg_term a, dg_term b, dg_term d); /* a*b+d (REAL: exactly that) */

/* ---- integers (bit-vectors) ----------------------------------------------- */
dg_term term_idiv(term_ctx *c, dg_term a, dg_term b, bool is_signed);  /* C: truncates */
dg_term term_irem(term_ctx *c, dg_term a, dg_term b, bool is_signed);
dg_term term_iminmax(term_ctx *c, dg_term a, dg_term b, bool is_signed, bool is_max);
dg_term term_shl(term_ctx *c, dg_term a, dg_term b);
dg_term term_shr(term_ctx *c, dg_term a, dg_term b, bool is_signed);  /* arithmetic if signed */
dg_term term_band(term_ctx *c, dg_term a, dg_term b);
dg_term term_bor(term_ctx *c, dg_term a, dg_term b);
dg_term term_bxor(term_ctx *c, dg_term a, dg_term b);
dg_term term_bnot(term_ctx *c, dg_term a);

/* ---- comparisons (result bool). Ints compare signed unless term_icmp says. - */
typedef enum { TERM_CMP_EQ, TERM_CMP_NE, TERM_CMP_LT, TERM_CMP_LE, TERM_CMP_GT, TERM_CMP_GE } term_cmpop;
dg_term term_cmp(term_ctx *c, term_cmpop op, dg_term a, dg_term b);
dg_term term_icmp(term_ctx *c, term_cmpop op, dg_term a, dg_term b, bool is_signed);
dg_term term_eq(term_ctx *c, dg_term a, dg_term b);    /* IEEE: fp.eq (NaN != NaN) */
dg_term term_lt(term_ctx *c, dg_term a, dg_term b);
dg_term term_le(term_ctx *c, dg_term a, dg_term b);

/* ---- booleans and choice ---------------------------------------------------- */
dg_term term_and(term_ctx *c, dg_term a, dg_term b);
dg_term term_or(term_ctx *c, dg_term a, dg_term b);
dg_term term_not(term_ctx *c, dg_term a);
dg_term term_ite(term_ctx *c, dg_term cond, dg_term a, dg_term b);
dg_term term_isnan(term_ctx *c, dg_term a);    /* REAL: false */
dg_term term_isinf(term_ctx *c, dg_term a);    /* REAL: false */

/* ---- conversions -------------------------------------------------------------
 * term_convert(a, to, sgn): int->int (extend by a's signedness sgn, or wrap),
 * int->real/float (sgn: a is signed), real/float->int (truncates toward zero;
 * sgn: the target is signed), float->float (rounds; REAL->REAL is a no-op),
 * bool->int (0/1), int->bool (!= 0). */
dg_term term_convert(term_ctx *c, dg_term a, term_sort to, bool sgn);
dg_term term_floor(term_ctx *c, dg_term a);
dg_term term_ceil(term_ctx *c, dg_term a);
dg_term term_trunc(term_ctx *c, dg_term a);

/* ---- transcendental functions: uninterpreted in Z3, with facts (smt.h) ---- */
typedef enum {
  TERM_FN_EXP, TERM_FN_LOG, TERM_FN_SQRT, TERM_FN_RSQRT, TERM_FN_TANH, TERM_FN_ERF,
  TERM_FN_SIN, TERM_FN_COS, TERM_FN_EXP2, TERM_FN_LOG2, TERM_FN_LOG1P, TERM_FN__COUNT
} term_fn;
dg_term term_fn1(term_ctx *c, term_fn f, dg_term a);
dg_term term_pow(term_ctx *c, dg_term a, dg_term b);
dg_term term_exp(term_ctx *c, dg_term a);
const char *term_fn_name(term_fn f);

/* ---- inspection ------------------------------------------------------------- */
term_sort term_sort_of(const term_ctx *c, dg_term t);
bool term_is_const(const term_ctx *c, dg_term t);
bool term_const_bool(const term_ctx *c, dg_term t, bool *v);     /* false if not a bool constant */
bool term_const_int(const term_ctx *c, dg_term t, int64_t *v);   /* bits sign-extended from the width */
bool term_const_double(const term_ctx *c, dg_term t, double *v); /* REAL and IEEE constants */
size_t term_dag_size(const term_ctx *c, dg_term t);  /* distinct terms reachable (printing, stats) */
/* The variables t depends on, in ordinal order, as a malloc'd array (caller
 * frees; NULL when none); *n gets their count. */
dg_term *term_vars_of(const term_ctx *c, dg_term t, size_t *n);

/* ---- printing ---------------------------------------------------------------
 * Infix, for a screen: x[0] + 2*x[1] - max(a, b). Subterms used more than once
 * and bigger than a few nodes become `let t12 = ... in`; output stops near
 * max_len bytes with "..." (0: no limit). Caller frees. */
char *term_print(const term_ctx *c, dg_term t, size_t max_len);
void term_print_buf(dg_buf *out, const term_ctx *c, dg_term t, size_t max_len);

/* ---- concrete evaluation (replaying a model) -------------------------------
 * vals[i] is the value of variable ordinal i (term_var_count of them; NULL: all 0): f for
 * reals and IEEE floats, i for ints (bits; any sign extension) and bools (0/1).
 * Reals evaluate in double; IEEE floats round to their format after each op;
 * transcendentals use libm. Division of ints by zero gives 0 and sets *err. */
typedef struct { double f; int64_t i; } term_value;
term_value term_eval(const term_ctx *c, dg_term t, const term_value *vals, bool *err);

#endif
