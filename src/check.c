/* check.c — one element, one verdict (see check.h): find the writers of L
 * concretely, run them symbolically, build the reference's term, ask Z3,
 * and replay every witness before calling anything a bug. */
#include "check_int.h"
#include "dom_sym.h"
#include "fuzz.h"
#include "smt.h"
#include <inttypes.h>
#include <math.h>
#include <string.h>

static const struct { const char *name; bool finding; } verdicts[CHECK__COUNT] = {
#define X(id, name, f) [CHECK_##id] = { name, f },
  CHECK_VERDICTS(X)
#undef X
};
const char *check_verdict_name(check_verdict v) { return verdicts[v].name; }
bool check_verdict_is_finding(check_verdict v) { return verdicts[v].finding; }

/* engine event -> verdict */
static const check_verdict ev_verdict[SIMT_EV__COUNT] = {
  [SIMT_EV_OOB] = CHECK_OOB, [SIMT_EV_UNINIT] = CHECK_UNINIT, [SIMT_EV_RACE] = CHECK_RACE,
  [SIMT_EV_BARRIER_DIVERGENCE] = CHECK_BARRIER, [SIMT_EV_RUNAWAY] = CHECK_FINDING,
  [SIMT_EV_READONLY] = CHECK_FINDING, [SIMT_EV_ASSERT] = CHECK_FINDING,
  [SIMT_EV_SHFL_INACTIVE] = CHECK_FINDING, [SIMT_EV_DIV_ZERO] = CHECK_FINDING,
};

void check_result_free(check_result *r)
{
  free(r->reason);
  for (int t = 0; t < r->ntensors; t++) free(r->inputs ? r->inputs[t] : NULL);
  free(r->inputs), free(r->numel), free(r->sizes), free(r->slice);
  check_steps_free(r);
  free(r->kernel_term), free(r->ref_term), free(r->smtlib), free(r->witness_text), free(r->gpu_note);
  memset(r, 0, sizeof *r);
}

void check_format_elem(dg_buf *b, const dg_problem *p, int tensor, const int64_t *idx, int rank)
{
  dg_buf_printf(b, "%s[", p->tensors.v[tensor].name);
  for (int i = 0; i < rank; i++) dg_buf_printf(b, "%s%lld", i ? "," : "", (long long)idx[i]);
  dg_buf_putc(b, ']');
}

void check_say(check_result *r, check_verdict v, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  free(r->reason);
  r->reason = dg_vprintf(fmt, ap);
  va_end(ap);
  r->verdict = v;
}


/* Values of every input tensor into dst (per tensor); ranged (index-valued)
 * inputs only when keep_ranged is false: the symbolic run fixed them.
 * fuzz_fill's values bit for bit, looking at the deadline as they are drawn
 * (fuzz_ctr_fill_until). False when the deadline cut it (*cut_t, *cut_at: where). */
static bool fill_with(chk *c, double **dst, fuzz_dist dist, uint64_t seed, bool keep_ranged, int *cut_t,
                      int64_t *cut_at)
{
  const dg_problem *p = c->p;
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if ((ts->role != DG_TENSOR_INPUT && !ts->accumulate) || !dst[t] || (ts->has_range && keep_ranged)) continue;
    fuzz_fill_opts fo = { .dist = dist, .dtype = ts->dtype };
    if (ts->shape.n) fo.row = c->dims[t][ts->shape.n - 1];
    if (ts->has_range) {
      dg_diags d = {0};
      if (dg_problem_range(p, (int)t, c->sizes, &fo.lo, &fo.hi, &d) && fo.hi >= fo.lo) fo.has_range = true;
      dg_diags_free(&d);
    }
    dg_rng r;
    dg_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ull * (t + 1)));
    int64_t n = c->io.numel[t];
    fuzz_ctr g = { .key = dg_rng_next(&r), .dist = fo.dist, .dtype = fo.dtype, .has_range = fo.has_range,
                   .lo = fo.lo, .hi = fo.hi, .row = fo.row, .n = n };      /* fuzz_fill's */
    int64_t got = fuzz_ctr_fill_until(&g, n, dst[t], c->deadline);
    if (got < n) {
      *cut_t = (int)t, *cut_at = got;
      return false;
    }
    for (int64_t i = 0; i < n; i++) {
      double v = dg_dtype_round(ts->dtype, dst[t][i]);
      dst[t][i] = ts->positive ? fabs(v) : v;
    }
  }
  return true;
}

/* false with the verdict said when the deadline cut the fill */
static bool fill_inputs(chk *c, uint64_t seed)
{
  int t;
  int64_t at;
  if (fill_with(c, c->io.data, FUZZ_DIST_NORMAL, seed, false, &t, &at)) return true;
  check_say(c->r, CHECK_UNKNOWN, "the check's budget is spent drawing the random inputs of the concrete run "
            "(%s: %lld of %lld elements)", c->p->tensors.v[t].name, (long long)at, (long long)c->io.numel[t]);
  return false;
}

check_verdict check_event_kind_verdict(simt_evkind k)
{
  return ev_verdict[k] ? ev_verdict[k] : CHECK_FINDING;
}

bool check_event_verdict(chk *c, const simt_event *ev, size_t n, const char *when)
{
  for (size_t i = 0; i < n; i++) {
    if (!emu_event_is_finding(ev[i].kind)) continue;
    check_result *r = c->r;
    dg_buf b = {0};
    simt_event_format(&b, &c->k->sm, &ev[i]);
    if (ev[i].kind == SIMT_EV_RUNAWAY && !ev[i].endless)    /* long, not shown endless: no finding */
      check_say(r, CHECK_UNKNOWN, "%s (%s): a loop this long, not shown to loop forever, is no finding; "
                "check smaller sizes (--size) for a verdict",
                b.s ? b.s : simt_event_name(ev[i].kind), when);
    else
      check_say(r, check_event_kind_verdict(ev[i].kind), "%s (%s)",
                b.s ? b.s : simt_event_name(ev[i].kind), when);
    dg_buf_free(&b);
    r->have_event = true;
    r->event = ev[i];
    return true;
  }
  return false;
}

/* The writer's block b on a concrete machine, to cap lane operations
 * (0: none): SIMT_STOPPED with *work when the cap cut it. */
static simt_status run_block(chk *c, check_mach *cm, int64_t b, uint64_t cap, bool *work, char **err)
{
  simt_track_writes(cm->m, cm->bufs[c->t]);
  cm->deadline = c->deadline;
  cm->max_lane_ops = cap;
  simt_status st = check_mach_launch(cm, c->k, 0, &b, 1, err);
  *work = cap && st == SIMT_STOPPED && simt_last_stats(cm->m).lane_ops > cap;
  return st;
}

/* (a') a one-launch problem on a large grid: the writer by inverting the
 * store addresses (check_invert.c proves no other thread may store into L),
 * confirmed by running the candidate's block in full: it must store L. At
 * a huge instance the block first runs to its first CHECK_PREFIX_OPS lane
 * operations: a finding there is the verdict, a prefix of a real execution
 * (attention's last block walks 2^25 keys after its q loads); cut there
 * without one, it runs again in full.
 * 1: found (c->wl...), 0: not (the search runs), -1: a verdict was said. */
static int invert_writer(chk *c)
{
  check_mach cm;
  simt_launch L;
  char *err = NULL;
  int64_t b, t;
  const char *why;
  if (c->p->launches.n != 1 || !check_mach_init(&cm, c->p, c->sizes, &c->io, NULL, &err)) { free(err); return 0; }
  int res = 0;
  if (check_mach_dims(&cm, 0, &L, &err)) {
    int64_t nb = (int64_t)(L.grid[0] ? L.grid[0] : 1) * (L.grid[1] ? L.grid[1] : 1) * (L.grid[2] ? L.grid[2] : 1);
    int64_t tpb = (int64_t)(L.block[0] ? L.block[0] : 1) * (L.block[1] ? L.block[1] : 1) * (L.block[2] ? L.block[2] : 1);
    if ((nb >= CHECK_INVERT_BLOCKS || check_huge_out(c)) && check_invert_writer(c, 0, &L, &b, &t, &why)) {
      int buf = cm.bufs[c->t];
      bool work = false;
      simt_status st = run_block(c, &cm, b, c->huge ? CHECK_PREFIX_OPS : 0, &work, &err);
      size_t ne;
      const simt_event *ev = simt_events(cm.m, &ne);
      char *when = work ? dg_printf("concrete run on the emulator (a prefix of the writer's block %" PRId64 ": its "
                                    "first %llu lane operations, where the run was cut)", b,
                                    (unsigned long long)CHECK_PREFIX_OPS) : NULL;
      if (st != SIMT_BADARGS && check_event_verdict(c, ev, ne, when ? when : "concrete run on the emulator (the writer's block)")) {
        c->prefix = work;
        res = -1;
      } else if (work) {             /* no finding in the prefix: the whole block, as before */
        check_mach_free(&cm);
        if (!check_mach_init(&cm, c->p, c->sizes, &c->io, NULL, &err)) {
          free(when);
          free(err);
          return 0;
        }
        st = run_block(c, &cm, b, 0, &work, &err);
        ev = simt_events(cm.m, &ne);
        if (st != SIMT_BADARGS && check_event_verdict(c, ev, ne, "concrete run on the emulator (the writer's block)"))
          res = -1;
      }
      free(when);
      buf = cm.bufs[c->t];
      if (res == 0 && st == SIMT_OK) {
        bool mine = false, other = false;
        for (int i = 0; i < c->es; i++) {
          int nw = 0;
          int64_t w = simt_writer(cm.m, buf, c->off + i, &nw);
          if (w < 0 && check_huge_out(c) && check_huge_stored(&cm, c->t, c->off + i)) w = b * tpb + t, nw = 1;
          if (w < 0) continue;
          if (w == b * tpb + t && nw == 1) mine = true;
          else other = true;
        }
        if (mine && !other) {
          c->wl = 0, c->wblock = b, c->wthread = t, c->wthreads = tpb, c->multi = false;
          c->r->writer_inverted = true;
          res = 1;
        }
      }
    }
  }
  free(err);
  check_mach_free(&cm);
  return res;
}

/* (a) the concrete run: who writes L? */
static bool find_writer(chk *c)
{
  check_mach cm;
  char *err = NULL;
  c->wl = -1;
  int inv = invert_writer(c);
  if (inv) return inv > 0;
  if (check_huge_no_search(c)) return false;     /* a lazy output: no writer map */
  if (!check_mach_init(&cm, c->p, c->sizes, &c->io, NULL, &err)) {
    check_say(c->r, CHECK_ERROR, "%s", err);
    free(err);
    return false;
  }
  int buf = cm.bufs[c->t];
  bool ok = true;
  cm.deadline = c->deadline;           /* a huge grid must not run past the budget */
  for (int li = 0; li < (int)c->p->launches.n && ok; li++) {
    simt_track_writes(cm.m, buf);
    simt_status st = check_mach_launch(&cm, c->k, li, NULL, 0, &err);
    if (st == SIMT_BADARGS) {
      check_say(c->r, CHECK_ERROR, "%s", err ? err : "launch refused");
      ok = false;
      break;
    }
    size_t ne;
    const simt_event *ev = simt_events(cm.m, &ne);
    if (check_event_verdict(c, ev, ne, "concrete run on the emulator")) {
      /* a race on global memory shows with these inputs (its stores differ): kept to replay it */
      if (c->r->event.gmem) check_keep_inputs(c, check_witness_inputs(c, NULL, 0));
      ok = false;
      break;
    }
    if (st == SIMT_STOPPED && simt_error(cm.m)[0]) {
      check_say(c->r, CHECK_UNKNOWN, "the budget was spent finding the writer (launch %d: %s)", li + 1,
                simt_error(cm.m));
      ok = false;
      break;
    }
    if (st == SIMT_STOPPED) {
      check_say(c->r, CHECK_UNKNOWN, "the concrete run stopped in launch %d", li + 1);
      ok = false;
      break;
    }
    for (int b = 0; b < c->es; b++) {
      int nw = 0;
      int64_t w = simt_writer(cm.m, buf, c->off + b, &nw);
      if (w < 0) continue;
      simt_launch L;
      check_mach_dims(&cm, li, &L, &err);
      c->wl = li;
      c->wthreads = (int64_t)(L.block[0] ? L.block[0] : 1) * (L.block[1] ? L.block[1] : 1) * (L.block[2] ? L.block[2] : 1);
      c->wblock = w / c->wthreads, c->wthread = w % c->wthreads;
      c->multi = nw > 1;
    }
  }
  free(err);
  check_mach_free(&cm);
  return ok;
}

/* ---- (b) the symbolic run ------------------------------------------------------------ */
static dg_term kernel_term(chk *c)
{
  check_mach cm;
  char *err = NULL;
  dg_term kt = TERM_NONE;
  if (!check_mach_init(&cm, c->p, c->sizes, &c->io, c->sym, &err)) {
    check_say(c->r, CHECK_ERROR, "%s", err);
    free(err);
    return TERM_NONE;
  }
  int64_t budget = c->o->max_threads > 0 ? c->o->max_threads : (1 << 16);
  cm.deadline = c->deadline;
  for (int li = 0; li <= c->wl; li++) {
    simt_launch L;
    if (!check_mach_dims(&cm, li, &L, &err)) { check_say(c->r, CHECK_ERROR, "%s", err); goto out; }
    int64_t nb = (int64_t)(L.grid[0] ? L.grid[0] : 1) * (L.grid[1] ? L.grid[1] : 1) * (L.grid[2] ? L.grid[2] : 1);
    int64_t tpb = (int64_t)(L.block[0] ? L.block[0] : 1) * (L.block[1] ? L.block[1] : 1) * (L.block[2] ? L.block[2] : 1);
    bool one = li == c->wl && !c->multi;
    int64_t lanes = (one ? 1 : nb) * tpb;
    if (lanes > budget) {
      check_say(c->r, CHECK_UNKNOWN, "launch %d needs %lld symbolic threads (more than %lld): %s", li + 1,
          (long long)lanes, (long long)budget,
          one ? "block too large" : "every block of an earlier launch (or of several writers) runs");
      goto out;
    }
    budget -= lanes;
    if (li == c->wl) simt_trace_thread(cm.m, c->wblock, c->wthread), check_steps_attach(c, cm.m);
    simt_status st = check_mach_launch(&cm, c->k, li, one ? &c->wblock : NULL, one ? 1 : 0, &err);
    if (st == SIMT_BADARGS) { check_say(c->r, CHECK_ERROR, "%s", err ? err : "launch refused"); goto out; }
    size_t ne;
    const simt_event *ev = simt_events(cm.m, &ne);
    if (check_event_verdict(c, ev, ne, "symbolic run")) goto out;
    if (st == SIMT_STOPPED) {
      for (size_t i = 0; i < ne; i++) {
        if (ev[i].kind != SIMT_EV_DATA_DEP && ev[i].kind != SIMT_EV_UNSUPPORTED) continue;
        dg_buf b = {0};
        simt_event_format(&b, &c->k->sm, &ev[i]);
        check_say(c->r, CHECK_UNKNOWN, "%s", b.s ? b.s : "stopped");
        dg_buf_free(&b);
        c->r->have_event = true;
        c->r->event = ev[i];
        goto out;
      }
      if (simt_error(cm.m)[0])          /* the deadline: a launch or a loop cut */
        check_say(c->r, CHECK_UNKNOWN, "the check's budget is spent in the symbolic run (launch %d: %s)", li + 1,
                  simt_error(cm.m));
      else
        check_say(c->r, CHECK_UNKNOWN, "the symbolic run stopped in launch %d", li + 1);
      goto out;
    }
    if (li == c->wl) {      /* the slice: distinct lines, in first-executed order */
      size_t n;
      const dg_span *sp = simt_trace(cm.m, &n);
      c->r->slice = dg_calloc(n + 1, sizeof *c->r->slice);
      for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < c->r->nslice && !seen; j++)
          seen = c->r->slice[j].file == sp[i].file && c->r->slice[j].line == sp[i].line;
        if (!seen && sp[i].file) c->r->slice[c->r->nslice++] = (dg_span){ sp[i].file, sp[i].line, 1 };
      }
    }
  }
  kt = dom_sym_cell(c->sym, simt_buf_mem(cm.m, cm.bufs[c->t]), c->off, c->es);
  if (!kt) check_say(c->r, CHECK_UNKNOWN, "the symbolic run did not store %s as one value (a byte-wise or partial store)",
               c->p->tensors.v[c->t].name);
out:
  free(err);
  check_mach_free(&cm);
  return kt;
}


/* ---- (d)+(e) the solver and the replay ---------------------------------------------- */
/* The witness: the concrete run's inputs with the model's values put in. */
double **check_witness_inputs(chk *c, const term_value *vals, size_t nvals)
{
  const dg_problem *p = c->p;
  double **in = dg_calloc(p->tensors.n + 1, sizeof *in);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if ((ts->role != DG_TENSOR_INPUT && !ts->accumulate) || !c->io.data[t]) continue;   /* lazy: huge */
    in[t] = dg_malloc(sizeof(double) * (size_t)(c->io.numel[t] + 1));
    memcpy(in[t], c->io.data[t], sizeof(double) * (size_t)c->io.numel[t]);
  }
  for (size_t i = 0; vals && i < nvals && i < term_var_count(c->tc); i++) {
    const term_varinfo *vi = term_var_info(c->tc, i);
    if (vi->kind != TERM_VAR_INPUT) continue;
    int t = dg_problem_tensor(p, vi->tensor);
    if (t < 0 || !in[t] || p->tensors.v[t].has_range || vi->index < 0 || vi->index >= c->io.numel[t]) continue;
    bool fl = dg_dtypes[p->tensors.v[t].dtype].is_float;
    double v = fl ? vals[i].f : (double)vals[i].i;
    v = dg_dtype_round(p->tensors.v[t].dtype, v);
    in[t][vi->index] = p->tensors.v[t].positive ? fabs(v) : v;
  }
  if (c->huge) check_huge_witness(c, vals, nvals);     /* lazy inputs: their fill gives vals */
  return in;
}

void check_free_inputs(const dg_problem *p, double **in)
{
  for (size_t t = 0; in && t < p->tensors.n; t++) free(in[t]);
  free(in);
}

static bool replay(chk *c, double **in, double *got, double *want)
{
  if (c->huge) return check_huge_replay_value(c, in, got, want);   /* the writer block alone (check_wide.c) */
  double t0 = dg_now();
  bool differs = check_replay(c->p, c->k, c->sizes, c->t, c->r->index, c->flat, in, got, want, c->deadline, &c->cut);
  c->r->t_replay += dg_now() - t0;
  return differs;
}

void check_keep_inputs(chk *c, double **in)
{
  check_result *r = c->r;
  r->ntensors = (int)c->p->tensors.n;
  r->inputs = in;
  r->numel = dg_malloc(sizeof *r->numel * (c->p->tensors.n + 1));
  memcpy(r->numel, c->io.numel, sizeof *r->numel * c->p->tensors.n);
}

static void keep_witness(chk *c, double **in, double got, double want)
{
  check_result *r = c->r;
  check_keep_inputs(c, in);
  r->have_values = true;
  r->kernel_value = got, r->ref_value = want;
}

bool check_try_values(chk *c, const term_value *vals, size_t nvals, const char *text)
{
  double got, want;
  double **in = check_witness_inputs(c, vals, nvals);
  if (!replay(c, in, &got, &want) || !isfinite(want)) {     /* a reference that overflows too shows nothing */
    check_free_inputs(c->p, in);
    return false;
  }
  free(c->r->witness_text);
  c->r->witness_text = dg_strdup(text);
  keep_witness(c, in, got, want);
  check_say(c->r, CHECK_BUG, "kernel %.9g vs reference %.9g (witness replayed on the emulator)", got, want);
  return true;
}

/* A query's time limit: the solver timeout, cut to what is left of the
 * element's budget (at least 1 ms: 0 would be none). */
unsigned check_query_ms(const chk *c)
{
  double ms = (c->o->timeout_s > 0 ? c->o->timeout_s : 10) * 1000;
  if (c->deadline > 0) ms = fmin(ms, (c->deadline - dg_now()) * 1000);
  return ms < 1 ? 1 : ms > 4e9 ? 4000000000u : (unsigned)ms;   /* --timeout 1e308: no UB cast */
}

unsigned check_side_ms(const chk *c, unsigned part, unsigned least_ms)
{
  double cap = (c->o->timeout_s > 0 ? c->o->timeout_s : 10) * 1000 / part;
  unsigned ms = check_query_ms(c);
  if (cap < least_ms) cap = least_ms;
  return cap < ms ? (unsigned)cap : ms;
}

bool check_out_of_time(const chk *c) { return c->deadline > 0 && dg_now() > c->deadline; }

/* The largest finite value of a float dtype (dg_tykind). */
double check_dtype_max(int k)
{
  return k == DG_TY_F16 ? 65504.0 : k == DG_TY_BF16 ? 3.3895313892515355e38
       : k == DG_TY_F64 ? 1.7976931348623157e308 : 3.4028234663852886e38;
}

/* -lim <= x <= lim for every float input variable; lim <= 0: the dtype's
 * finite range (inputs are finite values of their dtype: sound to assume).
 * TERM_NONE where the check's deadline passed building it (looked at every
 * 4096 variables: 900,000 inputs are ~2 s of terms), never a part of it. */
dg_term check_bounds(chk *c, double lim)
{
  dg_term all = term_true(c->tc);
  for (size_t i = 0; i < term_var_count(c->tc); i++) {
    if (i % 4096 == 4095 && check_out_of_time(c)) return TERM_NONE;
    const term_varinfo *vi = term_var_info(c->tc, i);
    dg_term v = term_var_term(c->tc, i);
    if (vi->kind != TERM_VAR_INPUT || term_sort_of(c->tc, v) != TERM_S_REAL) continue;
    double l = lim > 0 ? lim : check_dtype_max(vi->dtype);
    all = term_and(c->tc, all, term_and(c->tc, term_le(c->tc, term_real(c->tc, -l), v),
                                        term_le(c->tc, v, term_real(c->tc, l))));
  }
  return all;
}

/* A model of "differs beyond tolerance" (lim > 0: |x| <= lim; else the dtypes' range). */
static smt_verdict tol_query(chk *c, dg_term kt, dg_term rt, double lim, unsigned max_ms, smt_result *res)
{
  dg_tol tol = dg_problem_tol(c->p, c->t);
  term_ctx *tc = c->tc;
  dg_term slack = term_add(tc, term_float(tc, DG_TY_F64, tol.atol),
                           term_mul(tc, term_float(tc, DG_TY_F64, tol.rtol), term_abs(tc, rt)));
  dg_term cond = term_lt(tc, slack, term_abs(tc, term_sub(tc, kt, rt)));
  smt_opts so = { .timeout_ms = check_query_ms(c) < max_ms ? check_query_ms(c) : max_ms, .lipschitz = true,
                  .deadline = c->deadline };
  dg_term bnd = check_bounds(c, lim);
  if (!bnd) {
    *res = (smt_result){ .verdict = SMT_UNKNOWN, .late = true, .reason = dg_strdup(BOUNDS_LATE) };
    return SMT_UNKNOWN;
  }
  smt_solver *s = smt_new(tc, &so);
  smt_assume(s, bnd);
  smt_verdict v = smt_sat(s, cond, res);
  c->r->t_solver += res->seconds;
  smt_free(s);
  return v;
}

/* "x[0,3] = -1.5, x[0,4] = 2 ..." for the model's input variables (the
 * values as replayed: rounded to their dtype). */
static bool occurs(const char *text, const char *name)
{
  size_t n = strlen(name);
  for (const char *q = text; (q = strstr(q, name)); q += n)
    if ((q == text || !(q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z') ||
                        (q[-1] >= '0' && q[-1] <= '9'))))
      return true;
  return false;
}

char *check_model_text(chk *c, const smt_result *m, double **in, dg_term kt, dg_term rt)
{
  dg_buf b = {0};
  size_t shown = 0, more = 0;
  /* only the variables the two terms use (the query's assumptions name every
   * input the block loaded): found in the printed terms when they are small */
  char *text = NULL;
  if (term_dag_size(c->tc, kt) + term_dag_size(c->tc, rt) < 20000) {
    dg_buf tb = {0};
    term_print_buf(&tb, c->tc, kt, 0);
    dg_buf_puts(&tb, "\n");
    term_print_buf(&tb, c->tc, rt, 0);
    text = dg_buf_take(&tb);
  }
  for (size_t i = 0; i < m->nmodel; i++) {
    const term_varinfo *vi = term_var_info(c->tc, m->model[i].ordinal);
    int t = vi->kind == TERM_VAR_INPUT ? dg_problem_tensor(c->p, vi->tensor) : -1;
    if (t < 0 || !in[t] || vi->index < 0 || vi->index >= c->io.numel[t]) continue;
    if (text) {
      char *nm = term_print(c->tc, m->model[i].var, 0);
      bool used = occurs(text, nm);
      free(nm);
      if (!used) continue;
    }
    if (shown == 16) { more++; continue; }
    const dg_tensor *ts = &c->p->tensors.v[t];
    int64_t idx[8], f = vi->index;
    for (int d = (int)ts->shape.n - 1; d >= 0; d--) idx[d] = f % c->dims[t][d], f /= c->dims[t][d];
    if (shown++) dg_buf_puts(&b, ", ");
    check_format_elem(&b, c->p, t, idx, (int)ts->shape.n);
    dg_buf_printf(&b, dg_dtypes[ts->dtype].is_float ? " = %.9g" : " = %.0f", in[t][vi->index]);
  }
  if (more) dg_buf_printf(&b, ", ... (%zu more)", more);
  if (!b.s) dg_buf_puts(&b, "(no input variable in the model)");
  free(text);
  return dg_buf_take(&b);
}

/* A model to replay: true (verdict set) when it replayed. */
bool check_try_model(chk *c, const smt_result *m, dg_term kt, dg_term rt)
{
  double got, want;
  double **in = check_witness_inputs(c, m->values, m->nvalues);
  if (replay(c, in, &got, &want)) {
    free(c->r->witness_text);
    c->r->witness_text = check_model_text(c, m, in, kt, rt);
    keep_witness(c, in, got, want);
    check_say(c->r, CHECK_BUG, "kernel %.9g vs reference %.9g (witness replayed on the emulator)", got, want);
    return true;
  }
  check_free_inputs(c->p, in);
  c->r->kernel_value = got, c->r->ref_value = want;
  return false;
}

/* When the solver gives no usable model: evaluate both terms on structured
 * inputs (the fuzzer's distributions) and replay the first pair that
 * differs. A bug found this way is as replayed as any other. */
static bool search_witness(chk *c, dg_term kt, dg_term rt)
{
  /* the fuzzer's distributions, and nearly constant rows (variance far below
   * an eps: where misplaced epsilons show) as scaled normal noise around 1 */
  static const struct { fuzz_dist dist; double scale; const char *name; } dists[] = {
    { FUZZ_DIST_NORMAL, 0, NULL }, { FUZZ_DIST_NEGATIVE, 0, NULL }, { FUZZ_DIST_POSITIVE, 0, NULL },
    { FUZZ_DIST_MAX_LAST, 0, NULL }, { FUZZ_DIST_UNIFORM, 0, NULL }, { FUZZ_DIST_LARGE_OFFSET, 0, NULL },
    { FUZZ_DIST_TIES, 0, NULL }, { FUZZ_DIST_SORTED, 0, NULL }, { FUZZ_DIST_ALL_EQUAL, 0, NULL },
    { FUZZ_DIST_NORMAL, 1e-2, "nearly constant (1 + 1e-2 noise)" },
    { FUZZ_DIST_NORMAL, 1e-4, "nearly constant (1 + 1e-4 noise)" },
  };
  const dg_problem *p = c->p;
  size_t nv = term_var_count(c->tc);
  term_value *vals = dg_calloc(nv + 1, sizeof *vals);
  const dg_tensor *out = &p->tensors.v[c->t];
  bool found = false;
  int replays = 0;
  for (size_t di = 0; di < sizeof dists / sizeof *dists && !found && !check_out_of_time(c); di++) {
    for (uint64_t k = 0; k < 4 && !found; k++) {
      double **in = check_witness_inputs(c, NULL, 0);
      int ct;
      int64_t ca;
      if (!fill_with(c, in, dists[di].dist, c->r->seed * 7919 + di * 131 + k, true, &ct, &ca)) {
        check_free_inputs(c->p, in);       /* the deadline: check_out_of_time ends the search */
        break;
      }
      for (size_t t = 0; dists[di].scale > 0 && t < p->tensors.n; t++)
        for (int64_t j = 0; in[t] && !p->tensors.v[t].has_range && j < c->io.numel[t]; j++)
          in[t][j] = dg_dtype_round(p->tensors.v[t].dtype, 1 + dists[di].scale * in[t][j]);
      for (size_t i = 0; i < nv; i++) {
        const term_varinfo *vi = term_var_info(c->tc, i);
        int t = vi->kind == TERM_VAR_INPUT ? dg_problem_tensor(p, vi->tensor) : -1;
        double v = 0;
        if (t >= 0 && in[t] && vi->index >= 0 && vi->index < c->io.numel[t]) v = in[t][vi->index];
        else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "+inf")) v = INFINITY;
        else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "-inf")) v = -INFINITY;
        vals[i].f = v, vals[i].i = (int64_t)v;
      }
      check_huge_search_vals(c, vals, nv, dists[di].dist, c->r->seed * 7919 + di * 131 + k, dists[di].scale);
      bool e1 = false, e2 = false;
      double kv = term_eval(c->tc, kt, vals, &e1).f, rv = term_eval(c->tc, rt, vals, &e2).f;
      double got, want;
      if (!e1 && !e2 && fuzz_elem_check(out->dtype, kv, rv, dg_problem_tol(p, c->t)) != FUZZ_ELEM_OK &&
          replays++ < 8 && replay(c, in, &got, &want)) {
        keep_witness(c, in, got, want);
        const char *dn = dists[di].name ? dists[di].name : fuzz_dists[dists[di].dist].name;
        check_say(c->r, CHECK_BUG, "kernel %.9g vs reference %.9g (witness replayed on the emulator; found by evaluating the terms on %s inputs)",
            got, want, dn);
        free(c->r->witness_text);
        c->r->witness_text = dg_printf("every input drawn from the %s distribution (seed in the witness file)", dn);
        found = true;
      } else {
        check_free_inputs(p, in);
      }
    }
  }
  free(vals);
  return found;
}

/* Index-valued inputs were fixed to the concrete run's values: the proof
 * covers those, not every index. */
static const char *fixed_note(const chk *c)
{
  for (size_t t = 0; t < c->p->tensors.n; t++)
    if (c->p->tensors.v[t].has_range && c->p->tensors.v[t].role == DG_TENSOR_INPUT)
      return "; index-valued inputs fixed to random in-range values (seed in --explain)";
  return "";
}

static void solve(chk *c, dg_term kt, dg_term rt)
{
  check_result *r = c->r;
  dg_tol tol = dg_problem_tol(c->p, c->t);
  bool ieee = term_ctx_model(c->tc) == TERM_MODEL_IEEE;
  smt_opts so = { .timeout_ms = check_query_ms(c), .want_smtlib = c->o->want_smtlib, .deadline = c->deadline };
  if (ieee) so.atol = tol.atol, so.rtol = tol.rtol;
  size_t dag = term_dag_size(c->tc, kt) + term_dag_size(c->tc, rt);
  if (so.want_smtlib && dag > 5000) {   /* the text grows far faster than the DAG */
    so.want_smtlib = false;
    r->smtlib = dg_printf("; query not printed: %zu terms (more than 5000)", dag);
  }
  smt_result res = {0};
  bool need = !ieee && (kt != rt || so.want_smtlib);   /* one term: equal, no query */
  dg_term bnd = need ? check_bounds(c, 0) : 0;
  if (need && !bnd) {
    check_say(r, CHECK_UNKNOWN, "the check's budget is spent in the solver stage (%s)", BOUNDS_LATE);
    return;
  }
  smt_solver *s = smt_new(c->tc, &so);
  if (bnd) smt_assume(s, bnd);
  smt_verdict v = smt_check_differ(s, kt, rt, &res);
  smt_free(s);
  r->t_solver += res.seconds;
  if (res.smtlib) free(r->smtlib), r->smtlib = res.smtlib, res.smtlib = NULL;
  const char *why = dom_sym_unsupported(c->sym);
  if (!why && r->reason) why = r->reason;   /* the reference's infinite constant */
  char *whyc = why ? dg_strdup(why) : NULL;
  if (v == SMT_EQUIVALENT) {
    if (whyc) check_say(r, CHECK_UNKNOWN, "no proof: the symbolic run used an opaque value (%s)", whyc);
    else if (ieee) check_say(r, CHECK_EQUIVALENT, "proved within tolerance (atol %g, rtol %g) of the fp64 reference for all inputs (IEEE model)%s",
                       tol.atol, tol.rtol, fixed_note(c));
    else if (res.identity_err > 0)
      check_say(r, CHECK_EQUIVALENT, "proved equal to the reference for all finite inputs (real model; randomised "
                "identity test over two prime fields, chance of a wrong claim below 2^%d)%s",
                (int)floor(log2(res.identity_err)), fixed_note(c));
    else if (res.selection)
      check_say(r, CHECK_EQUIVALENT, "proved equal to the reference for all finite inputs (real model; both sides select "
                "the first maximum, value descending then index ascending, over the same (value, index) pairs, every "
                "merge checked, no solver needed)%s", fixed_note(c));
    else check_say(r, CHECK_EQUIVALENT, "proved equal to the reference for all finite inputs (real model%s)%s",
                   res.normal_form ? "; both sides expand to one polynomial over the same atoms, no solver needed" : "",
                   fixed_note(c));
  } else if (v == SMT_UNKNOWN) {
    char *reason = dg_strdup(res.reason ? res.reason : "unknown");
    if (res.late) check_say(r, CHECK_UNKNOWN, "the check's budget is spent in the solver stage (%s)", reason);
    else if (check_out_of_time(c))
      check_say(r, CHECK_UNKNOWN, "solver: %s (the check's budget is spent)", reason);
    else if (!search_witness(c, kt, rt))
      check_say(r, CHECK_UNKNOWN, "solver: %s (and no structured input made the terms differ)", reason);
    free(reason);
  } else if (ieee) {
    if (!check_try_model(c, &res, kt, rt))
      check_say(r, CHECK_UNKNOWN, "abstraction too coarse: the witness did not replay (kernel %.9g, reference %.9g on the emulator)",
          r->kernel_value, r->ref_value);
  } else {
    /* a quick model of "beyond tolerance" with inputs up to 100 first (the
     * nicest witness); then the solver's model and structured inputs (one
     * replay, a few term evaluations); only then the tolerance queries in
     * full, which can each take the whole timeout */
    enum { QUICK_MS = 2000 };
    smt_result tr = {0};
    smt_verdict tv = tol_query(c, kt, rt, 100, QUICK_MS, &tr);
    bool found = tv == SMT_SAT && check_try_model(c, &tr, kt, rt);
    found = found || check_try_model(c, &res, kt, rt) || search_witness(c, kt, rt);
    if (!found && tv == SMT_UNKNOWN) {
      smt_result_free(&tr);
      tv = tol_query(c, kt, rt, 100, UINT32_MAX, &tr);
      found = tv == SMT_SAT && check_try_model(c, &tr, kt, rt);
    }
    if (!found && tv != SMT_SAT) {
      smt_result_free(&tr);
      tv = tol_query(c, kt, rt, 0, UINT32_MAX, &tr);
      found = tv == SMT_SAT && check_try_model(c, &tr, kt, rt);
    }
    if (!found && tv == SMT_UNSAT && !whyc) {
      check_say(r, CHECK_EQUIVALENT, "equal to the reference within tolerance (atol %g, rtol %g) for all inputs, not exactly (real model%s)",
          tol.atol, tol.rtol, tr.nlipschitz ? "; the proof uses the mean-value bounds of tanh and erf: |f(a) - f(b)| <= L|a - b|, "
                                              "and <= L|a - b| / (1 + min(a^2, b^2)) for a, b of one sign" : "");
    } else if (!found && tv == SMT_UNKNOWN && tr.late) {
      check_say(r, CHECK_UNKNOWN, "the check's budget is spent in the solver stage (the query of a difference beyond "
                "tolerance: %s)", tr.reason);
    } else if (!found) {
      check_say(r, CHECK_UNKNOWN, "abstraction too coarse: the witness did not replay (kernel %.9g, reference %.9g on the emulator)",
          r->kernel_value, r->ref_value);
    }
    smt_result_free(&tr);
  }
  /* an equivalence (or no answer) of the real model: does f16/bf16 rounding overflow? */
  if (!ieee && (r->verdict == CHECK_EQUIVALENT || r->verdict == CHECK_UNKNOWN)) {
    check_verdict before = r->verdict;
    char *reason = dg_strdup(r->reason);
    double kv = r->kernel_value, rv = r->ref_value;
    if (c->o->phase) c->o->phase(c->o->phase_ud, "range check");
    if (!check_range(c, kt, rt)) {
      /* the real model's proof does not see f16/bf16 rounding past the
       * dtype's range: with that question open, no verdict */
      if (before == CHECK_EQUIVALENT && c->range_open)
        check_say(r, CHECK_UNKNOWN, "%s, but %s: a value rounded to f16/bf16 past its range, which the real model "
                  "does not see, is not ruled out", reason, c->range_open);
      else
        check_say(r, before, "%s", reason);
      r->kernel_value = kv, r->ref_value = rv;
    }
    free(reason);
  }
  if (r->verdict == CHECK_UNKNOWN && c->cut) {    /* not "did not replay": a replay did not end */
    char *reason = r->reason && !strstr(r->reason, "did not replay") ? dg_printf(" (%s)", r->reason) : dg_strdup("");
    check_say(r, CHECK_UNKNOWN, "the check's budget is spent: the replay of a candidate witness on the emulator was cut%s",
              reason);
    free(reason);
  }
  free(whyc);
  smt_result_free(&res);
}

/* ---- the whole check ------------------------------------------------------------ */
/* sizes: NULL for the problem's own */
static bool setup(chk *c, int tensor, const int64_t *idx, int rank, const int64_t *sizes)
{
  const dg_problem *p = c->p;
  check_result *r = c->r;
  if (tensor < 0 || tensor >= (int)p->tensors.n || p->tensors.v[tensor].role != DG_TENSOR_OUTPUT) {
    check_say(r, CHECK_ERROR, "not an output tensor");
    return false;
  }
  const dg_tensor *ts = &p->tensors.v[tensor];
  if (rank != (int)ts->shape.n || rank > 8) {
    check_say(r, CHECK_ERROR, "%s has %zu dimensions, the location gives %d", ts->name, ts->shape.n, rank);
    return false;
  }
  dg_diags d = {0};
  c->sizes = dg_malloc(sizeof *c->sizes * (p->sizes.n + 1));
  if (sizes) memcpy(c->sizes, sizes, sizeof *c->sizes * p->sizes.n);
  else dg_problem_default_sizes(p, c->sizes);
  c->dims = dg_calloc(p->tensors.n + 1, sizeof *c->dims);
  bool ok = dg_problem_check_sizes(p, c->sizes, &d);
  for (size_t t = 0; ok && t < p->tensors.n; t++)
    ok = p->tensors.v[t].shape.n <= 8 && dg_problem_shape(p, (int)t, c->sizes, c->dims[t], &d);
  dg_diags_free(&d);
  if (!ok) { check_say(r, CHECK_ERROR, "the problem's sizes are unusable"); return false; }
  c->flat = 0;
  for (int i = 0; i < rank; i++) {
    if (c->dims[tensor][i] == 0) {
      check_say(r, CHECK_ERROR, "%s is empty at these sizes (dimension %d has extent 0): no element to check",
                ts->name, i + 1);
      return false;
    }
    if (idx[i] < 0 || idx[i] >= c->dims[tensor][i]) {
      check_say(r, CHECK_ERROR, "index %lld of dimension %d is outside 0..%lld", (long long)idx[i], i + 1,
          (long long)c->dims[tensor][i] - 1);
      return false;
    }
    c->flat = c->flat * c->dims[tensor][i] + idx[i];
  }
  c->t = tensor;
  c->es = dg_dtypes[ts->dtype].size;
  c->off = c->flat * c->es;
  r->flat = c->flat;
  r->nsizes = p->sizes.n;
  r->sizes = dg_malloc(sizeof *r->sizes * (p->sizes.n + 1));
  memcpy(r->sizes, c->sizes, sizeof *r->sizes * p->sizes.n);
  if (!check_huge_io_init(c, &d)) {
    dg_diags_free(&d);
    if (!r->reason) check_say(r, CHECK_ERROR, "the tensors cannot be sized");   /* else check_huge_io_init's */
    return false;
  }
  dg_diags_free(&d);
  if (!fill_inputs(c, r->seed)) return false;
  check_huge_ranges(c);
  return true;
}

void check_element(const dg_problem *p, const emu_kernels *k, int tensor, const int64_t *idx,
                   int rank, const check_opts *o, check_result *r)
{
  static const check_opts defaults = {0};
  double t0 = dg_now();
  memset(r, 0, sizeof *r);
  chk c = { .p = p, .k = k, .o = o ? o : &defaults, .r = r, .wl = -1 };
  if (c.o->budget_s > 0) c.deadline = t0 + c.o->budget_s;
  r->tensor = tensor;
  r->nidx = rank < 8 ? rank : 8;
  memcpy(r->index, idx, sizeof *idx * (size_t)r->nidx);
  r->seed = c.o->seed ? c.o->seed : 1;
  r->writer_launch = -1;
  if (!setup(&c, tensor, idx, rank, NULL)) goto done;
  if (c.o->phase) c.o->phase(c.o->phase_ud, "concrete run");
  double t1 = dg_now();
  bool ok = find_writer(&c);
  r->t_concrete = dg_now() - t1;
  if (!ok) goto done;
  if (c.wl < 0) {                       /* nobody writes L: replay shows it */
    double **in = check_witness_inputs(&c, NULL, 0), got, want;
    if (replay(&c, in, &got, &want)) {
      keep_witness(&c, in, got, want);
      check_say(r, CHECK_BUG, "no thread writes this element (reference %.9g; replayed on the emulator)", want);
    } else {
      check_free_inputs(p, in);
      if (c.cut) check_say(r, CHECK_UNKNOWN, "no thread wrote this element in the writer search, and the check's budget "
                           "was spent in the replay that would show it");
      else if (!r->reason) check_say(r, CHECK_UNCHECKED, "no thread writes this element and the reference leaves it undefined");
    }
    goto done;
  }
  r->writer_launch = c.wl, r->writer_block = c.wblock, r->writer_thread = c.wthread;
  if (check_huge_heavy(&c)) goto done;     /* a writer block past the symbolic run's share (check_wide.c) */
  c.tc = term_ctx_new(c.o->model);
  c.sym = dom_sym_new(c.tc);
  if (c.o->phase) c.o->phase(c.o->phase_ud, "symbolic run");
  t1 = dg_now();
  dg_term kt = kernel_term(&c);
  r->t_symbolic = dg_now() - t1;
  if (!kt) goto done;
  if (check_div(&c, kt)) goto done;         /* an input divisor that can be 0, replayed */
  if (c.deadline > 0 && dg_now() > c.deadline) {
    check_say(r, CHECK_UNKNOWN, "the check's budget is spent after the symbolic run (before the reference)");
    goto done;
  }
  dg_term rt = check_ref_term(&c);
  if (!rt) goto done;
  c.ref = rt;
  kt = check_as_num(&c, kt);
  r->kernel_term = term_print(c.tc, kt, 4000);
  r->ref_term = term_print(c.tc, rt, 4000);
  if (c.o->phase) c.o->phase(c.o->phase_ud, "solver");
  /* huge: a drawn witness first (check_wide.c); inputs one side only reads, pushed (check_range.c) */
  if (!check_huge_quick(&c, kt, rt) && !check_push_extra(&c, kt, rt)) solve(&c, kt, rt);
done:
  check_huge_finish(&c);
  r->t_total = dg_now() - t0;
  if (c.tc) r->term_bytes = term_ctx_bytes(c.tc), r->nterms = term_ctx_count(c.tc);
  if (c.sym) c.sym->free(c.sym);
  if (c.tc) term_ctx_free(c.tc);
  if (c.io.ntensors) emu_io_free(&c.io);
  free(c.sizes);
  free(c.dims);
}

/* ---- a huge instance's engine finding, from its witness file ----------------------- */
void check_block_replay(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, int tensor, const int64_t *idx,
                        int rank, uint64_t seed, int64_t block, uint64_t max_ops, check_result *r)
{
  static const check_opts defaults = {0};
  double t0 = dg_now();
  chk c = { .p = p, .k = k, .o = &defaults, .r = r, .wl = -1 };
  r->seed = seed ? seed : 1;
  if (p->launches.n != 1) {
    check_say(r, CHECK_ERROR, "a witness of one block names a one-launch problem; this one has %zu launches",
              p->launches.n);
  } else if (setup(&c, tensor, idx, rank, sizes)) {
    /* the check's own inputs: lazy ones counter-based from the seed, the rest drawn from it */
    emu_opts eo = { .blocks = &block, .nblocks = 1, .max_lane_ops = max_ops };
    emu_result res = {0};
    dg_diags d = {0};
    bool said = false;
    if (emu_run(p, k, c.sizes, &c.io, &eo, &res, &d)) {
      char *when = max_ops ? dg_printf("replayed on the emulator: block %" PRId64 " of this instance alone, cut after "
                                       "its first %llu lane operations as in the check, inputs past 2^28 elements "
                                       "filled lazily from the witness's seed", block, (unsigned long long)max_ops)
                           : dg_printf("replayed on the emulator: block %" PRId64 " of this instance alone, inputs "
                                       "past 2^28 elements filled lazily from the witness's seed", block);
      said = check_event_verdict(&c, res.events.v, res.events.n, when);
      free(when);
      if (!said)
        check_say(r, CHECK_UNKNOWN, "did not reproduce: block %" PRId64 " of this instance%s reported no finding",
                  block, max_ops ? ", cut at the check's prefix," : "");
    } else {
      check_say(r, CHECK_ERROR, "the emulator could not start the launch");
    }
    emu_result_free(&res);
    dg_diags_free(&d);
  }
  check_huge_free(&c);
  r->t_replay = r->t_total = dg_now() - t0;
  if (c.io.ntensors) emu_io_free(&c.io);
  free(c.sizes);
  free(c.dims);
}
