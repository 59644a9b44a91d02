/* tui_source.c — the source pane: the kernel file highlighted from the
 * tree-sitter captures, line numbers, the cursor line, search, the kernel
 * list, diagnostics on their lines, and marks (lines that fed the selected
 * element; race / out-of-bounds lines) read from the model. */
#include "tui.h"
#include <stdlib.h>
#include <string.h>

enum { TABW = 4 };

typedef struct {
  DG_VEC(uint32_t) lines;   /* byte offset of each line start */
  const char *text;         /* the app's text this index was built for */
  uint32_t top, cur;        /* 0-based */
  int left;                 /* first text column shown (horizontal scroll) */
  char *search;
} src_state;

#define S(p) ((src_state *)(p)->st)

static src_state *state(tui_app *a)
{
  src_state *s = a->panes[TUI_PANE_SOURCE].st;
  if (s->text != a->text) {                   /* a new document: reindex */
    s->lines.n = 0;
    s->top = s->cur = 0;
    s->left = 0;
    s->text = a->text;
    if (a->text) {
      dg_vec_push(&s->lines, 0);
      for (size_t i = 0; i < a->len; i++)
        if (a->text[i] == '\n' && i + 1 < a->len) dg_vec_push(&s->lines, (uint32_t)(i + 1));
    }
  }
  return s;
}

static void src_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(src_state));
}

static void src_close(tui_app *a, tui_pane *p)
{
  src_state *s = p->st;
  if (!s) return;
  dg_vec_free(&s->lines);
  free(s->search);
  free(s);
  p->st = NULL;
}

static size_t line_end(tui_app *a, src_state *s, uint32_t l)
{
  size_t b0 = s->lines.v[l];
  size_t e = l + 1 < s->lines.n ? s->lines.v[l + 1] - 1 : a->len;
  if (e > b0 && a->text[e - 1] == '\n') e--;    /* the last line's newline */
  if (e > b0 && a->text[e - 1] == '\r') e--;
  return e;
}

static const dg_hl_kernel *kernel_at(tui_app *a, uint32_t line1)
{
  const dg_hl_kernel *k = NULL;
  if (!a->doc) return NULL;
  for (size_t i = 0; i < a->doc->kernels.n; i++)
    if (a->doc->kernels.v[i].line <= line1) k = &a->doc->kernels.v[i];
  return k;
}

static int digits(uint32_t n)
{
  int d = 1;
  while (n >= 10) n /= 10, d++;
  return d;
}

/* Byte ranges of search matches in [b0, b1) get the search style. */
static bool in_match(tui_app *a, src_state *s, size_t b0, size_t b1, size_t at)
{
  if (!s->search || !*s->search) return false;
  size_t n = strlen(s->search);
  size_t from = at + 1 >= n ? at + 1 - n : 0;
  if (from < b0) from = b0;
  for (size_t i = from; i <= at && i + n <= b1; i++)
    if (!memcmp(a->text + i, s->search, n)) return true;
  return false;
}

static void draw_line(tui_app *a, tui_pane *p, src_state *s, uint32_t l, int y, int gut)
{
  tui_backend *b = a->b;
  uint32_t line1 = l + 1;
  bool cur = l == s->cur;
  const tui_fault_mark *fault = tui_model_fault_at(&a->model, line1);
  const tui_diag_mark *diag = tui_model_diag_at(&a->model, line1);
  bool fed = tui_model_is_fed(&a->model, line1);
  int base = cur ? TUI_ST_CURSORLINE : TUI_ST_TEXT;
  int x0 = p->x, xe = p->x + p->w;
  if (cur) tui_draw_fill(b, y, x0, p->w, TUI_ST_CURSORLINE);
  /* gutter: mark, number, blank */
  if (fault) tui_draw_cp(b, y, x0, xe, '!', TUI_ST_MARK_FAULT);
  else if (fed) tui_draw_cp(b, y, x0, xe, 0x258c, TUI_ST_MARK_FED);
  else if (diag) tui_draw_cp(b, y, x0, xe, diag->sev <= DG_SEV_UNSUPPORTED ? 'E' : 'W',
                             diag->sev <= DG_SEV_UNSUPPORTED ? TUI_ST_DIAG_ERROR : TUI_ST_DIAG_WARNING);
  int nst = fault ? TUI_ST_MARK_FAULT : cur ? TUI_ST_LINENR_CUR : TUI_ST_LINENR;
  tui_draw_printf(b, y, x0 + 1, gut - 1, nst, "%*u", gut - 2, line1);
  /* text */
  size_t b0 = s->lines.v[l], b1 = line_end(a, s, l);
  int x = x0 + gut, col = 0, left = s->left;
  for (size_t i = b0; i < b1 && x < xe;) {
    size_t len;
    uint32_t cp = tui_utf8_next(a->text + i, b1 - i, &len);
    int st = a->doc && a->cap_style && a->doc->cap[i] ? a->cap_style[a->doc->cap[i] - 1] : TUI_ST_TEXT;
    if (in_match(a, s, b0, b1, i)) st = TUI_ST_SEARCH;
    else if (base != TUI_ST_TEXT) st = tui_style_over(a, base, st);
    int n = cp == '\t' ? TABW - col % TABW : 1;
    for (int k = 0; k < n && x < xe; k++) {
      uint32_t c = cp == '\t' ? ' ' : cp;
      int w = tui_text_width(a->text + i, cp == '\t' ? 1 : len);
      if (col >= left) {
        int got = tui_draw_cp(b, y, x, xe, c, st);
        if (got == 0 && w > 0) { x = xe; break; }
        x += got;
      } else if (col + w > left) {
        x += col + w - left;               /* a wide character cut by the left edge */
      }
      col += cp == '\t' ? 1 : w;
    }
    i += len;
  }
  const char *note = fault ? fault->what : diag ? diag->msg : NULL;
  if (note && x + 3 < xe) {
    int st = fault ? TUI_ST_MARK_FAULT : diag->sev <= DG_SEV_UNSUPPORTED ? TUI_ST_DIAG_ERROR
           : diag->sev == DG_SEV_WARNING ? TUI_ST_DIAG_WARNING : TUI_ST_DIAG_NOTE;
    const char *sev = fault ? "" : dg_severity_name(diag->sev);
    tui_draw_printf(b, y, x + 2, xe - x - 2, st, "%s%s%s", sev, *sev ? ": " : "", note);
  }
}

static void src_draw(tui_app *a, tui_pane *p)
{
  src_state *s = state(a);
  if (p->h <= 0) return;
  uint32_t n = (uint32_t)s->lines.n;
  const dg_hl_kernel *k = n ? kernel_at(a, s->cur + 1) : NULL;
  char *title = n ? dg_printf("source  line %u/%u%s%s", s->cur + 1, n, k ? "  kernel " : "",
                              k ? k->name : "")
                  : dg_strdup("source");
  tui_draw_title(a, p, title);
  free(title);
  int rows = p->h - 1;
  if (!a->text) {
    tui_draw_str(a->b, p->y + 1, p->x + 1, p->w - 1, "no file open", TUI_ST_NOTICE);
    return;
  }
  if (rows <= 0) return;
  if (s->cur < s->top) s->top = s->cur;
  if (s->cur >= s->top + (uint32_t)rows) s->top = s->cur - (uint32_t)rows + 1;
  int gut = digits(n) + 2;
  if (gut < 5) gut = 5;
  for (int r = 0; r < rows && s->top + (uint32_t)r < n; r++)
    draw_line(a, p, s, s->top + (uint32_t)r, p->y + 1 + r, gut);
}

/* ---- moving ------------------------------------------------------------------ */

void tui_source_goto(tui_app *a, uint32_t line)
{
  src_state *s = state(a);
  if (!s->lines.n) return;
  if (line < 1) line = 1;
  if (line > s->lines.n) line = (uint32_t)s->lines.n;
  s->cur = line - 1;
  tui_app_layout(a);
  int rows = a->panes[TUI_PANE_SOURCE].h - 1;
  if (rows < 1) rows = 1;
  if (s->cur >= s->top && s->cur < s->top + (uint32_t)rows) return;   /* already visible */
  s->top = s->cur > (uint32_t)rows / 3 ? s->cur - (uint32_t)rows / 3 : 0;
}

uint32_t tui_source_cursor(tui_app *a) { return state(a)->cur + 1; }

static int move(tui_app *a, long d)
{
  src_state *s = state(a);
  if (!s->lines.n) return TUI_HANDLED;
  long c = (long)s->cur + d;
  if (c < 0) c = 0;
  if (c >= (long)s->lines.n) c = (long)s->lines.n - 1;
  s->cur = (uint32_t)c;
  return TUI_HANDLED | TUI_REDRAW;
}

static long page(tui_app *a) { long r = a->panes[TUI_PANE_SOURCE].h - 2; return r > 1 ? r : 1; }

int tui_src_down(tui_app *a, tui_pane *p, int key) { return move(a, 1); }
int tui_src_up(tui_app *a, tui_pane *p, int key) { return move(a, -1); }
int tui_src_page_down(tui_app *a, tui_pane *p, int key) { return move(a, page(a)); }
int tui_src_page_up(tui_app *a, tui_pane *p, int key) { return move(a, -page(a)); }
static int hscroll(tui_app *a, int d)
{
  src_state *s = state(a);
  s->left += d;
  if (s->left < 0) s->left = 0;
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_src_left(tui_app *a, tui_pane *p, int key) { return hscroll(a, -8); }
int tui_src_right(tui_app *a, tui_pane *p, int key) { return hscroll(a, 8); }
int tui_src_top(tui_app *a, tui_pane *p, int key) { return move(a, -(long)state(a)->lines.n); }
int tui_src_bottom(tui_app *a, tui_pane *p, int key) { return move(a, (long)state(a)->lines.n); }

/* ---- search ------------------------------------------------------------------- */

static bool line_has(tui_app *a, src_state *s, uint32_t l, const char *pat)
{
  size_t b0 = s->lines.v[l], b1 = line_end(a, s, l), n = strlen(pat);
  for (size_t i = b0; i + n <= b1; i++)
    if (!memcmp(a->text + i, pat, n)) return true;
  return false;
}

static int find(tui_app *a, int dir)
{
  src_state *s = state(a);
  if (!s->search || !*s->search) {
    tui_app_message(a, true, "no search yet: / starts one");
    return TUI_HANDLED | TUI_REDRAW;
  }
  uint32_t n = (uint32_t)s->lines.n;
  for (uint32_t k = 1; k <= n; k++) {
    uint32_t l = (uint32_t)(((long)s->cur + dir * (long)k % (long)n + (long)n) % (long)n);
    if (line_has(a, s, l, s->search)) {
      bool wrapped = dir > 0 ? l <= s->cur : l >= s->cur;
      tui_source_goto(a, l + 1);
      if (wrapped) tui_app_message(a, false, "search wrapped: %s", s->search);
      return TUI_HANDLED | TUI_REDRAW;
    }
  }
  tui_app_message(a, true, "not found: %s", s->search);
  return TUI_HANDLED | TUI_REDRAW;
}

static int search_done(tui_app *a, const char *text)
{
  src_state *s = state(a);
  if (*text) {
    free(s->search);
    s->search = dg_strdup(text);
  }
  return find(a, 1);
}

int tui_src_search(tui_app *a, tui_pane *p, int key)
{
  tui_app_prompt(a, "/", "", search_done);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_src_next(tui_app *a, tui_pane *p, int key) { return find(a, 1); }
int tui_src_prev(tui_app *a, tui_pane *p, int key) { return find(a, -1); }

/* ---- kernels and diagnostics ------------------------------------------------- */

static void kernel_pick(tui_app *a, size_t i)
{
  if (a->doc && i < a->doc->kernels.n) tui_source_goto(a, a->doc->kernels.v[i].line);
}

int tui_src_kernels(tui_app *a, tui_pane *p, int key)
{
  if (!a->doc || !a->doc->kernels.n) {
    tui_app_message(a, true, "no __global__ kernels in this file");
    return TUI_HANDLED | TUI_REDRAW;
  }
  size_t n = a->doc->kernels.n;
  char **items = dg_malloc(n * sizeof *items);
  for (size_t i = 0; i < n; i++)
    items[i] = dg_printf("%-32s line %u", a->doc->kernels.v[i].name, a->doc->kernels.v[i].line);
  tui_menu_open(a, "kernels", (const char *const *)items, n, kernel_pick);
  for (size_t i = 0; i < n; i++) free(items[i]);
  free(items);
  return TUI_HANDLED | TUI_REDRAW;
}

static int step_kernel(tui_app *a, int dir)
{
  uint32_t cur = tui_source_cursor(a);
  const dg_hl_kernel *best = NULL;
  for (size_t i = 0; a->doc && i < a->doc->kernels.n; i++) {
    const dg_hl_kernel *k = &a->doc->kernels.v[i];
    if (dir > 0 && k->line > cur && (!best || k->line < best->line)) best = k;
    if (dir < 0 && k->line < cur && (!best || k->line > best->line)) best = k;
  }
  if (!best) {
    tui_app_message(a, true, dir > 0 ? "no kernel below" : "no kernel above");
    return TUI_HANDLED | TUI_REDRAW;
  }
  tui_source_goto(a, best->line);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_src_next_kernel(tui_app *a, tui_pane *p, int key) { return step_kernel(a, 1); }
int tui_src_prev_kernel(tui_app *a, tui_pane *p, int key) { return step_kernel(a, -1); }

int tui_src_diag_next(tui_app *a, tui_pane *p, int key)
{
  uint32_t cur = tui_source_cursor(a), best = 0, first = 0;
  for (size_t i = 0; i < a->model.diags.n; i++) {
    uint32_t l = a->model.diags.v[i].line;
    if (l > cur && (!best || l < best)) best = l;
    if (!first || l < first) first = l;
  }
  if (!best) best = first;
  if (!best) {
    tui_app_message(a, false, "no diagnostics");
    return TUI_HANDLED | TUI_REDRAW;
  }
  tui_source_goto(a, best);
  const tui_diag_mark *d = tui_model_diag_at(&a->model, best);
  if (d) tui_app_message(a, d->sev <= DG_SEV_UNSUPPORTED, "%u:%u: %s: %s", d->line, d->col,
                         dg_severity_name(d->sev), d->msg);
  return TUI_HANDLED | TUI_REDRAW;
}

const tui_pane_ops tui_source_ops = {
  "source", TUI_CTX_SOURCE, src_open, src_draw, NULL, src_close,
};
