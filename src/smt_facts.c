/* smt_facts.c — transcendental functions as uninterpreted functions, and the
 * facts about them that make the usual rewrites provable in the REAL model.
 * Each fact is true of the real function, asserted once per application:
 *   exp(x) > 0;  x < y -> exp(x) < exp(y)   (pairs, while few exps are present)
 *   exp(k + Σ c_i t_i) = exp(k) * Π exp(t_i)^c_i   (by translation, integer |c_i| <= 4)
 *   x > 0 -> exp(log(x)) = x                (log(exp(x)) = x is a term rewrite)
 *   x >= 0 -> sqrt(x) >= 0 and sqrt(x)^2 = x
 *   x > 0 -> rsqrt(x) > 0 and rsqrt(x) * sqrt(x) = 1
 *   -1 < tanh(x) < 1, tanh(-x) = -tanh(x);  same for erf
 *   -1 <= sin(x), cos(x) <= 1;  exp2(x) > 0
 * With opts.lipschitz, for each pair of applications f(a), f(b) of tanh
 * (L = 1) or erf (L = 2/sqrt(pi), rounded up), by the mean value theorem:
 *   |f(a) - f(b)| <= L |a - b|, and when a and b have one sign
 *   |f(a) - f(b)| * (1 + min(a^2, b^2)) <= L |a - b|
 * (f' = L sech^2 resp. L e^{-t^2}, both <= L / (1 + t^2) and decreasing in
 * |t|). A kernel's rounded constant (0.7978845608f) then stays within the
 * tolerance of the reference's even where the function saturates.
 * IEEE floats get the functions uninterpreted, without facts. REAL ones are
 * purified (pure_app below). */
#include "smt_priv.h"
#include <math.h>
#include <stdlib.h>

enum { MONO_MAX = 48 };   /* pairwise monotonicity facts up to this many exps */
enum { LIP_MAX = 16 };    /* pairwise Lipschitz facts up to this many tanh / erf apps */

static void assert_(smt_solver *s, Z3_ast f) { smt_assert_base(s, f); }

static Z3_ast zero(smt_solver *s) { return Z3_mk_real(s->z, 0, 1); }
static Z3_ast num(smt_solver *s, int v) { return Z3_mk_real(s->z, v, 1); }

static Z3_ast implies(smt_solver *s, Z3_ast a, Z3_ast b) { return Z3_mk_implies(s->z, a, b); }

static Z3_ast and2(smt_solver *s, Z3_ast a, Z3_ast b)
{
  Z3_ast v[2] = { a, b };
  return Z3_mk_and(s->z, 2, v);
}

static Z3_ast mul2(smt_solver *s, Z3_ast a, Z3_ast b)
{
  Z3_ast v[2] = { a, b };
  return Z3_mk_mul(s->z, 2, v);
}

/* REAL applications are purified: each distinct f(arg) becomes a fresh real
 * constant, with functional consistency (arg = arg' -> f(arg) = f(arg')) for
 * up to CONG_MAX applications of each function (Ackermann's reduction). Z3
 * then sees pure nonlinear real arithmetic and can use nlsat; with the same
 * query over uninterpreted functions it often does not terminate. Past
 * CONG_MAX the missing consistency facts only make the query weaker: an
 * `equivalent` stays sound, a `different` may be spurious (DESIGN 5: a bug is
 * reported only after its witness replays). */
enum { CONG_MAX = 64 };

static size_t pure_slot(const smt_solver *s, unsigned f, unsigned id)
{
  size_t j = ((size_t)id * 2654435761u + f * 40503u) & (s->pure_cap - 1);
  for (;; j = (j + 1) & (s->pure_cap - 1)) {
    uint32_t k = s->pure_tab[j];
    if (!k || (s->pures.v[k - 1].f == f && s->pures.v[k - 1].id == id)) return j;
  }
}

static Z3_ast pure_app(smt_solver *s, term_fn f, Z3_ast arg)
{
  unsigned id = Z3_get_ast_id(s->z, arg);
  if ((s->pures.n + 1) * 2 > s->pure_cap) {
    free(s->pure_tab);
    s->pure_cap = s->pure_cap ? s->pure_cap * 2 : 256;
    s->pure_tab = dg_calloc(s->pure_cap, sizeof *s->pure_tab);
    for (size_t i = 0; i < s->pures.n; i++)
      s->pure_tab[pure_slot(s, s->pures.v[i].f, s->pures.v[i].id)] = (uint32_t)(i + 1);
  }
  size_t j = pure_slot(s, f, id);
  if (s->pure_tab[j]) return s->pures.v[s->pure_tab[j] - 1].c;
  char *name = dg_printf("%s#%zu", term_fn_name(f), s->pures.n);
  Z3_ast c = Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), Z3_mk_real_sort(s->z));
  free(name);
  size_t same = 0;
  for (size_t i = 0; i < s->pures.n && same < CONG_MAX; i++) {
    if (s->pures.v[i].f != (unsigned)f) continue;
    same++;
    smt_assert_base(s, Z3_mk_implies(s->z, Z3_mk_eq(s->z, s->pures.v[i].arg, arg), Z3_mk_eq(s->z, s->pures.v[i].c, c)));
  }
  dg_vec_push(&s->pures, ((smt_pure){ (unsigned)f, id, arg, c }));
  s->pure_tab[j] = (uint32_t)s->pures.n;
  return c;
}

static Z3_ast raw_app(smt_solver *s, term_fn f, term_sort ts, Z3_ast arg)
{
  int slot = ts == TERM_S_REAL ? 0 : 1 + (ts & 3);
  if (slot == 0) return pure_app(s, f, arg);
  if (!s->fn[f][slot]) {
    Z3_sort so = smt_sort(s, ts);
    char *name = slot ? dg_printf("%s_%s", term_fn_name(f), term_sort_name(ts)) : dg_strdup(term_fn_name(f));
    s->fn[f][slot] = Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, name), 1, &so, so);
    free(name);
  }
  return Z3_mk_app(s->z, s->fn[f][slot], 1, &arg);
}

/* bounds of tanh / erf, and oddness instantiated at -x (whose own facts are the bounds) */
static void odd_bounded(smt_solver *s, term_fn f, Z3_ast arg, Z3_ast app)
{
  Z3_context z = s->z;
  Z3_ast neg = raw_app(s, f, TERM_S_REAL, Z3_mk_unary_minus(z, arg));
  Z3_ast both[2] = { app, neg };
  for (int i = 0; i < 2; i++) {
    if (i && !smt_idset_add(&s->facts_done, Z3_get_ast_id(z, neg))) continue;
    assert_(s, and2(s, Z3_mk_lt(z, num(s, -1), both[i]), Z3_mk_lt(z, both[i], num(s, 1))));
  }
  assert_(s, Z3_mk_eq(z, neg, Z3_mk_unary_minus(z, app)));
}

static Z3_ast abs_(smt_solver *s, Z3_ast a)
{
  return Z3_mk_ite(s->z, Z3_mk_ge(s->z, a, zero(s)), a, Z3_mk_unary_minus(s->z, a));
}

static Z3_ast sub2(smt_solver *s, Z3_ast a, Z3_ast b)
{
  Z3_ast v[2] = { a, b };
  return Z3_mk_sub(s->z, 2, v);
}

/* The pair facts of the header for f(a) = A against every earlier f(b) = B. */
static void lipschitz(smt_solver *s, term_fn f, Z3_ast a, Z3_ast A)
{
  Z3_context z = s->z;
  int k = f == TERM_FN_ERF;
  /* 2/sqrt(pi) = 1.12837916709551..., rounded up: the bound stays true */
  Z3_ast L = k ? Z3_mk_real(z, 11283792, 10000000) : num(s, 1);
  if (s->lip_apps[k].n < LIP_MAX)
    for (size_t i = 0; i < s->lip_apps[k].n; i++) {
      Z3_ast b = s->lip_args[k].v[i], B = s->lip_apps[k].v[i];
      Z3_ast dy = abs_(s, sub2(s, A, B)), dx = mul2(s, L, abs_(s, sub2(s, a, b)));
      assert_(s, Z3_mk_le(z, dy, dx));
      Z3_ast a2 = mul2(s, a, a), b2 = mul2(s, b, b);
      Z3_ast m = Z3_mk_ite(z, Z3_mk_le(z, a2, b2), a2, b2);
      Z3_ast one_m[2] = { num(s, 1), m };
      Z3_ast same = Z3_mk_or(z, 2, (Z3_ast[]){ and2(s, Z3_mk_ge(z, a, zero(s)), Z3_mk_ge(z, b, zero(s))),
                                               and2(s, Z3_mk_le(z, a, zero(s)), Z3_mk_le(z, b, zero(s))) });
      assert_(s, implies(s, same, Z3_mk_le(z, mul2(s, dy, Z3_mk_add(z, 2, one_m)), dx)));
      s->nlip++;
    }
  dg_vec_push(&s->lip_args[k], a);
  dg_vec_push(&s->lip_apps[k], A);
}

static void facts(smt_solver *s, term_fn f, Z3_ast arg, Z3_ast app)
{
  Z3_context z = s->z;
  switch (f) {
  case TERM_FN_EXP:
    assert_(s, Z3_mk_gt(z, app, zero(s)));
    if (s->exp_apps.n < MONO_MAX)
      for (size_t i = 0; i < s->exp_apps.n; i++) {
        Z3_ast x = s->exp_args.v[i], ex = s->exp_apps.v[i];
        assert_(s, implies(s, Z3_mk_lt(z, x, arg), Z3_mk_lt(z, ex, app)));
        assert_(s, implies(s, Z3_mk_lt(z, arg, x), Z3_mk_lt(z, app, ex)));
      }
    dg_vec_push(&s->exp_args, arg);
    dg_vec_push(&s->exp_apps, app);
    break;
  case TERM_FN_EXP2: assert_(s, Z3_mk_gt(z, app, zero(s))); break;
  case TERM_FN_LOG:
    assert_(s, implies(s, Z3_mk_gt(z, arg, zero(s)),
                       Z3_mk_eq(z, smt_app(s, TERM_FN_EXP, TERM_S_REAL, app), arg)));
    break;
  case TERM_FN_SQRT:
    assert_(s, implies(s, Z3_mk_ge(z, arg, zero(s)),
                       and2(s, Z3_mk_ge(z, app, zero(s)), Z3_mk_eq(z, mul2(s, app, app), arg))));
    break;
  case TERM_FN_RSQRT: {
    Z3_ast sq = smt_app(s, TERM_FN_SQRT, TERM_S_REAL, arg);
    assert_(s, implies(s, Z3_mk_gt(z, arg, zero(s)),
                       and2(s, Z3_mk_gt(z, app, zero(s)), Z3_mk_eq(z, mul2(s, app, sq), num(s, 1)))));
    break;
  }
  case TERM_FN_TANH: case TERM_FN_ERF:
    odd_bounded(s, f, arg, app);
    if (s->opts.lipschitz) lipschitz(s, f, arg, app);
    break;
  case TERM_FN_SIN: case TERM_FN_COS:
    assert_(s, and2(s, Z3_mk_le(z, num(s, -1), app), Z3_mk_le(z, app, num(s, 1))));
    break;
  default: break;
  }
}

Z3_ast smt_app(smt_solver *s, term_fn f, term_sort ts, Z3_ast arg)
{
  Z3_ast app = raw_app(s, f, ts, arg);
  if (ts == TERM_S_REAL && smt_idset_add(&s->facts_done, Z3_get_ast_id(s->z, app))) facts(s, f, arg, app);
  return app;
}

typedef struct { dg_term key; double coef; } lin_item;
typedef struct { const term_ctx *c; DG_VEC(lin_item) v; } lin_vec;

static bool collect_lin(void *ud, dg_term key, dg_term val)
{
  lin_vec *l = ud;
  dg_vec_push(&l->v, ((lin_item){ key, term_real_val(l->c, val) }));
  return true;
}

Z3_ast smt_exp(smt_solver *s, dg_term e)
{
  Z3_context z = s->z;
  double k0;
  dg_term set;
  lin_vec lv = { s->tc, { 0 } };
  DG_VEC(Z3_ast) nu = { 0 }, de = { 0 };
  term_r_linear(s->tc, e, &k0, &set);
  term_set_each(s->tc, set, collect_lin, &lv);   /* collect first: translating creates terms */
  for (size_t i = 0; i < lv.v.n; i++) {
    double c = lv.v.v[i].coef;
    Z3_ast key = smt_tr(s, lv.v.v[i].key);
    if (!key) break;
    if (c == floor(c) && fabs(c) <= 4) {
      Z3_ast a = smt_app(s, TERM_FN_EXP, TERM_S_REAL, key);
      for (int r = 0; r < (int)fabs(c); r++) {
        if (c > 0) dg_vec_push(&nu, a);
        else dg_vec_push(&de, a);
      }
    } else dg_vec_push(&nu, smt_app(s, TERM_FN_EXP, TERM_S_REAL, mul2(s, smt_real(s, c), key)));
  }
  if (k0 != 0) dg_vec_push(&nu, smt_app(s, TERM_FN_EXP, TERM_S_REAL, smt_real(s, k0)));
  Z3_ast n = nu.n == 0 ? num(s, 1) : nu.n == 1 ? nu.v[0] : Z3_mk_mul(z, (unsigned)nu.n, nu.v);
  if (de.n) n = Z3_mk_div(z, n, de.n == 1 ? de.v[0] : Z3_mk_mul(z, (unsigned)de.n, de.v));
  dg_vec_free(&lv.v);
  dg_vec_free(&nu);
  dg_vec_free(&de);
  return n;
}
