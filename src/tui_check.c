/* tui_check.c — the 'c' key and ':check': the symbolic check of the element
 * selected in the picker (check.h). The verdict colours the cell, the lines
 * the writer thread executed are marked "fed", a race / out-of-bounds line
 * gets a fault mark, and the result pane shows the verdict, the witness and
 * the timings. The check runs in the foreground: keys wait for it. */
#include "tui.h"
#include "check.h"
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

/* Verdict -> cell state (DESIGN 3.3 folded for colour). */
static const tui_cell_state verdict_cell[CHECK__COUNT] = {
  [CHECK_EQUIVALENT] = TUI_CELL_EQUIVALENT, [CHECK_BUG] = TUI_CELL_BUG,
  [CHECK_RACE] = TUI_CELL_FAULT, [CHECK_OOB] = TUI_CELL_FAULT, [CHECK_UNINIT] = TUI_CELL_FAULT,
  [CHECK_BARRIER] = TUI_CELL_FAULT, [CHECK_FINDING] = TUI_CELL_FAULT,
  [CHECK_UNKNOWN] = TUI_CELL_UNKNOWN, [CHECK_UNCHECKED] = TUI_CELL_UNCHECKED,
  [CHECK_ERROR] = TUI_CELL_UNCHECKED,
};

static bool in_source(tui_app *a, const dg_srcmgr *sm, dg_span s)
{
  return s.file && a->source && !strcmp(dg_srcmgr_path(sm, s.file), a->source);
}

static void describe(tui_app *a, const emu_kernels *k, const check_result *r, dg_buf *b)
{
  const dg_problem *p = a->problem;
  dg_buf_printf(b, "%s  ", check_verdict_name(r->verdict));
  check_format_elem(b, p, r->tensor, r->index, r->nidx);
  dg_buf_putc(b, '\n');
  if (r->reason && *r->reason) dg_buf_printf(b, "%s\n", r->reason);
  if (r->have_values)
    dg_buf_printf(b, "replayed: kernel %.9g, reference %.9g\n", r->kernel_value, r->ref_value);
  if (r->have_event && !(r->reason && *r->reason)) {      /* the reason already says it */
    dg_buf eb = {0};
    simt_event_format(&eb, &k->sm, &r->event);
    dg_buf_printf(b, "%s\n", eb.s ? eb.s : "");
    dg_buf_free(&eb);
  }
  if (r->verdict == CHECK_BUG && r->nsizes) {
    dg_buf_puts(b, "witness at ");
    for (size_t i = 0; i < r->nsizes && i < p->sizes.n; i++)
      dg_buf_printf(b, "%s%s=%" PRId64, i ? ", " : "", p->sizes.v[i].name, r->sizes[i]);
    dg_buf_printf(b, " (seed %" PRIu64 ")\n", r->seed);
  }
  if (r->writer_launch >= 0 && r->nslice)
    dg_buf_printf(b, "written by block %" PRId64 " thread %" PRId64 " of launch %d; %zu lines fed it\n",
                  r->writer_block, r->writer_thread, r->writer_launch + 1, r->nslice);
  dg_buf_printf(b, "time %.2f s: concrete %.2f, symbolic %.2f, solver %.2f, replay %.2f\n",
                r->t_total, r->t_concrete, r->t_symbolic, r->t_solver, r->t_replay);
  if (r->nterms) dg_buf_printf(b, "%zu terms\n", r->nterms);
}

int tui_check_run(tui_app *a)
{
  int mt;
  int64_t idx[TUI_MAX_DIMS];
  if (!a->problem || !tui_picker_selected(a, &mt, idx)) {
    tui_model_set_result(&a->model, "check: needs a problem spec with output tensors\n"
                                    "(the picker says what is missing)");
    return TUI_HANDLED | TUI_REDRAW;
  }
  tui_tensor *x = &a->model.tensors.v[mt];
  int t = dg_problem_tensor(a->problem, x->name);
  emu_kernels k;
  dg_diags d = {0};
  dg_buf out = {0};
  if (t < 0 || !emu_kernels_load(&k, a->problem, &d)) {
    dg_buf_puts(&out, "check: the kernels did not load:\n");
    for (size_t i = 0; t >= 0 && k.mod && i < k.mod->diags.v.n && i < 8; i++) {
      dg_diag_format(&out, &k.sm, &k.mod->diags.v.v[i]);
      dg_buf_putc(&out, '\n');
    }
    for (size_t i = 0; i < d.v.n && i < 8; i++) {
      dg_diag_format(&out, &a->problem->sm, &d.v.v[i]);
      dg_buf_putc(&out, '\n');
    }
    tui_model_set_result(&a->model, out.s);
    if (t >= 0) emu_kernels_free(&k);
    dg_buf_free(&out);
    dg_diags_free(&d);
    return TUI_HANDLED | TUI_REDRAW;
  }
  dg_buf eb = {0};
  check_format_elem(&eb, a->problem, t, idx, x->ndim);
  tui_app_message(a, false, "checking %s ...", eb.s);   /* the check blocks: say so first */
  tui_app_draw(a);
  free(a->message);
  a->message = NULL;
  dg_buf_free(&eb);
  check_opts o = { .timeout_s = 10 };
  check_result r;
  memset(&r, 0, sizeof r);
  check_element(a->problem, &k, t, idx, x->ndim, &o, &r);
  if ((unsigned)r.verdict < CHECK__COUNT && r.verdict != CHECK_ERROR)
    tui_tensor_set_state(x, idx, verdict_cell[r.verdict]);
  /* marks: the lines that fed this element, and where the fault is */
  tui_model_clear_marks(&a->model);
  DG_VEC(uint32_t) fed = {0};
  for (size_t i = 0; i < r.nslice; i++)
    if (in_source(a, &k.sm, r.slice[i])) dg_vec_push(&fed, r.slice[i].line);
  tui_model_mark_fed(&a->model, fed.v, fed.n);
  dg_vec_free(&fed);
  if (r.have_event) {
    const dg_span sp[2] = { r.event.span, r.event.span2 };
    for (int i = 0; i < 2; i++)
      if (in_source(a, &k.sm, sp[i])) tui_model_mark_fault(&a->model, sp[i].line, simt_event_name(r.event.kind));
  }
  if (a->model.faults.n) tui_source_goto(a, a->model.faults.v[0].line);   /* show the fault */
  describe(a, &k, &r, &out);
  tui_model_set_result(&a->model, out.s);
  tui_lua_on_check(a, check_verdict_name(r.verdict), x->name, idx, x->ndim);
  dg_buf_free(&out);
  check_result_free(&r);
  emu_kernels_free(&k);
  dg_diags_free(&d);
  return TUI_HANDLED | TUI_REDRAW;
}
