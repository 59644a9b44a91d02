/* term_priv.h — the inside of term_ctx, shared by term*.c and smt*.c only.
 *
 * A node is 20 bytes: op, sort, a 16-bit aux and four 32-bit fields. Which
 * fields hold term ids is a property of the op (term_op_info.refs). N-ary AC
 * operators keep their operands in a persistent treap of TOP_SET nodes whose
 * priorities are a hash of the key: the shape of such a treap depends only on
 * its keys, so hash-consing the nodes makes equal sets equal ids. */
#ifndef DG_TERM_PRIV_H
#define DG_TERM_PRIV_H
#include "term.h"

/* op, printed name, fields holding term ids (bit 0 = a .. bit 3 = d) */
#define TERM_OPS(X) \
  X(CONST, "const", 0) X(VAR, "var", 0) \
  X(SET, "set", 15)     /* treap node: a key, b value (const or 0), c left, d right */ \
  X(ADD, "+", 3)        /* REAL: a constant (0 = none), b set key->coefficient */ \
  X(MUL, "*", 7)        /* REAL: a constant (0 = 1), b set base->exponent, c exp argument (0 = none) */ \
  X(MAX, "max", 3) X(MIN, "min", 3)  /* REAL: a constant (0 = none), b set */ \
  X(DIV, "/", 3) X(ABS, "abs", 1) \
  X(FLOOR, "floor", 1) X(CEIL, "ceil", 1) X(TRUNC, "trunc", 1) \
  X(FADD, "+", 3) X(FSUB, "-", 3) X(FMUL, "*", 3) X(FDIV, "/", 3) X(FNEG, "-", 1) \
  X(FMAX, "fmax", 3) X(FMIN, "fmin", 3) X(FABS, "fabs", 1) X(FMA, "fma", 7) \
  X(ITE, "ite", 7) X(EQ, "==", 3) X(FEQ, "==", 3) X(LT, "<", 3) X(LE, "<=", 3) \
  X(ULT, "<u", 3) X(ULE, "<=u", 3) \
  X(AND, "&&", 3) X(OR, "||", 3) X(NOT, "!", 1) X(ISNAN, "isnan", 1) X(ISINF, "isinf", 1) \
  X(BADD, "+", 3) X(BSUB, "-", 3) X(BMUL, "*", 3) X(BNEG, "-", 1) \
  X(SDIV, "/", 3) X(UDIV, "/u", 3) X(SREM, "%", 3) X(UREM, "%u", 3) \
  X(SHL, "<<", 3) X(LSHR, ">>u", 3) X(ASHR, ">>", 3) \
  X(BAND, "&", 3) X(BOR, "|", 3) X(BXOR, "^", 3) X(BNOT, "~", 1) \
  X(CVT, "cvt", 1)      /* a converted to the node's sort; aux 1: the int side is signed */ \
  X(FN, "fn", 1)        /* aux: term_fn */ \
  X(POW, "pow", 3)

typedef enum {
#define X(id, name, refs) TOP_##id,
  TERM_OPS(X)
#undef X
  TOP__COUNT
} term_op;

typedef struct { const char *name; uint8_t refs; } term_op_info;
extern const term_op_info term_ops[TOP__COUNT];

typedef struct {
  uint8_t op, sort;
  uint16_t aux;
  uint32_t a, b, c, d;
} term_node;

/* A hash-table slot keeps the node's hash beside its id: a probe compares
 * hashes first and touches the node array only on a likely match. */
typedef struct { uint32_t id, hash; } term_slot;
/* One remembered set union: (s1, s2, mode) -> r. Results are canonical (the
 * treap of a key set is unique), so a hit returns exactly what recomputing
 * would; a miss recomputes. */
typedef struct { uint32_t s1, s2, r, mode; } term_memo;

#define TERM_CONST_CACHE_BITS 8
typedef struct { uint64_t bits; uint32_t id; term_sort sort; } term_constslot;

struct term_ctx {
  term_model model;
  DG_VEC(term_node) nodes;      /* nodes.v[0] is unused: id 0 is TERM_NONE */
  term_slot *tab;               /* open addressing, linear probing; id 0 = empty */
  size_t tabcap, tabn;
  size_t lookups;               /* term_intern calls */
  term_memo *memo;              /* term_set_union's computed table (lossy, direct-mapped) */
  size_t memocap;
  term_constslot consts[1 << TERM_CONST_CACHE_BITS];   /* mk_const64's cache */
  DG_VEC(char *) strs;          /* interned tensor names */
  DG_VEC(term_varinfo) vars;    /* by ordinal; tensor points into strs, name owned */
  DG_VEC(dg_term) varterms;
};

static inline const term_node *term_node_of(const term_ctx *c, dg_term t)
{
  return &c->nodes.v[t];
}
static inline term_op term_op_of(const term_ctx *c, dg_term t) { return (term_op)c->nodes.v[t].op; }

/* term.c */
dg_term term_intern(term_ctx *c, term_op op, term_sort s, uint16_t aux,
                    uint32_t a, uint32_t b, uint32_t cc, uint32_t d);
double term_real_val(const term_ctx *c, dg_term t);       /* REAL/IEEE constant value */
uint64_t term_bits_val(const term_ctx *c, dg_term t);     /* int/bool constant bits */
uint64_t term_mask(term_sort s);
int64_t term_sext(term_sort s, uint64_t bits);
double term_round_to(term_sort s, double v);   /* round a double to an IEEE sort */
_Noreturn void term_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Marks every term reachable from roots (bitmap of ctx size, caller frees). */
uint8_t *term_reach(const term_ctx *c, const dg_term *roots, size_t nroots);

/* term_set.c: canonical persistent sets/maps (treaps of TOP_SET nodes).
 * Values are REAL constants (coefficients, exponents) or 0 (plain sets). */
typedef enum { TERM_SET_PLAIN, TERM_SET_SUM } term_setmode;  /* SUM: values add, 0 drops */
dg_term term_set_one(term_ctx *c, dg_term key, dg_term val);
dg_term term_set_union(term_ctx *c, dg_term s1, dg_term s2, term_setmode m);
dg_term term_set_scale(term_ctx *c, dg_term s, double k);   /* values times k (k != 0) */
size_t term_set_size(const term_ctx *c, dg_term s);
/* In key order; callback's return false stops. The callback may create terms. */
typedef bool (*term_set_fn)(void *ud, dg_term key, dg_term val);
bool term_set_each(const term_ctx *c, dg_term s, term_set_fn fn, void *ud);
/* The only (key, val) of a one-element set; false otherwise. */
bool term_set_single(const term_ctx *c, dg_term s, dg_term *key, dg_term *val);

/* term_real.c: the REAL-model normalising constructors. */
dg_term term_r_add(term_ctx *c, dg_term a, dg_term b);
dg_term term_r_mul(term_ctx *c, dg_term a, dg_term b);
dg_term term_r_scale(term_ctx *c, dg_term a, double k);
dg_term term_r_div(term_ctx *c, dg_term a, dg_term b);
dg_term term_r_minmax(term_ctx *c, dg_term a, dg_term b, bool is_max);
dg_term term_r_exp(term_ctx *c, dg_term a);
dg_term term_r_abs(term_ctx *c, dg_term a);
/* t = k + Σ val*key (a set of monomials of coefficient 1); may create terms. */
void term_r_linear(term_ctx *c, dg_term t, double *k, dg_term *set);

#endif
