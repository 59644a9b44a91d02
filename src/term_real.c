/* term_real.c — normalising constructors of the REAL float model (DESIGN 5).
 *
 * Canonical shapes (every REAL term built here has one of them):
 *   ADD  k + Σ c_i*m_i      a: constant k (none if 0), b: set m_i -> c_i (c_i != 0),
 *                           m_i are monomials with coefficient 1, never ADD or CONST
 *   MUL  k * Π b_j^e_j * exp(E)   a: k (none if 1), b: set b_j -> e_j (integers >= 1),
 *                           c: E (none if absent); b_j are never MUL, CONST or exp
 *   MAX/MIN  max(k, x_1..x_n)  a: constant (or none), b: set of x_i (never the same op)
 *   DIV  a / b              b never a constant, never carries a constant factor or an exp
 *   exp(E)                  E never 0
 *
 * Rewrites, each an identity of real arithmetic (division: where the divisor is
 * non-zero; both sides of a check go through the same rewrites, so the choice
 * at 0 does not matter):
 *   (a+b)+c = a+(b+c), a+b = b+a           flattening, operands in a canonical set
 *   (ab)c = a(bc), ab = ba                   same for *
 *   max/min associative, commutative, idempotent (max(x,x) = x)
 *   k1 + k2, k1 * k2, max(k1,k2)             constant folding in double (the value
 *                                            of the constants is exact as long as
 *                                            doubles are: integer and dyadic ones)
 *   x + 0 = x, x*1 = x, x*0 = 0              (reals are finite: no NaN*0)
 *   c1*m + c2*m = (c1+c2)*m, m - m = 0       like terms
 *   x*x = x^2                                integer exponents of bases
 *   -x = (-1)*x, a - b = a + (-1)*b          negation as a coefficient
 *   k*(a+b) = k*a + k*b                      constants distribute over sums
 *   a / k = a * (1/k)                        division by a constant (k != 0)
 *   a / (k*P*exp(E)) = (a * exp(-E) / k) / P   constants and exps leave denominators
 *   exp(a)*exp(b) = exp(a+b), exp(a)^n = exp(n*a), exp(0) = 1
 *   log(exp(x)) = x
 *   max(a,b) + k = max(a+k, b+k)             when the max has at most 4 operands
 *   |k*x| = |k|*|x|, ||x|| = |x|
 *   pow(x, n) = x^n for n in 0..4            (C's pow(x, 0) is 1 for every x)
 *   max(-inf, x) = x, max(+inf, x) = +inf    (and min alike; see infc below)
 */
#include "term_priv.h"
#include <math.h>

static bool rconst(const term_ctx *c, dg_term t, double *v)
{
  if (term_op_of(c, t) != TOP_CONST) return false;
  *v = term_real_val(c, t);
  return true;
}

/* An infinite constant (kernels start a max at -INFINITY). Infinities are not
 * reals: arithmetic with them is kept unnormalised as binary FADD/FMUL/FDIV of
 * REAL sort (Z3 sees the infinity as an opaque constant; a witness that
 * depends on it must replay), while max/min and comparisons treat them
 * exactly: max(-inf, x) = x, -inf < x for every real x. */
static bool infc(const term_ctx *c, dg_term t)
{
  double v;
  return rconst(c, t, &v) && isinf(v);
}

static dg_term inf_arith(term_ctx *c, term_op op, dg_term a, dg_term b)
{
  double x, y, r;
  if (rconst(c, a, &x) && rconst(c, b, &y)) {
    r = op == TOP_FADD ? x + y : op == TOP_FMUL ? x * y : x / y;
    if (!isnan(r)) return term_real(c, r);
  }
  if (op != TOP_FDIV && a > b) { dg_term t = a; a = b; b = t; }
  return term_intern(c, op, TERM_S_REAL, 0, a, b, 0, 0);
}

static dg_term mk_exp(term_ctx *c, dg_term e)
{
  double v;
  if (rconst(c, e, &v) && v == 0) return term_real(c, 1);
  return term_intern(c, TOP_FN, TERM_S_REAL, TERM_FN_EXP, e, 0, 0, 0);
}

/* k * set * exp(e) in canonical form. */
static dg_term mk_mul(term_ctx *c, double k, dg_term set, dg_term e)
{
  double v;
  if (k == 0) return term_real(c, 0);
  if (e && rconst(c, e, &v) && v == 0) e = 0;
  if (!set && !e) return term_real(c, k);
  if (!set && k == 1) return mk_exp(c, e);
  dg_term key, val;
  if (k == 1 && !e && term_set_single(c, set, &key, &val) && term_real_val(c, val) == 1) return key;
  return term_intern(c, TOP_MUL, TERM_S_REAL, 0, k != 1 ? term_real(c, k) : 0, set, e, 0);
}

/* t = coef * key with key a monomial of coefficient 1. */
static void as_mono(term_ctx *c, dg_term t, double *coef, dg_term *key)
{
  const term_node *n = term_node_of(c, t);
  if (n->op == TOP_MUL && n->a) {
    term_node m = *n;
    *coef = term_real_val(c, m.a);
    *key = mk_mul(c, 1, m.b, m.c);
    return;
  }
  *coef = 1;
  *key = t;
}

void term_r_linear(term_ctx *c, dg_term t, double *k, dg_term *set)
{
  const term_node *n = term_node_of(c, t);
  if (n->op == TOP_CONST) { *k = term_real_val(c, t); *set = 0; return; }
  if (n->op == TOP_ADD) { *k = n->a ? term_real_val(c, n->a) : 0; *set = n->b; return; }
  double coef;
  dg_term key;
  as_mono(c, t, &coef, &key);
  *k = 0;
  *set = term_set_one(c, key, term_real(c, coef));
}

static void as_prod(term_ctx *c, dg_term t, double *k, dg_term *set, dg_term *e)
{
  const term_node *n = term_node_of(c, t);
  *k = 1; *set = 0; *e = 0;
  if (n->op == TOP_CONST) *k = term_real_val(c, t);
  else if (n->op == TOP_MUL) { *k = n->a ? term_real_val(c, n->a) : 1; *set = n->b; *e = n->c; }
  else if (n->op == TOP_FN && n->aux == TERM_FN_EXP) *e = n->a;
  else *set = term_set_one(c, t, term_real(c, 1));
}

dg_term term_r_scale(term_ctx *c, dg_term t, double k)
{
  if (k == 0) return term_real(c, 0);
  if (k == 1) return t;
  if (infc(c, t)) return term_real(c, term_real_val(c, t) * k);
  term_node n = *term_node_of(c, t);
  switch (n.op) {
  case TOP_CONST: return term_real(c, term_real_val(c, t) * k);
  case TOP_ADD: {
    double k0 = n.a ? term_real_val(c, n.a) * k : 0;
    return term_intern(c, TOP_ADD, TERM_S_REAL, 0, k0 != 0 ? term_real(c, k0) : 0,
                       term_set_scale(c, n.b, k), 0, 0);
  }
  default: {
    double k0;
    dg_term set, e;
    as_prod(c, t, &k0, &set, &e);
    return mk_mul(c, k0 * k, set, e);
  }
  }
}

static dg_term minmax_plus(term_ctx *c, dg_term mm, double k);

static bool not_mm(void *ud, dg_term key, dg_term val)
{
  term_op op = term_op_of(ud, key);
  return op != TOP_MAX && op != TOP_MIN;
}

/* Distributing k over a max is cheap: few operands, none a max/min itself. */
static bool cheap_mm(term_ctx *c, dg_term set)
{
  return term_set_size(c, set) <= 4 && term_set_each(c, set, not_mm, c);
}

static dg_term mk_add(term_ctx *c, double k, dg_term set)
{
  dg_term key, val;
  if (!set) return term_real(c, k);
  if (term_set_single(c, set, &key, &val)) {
    double coef = term_real_val(c, val);
    if (k == 0) return term_r_scale(c, key, coef);
    term_op op = term_op_of(c, key);
    if (coef == 1 && (op == TOP_MAX || op == TOP_MIN) && cheap_mm(c, term_node_of(c, key)->b))
      return minmax_plus(c, key, k);
  }
  return term_intern(c, TOP_ADD, TERM_S_REAL, 0, k != 0 ? term_real(c, k) : 0, set, 0, 0);
}

dg_term term_r_add(term_ctx *c, dg_term a, dg_term b)
{
  if (infc(c, a) || infc(c, b)) return inf_arith(c, TOP_FADD, a, b);
  double ka, kb;
  dg_term sa, sb;
  term_r_linear(c, a, &ka, &sa);
  term_r_linear(c, b, &kb, &sb);
  return mk_add(c, ka + kb, term_set_union(c, sa, sb, TERM_SET_SUM));
}

dg_term term_r_mul(term_ctx *c, dg_term a, dg_term b)
{
  double v, ka, kb;
  dg_term sa, sb, ea, eb;
  if (infc(c, a) || infc(c, b)) return inf_arith(c, TOP_FMUL, a, b);
  if (rconst(c, a, &v)) return term_r_scale(c, b, v);
  if (rconst(c, b, &v)) return term_r_scale(c, a, v);
  as_prod(c, a, &ka, &sa, &ea);
  as_prod(c, b, &kb, &sb, &eb);
  dg_term e = ea && eb ? term_r_add(c, ea, eb) : ea ? ea : eb;
  return mk_mul(c, ka * kb, term_set_union(c, sa, sb, TERM_SET_SUM), e);
}

dg_term term_r_div(term_ctx *c, dg_term a, dg_term b)
{
  double v, k;
  dg_term set, e;
  if (infc(c, a) || infc(c, b)) return inf_arith(c, TOP_FDIV, a, b);
  if (rconst(c, b, &v)) {
    if (v == 0) return term_intern(c, TOP_DIV, TERM_S_REAL, 0, a, b, 0, 0);
    return term_r_scale(c, a, 1 / v);
  }
  as_prod(c, b, &k, &set, &e);
  if (k == 1 && !e) return term_intern(c, TOP_DIV, TERM_S_REAL, 0, a, b, 0, 0);
  dg_term num = term_r_mul(c, a, mk_mul(c, 1 / k, 0, e ? term_r_scale(c, e, -1) : 0));
  dg_term den = mk_mul(c, 1, set, 0);
  if (!set) return num;
  return term_intern(c, TOP_DIV, TERM_S_REAL, 0, num, den, 0, 0);
}

static void as_mm(term_ctx *c, dg_term t, term_op op, bool *hask, double *k, dg_term *set)
{
  const term_node *n = term_node_of(c, t);
  *hask = false;
  *set = 0;
  if (n->op == TOP_CONST) { *hask = true; *k = term_real_val(c, t); }
  else if (n->op == op) {
    *set = n->b;
    if (n->a) { *hask = true; *k = term_real_val(c, n->a); }
  } else *set = term_set_one(c, t, 0);
}

static dg_term mk_mm(term_ctx *c, term_op op, bool hask, double k, dg_term set)
{
  dg_term key, val;
  if (!set) return term_real(c, k);
  if (!hask && term_set_single(c, set, &key, &val)) return key;
  return term_intern(c, op, TERM_S_REAL, 0, hask ? term_real(c, k) : 0, set, 0, 0);
}

dg_term term_r_minmax(term_ctx *c, dg_term a, dg_term b, bool is_max)
{
  term_op op = is_max ? TOP_MAX : TOP_MIN;
  if (infc(c, b)) { dg_term t = a; a = b; b = t; }
  if (infc(c, a)) return (term_real_val(c, a) > 0) == is_max ? a : b;  /* absorbing : identity */
  bool ha, hb;
  double ka = 0, kb = 0;
  dg_term sa, sb;
  as_mm(c, a, op, &ha, &ka, &sa);
  as_mm(c, b, op, &hb, &kb, &sb);
  double k = ha && hb ? (is_max ? fmax(ka, kb) : fmin(ka, kb)) : ha ? ka : kb;
  return mk_mm(c, op, ha || hb, k, term_set_union(c, sa, sb, TERM_SET_PLAIN));
}

typedef struct { term_ctx *c; double k; dg_term acc; bool is_max; } mmplus;

static bool mmplus_one(void *ud, dg_term key, dg_term val)
{
  mmplus *m = ud;
  dg_term x = term_r_add(m->c, key, term_real(m->c, m->k));
  m->acc = m->acc ? term_r_minmax(m->c, m->acc, x, m->is_max) : x;
  return true;
}

/* max(x_1..x_n, k0) + k = max(x_1 + k, .., x_n + k, k0 + k) */
static dg_term minmax_plus(term_ctx *c, dg_term mm, double k)
{
  term_node n = *term_node_of(c, mm);
  mmplus m = { c, k, 0, n.op == TOP_MAX };
  term_set_each(c, n.b, mmplus_one, &m);
  if (n.a) m.acc = term_r_minmax(c, m.acc, term_real(c, term_real_val(c, n.a) + k), m.is_max);
  return m.acc;
}

dg_term term_r_exp(term_ctx *c, dg_term a) { return mk_exp(c, a); }

dg_term term_r_abs(term_ctx *c, dg_term a)
{
  term_node n = *term_node_of(c, a);
  if (n.op == TOP_CONST) return term_real(c, fabs(term_real_val(c, a)));
  if (n.op == TOP_ABS) return a;
  if (n.op == TOP_MUL && n.a) {
    double k = term_real_val(c, n.a);
    return term_r_scale(c, term_r_abs(c, mk_mul(c, 1, n.b, n.c)), fabs(k));
  }
  return term_intern(c, TOP_ABS, TERM_S_REAL, 0, a, 0, 0, 0);
}
