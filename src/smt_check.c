/* smt_check.c — the queries: "can kernel and reference differ?" and "is this
 * condition satisfiable?", with a timeout, the SMT-LIB2 text of the query,
 * and the model turned back into variable values through term metadata. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include "smt_priv.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = { "equivalent", "different", "unknown" };
const char *smt_verdict_name(smt_verdict v) { return v <= SMT_UNKNOWN ? verdict_names[v] : "?"; }

void smt_result_free(smt_result *r)
{
  free(r->reason);
  free(r->model);
  free(r->values);
  free(r->smtlib);
  memset(r, 0, sizeof *r);
}

void smt_assume(smt_solver *s, dg_term cond)
{
  if (term_sort_of(s->tc, cond) != TERM_S_BOOL) term_die("smt_assume of a %s term", term_sort_name(term_sort_of(s->tc, cond)));
  Z3_ast a = smt_tr(s, cond);
  if (a) smt_assert_base(s, a);
  dg_vec_push(&s->assumed, cond);
  smt_failed(s);
}

/* ---- model values ------------------------------------------------------------------ */
static double real_num(Z3_context z, Z3_ast a)
{
  if (Z3_is_algebraic_number(z, a)) a = Z3_get_algebraic_number_lower(z, a, 30);
  if (!Z3_is_numeral_ast(z, a)) return NAN;
  return Z3_get_numeral_double(z, a);
}

static bool value_of(smt_solver *s, Z3_model m, Z3_ast a, term_sort ts, term_value *out)
{
  Z3_context z = s->z;
  Z3_ast v;
  memset(out, 0, sizeof *out);
  if (!Z3_model_eval(z, m, a, true, &v) || !v) return false;
  if (ts == TERM_S_BOOL) { out->i = Z3_get_bool_value(z, v) == Z3_L_TRUE; return true; }
  if (TERM_SK(ts) == TERM_SK_INT) {
    uint64_t u = 0;
    if (!Z3_get_numeral_uint64(z, v, &u)) return false;
    out->i = (int64_t)u;
    return true;
  }
  if (ts == TERM_S_REAL) { out->f = real_num(z, v); return !isnan(out->f); }
  if (!Z3_is_numeral_ast(z, v)) return false;
  if (Z3_fpa_is_numeral_nan(z, v)) out->f = NAN;
  else if (Z3_fpa_is_numeral_inf(z, v)) out->f = Z3_fpa_is_numeral_negative(z, v) ? -INFINITY : INFINITY;
  else if (Z3_fpa_is_numeral_zero(z, v)) out->f = Z3_fpa_is_numeral_negative(z, v) ? -0.0 : 0.0;
  else out->f = real_num(z, Z3_simplify(z, Z3_mk_fpa_to_real(z, v)));
  return true;
}

static void fill_model(smt_solver *s, Z3_model m, const dg_term *roots, size_t nroots, smt_result *out)
{
  term_ctx *c = s->tc;
  DG_VEC(dg_term) all = { 0 };
  for (size_t i = 0; i < nroots; i++) dg_vec_push(&all, roots[i]);
  for (size_t i = 0; i < s->assumed.n; i++) dg_vec_push(&all, s->assumed.v[i]);
  uint8_t *seen = term_reach(c, all.v, all.n);
  dg_vec_free(&all);
  out->nvalues = term_var_count(c);
  out->values = dg_calloc(out->nvalues ? out->nvalues : 1, sizeof *out->values);
  for (size_t i = 0; i < c->varterms.n; i++) {
    dg_term v = c->varterms.v[i];
    if (!seen[v] || v >= s->ncache || !s->cache[v]) continue;
    term_value val;
    if (!value_of(s, m, s->cache[v], term_sort_of(c, v), &val)) continue;
    out->values[i] = val;
    out->model = dg_realloc(out->model, (out->nmodel + 1) * sizeof *out->model);
    out->model[out->nmodel++] = (smt_binding){ v, i, val };
  }
  free(seen);
}

/* Z3 does not honour its "timeout" inside some tactics (an 84 s check
 * under a 1 s limit was seen on a layernorm query); a watchdog thread
 * interrupts the context once the limit plus a grace period has passed. */
typedef struct {
  Z3_context z;
  unsigned ms;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done, fired;
} watchdog;

static void *watchdog_main(void *arg)
{
  watchdog *w = arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)(w->ms % 1000) * 1000000u;
  until.tv_sec += (time_t)(w->ms / 1000 + ns / 1000000000u);
  until.tv_nsec = (long)(ns % 1000000000u);
  pthread_mutex_lock(&w->mu);
  while (!w->done)
    if (pthread_cond_timedwait(&w->cv, &w->mu, &until) == ETIMEDOUT) break;
  if (!w->done) {
    w->fired = true;
    Z3_interrupt(w->z);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* Under the assumptions, is cond satisfiable? roots: the terms whose variables
 * the model reports; sides: kernel and ref (or 0). */
static smt_verdict run(smt_solver *s, Z3_ast cond, const dg_term *roots, size_t nroots,
                       dg_term kernel, dg_term ref, smt_result *out)
{
  Z3_context z = s->z;
  double t0 = dg_now();
  Z3_solver sol = Z3_mk_solver(z);
  Z3_solver_inc_ref(z, sol);
  for (size_t i = 0; i < s->base.n; i++) Z3_solver_assert(z, sol, s->base.v[i]);
  Z3_solver_assert(z, sol, cond);
  if (s->opts.want_smtlib) out->smtlib = dg_strdup(Z3_solver_to_string(z, sol));
  Z3_params p = Z3_mk_params(z);
  Z3_params_inc_ref(z, p);
  Z3_params_set_uint(z, p, Z3_mk_string_symbol(z, "timeout"), s->opts.timeout_ms ? s->opts.timeout_ms : UINT32_MAX);
  Z3_solver_set_params(z, sol, p);
  Z3_params_dec_ref(z, p);
  watchdog w = { .z = z, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
  pthread_t wt;
  bool watching = false;
  if (s->opts.timeout_ms) {
    w.ms = s->opts.timeout_ms + s->opts.timeout_ms / 4 + 250;
    watching = pthread_create(&wt, NULL, watchdog_main, &w) == 0;
  }
  Z3_lbool r = Z3_solver_check(z, sol);
  if (watching) {
    pthread_mutex_lock(&w.mu);
    w.done = true;
    pthread_cond_signal(&w.cv);
    pthread_mutex_unlock(&w.mu);
    pthread_join(wt, NULL);
    if (w.fired && r == Z3_L_UNDEF && !out->reason)
      out->reason = dg_printf("timeout (the solver ran past %u ms and was interrupted)", s->opts.timeout_ms);
  }
  out->seconds = dg_now() - t0;
  out->nlipschitz = s->nlip;
  if (r == Z3_L_FALSE) out->verdict = SMT_EQUIVALENT;
  else if (r == Z3_L_TRUE) {
    out->verdict = SMT_DIFFERENT;
    Z3_model m = Z3_solver_get_model(z, sol);
    Z3_model_inc_ref(z, m);
    fill_model(s, m, roots, nroots, out);
    if (kernel && ref)
      out->have_sides = value_of(s, m, s->cache[kernel], term_sort_of(s->tc, kernel), &out->kernel_value) &&
                        value_of(s, m, s->cache[ref], term_sort_of(s->tc, ref), &out->ref_value);
    Z3_model_dec_ref(z, m);
  } else {
    out->verdict = SMT_UNKNOWN;
    if (!out->reason) out->reason = dg_strdup(Z3_solver_get_reason_unknown(z, sol));
  }
  Z3_solver_dec_ref(z, sol);
  if (smt_failed(s) && out->verdict != SMT_UNKNOWN) {
    smt_result_free(out);
    out->verdict = SMT_UNKNOWN;
  }
  if (out->verdict == SMT_UNKNOWN && !out->reason) out->reason = dg_strdup(s->error ? s->error : "unknown");
  return out->verdict;
}

static smt_verdict failed(smt_solver *s, smt_result *out)
{
  out->verdict = SMT_UNKNOWN;
  out->reason = dg_strdup(s->error ? s->error : "translation failed");
  return out->verdict;
}

/* k and r differ: NaN-ness, or both not NaN and not equal (fp.eq: +0 = -0,
 * inf = inf), or both finite and |k - r| > atol + rtol*|r|. The tolerance is
 * computed in floating point (f32, or f64 for f64 terms): mixing FP with real
 * arithmetic (fp.to_real) is far slower in Z3, and a rounding error of 2^-24
 * relative in a tolerance does not change what counts as a bug. */
static Z3_ast fp_differ(smt_solver *s, term_sort ts, Z3_ast k, Z3_ast r)
{
  Z3_context z = s->z;
  Z3_ast kn = Z3_mk_fpa_is_nan(z, k), rn = Z3_mk_fpa_is_nan(z, r);
  Z3_ast notnan[3] = { Z3_mk_not(z, kn), Z3_mk_not(z, rn), Z3_mk_not(z, Z3_mk_fpa_eq(z, k, r)) };
  Z3_ast any[3] = { Z3_mk_xor(z, kn, rn), Z3_mk_and(z, 3, notnan), NULL };
  if (s->opts.atol == 0 && s->opts.rtol == 0) return Z3_mk_or(z, 2, any);
  term_sort ws = ts == TERM_S_F64 ? TERM_S_F64 : TERM_S_F32;
  Z3_sort w = smt_sort(s, ws);
  Z3_ast kw = ws == ts ? k : Z3_mk_fpa_to_fp_float(z, s->rne, k, w);
  Z3_ast rw = ws == ts ? r : Z3_mk_fpa_to_fp_float(z, s->rne, r, w);
  Z3_ast ad = Z3_mk_fpa_abs(z, Z3_mk_fpa_sub(z, s->rne, kw, rw));
  Z3_ast atol = Z3_mk_fpa_numeral_double(z, s->opts.atol, w), rtol = Z3_mk_fpa_numeral_double(z, s->opts.rtol, w);
  Z3_ast tol = Z3_mk_fpa_add(z, s->rne, atol, Z3_mk_fpa_mul(z, s->rne, rtol, Z3_mk_fpa_abs(z, rw)));
  Z3_ast fin[3] = { Z3_mk_not(z, Z3_mk_fpa_is_infinite(z, k)), Z3_mk_not(z, Z3_mk_fpa_is_infinite(z, r)),
                    Z3_mk_fpa_gt(z, ad, tol) };
  Z3_ast inf[2] = { Z3_mk_or(z, 2, (Z3_ast[]){ Z3_mk_fpa_is_infinite(z, k), Z3_mk_fpa_is_infinite(z, r) }), NULL };
  /* beyond tolerance when finite; or an infinity the other side does not equal */
  inf[1] = any[1];
  Z3_ast parts[3] = { any[0], Z3_mk_and(z, 2, inf), NULL };
  Z3_ast fin_all[3] = { notnan[0], notnan[1], Z3_mk_and(z, 3, fin) };
  parts[2] = Z3_mk_and(z, 3, fin_all);
  return Z3_mk_or(z, 3, parts);
}

smt_verdict smt_check_differ(smt_solver *s, dg_term kernel, dg_term ref, smt_result *out)
{
  memset(out, 0, sizeof *out);
  term_sort ts = term_sort_of(s->tc, kernel);
  if (term_sort_of(s->tc, ref) != ts)
    term_die("comparing a %s with a %s", term_sort_name(ts), term_sort_name(term_sort_of(s->tc, ref)));
  if (kernel == ref && !s->opts.want_smtlib) return out->verdict = SMT_EQUIVALENT;  /* one term */
  Z3_ast k = smt_tr(s, kernel), r = k ? smt_tr(s, ref) : NULL;
  if (!k || !r) return failed(s, out);
  Z3_ast cond = TERM_SK(ts) == TERM_SK_FP ? fp_differ(s, ts, k, r) : Z3_mk_not(s->z, Z3_mk_eq(s->z, k, r));
  dg_term roots[2] = { kernel, ref };
  return run(s, cond, roots, 2, kernel, ref, out);
}

smt_verdict smt_sat(smt_solver *s, dg_term cond, smt_result *out)
{
  memset(out, 0, sizeof *out);
  if (term_sort_of(s->tc, cond) != TERM_S_BOOL) term_die("smt_sat of a %s term", term_sort_name(term_sort_of(s->tc, cond)));
  Z3_ast a = smt_tr(s, cond);
  if (!a) return failed(s, out);
  return run(s, a, &cond, 1, 0, 0, out);
}

smt_verdict smt_differ(term_ctx *c, dg_term kernel, dg_term ref, const dg_term *assume,
                       size_t nassume, const smt_opts *opts, smt_result *out)
{
  smt_solver *s = smt_new(c, opts);
  for (size_t i = 0; i < nassume; i++) smt_assume(s, assume[i]);
  smt_verdict v = smt_check_differ(s, kernel, ref, out);
  smt_free(s);
  return v;
}
