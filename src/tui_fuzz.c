/* tui_fuzz.c — 'f' and ':fuzz [STRATEGY]' (a fuzz campaign of the open
 * problem on the CPU emulator, fuzz_run.h) and 'F' (choose the strategy f
 * runs: built-ins and Lua strategies from the registry). The campaign runs in
 * a child (tui_job.c): progress after each case, then the summary, engine
 * findings' lines and the heat map come back as records. Strategies move the
 * sizes, so the heat map also gets HEAT_CASES cases at the spec's sizes (the
 * shape shown), one per value distribution in turn; the heat of an element is
 * the share of the cases at the shown shape in which it failed validation
 * (fuzz_opts.on_fail reports every failing element: the map is exact). The
 * child sends each such case's failing elements as it goes ("case" records),
 * so the map fills in while the campaign runs. */
#include "tui.h"
#include "fuzz_run.h"
#include "lua_fuzz.h"
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

enum { NCASES = 24, HEAT_CASES = 16 };
#define TUI_HEAT_MAX ((int64_t)1 << 24)   /* larger outputs keep no heat map */
#define HEAT_BUDGET_S 10.0      /* the heat cases stop after this much time */
#define CAMPAIGN_BUDGET_S 30.0
#define FUZZ_LIMIT_S 120.0      /* the job's time limit */

typedef struct {
  char *strategy;           /* NULL: the campaign's default */
  /* child */
  tui_app *a;
  fuzz_space sp;
  fuzz_space_ctx ctx;
  int64_t *total;           /* per model tensor: cases at its shown shape */
  DG_VEC(int64_t) pending;  /* (problem tensor, flat) pairs failing in the case now running */
  int64_t done, ncases;
  /* parent: the heat map as the cases come */
  dg_buf out;
  size_t nt;
  int64_t *cases;           /* per model tensor: cases at its shown shape so far */
  uint32_t **fails;         /* per model tensor: cases in which each element failed */
} fjob;

static void fjob_free(void *ud)
{
  fjob *j = ud;
  free(j->strategy);
  dg_buf_free(&j->out);
  for (size_t i = 0; i < j->nt; i++) free(j->fails[i]);
  free(j->fails);
  free(j->cases);
  free(j);
}

/* Model tensor index of problem tensor t (by name), or -1. */
static int model_tensor(tui_app *a, int t)
{
  for (size_t i = 0; i < a->model.tensors.n; i++)
    if (!strcmp(a->model.tensors.v[i].name, a->problem->tensors.v[t].name)) return (int)i;
  return -1;
}

/* ==== the child =============================================================== */

static void on_fail(void *ud, int tensor, int64_t flat)
{
  fjob *h = ud;
  dg_vec_push(&h->pending, (int64_t)tensor);
  dg_vec_push(&h->pending, flat);
}

static void send_case(fjob *h, const fuzz_outcome *o);

/* After each case: the failures it reported count where its shape is the shown one. */
static void on_case(void *ud, const fuzz_outcome *o)
{
  fjob *h = ud;
  h->done++;
  if (o->status == FUZZ_PASS || o->status == FUZZ_FAIL) send_case(h, o);
  h->pending.n = 0;
  tui_job_progress(h->done, h->ncases + HEAT_CASES, h->done <= h->ncases ? "cases" : "heat-map cases");
}

/* A case at a tensor's shown shape: "case MT FLAT,FLAT,..." (its failing elements). */
static void send_case(fjob *h, const fuzz_outcome *o)
{
  tui_app *a = h->a;
  int64_t *sizes = dg_calloc(a->problem->sizes.n + 1, sizeof *sizes);
  fuzz_case_sizes(&h->ctx, &o->c, sizes);
  for (size_t t = 0; t < a->problem->tensors.n; t++) {
    int mt = model_tensor(a, (int)t);
    if (mt < 0) continue;
    tui_tensor *x = &a->model.tensors.v[mt];
    int64_t dims[TUI_MAX_DIMS];
    dg_diags d = {0};
    bool same = dg_problem_shape(a->problem, (int)t, sizes, dims, &d);
    dg_diags_free(&d);
    for (int k = 0; same && k < x->ndim; k++) same = dims[k] == x->shape[k];
    if (!same) continue;
    h->total[mt]++;
    dg_buf b = {0};
    dg_buf_printf(&b, "%d\t", mt);
    for (size_t i = 0; i + 1 < h->pending.n; i += 2)
      if (h->pending.v[i] == (int64_t)t && h->pending.v[i + 1] >= 0 && h->pending.v[i + 1] < x->count)
        dg_buf_printf(&b, "%s%" PRId64, b.s[b.n - 1] == '\t' ? "" : ",", h->pending.v[i + 1]);
    tui_job_sendt("case", "%s", b.s);
    dg_buf_free(&b);
  }
  free(sizes);
}

/* Cases at the spec's sizes for the heat map, through the same case runner. */
static void heat_cases(tui_app *a, const emu_kernels *k, fjob *h, uint64_t seed)
{
  double t0 = dg_now();
  h->ctx.on_fail = on_fail;
  h->ctx.on_fail_ud = h;
  h->done = h->ncases;
  for (int64_t i = 0; i < HEAT_CASES && dg_now() - t0 < HEAT_BUDGET_S; i++) {
    fuzz_case c;
    memset(&c, 0, sizeof c);
    for (int j = 0; j < h->sp.nsyms; j++) c.sizes[j] = h->sp.defaults[j];
    for (int j = 0; j < h->sp.ninputs && j < FUZZ_MAX_INPUTS; j++)
      c.dist[j] = (fuzz_dist)((i + j) % FUZZ_DIST__COUNT);
    c.seed = fuzz_case_seed(seed ^ 0x4ea7, i);
    fuzz_case_label(&h->sp, &c);
    fuzz_outcome o;
    h->pending.n = 0;
    fuzz_run_case(a->problem, k, &h->sp, &h->ctx, &c, &o);
    on_case(h, &o);
  }
}

static void summary(fjob *h, const fuzz_summary *s, dg_buf *out)
{
  dg_buf_printf(out, "fuzz on the emulator: strategy %s, seed %" PRIu64 "\n", s->strategy ? s->strategy : "?", s->seed);
  dg_buf_printf(out, "%" PRId64 " cases: %" PRId64 " pass, %" PRId64 " fail, %" PRId64
                " findings, %" PRId64 " errors, %" PRId64 " skipped in %.2f s\n",
                s->ncases, s->npass, s->nfail, s->nfinding, s->nerror, s->nskip, s->secs);
  if (s->failed) {
    dg_buf_printf(out, "%s at case %" PRId64 " (%s): %s\n", s->first.status == FUZZ_FAIL ? "FAIL" : "FINDING",
                  s->first.k, s->first.c.label, s->first.msg);
    if (s->shrunk) dg_buf_printf(out, "shrunk to %s: %s\n", s->min.c.label, s->min.msg);
    char *w = s->shrunk ? fuzz_witness(&h->sp, s->strategy, s->seed, s->min.k, &s->min.c, true)
                        : fuzz_witness(&h->sp, s->strategy, s->seed, s->first.k, &s->first.c, false);
    dg_buf_printf(out, "replay: dirigo replay %s %s\n", h->a->path, w);
    free(w);
  } else if (s->npass) {
    dg_buf_printf(out, "no failure; max abs error %.3g, max %.3g ulp\n", s->max_abs, s->max_ulp);
  }
}

static void heat_summary(fjob *h, dg_buf *out)
{
  tui_app *a = h->a;
  for (size_t i = 0; i < a->model.tensors.n; i++) {
    tui_tensor *x = &a->model.tensors.v[i];
    if (!h->total[i]) dg_buf_printf(out, "heat map of %s: no case had its shown shape\n", x->name);
    else if (x->count > TUI_HEAT_MAX) dg_buf_printf(out, "heat map of %s: too many elements to keep\n", x->name);
    else dg_buf_printf(out, "heat map of %s: %" PRId64 " cases at its shape (share failing per element)\n",
                       x->name, h->total[i]);
  }
}

static void child(tui_app *a, void *ud)
{
  fjob *h = ud;
  h->a = a;
  dg_buf out = {0};
  emu_kernels k;
  dg_diags d = {0};
  if (!emu_kernels_load(&k, a->problem, &d)) {
    dg_buf_puts(&out, "fuzz: the kernels did not load for the emulator:\n");
    for (size_t i = 0; k.mod && i < k.mod->diags.v.n && i < 8; i++) {
      dg_diag_format(&out, &k.sm, &k.mod->diags.v.v[i]);
      dg_buf_putc(&out, '\n');
    }
    for (size_t i = 0; i < d.v.n && i < 8; i++) {
      dg_diag_format(&out, &a->problem->sm, &d.v.v[i]);
      dg_buf_putc(&out, '\n');
    }
    tui_job_sendf("result", "%s", out.s);
    return;                   /* the child exits: nothing to free for */
  }
  size_t nt = a->model.tensors.n;
  h->total = dg_calloc(nt, sizeof *h->total);
  fuzz_space_init(&h->sp, &h->ctx, a->problem, 0);
  h->ncases = NCASES;
  const fuzz_strategy *st = h->strategy ? fuzz_strategy_find(h->strategy) : NULL;
  fuzz_opts o = { .strategy = st, .ncases = NCASES, .seed = 1, .shrink = true, .keep_going = true,
                  .budget_s = CAMPAIGN_BUDGET_S, .progress = on_case, .on_fail = on_fail, .ud = h };
  fuzz_summary s;
  memset(&s, 0, sizeof s);
  if (!fuzz_campaign(a->problem, &k, &o, &s, &d)) {
    dg_buf_puts(&out, "fuzz: the campaign could not start:\n");
    for (size_t i = 0; i < d.v.n; i++) {
      dg_diag_format(&out, &a->problem->sm, &d.v.v[i]);
      dg_buf_putc(&out, '\n');
    }
  } else summary(h, &s, &out);
  h->pending.n = 0;
  heat_cases(a, &k, h, o.seed);
  /* an engine finding (race, out-of-bounds, ...) marks its lines */
  if (s.failed && s.first.status == FUZZ_FINDING) {
    const simt_event *ev = &s.first.ev;
    const dg_span sp[2] = { ev->span, ev->span2 };
    for (int i = 0; i < 2; i++) {
      if (!sp[i].file || !a->source || strcmp(dg_srcmgr_path(&k.sm, sp[i].file), a->source)) continue;
      tui_job_sendt("fault", "%u\t%s (fuzz case %" PRId64 ")", sp[i].line, simt_event_name(ev->kind), s.first.k);
    }
  }
  heat_summary(h, &out);
  tui_job_sendf("result", "%s", out.s);
}

/* ==== the parent ============================================================== */

static void record(tui_app *a, void *ud, char **f, int n)
{
  fjob *j = ud;
  if (!strcmp(f[0], "result") && n >= 2) {
    j->out.n = 0;
    dg_buf_puts(&j->out, f[1]);
  } else if (!strcmp(f[0], "fault") && n >= 3) {
    tui_model_mark_fault(&a->model, (uint32_t)strtoul(f[1], NULL, 10), f[2]);
  } else if (!strcmp(f[0], "case") && n >= 2) {
    size_t mt = strtoul(f[1], NULL, 10);
    if (mt >= a->model.tensors.n || mt >= j->nt) return;
    tui_tensor *x = &a->model.tensors.v[mt];
    if (x->count > TUI_HEAT_MAX) return;
    if (!j->fails[mt]) j->fails[mt] = dg_calloc((size_t)x->count, sizeof **j->fails);
    j->cases[mt]++;
    for (char *p = n >= 3 ? f[2] : ""; *p;) {
      char *e;
      long long flat = strtoll(p, &e, 10);
      if (e == p) break;
      if (flat >= 0 && flat < x->count) j->fails[mt][flat]++;
      p = *e == ',' ? e + 1 : e;
    }
    /* every element's share so far: the map fills in while the campaign runs */
    const int64_t origin[TUI_MAX_DIMS] = {0};
    tui_tensor_set_heat(x, origin, 0);            /* makes the flat heat array */
    for (int64_t e = 0; e < x->count && x->heat; e++) x->heat[e] = (float)j->fails[mt][e] / (float)j->cases[mt];
  }
}

static void end(tui_app *a, void *ud, const char *failure)
{
  fjob *j = ud;
  if (failure) {
    char *s = !strcmp(failure, "cancelled") ? dg_printf("the fuzz campaign was cancelled\n")
                                            : dg_printf("the fuzz campaign %s; the screen is fine\n", failure);
    tui_app_result(a, s);
    if (strcmp(failure, "cancelled")) tui_app_message(a, true, "the fuzz %s", failure);
    free(s);
    return;
  }
  tui_app_result(a, j->out.s ? j->out.s : "fuzz: the campaign sent no summary\n");
  tui_lua_on_fuzz(a, j->out.s ? j->out.s : "");
}

static const tui_job_ops fuzz_ops = { "fuzz", child, record, end, fjob_free };

/* ==== keys and commands ======================================================= */

/* Lua strategies join the registry on first need; load errors go to the result pane. */
static void load_strategies(tui_app *a)
{
  dg_diags d = {0};
  dg_strategies_load(&d);
  if (d.v.n) {
    dg_buf b = {0};
    dg_buf_puts(&b, "some Lua strategies did not load:\n");
    for (size_t i = 0; i < d.v.n; i++) {
      dg_diag_format(&b, dg_strategies_sources(), &d.v.v[i]);
      dg_buf_putc(&b, '\n');
    }
    tui_app_result(a, b.s);
    dg_buf_free(&b);
  }
  dg_diags_free(&d);
}

static int run(tui_app *a, const char *strategy)
{
  if (!a->problem || !a->model.tensors.n) {
    tui_app_result(a, "fuzz: needs a problem spec with output tensors\n"
                                    "(the picker says what is missing)");
    return TUI_HANDLED | TUI_REDRAW;
  }
  if (!strategy || !*strategy) strategy = a->strategy;
  if (strategy && !fuzz_strategy_find(strategy)) load_strategies(a);
  if (strategy && !fuzz_strategy_find(strategy)) {
    dg_buf b = {0};
    dg_buf_printf(&b, "fuzz: unknown strategy '%s'; known:", strategy);
    for (size_t i = 0; i < fuzz_strategy_count(); i++) dg_buf_printf(&b, " %s", fuzz_strategy_at(i)->name);
    tui_app_message(a, true, "%s", b.s);
    dg_buf_free(&b);
    return TUI_HANDLED | TUI_REDRAW;
  }
  fjob *j = dg_calloc(1, sizeof *j);
  j->strategy = strategy ? dg_strdup(strategy) : NULL;
  j->nt = a->model.tensors.n;
  j->cases = dg_calloc(j->nt, sizeof *j->cases);
  j->fails = dg_calloc(j->nt, sizeof *j->fails);
  char *label = dg_printf("fuzz %s", strategy ? strategy : "boundary+adversarial");
  if (tui_job_start(a, &fuzz_ops, j, label, FUZZ_LIMIT_S)) tui_model_clear_marks(&a->model);
  free(label);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_act_fuzz(tui_app *a, tui_pane *p, int key) { return run(a, NULL); }

int tui_fuzz_run(tui_app *a, const char *strategy) { return run(a, strategy); }

static void pick_strategy(tui_app *a, size_t i)
{
  const fuzz_strategy *st = fuzz_strategy_at(i);
  if (!st) return;
  free(a->strategy);
  a->strategy = dg_strdup(st->name);
  tui_app_message(a, false, "f now fuzzes with strategy %s", st->name);
}

/* F: the strategies (built-in, then Lua) in a list; the pick is what f runs. */
int tui_act_strategy(tui_app *a, tui_pane *p, int key)
{
  load_strategies(a);
  size_t n = fuzz_strategy_count();
  char **items = dg_calloc(n ? n : 1, sizeof *items);
  for (size_t i = 0; i < n; i++) {
    const fuzz_strategy *st = fuzz_strategy_at(i);
    items[i] = dg_printf("%s%s%s — %s", a->strategy && !strcmp(a->strategy, st->name) ? "* " : "  ", st->name,
                         st->origin ? " (Lua)" : "", st->help ? st->help : "");
  }
  tui_menu_open(a, "fuzz strategy for f", (const char *const *)items, n, pick_strategy);
  for (size_t i = 0; i < n; i++) free(items[i]);
  free(items);
  return TUI_HANDLED | TUI_REDRAW;
}
