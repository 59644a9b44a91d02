/* tui_result.c — the result pane (verdict, witness, timings, fuzz summary:
 * whatever text the model holds) and the check / fuzz actions. Until the
 * checker (src/check.h) and the fuzzer land, the actions say so plainly in
 * this pane: the screen never shows a result nobody computed. */
#include "tui.h"
#include <stdlib.h>
#include <string.h>

typedef struct { int top; } res_state;

static void res_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(res_state));
}

static void res_close(tui_app *a, tui_pane *p)
{
  free(p->st);
  p->st = NULL;
}

static void res_draw(tui_app *a, tui_pane *p)
{
  res_state *s = p->st;
  tui_draw_title(a, p, "result");
  const char *t = a->model.result;
  if (!t) {
    tui_draw_str(a->b, p->y + 1, p->x + 1, p->w - 1, "nothing checked yet", TUI_ST_NOTICE);
    return;
  }
  int rows = p->h - 1;
  int n = tui_draw_wrapped(a->b, p->y + 1, p->x + 1, p->w - 2, 0, t, 0, TUI_ST_TEXT);
  if (s->top > n - rows) s->top = n - rows;
  if (s->top < 0) s->top = 0;
  tui_draw_wrapped(a->b, p->y + 1, p->x + 1, p->w - 2, rows, t, s->top, TUI_ST_TEXT);
}

static int scroll(tui_app *a, int d)
{
  res_state *s = a->panes[TUI_PANE_RESULT].st;
  s->top += d;
  if (s->top < 0) s->top = 0;
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_res_down(tui_app *a, tui_pane *p, int key) { return scroll(a, 1); }
int tui_res_up(tui_app *a, tui_pane *p, int key) { return scroll(a, -1); }

int tui_act_check(tui_app *a, tui_pane *p, int key) { return tui_check_run(a); }

const tui_pane_ops tui_result_ops = {
  "result", TUI_CTX_RESULT, res_open, res_draw, NULL, res_close,
};
