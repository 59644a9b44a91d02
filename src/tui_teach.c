/* tui_teach.c — the teaching tabs of the result pane: for the element
 * selected in the picker, what its last check found out — the slice (the
 * lines the writer thread executed, also marked in the source pane), the
 * kernel's and the reference's terms, the SMT-LIB query and the writer
 * thread's steps. Checks run in a child (tui_check.c); what they send back
 * is kept here per element, so moving the selection shows each element's
 * own story. Nothing is made up: a part the check did not give is named as
 * missing. */
#include "tui.h"
#include <stdlib.h>
#include <string.h>

#define TAB_NAME(e, n) n,
const char *const tui_tab_names[] = { TUI_TABS(TAB_NAME) };
#undef TAB_NAME

struct tui_checks {
  DG_VEC(tui_check_info) v;
  int shown_tensor;          /* the element whose slice the fed marks show */
  int64_t shown_flat;
  int step;                  /* n / p: the step walked to (1-based; 0 none) ... */
  int step_tensor;           /* ... of this element's steps */
  int64_t step_flat;
};

void tui_check_info_free(tui_check_info *ci)
{
  free(ci->elem);
  free(ci->verdict);
  free(ci->summary);
  for (size_t i = 0; i < ci->slice.n; i++) free(ci->slice.v[i].label);
  dg_vec_free(&ci->slice);
  for (size_t i = 0; i < ci->faults.n; i++) free(ci->faults.v[i].label);
  dg_vec_free(&ci->faults);
  free(ci->kernel_term);
  free(ci->ref_term);
  free(ci->smtlib);
  free(ci->witness);
  free(ci->writer);
  free(ci->steps);
  dg_vec_free(&ci->step_lines);
  memset(ci, 0, sizeof *ci);
}

static tui_checks *checks(tui_app *a)
{
  if (!a->checks) {
    a->checks = dg_calloc(1, sizeof *a->checks);
    a->checks->shown_tensor = -1;
    a->checks->step_tensor = -1;
  }
  return a->checks;
}

void tui_checks_put(tui_app *a, tui_check_info *ci)
{
  tui_checks *c = checks(a);
  for (size_t i = 0; i < c->v.n; i++)
    if (c->v.v[i].tensor == ci->tensor && c->v.v[i].flat == ci->flat) {
      tui_check_info_free(&c->v.v[i]);
      c->v.v[i] = *ci;
      c->shown_tensor = -1;
      if (c->step_tensor == ci->tensor && c->step_flat == ci->flat) c->step_tensor = -1;
      return;
    }
  dg_vec_push(&c->v, *ci);
  c->shown_tensor = -1;
}

const tui_check_info *tui_checks_get(const tui_app *a, int tensor, int64_t flat)
{
  if (!a->checks) return NULL;
  for (size_t i = 0; i < a->checks->v.n; i++)
    if (a->checks->v.v[i].tensor == tensor && a->checks->v.v[i].flat == flat) return &a->checks->v.v[i];
  return NULL;
}

void tui_checks_free(tui_app *a)
{
  if (!a->checks) return;
  for (size_t i = 0; i < a->checks->v.n; i++) tui_check_info_free(&a->checks->v.v[i]);
  dg_vec_free(&a->checks->v);
  free(a->checks);
  a->checks = NULL;
}

static const tui_check_info *selected(tui_app *a, dg_buf *elem)
{
  int mt;
  int64_t idx[TUI_MAX_DIMS];
  if (!tui_picker_selected(a, &mt, idx)) return NULL;
  tui_tensor *x = &a->model.tensors.v[mt];
  dg_buf_puts(elem, x->name);
  for (int i = 0; i < x->ndim; i++) dg_buf_printf(elem, "%c%lld", i ? ',' : '[', (long long)idx[i]);
  dg_buf_putc(elem, ']');
  return tui_checks_get(a, mt, tui_tensor_offset(x, idx));
}

void tui_teach_follow(tui_app *a)
{
  int mt;
  int64_t idx[TUI_MAX_DIMS];
  if (!a->checks || a->gallery || !tui_picker_selected(a, &mt, idx)) return;
  int64_t flat = tui_tensor_offset(&a->model.tensors.v[mt], idx);
  if (a->checks->shown_tensor == mt && a->checks->shown_flat == flat) return;
  const tui_check_info *ci = tui_checks_get(a, mt, flat);
  if (!ci) return;                      /* keep the last marks: an unchecked element has none */
  a->checks->shown_tensor = mt, a->checks->shown_flat = flat;
  tui_model_clear_marks(&a->model);     /* the marks are this element's check */
  DG_VEC(uint32_t) fed = {0};
  for (size_t i = 0; i < ci->slice.n; i++)
    if (ci->slice.v[i].line) dg_vec_push(&fed, ci->slice.v[i].line);
  tui_model_mark_fed(&a->model, fed.v, fed.n);
  dg_vec_free(&fed);
  for (size_t i = 0; i < ci->faults.n; i++) tui_model_mark_fault(&a->model, ci->faults.v[i].line, ci->faults.v[i].label);
}

/* ---- the tabs' text ---------------------------------------------------------- */

static void slice_text(const tui_check_info *ci, dg_buf *b)
{
  if (!ci->slice.n) {
    dg_buf_printf(b, "no slice: the check of %s stopped before a writer thread ran symbolically (%s)\n",
                  ci->elem, ci->verdict);
    return;
  }
  dg_buf_printf(b, "%zu line%s fed %s (marked ▌ in the source)%s%s:\n", ci->slice.n, ci->slice.n == 1 ? "" : "s", ci->elem,
                ci->writer ? ", executed by " : "", ci->writer ? ci->writer : "");
  for (size_t i = 0; i < ci->slice.n; i++) dg_buf_printf(b, "%s\n", ci->slice.v[i].label);
}

static void terms_text(const tui_check_info *ci, dg_buf *b)
{
  if (!ci->kernel_term && !ci->ref_term) {
    dg_buf_printf(b, "no terms: the check of %s ended before both sides were built (%s)\n", ci->elem,
                  ci->verdict);
    return;
  }
  dg_buf_printf(b, "kernel, %s:\n  %s\n", ci->elem, ci->kernel_term ? ci->kernel_term : "(not built)");
  dg_buf_printf(b, "reference, %s:\n  %s\n", ci->elem, ci->ref_term ? ci->ref_term : "(not built)");
  dg_buf_puts(b, "the solver was asked whether these two can differ beyond the tolerance\n");
}

static void smt_text(const tui_check_info *ci, dg_buf *b)
{
  if (!ci->smtlib) {
    dg_buf_printf(b, "no SMT-LIB query: the check of %s did not reach the solver (%s)\n", ci->elem, ci->verdict);
    return;
  }
  /* the solver's text starts with one declare-fun per input element: show
   * the assertions first, then the declarations */
  size_t ndecl = 0;
  dg_buf rest = {0}, decls = {0};
  dg_buf_puts(&rest, "");
  dg_buf_puts(&decls, "");
  for (const char *l = ci->smtlib; *l;) {
    const char *nl = strchr(l, '\n');
    size_t n = nl ? (size_t)(nl - l) : strlen(l);
    bool decl = !strncmp(l, "(declare-fun ", 13);
    dg_buf *to = decl ? &decls : &rest;
    ndecl += decl;
    dg_buf_put(to, l, n);
    dg_buf_putc(to, '\n');
    l += n + (nl != NULL);
  }
  dg_buf_printf(b, "SMT-LIB query for %s (its %zu declare-fun lines last):\n%s", ci->elem, ndecl, rest.s);
  if (ndecl) dg_buf_printf(b, "; the %zu declarations:\n%s", ndecl, decls.s);
  dg_buf_free(&rest);
  dg_buf_free(&decls);
}

/* The step walked to in ci's steps (1-based), or 0. */
static int walked(const tui_app *a, const tui_check_info *ci)
{
  const tui_checks *c = a->checks;
  return c && c->step_tensor == ci->tensor && c->step_flat == ci->flat ? c->step : 0;
}

/* The steps text is a header line, one line per step, maybe "... N more".
 * Walking (n / p), the list starts two steps before the current one, which
 * is marked. */
static void steps_text(const tui_app *a, const tui_check_info *ci, dg_buf *b)
{
  if (!ci->steps) {
    dg_buf_printf(b, "no steps: the check of %s stopped before its writer thread ran symbolically (%s)\n",
                  ci->elem, ci->verdict);
    if (ci->writer) dg_buf_printf(b, "writer: %s\n", ci->writer);
    return;
  }
  int cur = walked(a, ci);
  if (!cur) {
    dg_buf_printf(b, "%s", ci->steps);
    if (ci->step_lines.n) dg_buf_puts(b, "(n walks the steps one at a time, p back)\n");
    return;
  }
  const char *l = ci->steps;
  for (int i = 0; *l; i++) {              /* i: 0 the header, then step i */
    const char *nl = strchr(l, '\n');
    size_t n = nl ? (size_t)(nl - l) : strlen(l);
    if (i == 0) dg_buf_printf(b, "%.*s\nstep %d of %zu (n next, p back; the source shows its line):\n", (int)n, l,
                              cur, ci->step_lines.n);
    else if (i >= cur - 2) dg_buf_printf(b, "%s%.*s\n", i == cur ? "▶" : " ", (int)n, l);
    l += n + (nl != NULL);
  }
}

static int step_walk(tui_app *a, int d)
{
  dg_buf elem = {0};
  const tui_check_info *ci = selected(a, &elem);
  a->tab = TUI_TAB_STEPS;
  if (!ci || !ci->step_lines.n) {
    tui_app_message(a, true, "no steps to walk for %s: c checks it", elem.s ? elem.s : "the selection");
    dg_buf_free(&elem);
    return TUI_HANDLED | TUI_REDRAW;
  }
  dg_buf_free(&elem);
  tui_checks *c = checks(a);
  if (c->step_tensor != ci->tensor || c->step_flat != ci->flat) c->step = 0;
  c->step_tensor = ci->tensor, c->step_flat = ci->flat;
  int n = (int)ci->step_lines.n;
  c->step = c->step + d < 1 ? 1 : c->step + d > n ? n : c->step + d;
  uint32_t line = ci->step_lines.v[c->step - 1];
  if (line) tui_source_goto(a, line);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_teach_step_next(tui_app *a, tui_pane *p, int key) { return step_walk(a, 1); }
int tui_teach_step_prev(tui_app *a, tui_pane *p, int key) { return step_walk(a, -1); }

char *tui_teach_text(tui_app *a, int tab)
{
  dg_buf b = {0}, elem = {0};
  dg_buf_puts(&b, "");
  if (tab == TUI_TAB_SUMMARY) {
    if (a->model.result) dg_buf_puts(&b, a->model.result);
    dg_buf_free(&elem);
    return dg_buf_take(&b);
  }
  const tui_check_info *ci = selected(a, &elem);
  if (!elem.s) dg_buf_puts(&b, "no element selected: the picker needs a problem spec\n");
  else if (!ci) dg_buf_printf(&b, "%s has not been checked yet: c checks it, A checks a few chosen elements\n", elem.s);
  else if (tab == TUI_TAB_SLICE) slice_text(ci, &b);
  else if (tab == TUI_TAB_TERMS) terms_text(ci, &b);
  else if (tab == TUI_TAB_SMT) smt_text(ci, &b);
  else steps_text(a, ci, &b);
  dg_buf_free(&elem);
  return dg_buf_take(&b);
}

/* ---- keys -------------------------------------------------------------------- */

int tui_act_tab_next(tui_app *a, tui_pane *p, int key)
{
  a->tab = (a->tab + 1) % TUI_TAB__COUNT;
  return TUI_HANDLED | TUI_REDRAW;
}

/* 1..5 in the result pane */
int tui_act_tab(tui_app *a, tui_pane *p, int key)
{
  int t = key - '1';
  if (t < 0 || t >= TUI_TAB__COUNT) return 0;
  a->tab = t;
  return TUI_HANDLED | TUI_REDRAW;
}
