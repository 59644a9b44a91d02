/* term_fn.c — conversions, rounding to integers, and the transcendental
 * functions (uninterpreted in Z3). Rewrites here: values of a function at the
 * points where it is exact (exp(0) = 1, log(1) = 0, sqrt(1) = 1, ...),
 * log(exp(x)) = x over the reals, floor(floor(x)) = floor(x), pow(x, n) = x^n
 * for small integer n, and constant folding of exact conversions. */
#include "term_priv.h"
#include <math.h>

static const char *const fn_names[TERM_FN__COUNT] = {
  "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sin", "cos", "exp2", "log2", "log1p",
};
const char *term_fn_name(term_fn f) { return f < TERM_FN__COUNT ? fn_names[f] : "?"; }

/* f(at) = val exactly. */
static const struct { term_fn f; double at, val; } exact_points[] = {
  { TERM_FN_EXP, 0, 1 }, { TERM_FN_EXP, -INFINITY, 0 }, { TERM_FN_EXP2, -INFINITY, 0 }, { TERM_FN_LOG, 1, 0 }, { TERM_FN_SQRT, 0, 0 }, { TERM_FN_SQRT, 1, 1 },
  { TERM_FN_RSQRT, 1, 1 }, { TERM_FN_TANH, 0, 0 }, { TERM_FN_ERF, 0, 0 }, { TERM_FN_SIN, 0, 0 },
  { TERM_FN_COS, 0, 1 }, { TERM_FN_EXP2, 0, 1 }, { TERM_FN_LOG2, 1, 0 }, { TERM_FN_LOG1P, 0, 0 },
};

dg_term term_fn1(term_ctx *c, term_fn f, dg_term a)
{
  term_sort s = term_sort_of(c, a);
  double x;
  if (s != TERM_S_REAL && TERM_SK(s) != TERM_SK_FP) term_die("%s of %s", term_fn_name(f), term_sort_name(s));
  if (term_const_double(c, a, &x))
    for (size_t i = 0; i < sizeof exact_points / sizeof *exact_points; i++)
      if (exact_points[i].f == f && exact_points[i].at == x)
        return s == TERM_S_REAL ? term_real(c, exact_points[i].val) : term_fp(c, s, exact_points[i].val);
  if (s == TERM_S_REAL) {
    if (f == TERM_FN_EXP) return term_r_exp(c, a);
    const term_node *n = term_node_of(c, a);
    if (f == TERM_FN_LOG && n->op == TOP_FN && n->aux == TERM_FN_EXP) return n->a;
  }
  return term_intern(c, TOP_FN, s, (uint16_t)f, a, 0, 0, 0);
}

dg_term term_exp(term_ctx *c, dg_term a) { return term_fn1(c, TERM_FN_EXP, a); }

dg_term term_pow(term_ctx *c, dg_term a, dg_term b)
{
  term_sort s = term_sort_of(c, a);
  double n;
  if (term_sort_of(c, b) != s || (s != TERM_S_REAL && TERM_SK(s) != TERM_SK_FP))
    term_die("pow of %s and %s", term_sort_name(s), term_sort_name(term_sort_of(c, b)));
  if (s == TERM_S_REAL && term_const_double(c, b, &n) && n >= 0 && n <= 4 && n == floor(n)) {
    dg_term r = term_real(c, 1);
    for (int i = 0; i < (int)n; i++) r = term_mul(c, r, a);
    return r;
  }
  return term_intern(c, TOP_POW, s, 0, a, b, 0, 0);
}

/* ---- rounding to integral values ------------------------------------------------ */
static dg_term round_op(term_ctx *c, term_op op, dg_term a, double (*fn)(double))
{
  term_sort s = term_sort_of(c, a);
  double x;
  if (TERM_SK(s) == TERM_SK_INT) return a;
  if (s != TERM_S_REAL && TERM_SK(s) != TERM_SK_FP) term_die("%s of %s", term_ops[op].name, term_sort_name(s));
  if (term_const_double(c, a, &x)) return s == TERM_S_REAL ? term_real(c, fn(x)) : term_fp(c, s, fn(x));
  term_op inner = term_op_of(c, a);
  if (inner == TOP_FLOOR || inner == TOP_CEIL || inner == TOP_TRUNC) return a;  /* already integral */
  return term_intern(c, op, s, 0, a, 0, 0, 0);
}

dg_term term_floor(term_ctx *c, dg_term a) { return round_op(c, TOP_FLOOR, a, floor); }
dg_term term_ceil(term_ctx *c, dg_term a) { return round_op(c, TOP_CEIL, a, ceil); }
dg_term term_trunc(term_ctx *c, dg_term a) { return round_op(c, TOP_TRUNC, a, trunc); }

/* ---- conversions ------------------------------------------------------------------ */
static dg_term num_const(term_ctx *c, term_sort to, double v)
{
  return to == TERM_S_REAL ? term_real(c, v) : term_fp(c, to, v);
}

dg_term term_convert(term_ctx *c, dg_term a, term_sort to, bool sg)
{
  term_sort from = term_sort_of(c, a);
  int fk = TERM_SK(from), tk = TERM_SK(to);
  bool fnum = from == TERM_S_REAL || fk == TERM_SK_FP, tnum = to == TERM_S_REAL || tk == TERM_SK_FP;
  double x;
  uint64_t bits;
  if (from == to) return a;
  if (from == TERM_S_BOOL) {
    dg_term one = tk == TERM_SK_INT ? term_int(c, to, 1) : num_const(c, to, 1);
    dg_term zero = tk == TERM_SK_INT ? term_int(c, to, 0) : num_const(c, to, 0);
    return term_ite(c, a, one, zero);
  }
  if (to == TERM_S_BOOL) {
    dg_term zero = fk == TERM_SK_INT ? term_int(c, from, 0) : num_const(c, from, 0);
    return term_not(c, term_eq(c, a, zero));
  }
  if (!(fk == TERM_SK_INT || fnum) || !(tk == TERM_SK_INT || tnum))
    term_die("conversion from %s to %s", term_sort_name(from), term_sort_name(to));
  if (fk == TERM_SK_INT && tk == TERM_SK_INT) {
    if (term_sort_bits(to) < term_sort_bits(from)) sg = false;  /* truncation: sign is moot */
    if (term_is_const(c, a)) {
      bits = term_bits_val(c, a);
      return term_int(c, to, sg ? term_sext(from, bits) : (int64_t)bits);
    }
  } else if (fk == TERM_SK_INT) {              /* int -> real / float */
    if (term_is_const(c, a)) {
      bits = term_bits_val(c, a);
      return num_const(c, to, sg ? (double)term_sext(from, bits) : (double)bits);
    }
  } else if (tk == TERM_SK_INT) {              /* real / float -> int, toward zero */
    if (term_const_double(c, a, &x) && isfinite(x) && fabs(x) < 9.2e18) {
      double t = trunc(x);
      int w = term_sort_bits(to);
      double lim = ldexp(1.0, sg ? w - 1 : w);
      if (sg ? (t >= -lim && t < lim) : (t >= 0 && t < lim)) return term_int(c, to, (int64_t)t);
    }
  } else {                                      /* real / float -> real / float */
    sg = false;
    if (term_const_double(c, a, &x) && (to != TERM_S_REAL || isfinite(x))) return num_const(c, to, x);
  }
  return term_intern(c, TOP_CVT, to, sg, a, 0, 0, 0);
}
