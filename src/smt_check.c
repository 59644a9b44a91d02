/* smt_check.c — the queries: "can kernel and reference differ?" and "is this
 * condition satisfiable?", with a timeout, the SMT-LIB2 text of the query,
 * and the model turned back into variable values through term metadata. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
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

/* Translated when a query goes to Z3 (assume_all): a query answered before it (one term, a
 * normal form, a selection, the identity test) does not pay for the assumptions (the
 * bounds of 40,962 inputs: 1.75 s of translation for matmul_tn_naive at K = 20481). */
void smt_assume(smt_solver *s, dg_term cond)
{
  if (term_sort_of(s->tc, cond) != TERM_S_BOOL) term_die("smt_assume of a %s term", term_sort_name(term_sort_of(s->tc, cond)));
  dg_vec_push(&s->assumed, cond);
}

/* Assumption t (translated: every term it reaches is in the cache) into the base facts, a
 * conjunction's operands one fact each: check_bounds's chain of 2N nested ands (the bounds
 * of N inputs) took Z3_solver_assert minutes at N = 100,000 (quadratic in the depth), past
 * any deadline; its 2N facts are asserted in milliseconds. */
static void assume_split(smt_solver *s, dg_term t)
{
  DG_VEC(dg_term) st = {0};
  dg_vec_push(&st, t);
  while (st.n) {
    dg_term u = st.v[--st.n];
    const term_node *n = &s->tc->nodes.v[u];
    if (n->op == TOP_AND) {
      dg_vec_push(&st, n->b);
      dg_vec_push(&st, n->a);
    } else {
      smt_assert_base(s, s->cache[u]);
    }
  }
  dg_vec_free(&st);
}

/* The assumptions not translated yet, into the base facts; false on an error (s->error). */
static bool assume_all(smt_solver *s)
{
  for (; s->nassumed_tr < s->assumed.n; s->nassumed_tr++) {
    Z3_ast a = smt_tr(s, s->assumed.v[s->nassumed_tr]);
    if (!a) break;
    assume_split(s, s->assumed.v[s->nassumed_tr]);
  }
  return !smt_failed(s);
}

/* The base facts and cond into sol, the deadline looked at every 1024 facts (a fact is a
 * few microseconds of Z3's); false past it (s->late, the error saying how far it got). */
static bool assert_all(smt_solver *s, Z3_solver sol, Z3_ast cond)
{
  for (size_t i = 0; i < s->base.n; i++) {
    if (s->opts.deadline > 0 && i % 1024 == 0 && i && dg_now() > s->opts.deadline) {
      s->late = true;
      free(s->error);
      s->error = dg_printf("the deadline passed asserting the assumptions to Z3: %zu of %zu facts", i, s->base.n);
      return false;
    }
    Z3_solver_assert(s->z, sol, s->base.v[i]);
  }
  Z3_solver_assert(s->z, sol, cond);
  return true;
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
    term_value val = {0};
    if (!value_of(s, m, s->cache[v], term_sort_of(c, v), &val)) continue;
    out->values[i] = val;
    out->model = dg_realloc(out->model, (out->nmodel + 1) * sizeof *out->model);
    smt_binding *b = &out->model[out->nmodel++];
    memset(b, 0, sizeof *b);      /* the padding too: a child sends the array through a pipe */
    b->var = v, b->ordinal = i, b->value = val;
  }
  free(seen);
}

/* The check and its model in this process: fills out (all but seconds). */
static void check_here(smt_solver *s, Z3_solver sol, const dg_term *roots, size_t nroots,
                       dg_term kernel, dg_term ref, smt_result *out)
{
  Z3_context z = s->z;
  Z3_lbool r = Z3_solver_check(z, sol);
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
    out->reason = dg_strdup(Z3_solver_get_reason_unknown(z, sol));
  }
}

/* ---- a hard time limit -------------------------------------------------------------
 * Z3 4.8.12 does not honour its "timeout", nor Z3_interrupt, inside some
 * procedures (a layernorm query ran 103 s under a 3 s limit, both ways), and
 * its own timer thread deadlocked once against an interrupt. A query with a
 * limit therefore runs in a child process (fork: the context and the
 * translations are already there), which sends its result back through a
 * pipe and is killed when the limit passes. */
typedef struct {
  int32_t verdict, have_sides;
  uint64_t nvalues, nmodel, nreason;
  term_value kernel_value, ref_value;
} wire_head;

static void send_all(int fd, const void *p, size_t n)
{
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    c += w, n -= (size_t)w;
  }
}

static void send_result(int fd, const smt_result *r)
{
  wire_head h = { r->verdict, r->have_sides, r->nvalues, r->nmodel, r->reason ? strlen(r->reason) : 0,
                  r->kernel_value, r->ref_value };
  send_all(fd, &h, sizeof h);
  if (h.nvalues) send_all(fd, r->values, sizeof *r->values * h.nvalues);
  if (h.nmodel) send_all(fd, r->model, sizeof *r->model * h.nmodel);
  if (h.nreason) send_all(fd, r->reason, h.nreason);
}

/* Parses what the child sent; false when it is not a whole result. */
static bool take_result(const dg_buf *b, smt_result *out)
{
  wire_head h;
  if (b->n < sizeof h) return false;
  memcpy(&h, b->s, sizeof h);
  size_t need = sizeof h + sizeof(term_value) * h.nvalues + sizeof(smt_binding) * h.nmodel + h.nreason;
  if (b->n != need || h.verdict < SMT_EQUIVALENT || h.verdict > SMT_UNKNOWN) return false;
  const char *p = b->s + sizeof h;
  out->verdict = (smt_verdict)h.verdict;
  out->have_sides = h.have_sides;
  out->kernel_value = h.kernel_value, out->ref_value = h.ref_value;
  if (h.nvalues) {
    out->nvalues = h.nvalues;
    out->values = dg_malloc(sizeof *out->values * h.nvalues);
    memcpy(out->values, p, sizeof *out->values * h.nvalues);
    p += sizeof *out->values * h.nvalues;
  }
  if (h.nmodel) {
    out->nmodel = h.nmodel;
    out->model = dg_malloc(sizeof *out->model * h.nmodel);
    memcpy(out->model, p, sizeof *out->model * h.nmodel);
    p += sizeof *out->model * h.nmodel;
  }
  if (h.nreason) {
    out->reason = dg_malloc(h.nreason + 1);
    memcpy(out->reason, p, h.nreason);
    out->reason[h.nreason] = 0;
  }
  return true;
}

/* Runs job(ud, fd) in a child process and collects what it writes to fd
 * within ms; kills it after. -1: no child could run; 0: killed; 1: it ended
 * (*status: its wait status). */
static int in_child(void (*job)(void *ud, int fd), void *ud, unsigned ms, dg_buf *b, int *status)
{
  int fd[2];
  if (pipe(fd)) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    job(ud, fd[1]);
    close(fd[1]);   /* the parent's read ends here, not at the exit: under valgrind the
                       exit is a leak search of Z3's heap, which was counted in the budget */
    _exit(0);
  }
  close(fd[1]);
  double until = dg_now() + ms / 1000.0;
  bool killed = false;
  char chunk[65536];
  for (;;) {
    double left = until - dg_now();
    struct pollfd pf = { .fd = fd[0], .events = POLLIN };
    int pr = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
    ssize_t n = read(fd[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    dg_buf_put(b, chunk, (size_t)n);
  }
  close(fd[0]);
  *status = 0;
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
  return killed ? 0 : 1;
}

typedef struct {
  smt_solver *s;
  Z3_solver sol;
  const dg_term *roots;
  size_t nroots;
  dg_term kernel, ref;
} check_job;

static void check_job_run(void *ud, int fd)
{
  check_job *j = ud;
  smt_result r = {0};
  check_here(j->s, j->sol, j->roots, j->nroots, j->kernel, j->ref, &r);
  if (smt_failed(j->s) && r.verdict != SMT_UNKNOWN) {
    smt_result_free(&r);
    r.verdict = SMT_UNKNOWN;
    r.reason = dg_strdup(j->s->error);
  }
  send_result(fd, &r);
  smt_result_free(&r);
}

static void smtlib_job_run(void *ud, int fd)
{
  check_job *j = ud;
  const char *t = Z3_solver_to_string(j->s->z, j->sol);
  send_all(fd, t, strlen(t));
}

/* check_here in a child, stopped after ms; false when no child could run. */
static bool check_child(check_job *j, unsigned ms, smt_result *out)
{
  dg_buf b = {0};
  int st;
  int got = in_child(check_job_run, j, ms, &b, &st);
  if (got < 0) return false;
  if (!got) {
    out->verdict = SMT_UNKNOWN;
    out->reason = dg_printf("timeout (the solver ran past %u ms and was stopped)", ms);
  } else if (!take_result(&b, out)) {
    smt_result_free(out);
    out->verdict = SMT_UNKNOWN;
    out->reason = WIFSIGNALED(st) ? dg_printf("the solver process died (signal %d)", WTERMSIG(st))
                                  : dg_strdup("the solver process sent no result");
  }
  dg_buf_free(&b);
  return true;
}

/* The query as SMT-LIB2. Z3's printer can take minutes on a query whose
 * DAG is small (a layernorm's sums): it gets SMTLIB_MS in a child. */
enum { SMTLIB_MS = 10000 };
static char *smtlib_text(check_job *j)
{
  dg_buf b = {0};
  int st;
  int got = in_child(smtlib_job_run, j, SMTLIB_MS, &b, &st);
  if (got < 0) return dg_strdup(Z3_solver_to_string(j->s->z, j->sol));
  if (got && WIFEXITED(st)) {
    dg_buf_putc(&b, 0);
    return dg_buf_take(&b);
  }
  dg_buf_free(&b);
  return dg_printf("; query not printed: Z3's printer ran past %d ms", (int)SMTLIB_MS);
}

static smt_verdict failed(smt_solver *s, smt_result *out);

/* The query's time limit as it starts: opts.timeout_ms, cut to what is left before
 * opts.deadline (the caller computed the limit before the translation and the asserts,
 * which take seconds for 100,000 inputs' bounds: Z3 then ran that long past the deadline;
 * at least 1 ms, 0 being none). */
static unsigned query_ms(const smt_solver *s)
{
  unsigned ms = s->opts.timeout_ms;
  if (!ms || s->opts.deadline <= 0) return ms;
  double left = (s->opts.deadline - dg_now()) * 1000;
  return left < 1 ? 1 : left < ms ? (unsigned)left : ms;
}

/* Under the assumptions, is cond satisfiable? roots: the terms whose variables
 * the model reports; sides: kernel and ref (or 0). */
static smt_verdict run(smt_solver *s, Z3_ast cond, const dg_term *roots, size_t nroots,
                       dg_term kernel, dg_term ref, smt_result *out)
{
  if (!assume_all(s)) return failed(s, out);
  Z3_context z = s->z;
  double t0 = dg_now();
  Z3_solver sol = Z3_mk_solver(z);
  Z3_solver_inc_ref(z, sol);
  if (!assert_all(s, sol, cond)) {
    Z3_solver_dec_ref(z, sol);
    return failed(s, out);
  }
  check_job j = { s, sol, roots, nroots, kernel, ref };
  char *smtlib = s->opts.want_smtlib ? smtlib_text(&j) : NULL;
  unsigned ms = query_ms(s);
  bool done = ms && check_child(&j, ms, out);
  if (!done) {
    if (ms) {   /* no child: Z3's own limit */
      Z3_params p = Z3_mk_params(z);
      Z3_params_inc_ref(z, p);
      Z3_params_set_uint(z, p, Z3_mk_string_symbol(z, "timeout"), ms);
      Z3_solver_set_params(z, sol, p);
      Z3_params_dec_ref(z, p);
    }
    check_here(s, sol, roots, nroots, kernel, ref, out);
  }
  out->seconds = dg_now() - t0;
  out->nlipschitz = s->nlip;
  Z3_solver_dec_ref(z, sol);
  if (smt_failed(s) && out->verdict != SMT_UNKNOWN) {
    smt_result_free(out);
    out->verdict = SMT_UNKNOWN;
  }
  out->smtlib = smtlib;
  if (out->verdict == SMT_UNKNOWN && !out->reason) out->reason = dg_strdup(s->error ? s->error : "unknown");
  return out->verdict;
}

static smt_verdict failed(smt_solver *s, smt_result *out)
{
  out->verdict = SMT_UNKNOWN;
  out->late = s->late;
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

/* The SMT-LIB text of "kernel and ref differ" (cond) under the assumptions,
 * for --explain when no solver runs. */
static char *query_text(smt_solver *s, dg_term kernel, dg_term ref, Z3_ast cond)
{
  if (!assume_all(s)) return dg_printf("; query not printed: %s", s->error);
  dg_term roots[2] = { kernel, ref };
  Z3_solver sol = Z3_mk_solver(s->z);
  Z3_solver_inc_ref(s->z, sol);
  for (size_t i = 0; i < s->base.n; i++) Z3_solver_assert(s->z, sol, s->base.v[i]);
  Z3_solver_assert(s->z, sol, cond);
  check_job j = { s, sol, roots, 2, kernel, ref };
  char *text = smtlib_text(&j);
  Z3_solver_dec_ref(s->z, sol);
  return text;
}

smt_verdict smt_check_differ(smt_solver *s, dg_term kernel, dg_term ref, smt_result *out)
{
  memset(out, 0, sizeof *out);
  term_sort ts = term_sort_of(s->tc, kernel);
  if (term_sort_of(s->tc, ref) != ts)
    term_die("comparing a %s with a %s", term_sort_name(ts), term_sort_name(term_sort_of(s->tc, ref)));
  if (kernel == ref && !s->opts.want_smtlib) return out->verdict = SMT_EQUIVALENT;  /* one term */
  bool same = ts == TERM_S_REAL && smt_same_normal_form(s->tc, kernel, ref);
  if (same && !s->opts.want_smtlib) return out->normal_form = true, out->verdict = SMT_EQUIVALENT;
  if (!same && smt_same_selection(s->tc, kernel, ref)) {
    out->selection = true;
    if (!s->opts.want_smtlib) return out->verdict = SMT_EQUIVALENT;
    Z3_ast k = smt_tr(s, kernel), r = k ? smt_tr(s, ref) : NULL;
    if (k && r) {   /* the query's text, for --explain; not solved */
      char *text = query_text(s, kernel, ref, Z3_mk_not(s->z, Z3_mk_eq(s->z, k, r)));
      out->smtlib = dg_printf("; not solved: both sides select the first maximum over the same pairs (smt_select.c)\n%s", text);
      free(text);
    }
    return out->verdict = SMT_EQUIVALENT;
  }
  double err;
  if (!same && ts == TERM_S_REAL && smt_pit_same(s->tc, kernel, ref, &err)) {
    out->identity_err = fmax(err, 1e-300);
    if (s->opts.want_smtlib) {   /* the query's text, for --explain; not solved */
      Z3_ast k = smt_tr(s, kernel), r = k ? smt_tr(s, ref) : NULL;
      if (k && r) {
        char *text = query_text(s, kernel, ref, Z3_mk_not(s->z, Z3_mk_eq(s->z, k, r)));
        out->smtlib = dg_printf("; not solved: both sides agree at random points of two prime fields (smt_pit.c)\n%s", text);
        free(text);
      }
    }
    return out->verdict = SMT_EQUIVALENT;
  }
  Z3_ast k = smt_tr(s, kernel), r = k ? smt_tr(s, ref) : NULL;
  if (!k || !r) return failed(s, out);
  Z3_ast cond = TERM_SK(ts) == TERM_SK_FP ? fp_differ(s, ts, k, r) : Z3_mk_not(s->z, Z3_mk_eq(s->z, k, r));
  dg_term roots[2] = { kernel, ref };
  if (same) {   /* the query's text, for --explain; not solved */
    char *text = query_text(s, kernel, ref, cond);
    out->smtlib = dg_printf("; not solved: both sides expand to one polynomial (smt_norm.c)\n%s", text);
    free(text);
    out->normal_form = true;
    return out->verdict = SMT_EQUIVALENT;
  }
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
