/* tui_result.c — the result pane: tabs (tui_teach.c gives their text); the
 * summary tab shows whatever text the model holds (verdict, witness,
 * timings, fuzz summary), the others what the selected element's last check
 * found (slice, terms, SMT-LIB, steps). */
#include "tui.h"
#include <stdlib.h>
#include <string.h>

typedef struct { int top, tab; } res_state;

static void res_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(res_state));
}

static void res_close(tui_app *a, tui_pane *p)
{
  free(p->st);
  p->st = NULL;
}

/* "result: summary slice terms smt-lib steps", the shown tab selected */
static void draw_tabs(tui_app *a, tui_pane *p)
{
  int need = 0;
  for (int i = 0; i < TUI_TAB__COUNT; i++) need += (int)strlen(tui_tab_names[i]) + 1;
  /* a narrow pane (80 columns side by side) drops "result:" so that every
   * tab, the shown one included, keeps its name */
  bool room = 9 + need <= p->w;
  tui_draw_title(a, p, room ? "result:" : "");
  bool focus = !a->gallery && a->overlay < 0 && p == &a->panes[a->focus];
  int x = p->x + (room ? 9 : 1), end = p->x + p->w;
  for (int i = 0; i < TUI_TAB__COUNT && x < end; i++) {
    int st = i == a->tab ? TUI_ST_SELECTED : focus ? TUI_ST_PANE_FOCUS : TUI_ST_PANE_TITLE;
    x = tui_draw_str(a->b, p->y, x, end - x, tui_tab_names[i], st) + 1;
  }
}

static void res_draw(tui_app *a, tui_pane *p)
{
  res_state *s = p->st;
  draw_tabs(a, p);
  if (s->tab != a->tab) s->tab = a->tab, s->top = 0;
  char *t = tui_teach_text(a, a->tab);
  if (!*t) {
    tui_draw_str(a->b, p->y + 1, p->x + 1, p->w - 1, "nothing checked yet", TUI_ST_NOTICE);
    free(t);
    return;
  }
  int rows = p->h - 1;
  int n = tui_draw_wrapped(a->b, p->y + 1, p->x + 1, p->w - 2, 0, t, 0, TUI_ST_TEXT);
  if (s->top > n - rows) s->top = n - rows;
  if (s->top < 0) s->top = 0;
  tui_draw_wrapped(a->b, p->y + 1, p->x + 1, p->w - 2, rows, t, s->top, TUI_ST_TEXT);
  free(t);
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
static int page(tui_app *a) { int h = a->panes[TUI_PANE_RESULT].h - 2; return h > 1 ? h : 1; }
int tui_res_page_down(tui_app *a, tui_pane *p, int key) { return scroll(a, page(a)); }
int tui_res_page_up(tui_app *a, tui_pane *p, int key) { return scroll(a, -page(a)); }
int tui_res_top(tui_app *a, tui_pane *p, int key) { return scroll(a, -(1 << 28)); }
int tui_res_bottom(tui_app *a, tui_pane *p, int key) { return scroll(a, 1 << 28); }   /* clamped by draw */

int tui_act_check(tui_app *a, tui_pane *p, int key) { return tui_check_run(a); }

const tui_pane_ops tui_result_ops = {
  "result", TUI_CTX_RESULT, res_open, res_draw, NULL, res_close,
};
