/* tui_fuzz.c — the 'f' key and ':fuzz [STRATEGY]': a fuzz campaign of the
 * open problem on the CPU emulator (fuzz_run.h), its summary in the result
 * pane, engine findings marked on their source lines, and a heat map in the
 * picker. Strategies move the sizes, so the heat map comes from its own
 * HEAT_CASES cases at the spec's sizes (the shape shown), one per value
 * distribution in turn: the heat of an element is the share of those cases
 * whose first failing element it was (a case reports one failing element);
 * the campaign's cases that happen to have the shown shape count too.
 * Everything runs in the foreground: keys wait for it. */
#include "tui.h"
#include "fuzz_run.h"
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

typedef struct {
  tui_app *a;
  fuzz_space sp;
  fuzz_space_ctx ctx;
  int64_t *total;           /* per model tensor: cases at its shown shape */
  uint32_t **fails;         /* per model tensor: first-failure counts per element */
} heat_acc;

/* Model tensor index of problem tensor t (by name), or -1. */
static int model_tensor(tui_app *a, int t)
{
  for (size_t i = 0; i < a->model.tensors.n; i++)
    if (!strcmp(a->model.tensors.v[i].name, a->problem->tensors.v[t].name)) return (int)i;
  return -1;
}

static void on_case(void *ud, const fuzz_outcome *o)
{
  heat_acc *h = ud;
  tui_app *a = h->a;
  if (o->status != FUZZ_PASS && o->status != FUZZ_FAIL) return;
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
    if (o->status == FUZZ_FAIL && o->tensor == (int)t && o->nidx == x->ndim) {
      int64_t off = tui_tensor_offset(x, o->index);
      if (off >= 0 && h->fails[mt]) h->fails[mt][off]++;
    }
  }
  free(sizes);
}

enum { HEAT_CASES = 16 };
#define HEAT_BUDGET_S 10.0      /* the heat cases stop after this much time */

/* Cases at the spec's sizes for the heat map, through the same case runner. */
static void heat_cases(tui_app *a, const emu_kernels *k, heat_acc *h, uint64_t seed)
{
  double t0 = dg_now();
  for (int64_t i = 0; i < HEAT_CASES && dg_now() - t0 < HEAT_BUDGET_S; i++) {
    fuzz_case c;
    memset(&c, 0, sizeof c);
    for (int j = 0; j < h->sp.nsyms; j++) c.sizes[j] = h->sp.defaults[j];
    for (int j = 0; j < h->sp.ninputs && j < FUZZ_MAX_INPUTS; j++)
      c.dist[j] = (fuzz_dist)((i + j) % FUZZ_DIST__COUNT);
    c.seed = fuzz_case_seed(seed ^ 0x4ea7, i);
    fuzz_case_label(&h->sp, &c);
    fuzz_outcome o;
    fuzz_run_case(a->problem, k, &h->sp, &h->ctx, &c, &o);
    on_case(h, &o);
  }
}

static int run(tui_app *a, const char *strategy)
{
  if (!a->problem || !a->model.tensors.n) {
    tui_model_set_result(&a->model, "fuzz: needs a problem spec with output tensors\n"
                                    "(the picker says what is missing)");
    return TUI_HANDLED | TUI_REDRAW;
  }
  const fuzz_strategy *st = NULL;
  if (strategy && *strategy && !(st = fuzz_strategy_find(strategy))) {
    dg_buf b = {0};
    dg_buf_printf(&b, "fuzz: unknown strategy '%s'; known:", strategy);
    for (const fuzz_strategy *s = fuzz_strategies; s->name; s++) dg_buf_printf(&b, " %s", s->name);
    tui_app_message(a, true, "%s", b.s);
    dg_buf_free(&b);
    return TUI_HANDLED | TUI_REDRAW;
  }
  /* the campaign blocks: say so on the screen first */
  tui_app_message(a, false, "fuzzing %s on the emulator ...", a->path);
  tui_app_draw(a);
  free(a->message);
  a->message = NULL;
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
    tui_model_set_result(&a->model, out.s);
    dg_buf_free(&out);
    dg_diags_free(&d);
    emu_kernels_free(&k);
    return TUI_HANDLED | TUI_REDRAW;
  }
  dg_diags_free(&d);
  size_t nt = a->model.tensors.n;
  heat_acc h = { .a = a, .total = dg_calloc(nt, sizeof *h.total), .fails = dg_calloc(nt, sizeof *h.fails) };
  for (size_t i = 0; i < nt; i++)
    if (a->model.tensors.v[i].count <= ((int64_t)1 << 24))
      h.fails[i] = dg_calloc((size_t)a->model.tensors.v[i].count, sizeof **h.fails);
    else h.fails[i] = NULL;
  fuzz_space_init(&h.sp, &h.ctx, a->problem, 0);
  fuzz_opts o = { .strategy = st, .ncases = 24, .seed = 1, .shrink = true, .keep_going = true,
                  .budget_s = 30, .progress = on_case, .ud = &h };
  fuzz_summary s;
  memset(&s, 0, sizeof s);
  if (!fuzz_campaign(a->problem, &k, &o, &s, &d)) {
    dg_buf_puts(&out, "fuzz: the campaign could not start:\n");
    for (size_t i = 0; i < d.v.n; i++) {
      dg_diag_format(&out, &a->problem->sm, &d.v.v[i]);
      dg_buf_putc(&out, '\n');
    }
  } else {
    dg_buf_printf(&out, "fuzz on the emulator: strategy %s, seed %" PRIu64 "\n",
                  s.strategy ? s.strategy : "?", s.seed);
    dg_buf_printf(&out, "%" PRId64 " cases: %" PRId64 " pass, %" PRId64 " fail, %" PRId64
                  " findings, %" PRId64 " errors, %" PRId64 " skipped in %.2f s\n",
                  s.ncases, s.npass, s.nfail, s.nfinding, s.nerror, s.nskip, s.secs);
    if (s.failed) {
      dg_buf_printf(&out, "%s at case %" PRId64 " (%s): %s\n",
                    s.first.status == FUZZ_FAIL ? "FAIL" : "FINDING", s.first.k, s.first.c.label,
                    s.first.msg);
      if (s.shrunk) dg_buf_printf(&out, "shrunk to %s: %s\n", s.min.c.label, s.min.msg);
      char *w = s.shrunk ? fuzz_witness(&h.sp, s.strategy, s.seed, s.min.k, &s.min.c, true)
                         : fuzz_witness(&h.sp, s.strategy, s.seed, s.first.k, &s.first.c, false);
      dg_buf_printf(&out, "replay: dirigo replay %s %s\n", a->path, w);
      free(w);
    } else if (s.npass) {
      dg_buf_printf(&out, "no failure; max abs error %.3g, max %.3g ulp\n", s.max_abs, s.max_ulp);
    }
  }
  heat_cases(a, &k, &h, o.seed);
  /* an engine finding (race, out-of-bounds, ...) marks its lines */
  tui_model_clear_marks(&a->model);
  if (s.failed && s.first.status == FUZZ_FINDING) {
    const simt_event *ev = &s.first.ev;
    const dg_span sp[2] = { ev->span, ev->span2 };
    for (int i = 0; i < 2; i++) {
      if (!sp[i].file || !a->source || strcmp(dg_srcmgr_path(&k.sm, sp[i].file), a->source)) continue;
      char *what = dg_printf("%s (fuzz case %" PRId64 ")", simt_event_name(ev->kind), s.first.k);
      tui_model_mark_fault(&a->model, sp[i].line, what);
      free(what);
    }
  }
  /* the heat map */
  for (size_t i = 0; i < nt; i++) {
    tui_tensor *x = &a->model.tensors.v[i];
    if (!h.total[i] || !h.fails[i]) {
      dg_buf_printf(&out, "heat map of %s: no case had its shown shape\n", x->name);
      continue;
    }
    int64_t idx[TUI_MAX_DIMS] = {0};
    for (int64_t e = 0; e < x->count; e++) {
      tui_tensor_set_heat(x, idx, (double)h.fails[i][e] / (double)h.total[i]);
      for (int dd = x->ndim - 1; dd >= 0 && ++idx[dd] == x->shape[dd]; dd--) idx[dd] = 0;
    }
    dg_buf_printf(&out, "heat map of %s: %" PRId64 " cases at its shape (first failing element)\n",
                  x->name, h.total[i]);
  }
  tui_model_set_result(&a->model, out.s);
  tui_lua_on_fuzz(a, out.s);
  for (size_t i = 0; i < nt; i++) free(h.fails[i]);
  free(h.fails);
  free(h.total);
  dg_buf_free(&out);
  dg_diags_free(&d);
  emu_kernels_free(&k);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_act_fuzz(tui_app *a, tui_pane *p, int key) { return run(a, NULL); }

int tui_fuzz_run(tui_app *a, const char *strategy) { return run(a, strategy); }
