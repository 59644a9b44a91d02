/* tui_menu.c — a list overlay (the kernel list; any "pick one of these"):
 * items, a selection, a callback on Enter. */
#include "tui.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *title;
  DG_VEC(char *) items;
  size_t sel, top;
  void (*pick)(tui_app *a, size_t i);
} menu_state;

static void clear(menu_state *s)
{
  for (size_t i = 0; i < s->items.n; i++) free(s->items.v[i]);
  s->items.n = 0;
  free(s->title);
  s->title = NULL;
}

static void menu_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(menu_state));
}

static void menu_close(tui_app *a, tui_pane *p)
{
  menu_state *s = p->st;
  if (!s) return;
  clear(s);
  dg_vec_free(&s->items);
  free(s);
  p->st = NULL;
}

void tui_menu_open(tui_app *a, const char *title, const char *const *items, size_t n,
                   void (*pick)(tui_app *a, size_t i))
{
  menu_state *s = a->panes[TUI_PANE_MENU].st;
  clear(s);
  s->title = dg_strdup(title);
  for (size_t i = 0; i < n; i++) dg_vec_push(&s->items, dg_strdup(items[i]));
  s->sel = s->top = 0;
  s->pick = pick;
  a->overlay = TUI_PANE_MENU;
}

static void menu_draw(tui_app *a, tui_pane *p)
{
  menu_state *s = p->st;
  for (int y = p->y; y < p->y + p->h; y++) tui_draw_fill(a->b, y, p->x, p->w, TUI_ST_MENU);
  tui_draw_fill(a->b, p->y, p->x, p->w, TUI_ST_PANE_FOCUS);
  tui_draw_str(a->b, p->y, p->x + 1, p->w - 1, s->title ? s->title : "", TUI_ST_PANE_FOCUS);
  size_t rows = p->h > 1 ? (size_t)p->h - 1 : 1;
  if (s->sel < s->top) s->top = s->sel;
  if (s->sel >= s->top + rows) s->top = s->sel - rows + 1;
  for (size_t i = 0; i < rows && s->top + i < s->items.n; i++) {
    int y = p->y + 1 + (int)i, st = s->top + i == s->sel ? TUI_ST_SELECTED : TUI_ST_MENU;
    tui_draw_fill(a->b, y, p->x, p->w, st);
    tui_draw_str(a->b, y, p->x + 1, p->w - 2, s->items.v[s->top + i], st);
  }
}

static int step(tui_app *a, int d)
{
  menu_state *s = a->panes[TUI_PANE_MENU].st;
  if (d < 0 && s->sel > 0) s->sel--;
  if (d > 0 && s->sel + 1 < s->items.n) s->sel++;
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_menu_down(tui_app *a, tui_pane *p, int key) { return step(a, 1); }
int tui_menu_up(tui_app *a, tui_pane *p, int key) { return step(a, -1); }

int tui_menu_close(tui_app *a, tui_pane *p, int key)
{
  a->overlay = -1;
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_menu_pick(tui_app *a, tui_pane *p, int key)
{
  menu_state *s = a->panes[TUI_PANE_MENU].st;
  a->overlay = -1;
  if (s->pick && s->sel < s->items.n) s->pick(a, s->sel);
  return TUI_HANDLED | TUI_REDRAW;
}

const tui_pane_ops tui_menu_ops = {
  "menu", TUI_CTX_MENU, menu_open, menu_draw, NULL, menu_close,
};
