/* tui_help.c — the '?' screen, generated from the key table (tui_keys.c):
 * one section per context, one line per action with all its keys. */
#include "tui.h"
#include <stdlib.h>
#include <string.h>

typedef struct { int top, width; DG_VEC(char *) lines; DG_VEC(bool) section; } help_state;

static void clear_lines(help_state *s)
{
  for (size_t i = 0; i < s->lines.n; i++) free(s->lines.v[i]);
  s->lines.n = 0;
  s->section.n = 0;
}

static void add(help_state *s, bool section, char *line)
{
  dg_vec_push(&s->lines, line);
  dg_vec_push(&s->section, section);
}

/* The bytes of t that fit in `room` columns, broken at a space when one is. */
static size_t fit(const char *t, int room)
{
  size_t n = strlen(t), at = 0, brk = 0;
  while (at < n) {
    size_t len;
    tui_utf8_next(t + at, n - at, &len);
    if (tui_text_width(t, at + len) > room) return brk ? brk : at ? at : len;
    at += len;
    if (t[at] == ' ') brk = at;
  }
  return n;
}

/* "  KEYS NAME HELP" with the columns aligned by width, not bytes; the help
 * wraps under itself at `width` columns (an 80-column terminal cut it off). */
static void row(help_state *s, const char *keys, const char *name, const char *help, int width)
{
  int pad = 18 - tui_text_width(keys, strlen(keys));
  char *head = dg_printf("  %s%*s %-13s ", keys, pad > 0 ? pad : 0, "", name);
  int col = tui_text_width(head, strlen(head)), room = width - col;
  if (room < 16) room = 1 << 20;               /* too narrow to wrap: the pane cuts it */
  const char *t = help;
  do {
    size_t take = fit(t, room);
    add(s, false, dg_printf("%*s%.*s", t == help ? 0 : col, t == help ? head : "", (int)take, t));
    t += take;
    while (*t == ' ') t++;
  } while (*t);
  free(head);
}

/* Builds the text for a pane `width` columns wide: rows with the same context
 * and action name merge their keys; then the ':' commands and the picker's cells. */
static void build(help_state *s, int width)
{
  clear_lines(s);
  s->width = width;
  for (int ctx = 0; ctx < TUI_CTX__COUNT; ctx++) {
    bool any = false;
    for (size_t i = 0; i < tui_nbindings; i++) {
      const tui_binding *k = &tui_bindings[i];
      if (k->ctx != ctx) continue;
      bool seen = false;
      for (size_t j = 0; j < i; j++)
        if (tui_bindings[j].ctx == ctx && !strcmp(tui_bindings[j].name, k->name)) seen = true;
      if (seen) continue;
      if (!any) add(s, true, dg_strdup(tui_context_names[ctx])), any = true;
      dg_buf keys = {0};
      dg_buf_puts(&keys, "");
      for (size_t j = i; j < tui_nbindings; j++) {
        if (tui_bindings[j].ctx != ctx || strcmp(tui_bindings[j].name, k->name)) continue;
        char kb[24];
        dg_buf_printf(&keys, "%s%s", keys.n ? " " : "", tui_key_name(tui_bindings[j].key, kb, sizeof kb));
      }
      row(s, keys.s, k->name, k->help, width);
      dg_buf_free(&keys);
    }
  }
  /* the ':' commands, from their table (tui_cmdline.c); :quit and :q share a row */
  add(s, true, dg_strdup("commands (after :)"));
  const char *name, *usage, *help;
  for (size_t i = 0; tui_cmd_at(i, &name, &usage, &help); i++) {
    const char *n2, *u2, *h2;
    if (i > 0 && tui_cmd_at(i - 1, &n2, &u2, &h2) && !strcmp(h2, help)) continue;
    dg_buf keys = {0};
    dg_buf_printf(&keys, ":%s", name);
    for (size_t j = i + 1; tui_cmd_at(j, &n2, &u2, &h2) && !strcmp(h2, help); j++) dg_buf_printf(&keys, " :%s", n2);
    row(s, keys.s, usage, help, width);
    dg_buf_free(&keys);
  }
  /* not keys, but what the picker's cells mean */
  add(s, true, dg_strdup("picker cells"));
  row(s, "·", "unchecked", "no verdict yet", width);
  row(s, "=  X  ?  !", "verdicts", "equivalent, bug, unknown, fault (race, out-of-bounds, ...)", width);
  row(s, "· ░ ▒ ▓ █", "fuzz heat",
      "share of fuzz cases failing first at the element: 0, to 1/4, 1/2, 3/4, 1", width);
}

static void help_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(help_state));
  help_state *s = p->st;
  s->top = 0;
  s->width = -1;                                /* built by the first draw, at the pane's width */
}

static void help_close(tui_app *a, tui_pane *p)
{
  help_state *s = p->st;
  if (!s) return;
  clear_lines(s);
  dg_vec_free(&s->lines);
  dg_vec_free(&s->section);
  free(s);
  p->st = NULL;
}

static void help_draw(tui_app *a, tui_pane *p)
{
  help_state *s = p->st;
  if (s->width != p->w - 1) build(s, p->w - 1);
  for (int y = p->y; y < p->y + p->h; y++) tui_draw_fill(a->b, y, p->x, p->w, TUI_ST_TEXT);
  tui_draw_title(a, p, "help — keys (from the key table) and commands");
  int rows = p->h - 1, n = (int)s->lines.n;
  if (s->top > n - rows) s->top = n - rows;
  if (s->top < 0) s->top = 0;
  for (int i = 0; i < rows && s->top + i < n; i++) {
    const char *l = s->lines.v[s->top + i];
    if (s->section.v[s->top + i]) {
      tui_draw_str(a->b, p->y + 1 + i, p->x + 1, p->w - 1, l, TUI_ST_HELP_SECTION);
    } else {
      /* the keys column gets the key style */
      size_t cut = 0, n = strlen(l);               /* the first 21 columns, in bytes */
      while (cut < n && tui_text_width(l, cut) < 21) {
        size_t len;
        tui_utf8_next(l + cut, n - cut, &len);
        cut += len;
      }
      int x = tui_draw_text(a->b, p->y + 1 + i, p->x + 1, p->w - 1, l, cut, TUI_ST_HELP_KEY);
      if (cut < n) tui_draw_str(a->b, p->y + 1 + i, x, p->x + p->w - x, l + cut, TUI_ST_TEXT);
    }
  }
}

static int scroll(tui_app *a, int d)
{
  help_state *s = a->panes[TUI_PANE_HELP].st;
  int max = (int)s->lines.n - (a->panes[TUI_PANE_HELP].h - 1);
  s->top += d;
  if (s->top > max) s->top = max;
  if (s->top < 0) s->top = 0;
  return TUI_HANDLED | TUI_REDRAW;
}

static int page(tui_app *a) { int h = a->panes[TUI_PANE_HELP].h - 2; return h > 1 ? h : 1; }

int tui_help_down(tui_app *a, tui_pane *p, int key) { return scroll(a, 1); }
int tui_help_page_down(tui_app *a, tui_pane *p, int key) { return scroll(a, page(a)); }
int tui_help_page_up(tui_app *a, tui_pane *p, int key) { return scroll(a, -page(a)); }
int tui_help_end(tui_app *a, tui_pane *p, int key) { return scroll(a, 1 << 20); }
int tui_help_home(tui_app *a, tui_pane *p, int key) { return scroll(a, -(1 << 20)); }
int tui_help_up(tui_app *a, tui_pane *p, int key) { return scroll(a, -1); }

int tui_help_close(tui_app *a, tui_pane *p, int key)
{
  a->overlay = -1;
  return TUI_HANDLED | TUI_REDRAW;
}

/* Any key the help does not use closes it and is not passed on. */
static int help_key(tui_app *a, tui_pane *p, int key)
{
  return tui_help_close(a, p, key);
}

const tui_pane_ops tui_help_ops = {
  "help", TUI_CTX_HELP, help_open, help_draw, help_key, help_close,
};
