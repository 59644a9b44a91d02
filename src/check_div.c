/* check_div.c — integer division by an input (see check_int.h, check_div).
 *
 * C++ leaves x / 0, x % 0 and INT_MIN / -1 undefined; a GPU does not trap,
 * the quotient is garbage. The engine reports the cases it sees concretely
 * (a `division-by-zero` event: simt_expr.c); in the symbolic run a divisor
 * loaded from an input is a term, which the domain records
 * (dom_sym_divisors). Here the solver is asked for inputs that make one 0
 * (or the dividend the smallest value and the divisor -1), and the model is
 * replayed on the emulator: only the engine's event there is a finding. The
 * query ignores the path condition (the domain records divisions on both
 * sides of a data-dependent branch, `d != 0 ? n / d : 0` included), so a
 * guarded division gives a model that the replay does not confirm: no
 * finding, nothing said. */
#include "check_int.h"
#include "dom_sym.h"
#include <string.h>

enum {
  DIV_QUERIES = 8,          /* distinct divisions asked about, the first ones */
  DIV_QUERY_MS = 3000,      /* each: a side question (or a quarter of a longer --timeout) */
};

/* ovf false: den == 0; true: (signed) num == the smallest value && den == -1
 * (TERM_NONE: not a signed division of one width) */
static dg_term undefined_cond(term_ctx *tc, const dom_sym_divisor *dv, bool ovf)
{
  term_sort so = term_sort_of(tc, dv->den);
  if (!ovf) return term_icmp(tc, TERM_CMP_EQ, dv->den, term_int(tc, so, 0), false);
  int bits = term_sort_bits(so);
  if (!dv->sg || bits < 2 || bits > 64 || term_sort_of(tc, dv->num) != so) return TERM_NONE;
  int64_t mn = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
  return term_and(tc, term_icmp(tc, TERM_CMP_EQ, dv->den, term_int(tc, so, -1), true),
                  term_icmp(tc, TERM_CMP_EQ, dv->num, term_int(tc, so, mn), true));
}

static bool asked_before(const dom_sym_divisor *dv, size_t i)
{
  for (size_t j = 0; j < i; j++)
    if (dv[j].den == dv[i].den && (!dv[i].sg || dv[j].num == dv[i].num)) return true;
  return false;
}

/* Does den read a variable L's kernel term reads (kv, nk of them)? */
static bool related(term_ctx *tc, dg_term den, const dg_term *kv, size_t nk)
{
  size_t nd;
  dg_term *dv = term_vars_of(tc, den, &nd);
  bool hit = false;
  for (size_t i = 0; i < nd && !hit; i++)
    for (size_t j = 0; j < nk && !hit; j++) hit = dv[i] == kv[j];
  free(dv);
  return hit;
}

/* The witness: the concrete run's inputs, every divisor that is an input
 * variable at 1 (so that only the model's zero divides by zero and the
 * replay's event is its thread's), then the model's values (the solver's
 * values are for the variables of its query only: the others keep theirs). */
static double **div_inputs(chk *c, const dom_sym_divisor *dv, size_t n, const smt_result *m)
{
  size_t nv = term_var_count(c->tc);
  term_value *vals = dg_calloc(nv + 1, sizeof *vals);
  for (size_t i = 0; i < nv; i++) {
    const term_varinfo *vi = term_var_info(c->tc, i);
    int t = vi->kind == TERM_VAR_INPUT ? dg_problem_tensor(c->p, vi->tensor) : -1;
    if (t < 0 || !c->io.data[t] || vi->index < 0 || vi->index >= c->io.numel[t]) continue;
    double v = c->io.data[t][vi->index];
    vals[i].f = v, vals[i].i = (int64_t)v;
  }
  for (size_t j = 0; j < n; j++) {
    long o = term_var_ordinal(c->tc, dv[j].den);
    if (o >= 0 && (size_t)o < nv) vals[o].f = 1, vals[o].i = 1;
  }
  for (size_t k = 0; k < m->nmodel; k++)
    if (m->model[k].ordinal < nv) vals[m->model[k].ordinal] = m->model[k].value;
  double **in = check_witness_inputs(c, vals, nv);
  free(vals);
  return in;
}

bool check_div(chk *c, dg_term kt)
{
  size_t n;
  const dom_sym_divisor *dv = dom_sym_divisors(c->sym, &n);
  if (!n || c->huge) return false;       /* huge: no witness can be replayed */
  bool real = term_ctx_model(c->tc) == TERM_MODEL_REAL;
  /* L's own divisions first (a finding in another thread of the block is
   * still one, as the engine's other events are) */
  size_t nk, order[DOM_SYM_MAX_DIVS], no = 0;
  dg_term *kv = term_vars_of(c->tc, kt, &nk);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n && i < DOM_SYM_MAX_DIVS; i++)
      if (related(c->tc, dv[i].den, kv, nk) == (pass == 0)) order[no++] = i;
  free(kv);
  /* each division's zero, then its overflow */
  for (size_t q = 0, asked = 0; q < 2 * no && asked < DIV_QUERIES; q++) {
    size_t i = order[q / 2];
    bool ovf = q % 2;
    if (ovf ? !dv[i].sg : asked_before(dv, i)) continue;
    dg_term cond = undefined_cond(c->tc, &dv[i], ovf);
    if (!cond) continue;
    if (check_out_of_time(c)) return false;
    asked++;
    smt_opts so = { .timeout_ms = check_side_ms(c, 4, DIV_QUERY_MS), .deadline = c->deadline };
    dg_term bnd = real ? check_bounds(c, 0) : 0;
    if (real && !bnd) return false;        /* the deadline: check.c says unknown */
    smt_solver *s = smt_new(c->tc, &so);
    if (bnd) smt_assume(s, bnd);
    smt_result res = {0};
    smt_verdict v = smt_sat(s, cond, &res);
    smt_free(s);
    c->r->t_solver += res.seconds;
    if (v != SMT_SAT) { smt_result_free(&res); continue; }
    double **in = div_inputs(c, dv, n, &res);
    simt_event ev;
    double t0 = dg_now();
    /* a one-launch problem: the writer's block alone, the block the symbolic run ran */
    bool hit = check_replay_event(c->p, c->k, c->sizes, in, &c->wblock, SIMT_EV_DIV_ZERO, &ev, c->deadline, &c->cut);
    c->r->t_replay += dg_now() - t0;
    if (!hit) {
      check_free_inputs(c->p, in);
      smt_result_free(&res);
      continue;
    }
    check_result *r = c->r;
    free(r->witness_text);
    r->witness_text = check_model_text(c, &res, in, dv[i].den, dv[i].num);
    check_keep_inputs(c, in);
    dg_buf b = {0};
    simt_event_format(&b, &c->k->sm, &ev);
    check_say(r, CHECK_FINDING, "%s (symbolic run: the solver found inputs that make the %s undefined, "
              "replayed on the emulator; witness: %s)", b.s ? b.s : simt_event_name(ev.kind),
              dv[i].rem ? "remainder" : "division", r->witness_text);
    dg_buf_free(&b);
    r->have_event = true;
    r->event = ev;
    smt_result_free(&res);
    return true;
  }
  return false;
}
