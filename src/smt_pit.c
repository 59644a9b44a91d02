/* smt_pit.c — a randomised identity test for REAL terms: kernel = reference
 * proved by evaluating both at random points of a prime field, when neither
 * the normal form (smt_norm.c, which gives up past a few thousand monomials)
 * nor Z3 (nonlinear real arithmetic) gets there.
 *
 * The interpretation is a ring homomorphism from the term algebra to F_p:
 * + - * / are the field's (a/b = a * b^-1), a REAL constant is a dyadic
 * rational m * 2^e and maps exactly (2 is invertible mod p), a variable is a
 * random element, and every other operation (sqrt, exp, tanh, max, ite, a
 * comparison, an integer term, ...) is an uninterpreted function: a random
 * function of its operands' values, drawn afresh for each trial. Two
 * exceptions keep identities the terms rely on: rsqrt(a) = 1 / sqrt(a), and
 * exp in a product (MUL's exp argument) is the same function as FN exp.
 * Constants are read as the rationals they round (fconst below): the claim
 * is equality in real arithmetic with the program's constants exact, the
 * real model's reading of a float program (it ignores rounding throughout).
 *
 * If the two sides are equal as rational functions over these uninterpreted
 * symbols they are equal reals wherever both are defined, and they agree at
 * every point. If they are not, Schwartz–Zippel bounds the chance that they
 * agree at a random point by (degree)/p, and the chance that two different
 * arguments of the uninterpreted functions collide by (applications)^2 *
 * (degree)/p. smt_pit_same runs PIT_TRIALS trials, each in its own prime
 * (2^61 - 1, then 2^62 - 57: a coefficient that vanishes mod one prime does
 * not vanish mod the product), and claims equality only when the bound,
 * multiplied over the trials, is below 2^-PIT_BITS. A disagreement proves
 * nothing about the reals (sqrt(a)^2 is not a to an uninterpreted sqrt): the
 * caller goes on to Z3. */
#include "smt_priv.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { PIT_TRIALS = 2, PIT_BITS = 40 };

static const uint64_t pit_primes[PIT_TRIALS] = { (1ull << 61) - 1, (1ull << 62) - 57 };

typedef struct {
  uint64_t p, salt;
  bool fail;
} field;

static uint64_t fmul(const field *F, uint64_t a, uint64_t b)
{
  return (uint64_t)((unsigned __int128)a * b % F->p);
}
static uint64_t fadd(const field *F, uint64_t a, uint64_t b) { uint64_t s = a + b; return s >= F->p ? s - F->p : s; }
static uint64_t fneg(const field *F, uint64_t a) { return a ? F->p - a : 0; }

static uint64_t fpow(const field *F, uint64_t a, uint64_t e)
{
  uint64_t r = 1;
  for (; e; e >>= 1, a = fmul(F, a, a))
    if (e & 1) r = fmul(F, r, a);
  return r;
}

static uint64_t finv(field *F, uint64_t a)
{
  if (!a) { F->fail = true; return 0; }   /* a denominator vanished here */
  return fpow(F, a, F->p - 2);
}

/* The simplest rational p/q (q <= 2^20) within 2^-40 of |v| relative, by
 * continued fractions; false when there is none. */
static bool snap(double v, uint64_t *p, uint64_t *q)
{
  double a = fabs(v), x = a;
  uint64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0;
  if (!(a > 0x1p-60 && a < 0x1p40)) return false;
  for (int i = 0; i < 64; i++) {
    double fl = floor(x);
    if (fl > 0x1p40) break;
    uint64_t ai = (uint64_t)fl, h2 = ai * h1 + h0, k2 = ai * k1 + k0;
    if (k2 > (1u << 20) || h2 > (1ull << 60)) break;
    h0 = h1, h1 = h2, k0 = k1, k1 = k2;
    if (fabs((double)h1 / (double)k1 - a) <= a * 0x1p-40) { *p = h1, *q = k1; return true; }
    double fr = x - fl;
    if (fr < 0x1p-60) break;
    x = 1 / fr;
  }
  return false;
}

/* A REAL constant as a field element. The term constructors compute
 * coefficients in double, so a kernel's sum / C and a reference's s / T.C
 * with C = 600 carry 1 - 599 * fl(1/600) and fl(1/600): a coefficient within
 * 2^-40 (relative) of a rational with a denominator up to 2^20 is read as
 * that rational. Otherwise the double itself, m * 2^e, exactly (doubles are
 * dyadic and 2 is invertible mod p). */
static uint64_t fconst(field *F, double v)
{
  if (!isfinite(v)) { F->fail = true; return 0; }
  if (v == 0) return 0;
  uint64_t sp, sq;
  if (snap(v, &sp, &sq)) {
    uint64_t r = fmul(F, sp % F->p, finv(F, sq % F->p));
    return v < 0 ? fneg(F, r) : r;
  }
  int e;
  double fr = frexp(fabs(v), &e);
  uint64_t m = (uint64_t)ldexp(fr, 53);
  e -= 53;
  uint64_t two = e >= 0 ? 2 : (F->p + 1) / 2;
  uint64_t r = fmul(F, m % F->p, fpow(F, two, (uint64_t)(e >= 0 ? e : -e)));
  return v < 0 ? fneg(F, r) : r;
}

static uint64_t mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* An uninterpreted function of a tag and up to four values, this trial's. */
static uint64_t fuf(const field *F, uint64_t tag, const uint64_t *v, int n)
{
  uint64_t h = mix(F->salt ^ tag);
  for (int i = 0; i < n; i++) h = mix(h ^ v[i]);
  return h % F->p;
}

/* Per reachable term: its value, and for SET nodes the three readings of
 * the subtree (a sum of coefficient * key, a product of key^exponent, an
 * order-free hash of the keys). Degree bounds as (numerator, denominator):
 * dn/dd of a value, sdn/sdd of a set's sum reading, pdn/pdd of its product. */
typedef struct {
  const term_ctx *tc;
  field F;
  uint64_t *val, *sum, *prod, *hsum;
  double *dn, *dd, *sdn, *sdd, *pdn, *pdd;
  uint8_t *pbad;                 /* a set whose product reading has a non-integer exponent */
  size_t nuf;                    /* uninterpreted applications */
} pit;

enum { TAG_VAR = 1, TAG_OP = 2, TAG_FN = 3, TAG_CONSTBITS = 4, TAG_SETKEY = 5, TAG_EXP = 6 };

static uint64_t uf_exp(pit *P, uint64_t arg)
{
  P->nuf++;
  return fuf(&P->F, TAG_EXP, &arg, 1);
}

/* n1/d1 + n2/d2 has degrees (max(n1 + d2, n2 + d1), d1 + d2) */
static void deg_sum(double *n, double *d, double n2, double d2)
{
  double n1 = *n, d1 = *d;
  *n = fmax(n1 + d2, n2 + d1);
  *d = d1 + d2;
}

static void set_node(pit *P, dg_term t, const term_node *n)
{
  field *F = &P->F;
  uint64_t s = 0, pr = 1, hs = 0;
  double sn = 0, sd = 0, pn = 0, pd = 0;
  for (int side = 0; side < 2; side++) {
    dg_term u = side ? n->d : n->c;
    if (!u) continue;
    s = fadd(F, s, P->sum[u]), pr = fmul(F, pr, P->prod[u]), hs = fadd(F, hs, P->hsum[u]);
    deg_sum(&sn, &sd, P->sdn[u], P->sdd[u]);
    pn += P->pdn[u], pd += P->pdd[u];
  }
  uint64_t k = P->val[n->a];
  double kn = P->dn[n->a], kd = P->dd[n->a];
  double coef = n->b ? term_real_val(P->tc, n->b) : 0;
  /* the sum reading: coef * key (a plain set's value is 0: that reading is unused) */
  s = fadd(F, s, fmul(F, fconst(F, coef), k));
  deg_sum(&sn, &sd, kn, kd);
  /* the product reading: key^e for a small integer e (negative: the inverse) */
  double e = fabs(coef);
  if (coef == floor(coef) && e <= 64) {
    uint64_t kp = fpow(F, k, (uint64_t)e);
    pr = fmul(F, pr, coef < 0 ? finv(F, kp) : kp);
    pn += e * (coef < 0 ? kd : kn), pd += e * (coef < 0 ? kn : kd);
  } else if (n->b) {
    P->pbad[t] = 1;   /* x^0.5, x^70: a MUL over this set is uninterpreted */
  }
  for (int side = 0; side < 2; side++) {
    dg_term u = side ? n->d : n->c;
    if (u && P->pbad[u]) P->pbad[t] = 1;
  }
  hs = fadd(F, hs, fuf(F, TAG_SETKEY, &k, 1));
  P->sum[t] = s, P->prod[t] = pr, P->hsum[t] = hs;
  P->sdn[t] = sn, P->sdd[t] = sd, P->pdn[t] = pn, P->pdd[t] = pd;
}

static void deg_mul(pit *P, dg_term t, dg_term a, dg_term b, bool div)
{
  double na = P->dn[a], da = P->dd[a], nb = P->dn[b], db = P->dd[b];
  P->dn[t] = na + (div ? db : nb);
  P->dd[t] = da + (div ? nb : db);
}

static uint64_t uf_node(pit *P, dg_term t, const term_node *n)
{
  uint64_t v[5];
  int k = 0;
  v[k++] = (uint64_t)n->op << 32 | (uint64_t)n->sort << 16 | n->aux;
  uint32_t f[4] = { n->a, n->b, n->c, n->d };
  for (int i = 0; i < 4; i++)
    if (term_ops[n->op].refs >> i & 1) v[k++] = f[i] ? P->val[f[i]] : 0;
    else v[k - 1] ^= mix(f[i] + (uint64_t)i);
  P->nuf++;
  P->dn[t] = 1, P->dd[t] = 0;
  return fuf(&P->F, TAG_OP, v, k);
}

static uint64_t eval_node(pit *P, dg_term t)
{
  field *F = &P->F;
  const term_node *n = term_node_of(P->tc, t);
  P->dn[t] = 0, P->dd[t] = 0;
  switch (n->op) {   /* the ring operations; everything else is uninterpreted */
  case TOP_SET: set_node(P, t, n); return 0;
  case TOP_CONST:
    if (n->sort == TERM_S_REAL || TERM_SK(n->sort) == TERM_SK_FP) return fconst(F, term_real_val(P->tc, t));
    return fuf(F, TAG_CONSTBITS, (uint64_t[]){ term_bits_val(P->tc, t), n->sort }, 2);
  case TOP_VAR:
    P->dn[t] = 1;
    return fuf(F, TAG_VAR, (uint64_t[]){ t }, 1);
  default: break;
  }
  if (n->sort != TERM_S_REAL) return uf_node(P, t, n);
  switch (n->op) {
  case TOP_ADD: {
    uint64_t c = n->a ? fconst(F, term_real_val(P->tc, n->a)) : 0;
    P->dn[t] = P->sdn[n->b], P->dd[t] = P->sdd[n->b];
    return fadd(F, c, P->sum[n->b]);
  }
  case TOP_MUL: {
    if (P->pbad[n->b]) return uf_node(P, t, n);
    uint64_t r = fmul(F, n->a ? fconst(F, term_real_val(P->tc, n->a)) : 1, P->prod[n->b]);
    P->dn[t] = P->pdn[n->b], P->dd[t] = P->pdd[n->b];
    if (n->c) r = fmul(F, r, uf_exp(P, P->val[n->c])), P->dn[t] += 1;
    return r;
  }
  case TOP_DIV:
    deg_mul(P, t, n->a, n->b, true);
    return fmul(F, P->val[n->a], finv(F, P->val[n->b]));
  case TOP_FN:
    P->nuf++;
    P->dn[t] = 1;
    if (n->aux == TERM_FN_EXP) return fuf(F, TAG_EXP, &P->val[n->a], 1);
    if (n->aux == TERM_FN_RSQRT) {   /* 1 / sqrt(a) */
      P->dn[t] = 0, P->dd[t] = 1;
      return finv(F, fuf(F, TAG_FN << 8 | TERM_FN_SQRT, &P->val[n->a], 1));
    }
    return fuf(F, (uint64_t)TAG_FN << 8 | n->aux, &P->val[n->a], 1);
  case TOP_MAX: case TOP_MIN: {
    uint64_t v[3] = { n->op, n->a ? fconst(F, term_real_val(P->tc, n->a)) : F->p, P->hsum[n->b] };
    P->nuf++;
    P->dn[t] = 1;
    return fuf(F, TAG_OP, v, 3);
  }
  case TOP_FMA:
    deg_mul(P, t, n->a, n->b, false);
    deg_sum(&P->dn[t], &P->dd[t], P->dn[n->c], P->dd[n->c]);
    return fadd(F, fmul(F, P->val[n->a], P->val[n->b]), P->val[n->c]);
  case TOP_CVT: {
    const term_node *a = term_node_of(P->tc, n->a);
    if (a->op == TOP_CONST && TERM_SK(a->sort) == TERM_SK_INT) {
      int64_t i = term_sext(a->sort, term_bits_val(P->tc, n->a));
      uint64_t m = (uint64_t)(i < 0 ? -(i + 1) : i) % F->p;   /* -(i+1): INT64_MIN stays in range */
      return i < 0 ? fneg(F, fadd(F, m, 1)) : m;
    }
    return uf_node(P, t, n);
  }
  default: return uf_node(P, t, n);
  }
}

static bool trial(const term_ctx *c, const uint8_t *seen, size_t hi, uint64_t prime, uint64_t salt,
                  dg_term a, dg_term b, double *bound)
{
  pit P = { .tc = c, .F = { .p = prime, .salt = salt } };
  P.val = dg_calloc(hi + 1, sizeof *P.val);
  P.sum = dg_calloc(hi + 1, sizeof *P.sum);
  P.prod = dg_calloc(hi + 1, sizeof *P.prod);
  P.hsum = dg_calloc(hi + 1, sizeof *P.hsum);
  P.pbad = dg_calloc(hi + 1, 1);
  double **degs[6] = { &P.dn, &P.dd, &P.sdn, &P.sdd, &P.pdn, &P.pdd };
  for (int i = 0; i < 6; i++) *degs[i] = dg_calloc(hi + 1, sizeof **degs[i]);
  for (size_t t = 1; t <= hi && !P.F.fail; t++)
    if (seen[t]) P.val[t] = eval_node(&P, (dg_term)t);
  double deg = P.dn[a] + P.dd[a] + P.dn[b] + P.dd[b];   /* of a - b */
  for (size_t t = 1; t <= hi; t++)   /* of the difference of two arguments */
    if (seen[t]) deg = fmax(deg, 2 * (P.dn[t] + P.dd[t]));
  bool same = !P.F.fail && P.val[a] == P.val[b];
  /* Schwartz–Zippel for the difference, and for each pair of
   * uninterpreted applications whose arguments differ */
  double n = (double)P.nuf + 1;
  *bound = n * n * (deg + 1) / (double)prime;
  free(P.val), free(P.sum), free(P.prod), free(P.hsum), free(P.pbad);
  for (int i = 0; i < 6; i++) free(*degs[i]);
  return same;
}

bool smt_pit_same(term_ctx *c, dg_term a, dg_term b, double *err)
{
  if (err) *err = 1;
  if (term_sort_of(c, a) != TERM_S_REAL || term_sort_of(c, b) != TERM_S_REAL) return false;
  dg_term roots[2] = { a, b };
  uint8_t *seen = term_reach(c, roots, 2);
  size_t hi = a > b ? a : b;
  double total = 1;
  bool same = true;
  for (int k = 0; k < PIT_TRIALS && same; k++) {
    double bound;
    same = trial(c, seen, hi, pit_primes[k], mix(0x5eed0000u + (uint64_t)k), a, b, &bound);
    total *= fmin(bound, 1);
  }
  free(seen);
  if (err) *err = total;
  return same && total <= ldexp(1, -PIT_BITS);
}
