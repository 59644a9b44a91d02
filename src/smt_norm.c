/* smt_norm.c — a normal form for REAL terms, to prove kernel = reference
 * without Z3 when both expand to one polynomial.
 *
 * A term becomes a sum of monomials c * Π atom^e: sums and products are
 * expanded (distributed), exp(k + Σ c_i t_i) = exp(k) * Π exp(t_i)^c_i for
 * integer c_i (exp(c_i t_i) an atom otherwise), exp atoms may have negative
 * exponents (exp > 0: exp(a) * exp(a)^-1 = 1), 1/b is an atom keyed by b's
 * normal form (or by b itself), and every other term (a variable, a max, an
 * ite, a function application) is an atom by its id. Each step is an
 * identity of real arithmetic with the real exp (a/b = a * (1/b) as the
 * symbolic domain builds it), so equal normal forms mean equal values.
 * Coefficients are doubles and every operation on them must be exact
 * (checked with fma and the two-sum error): an inexact one, or a polynomial
 * past NORM_MAX monomials, gives up, and the caller asks Z3.
 *
 * Online softmax and flash attention need it: their rescaled sums
 * ((a + b) * exp(m1 - m2) + c) telescope to the reference's
 * Σ v_j exp(s_j - m) only after expansion, which Z3's nonlinear arithmetic
 * does not find for 33 keys within minutes. */
#include "smt_priv.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NORM_MAX = 4096 };        /* monomials per polynomial */
#define ATOM_EXP 0x40000000u     /* exp(t) for term t */
#define ATOM_KEYED 0x80000000u   /* interned: exp(c*t), exp(k), 1/poly */

typedef struct { uint32_t atom; int32_t e; } factor;
typedef struct { factor *f; uint32_t nf; double c; } mono;
typedef struct { mono *m; size_t n; } poly;

typedef struct {
  term_ctx *tc;
  poly **memo;                   /* by term id; NULL: not yet */
  size_t nmemo;
  DG_VEC(char *) keys;           /* interned atom keys (ATOM_KEYED | index) */
  bool fail;
} norm;

/* ---- exact coefficient arithmetic ---------------------------------------------- */
static double xmul(norm *N, double a, double b)
{
  double p = a * b;
  if (!isfinite(p) || fma(a, b, -p) != 0) N->fail = true;
  return p;
}

static double xadd(norm *N, double a, double b)
{
  double s = a + b, bb = s - a;
  if (!isfinite(s) || (a - (s - bb)) + (b - bb) != 0) N->fail = true;
  return s;
}

/* ---- polynomials ---------------------------------------------------------------- */
static void poly_free(poly *p)
{
  if (!p) return;
  for (size_t i = 0; i < p->n; i++) free(p->m[i].f);
  free(p->m);
  free(p);
}

static int mono_cmp(const mono *a, const mono *b)
{
  for (uint32_t i = 0; i < a->nf && i < b->nf; i++) {
    if (a->f[i].atom != b->f[i].atom) return a->f[i].atom < b->f[i].atom ? -1 : 1;
    if (a->f[i].e != b->f[i].e) return a->f[i].e < b->f[i].e ? -1 : 1;
  }
  return a->nf < b->nf ? -1 : a->nf > b->nf;
}

static int mono_qcmp(const void *a, const void *b) { return mono_cmp(a, b); }

static factor *fdup(const factor *f, uint32_t n)
{
  factor *r = dg_malloc(sizeof *r * (n ? n : 1));
  if (n) memcpy(r, f, sizeof *r * n);
  return r;
}

static poly *poly_new(size_t cap)
{
  poly *p = dg_calloc(1, sizeof *p);
  p->m = dg_malloc(sizeof *p->m * (cap ? cap : 1));
  return p;
}

static poly *poly_const(double c)
{
  poly *p = poly_new(1);
  if (c != 0) p->m[p->n++] = (mono){ fdup(NULL, 0), 0, c };
  return p;
}

static poly *poly_atom(uint32_t atom, int32_t e)
{
  poly *p = poly_new(1);
  factor f = { atom, e };
  p->m[p->n++] = (mono){ fdup(&f, 1), 1, 1 };
  return p;
}

/* Sorts p's monomials and adds equal ones (dropping zeros). */
static void poly_canon(norm *N, poly *p)
{
  if (p->n) qsort(p->m, p->n, sizeof *p->m, mono_qcmp);
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (k && mono_cmp(&p->m[k - 1], &p->m[i]) == 0) {
      p->m[k - 1].c = xadd(N, p->m[k - 1].c, p->m[i].c);
      free(p->m[i].f);
    } else p->m[k++] = p->m[i];
  }
  size_t j = 0;
  for (size_t i = 0; i < k; i++) {
    if (p->m[i].c == 0) free(p->m[i].f);
    else p->m[j++] = p->m[i];
  }
  p->n = j;
  if (p->n > NORM_MAX) N->fail = true;
}

/* acc += k * q */
static void poly_add_to(norm *N, poly *acc, const poly *q, double k)
{
  acc->m = dg_realloc(acc->m, sizeof *acc->m * (acc->n + q->n + 1));
  for (size_t i = 0; i < q->n; i++)
    acc->m[acc->n++] = (mono){ fdup(q->m[i].f, q->m[i].nf), q->m[i].nf, xmul(N, k, q->m[i].c) };
}

static mono mono_mul(norm *N, const mono *a, const mono *b)
{
  factor *f = dg_malloc(sizeof *f * (a->nf + b->nf + 1));
  uint32_t i = 0, j = 0, n = 0;
  while (i < a->nf || j < b->nf) {
    if (j == b->nf || (i < a->nf && a->f[i].atom < b->f[j].atom)) f[n++] = a->f[i++];
    else if (i == a->nf || b->f[j].atom < a->f[i].atom) f[n++] = b->f[j++];
    else {
      int32_t e = a->f[i].e + b->f[j].e;
      if (e) f[n++] = (factor){ a->f[i].atom, e };
      i++, j++;
    }
  }
  return (mono){ f, n, xmul(N, a->c, b->c) };
}

static poly *poly_mul(norm *N, const poly *a, const poly *b)
{
  if ((double)a->n * (double)b->n > 4.0 * NORM_MAX) { N->fail = true; return poly_const(0); }
  poly *p = poly_new(a->n * b->n);
  for (size_t i = 0; i < a->n; i++)
    for (size_t j = 0; j < b->n; j++) p->m[p->n++] = mono_mul(N, &a->m[i], &b->m[j]);
  poly_canon(N, p);
  return p;
}

static bool poly_equal(const poly *a, const poly *b)
{
  if (a->n != b->n) return false;
  for (size_t i = 0; i < a->n; i++)
    if (a->m[i].c != b->m[i].c || mono_cmp(&a->m[i], &b->m[i])) return false;
  return true;
}

/* ---- atoms ------------------------------------------------------------------------ */
static uint32_t keyed(norm *N, char *key)   /* takes key */
{
  for (size_t i = 0; i < N->keys.n; i++)
    if (!strcmp(N->keys.v[i], key)) { free(key); return ATOM_KEYED | (uint32_t)i; }
  dg_vec_push(&N->keys, key);
  return ATOM_KEYED | (uint32_t)(N->keys.n - 1);
}

static char *poly_key(const poly *p)
{
  dg_buf b = {0};
  dg_buf_putc(&b, 'i');
  for (size_t i = 0; i < p->n; i++) {
    dg_buf_printf(&b, "%a", p->m[i].c);
    for (uint32_t j = 0; j < p->m[i].nf; j++) dg_buf_printf(&b, ":%x^%d", p->m[i].f[j].atom, p->m[i].f[j].e);
    dg_buf_putc(&b, ';');
  }
  return dg_buf_take(&b);
}

static bool is_exp_atom(const norm *N, uint32_t a)
{
  return (a & ATOM_EXP) || ((a & ATOM_KEYED) && N->keys.v[a & ~ATOM_KEYED][0] == 'e');
}

static poly *nf(norm *N, dg_term t);

typedef struct { norm *N; DG_VEC(factor) f; } lin;

static bool lin_item(void *ud, dg_term key, dg_term val)
{
  lin *l = ud;
  double c = term_real_val(l->N->tc, val);
  if (key >= ATOM_EXP) l->N->fail = true;
  if (c == floor(c) && fabs(c) <= 64) dg_vec_push(&l->f, ((factor){ ATOM_EXP | key, (int32_t)c }));
  else dg_vec_push(&l->f, ((factor){ keyed(l->N, dg_printf("e%u*%a", (unsigned)key, c)), 1 }));
  return true;
}

static int factor_cmp(const void *a, const void *b)
{
  const factor *x = a, *y = b;
  return x->atom < y->atom ? -1 : x->atom > y->atom;
}

/* exp(E) for a REAL term E: exp(k) * Π exp(t_i)^c_i, one monomial */
static poly *nf_exp(norm *N, dg_term e)
{
  double k0;
  dg_term set;
  term_r_linear(N->tc, e, &k0, &set);
  lin l = { N, { 0 } };
  if (set) term_set_each(N->tc, set, lin_item, &l);
  if (k0 != 0) dg_vec_push(&l.f, ((factor){ keyed(N, dg_printf("ek%a", k0)), 1 }));
  if (l.f.n) qsort(l.f.v, l.f.n, sizeof *l.f.v, factor_cmp);
  poly *p = poly_new(1);
  p->m[p->n++] = (mono){ fdup(l.f.v, (uint32_t)l.f.n), (uint32_t)l.f.n, 1 };
  dg_vec_free(&l.f);
  return p;
}

/* The exp part every monomial of q shares, as exponents: for each exp atom
 * the least exponent over q's monomials (absent counts 0), nonzero ones only. */
static mono exp_content(norm *N, const poly *q)
{
  DG_VEC(factor) f = { 0 };
  for (size_t i = 0; i < q->n; i++)
    for (uint32_t j = 0; j < q->m[i].nf; j++) {
      uint32_t a = q->m[i].f[j].atom;
      bool seen = false;
      for (size_t k = 0; k < f.n && !seen; k++) seen = f.v[k].atom == a;
      if (seen || !is_exp_atom(N, a)) continue;
      int32_t lo = INT32_MAX;
      for (size_t k = 0; k < q->n; k++) {
        int32_t e = 0;     /* absent: exponent 0 */
        for (uint32_t l = 0; l < q->m[k].nf; l++)
          if (q->m[k].f[l].atom == a) e = q->m[k].f[l].e;
        if (e < lo) lo = e;
      }
      if (lo) dg_vec_push(&f, ((factor){ a, lo }));
    }
  if (f.n) qsort(f.v, f.n, sizeof *f.v, factor_cmp);
  mono m = { fdup(f.v, (uint32_t)f.n), (uint32_t)f.n, 1 };
  dg_vec_free(&f);
  return m;
}

/* 1/b. b = c * Π exp atoms with c a power of two: the inverse monomial
 * (exact). Otherwise b = m * b' with m the exp part all of b's monomials
 * share (exp(x0)^-1 in Σ exp(x_k - x0)): 1/b = m^-1 * (1/b'), and 1/b' an
 * atom keyed by b''s normal form, so shifted sums meet (exp > 0: m != 0). */
static poly *nf_inv(norm *N, dg_term b)
{
  poly *q = nf(N, b);
  if (N->fail) return poly_const(0);
  if (q->n == 1) {
    const mono *m = &q->m[0];
    int ex;
    bool ok = frexp(m->c, &ex) == (m->c < 0 ? -0.5 : 0.5);
    for (uint32_t i = 0; i < m->nf && ok; i++) ok = is_exp_atom(N, m->f[i].atom);
    if (ok) {
      poly *p = poly_new(1);
      factor *f = fdup(m->f, m->nf);
      for (uint32_t i = 0; i < m->nf; i++) f[i].e = -f[i].e;
      p->m[p->n++] = (mono){ f, m->nf, 1 / m->c };
      return p;
    }
  }
  mono m = exp_content(N, q);
  if (!m.nf) {
    free(m.f);
    return poly_atom(keyed(N, poly_key(q)), 1);
  }
  poly *minv = poly_new(1);          /* m^-1, and b' = q * m^-1 */
  factor *fi = fdup(m.f, m.nf);
  for (uint32_t i = 0; i < m.nf; i++) fi[i].e = -fi[i].e;
  minv->m[minv->n++] = (mono){ fi, m.nf, 1 };
  free(m.f);
  poly *rest = poly_mul(N, q, minv);
  poly *inv = poly_atom(keyed(N, poly_key(rest)), 1);
  poly *r = poly_mul(N, minv, inv);
  poly_free(rest), poly_free(inv), poly_free(minv);
  return r;
}

typedef struct { norm *N; poly *acc; } sum_st;

static bool add_item(void *ud, dg_term key, dg_term val)
{
  sum_st *s = ud;
  poly *k = nf(s->N, key);
  if (!s->N->fail) poly_add_to(s->N, s->acc, k, term_real_val(s->N->tc, val));
  return !s->N->fail;
}

static bool mul_item(void *ud, dg_term key, dg_term val)
{
  sum_st *s = ud;
  double e = term_real_val(s->N->tc, val);
  if (e != floor(e) || e < 1 || e > 16) { s->N->fail = true; return false; }
  poly *k = nf(s->N, key);
  for (int i = 0; i < (int)e && !s->N->fail; i++) {
    poly *r = poly_mul(s->N, s->acc, k);
    poly_free(s->acc);
    s->acc = r;
  }
  return !s->N->fail;
}

static poly *nf_node(norm *N, dg_term t)
{
  const term_node n = *term_node_of(N->tc, t);
  if (n.op == TOP_CONST && isfinite(term_real_val(N->tc, t))) return poly_const(term_real_val(N->tc, t));
  if (n.op == TOP_ADD) {
    sum_st s = { N, poly_const(n.a ? term_real_val(N->tc, n.a) : 0) };
    term_set_each(N->tc, n.b, add_item, &s);
    poly_canon(N, s.acc);
    return s.acc;
  }
  if (n.op == TOP_MUL) {
    sum_st s = { N, poly_const(n.a ? term_real_val(N->tc, n.a) : 1) };
    term_set_each(N->tc, n.b, mul_item, &s);
    if (n.c && !N->fail) {
      poly *e = nf_exp(N, n.c), *r = poly_mul(N, s.acc, e);
      poly_free(e), poly_free(s.acc);
      s.acc = r;
    }
    return s.acc;
  }
  if (n.op == TOP_FN && n.aux == TERM_FN_EXP) return nf_exp(N, n.a);
  if (n.op == TOP_DIV) {
    poly *a = nf(N, n.a), *ib = N->fail ? poly_const(0) : nf_inv(N, n.b);
    poly *r = poly_mul(N, a, ib);
    poly_free(ib);
    return r;
  }
  if (t >= ATOM_EXP) N->fail = true;
  return poly_atom(t, 1);   /* a variable, max, ite, fn application ...: one value */
}

/* The normal form of t (kept in the memo; NULL-safe under N->fail). */
static poly *nf(norm *N, dg_term t)
{
  if (t >= N->nmemo) {
    size_t n = term_ctx_count(N->tc) + 1 > t + 1 ? term_ctx_count(N->tc) + 1 : t + 1;
    N->memo = dg_realloc(N->memo, sizeof *N->memo * n);
    memset(N->memo + N->nmemo, 0, sizeof *N->memo * (n - N->nmemo));
    N->nmemo = n;
  }
  if (N->memo[t]) return N->memo[t];
  poly *p = nf_node(N, t);
  if (t >= N->nmemo) {   /* nf_node created terms: grow before storing */
    size_t n = t + 1;
    N->memo = dg_realloc(N->memo, sizeof *N->memo * n);
    memset(N->memo + N->nmemo, 0, sizeof *N->memo * (n - N->nmemo));
    N->nmemo = n;
  }
  N->memo[t] = p;
  return p;
}

bool smt_same_normal_form(term_ctx *c, dg_term a, dg_term b)
{
  if (term_sort_of(c, a) != TERM_S_REAL || term_sort_of(c, b) != TERM_S_REAL) return false;
  norm N = { .tc = c };
  poly *pa = nf(&N, a), *pb = N.fail ? NULL : nf(&N, b);
  bool same = !N.fail && pb && poly_equal(pa, pb);
  for (size_t i = 0; i < N.nmemo; i++) poly_free(N.memo[i]);
  free(N.memo);
  for (size_t i = 0; i < N.keys.n; i++) free(N.keys.v[i]);
  dg_vec_free(&N.keys);
  return same;
}
