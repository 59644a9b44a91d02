/* tui_picker.c — the tensor picker: a 2-D slice of an N-D output tensor as a
 * grid of cells coloured by state (unchecked, equivalent, bug, unknown,
 * fault, fuzz heat), with row/col indices on the edges. Two dims are shown;
 * the others are stepped. The data comes from the model (tui_model.h). */
#include "tui.h"
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

typedef struct {
  int tensor;
  int rd, cd;                       /* shown dims; rd = -1 for a 1-D tensor */
  int sd;                           /* the hidden dim that +/- steps */
  int64_t pos[TUI_MAX_DIMS];        /* the selected element */
  int64_t top, left;                /* first row / col on screen */
  int rows, cols;                   /* how many fit, from the last draw */
  size_t ntensors_seen;
} pick_state;

static pick_state *state(tui_app *a) { return a->panes[TUI_PANE_PICKER].st; }

static tui_tensor *cur_tensor(tui_app *a)
{
  pick_state *s = state(a);
  if (!a->model.tensors.n) return NULL;
  if (s->tensor < 0 || (size_t)s->tensor >= a->model.tensors.n) s->tensor = 0;
  return &a->model.tensors.v[s->tensor];
}

static void reset_dims(pick_state *s, const tui_tensor *t)
{
  memset(s->pos, 0, sizeof s->pos);
  s->top = s->left = 0;
  s->rd = t->ndim >= 2 ? t->ndim - 2 : -1;
  s->cd = t->ndim - 1;
  s->sd = -1;
  for (int d = 0; d < t->ndim; d++)
    if (d != s->rd && d != s->cd) { s->sd = d; break; }
}

static void pk_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(pick_state));
}

static void pk_close(tui_app *a, tui_pane *p)
{
  free(p->st);
  p->st = NULL;
}

bool tui_picker_selected(tui_app *a, int *tensor, int64_t idx[TUI_MAX_DIMS])
{
  tui_tensor *t = cur_tensor(a);
  if (!t) return false;
  *tensor = state(a)->tensor;
  memcpy(idx, state(a)->pos, sizeof state(a)->pos);
  return true;
}

static int digits(int64_t n)
{
  int d = 1;
  while (n >= 10) n /= 10, d++;
  return d;
}

static const struct { uint32_t glyph; int style; const char *name; } cell_look[TUI_CELL__COUNT] = {
  [TUI_CELL_UNCHECKED] = { 0x00b7, TUI_ST_CELL_UNCHECKED, "unchecked" },
  [TUI_CELL_EQUIVALENT] = { '=', TUI_ST_CELL_EQUIV, "equivalent" },
  [TUI_CELL_BUG] = { 'X', TUI_ST_CELL_BUG, "bug" },
  [TUI_CELL_UNKNOWN] = { '?', TUI_ST_CELL_UNKNOWN, "unknown" },
  [TUI_CELL_FAULT] = { '!', TUI_ST_CELL_FAULT, "fault" },
};

/* Fuzz heat buckets: no errors, then rising shares of failing cases. */
static const uint32_t heat_glyph[5] = { 0x00b7, 0x2591, 0x2592, 0x2593, 0x2588 };

static void cell_view(const tui_tensor *t, const int64_t *idx, uint32_t *g, int *st)
{
  tui_cell_state cs = tui_tensor_state(t, idx);
  double h = tui_tensor_heat(t, idx);
  *g = cell_look[cs].glyph;
  *st = cell_look[cs].style;
  if (cs == TUI_CELL_UNCHECKED && h >= 0) {
    int k = h <= 0 ? 0 : h <= 0.25 ? 1 : h <= 0.5 ? 2 : h <= 0.75 ? 3 : 4;
    *g = heat_glyph[k];
    *st = TUI_ST_HEAT1 + k;
  }
}

static void draw_missing(tui_app *a, tui_pane *p)
{
  const char *m = a->model.missing ? a->model.missing : "no output tensors";
  tui_draw_wrapped(a->b, p->y + 1, p->x + 1, p->w - 2, p->h - 1, m, 0, TUI_ST_NOTICE);
}

static void pk_draw(tui_app *a, tui_pane *p)
{
  pick_state *s = state(a);
  tui_tensor *t = cur_tensor(a);
  if (!t) {
    tui_draw_title(a, p, "picker");
    draw_missing(a, p);
    return;
  }
  if (s->ntensors_seen != a->model.tensors.n || s->cd >= t->ndim || s->cd < 0) {
    s->ntensors_seen = a->model.tensors.n;
    reset_dims(s, t);
  }
  dg_buf tb = {0};
  dg_buf_printf(&tb, "picker  %s[", t->name);
  for (int d = 0; d < t->ndim; d++) dg_buf_printf(&tb, "%s%lld", d ? "," : "", (long long)s->pos[d]);
  dg_buf_puts(&tb, "]  of ");
  for (int d = 0; d < t->ndim; d++) dg_buf_printf(&tb, "%s%lld", d ? "x" : "", (long long)t->shape[d]);
  if (a->model.tensors.n > 1) dg_buf_printf(&tb, "  (%d/%zu)", s->tensor + 1, a->model.tensors.n);
  tui_draw_title(a, p, tb.s);
  dg_buf_free(&tb);

  int y = p->y + 1, ye = p->y + p->h;
  if (t->ndim > 2 && y < ye) {                    /* the hidden dims */
    int x = tui_draw_str(a->b, y, p->x + 1, p->w - 1, "slice", TUI_ST_INDEX);
    for (int d = 0; d < t->ndim; d++) {
      if (d == s->rd || d == s->cd) continue;
      x = tui_draw_printf(a->b, y, x + 1, p->x + p->w - x - 1, d == s->sd ? TUI_ST_INDEX_CUR : TUI_ST_INDEX,
                          "d%d=%lld/%lld", d, (long long)s->pos[d], (long long)t->shape[d]);
    }
    y++;
  }
  int64_t nrows = s->rd >= 0 ? t->shape[s->rd] : 1, ncols = t->shape[s->cd];
  int rw = digits(nrows - 1) + 1, cw = digits(ncols - 1) + 1;
  if (cw < 2) cw = 2;
  int gridy = y + 1, legend = 1;
  s->rows = ye - gridy - legend;
  s->cols = (p->w - rw - 1) / cw;
  if (s->rows < 1) s->rows = 1;
  if (s->cols < 1) s->cols = 1;
  int64_t r = s->rd >= 0 ? s->pos[s->rd] : 0, c = s->pos[s->cd];
  if (r < s->top) s->top = r;
  if (r >= s->top + s->rows) s->top = r - s->rows + 1;
  if (c < s->left) s->left = c;
  if (c >= s->left + s->cols) s->left = c - s->cols + 1;
  /* column indices */
  if (y < ye)
    for (int j = 0; j < s->cols && s->left + j < ncols; j++)
      tui_draw_printf(a->b, y, p->x + rw + 1 + j * cw, cw, s->left + j == c ? TUI_ST_INDEX_CUR : TUI_ST_INDEX,
                      "%*lld", cw, (long long)(s->left + j));
  int64_t idx[TUI_MAX_DIMS];
  memcpy(idx, s->pos, sizeof idx);
  for (int i = 0; i < s->rows && s->top + i < nrows && gridy + i < ye - legend; i++) {
    int yy = gridy + i;
    int64_t row = s->top + i;
    if (s->rd >= 0) idx[s->rd] = row;
    tui_draw_printf(a->b, yy, p->x, rw, row == r ? TUI_ST_INDEX_CUR : TUI_ST_INDEX, "%*lld", rw, (long long)row);
    for (int j = 0; j < s->cols && s->left + j < ncols; j++) {
      idx[s->cd] = s->left + j;
      uint32_t g;
      int st;
      cell_view(t, idx, &g, &st);
      bool here = row == r && s->left + j == c;
      if (here) st = tui_style_over(a, st, TUI_ST_CELL_CURSOR);
      int x = p->x + rw + 1 + j * cw;
      tui_draw_fill(a->b, yy, x, cw, here ? st : TUI_ST_TEXT);
      tui_draw_cp(a->b, yy, x + cw - 1, p->x + p->w, g, st);
    }
  }
  /* the state of the selected element */
  tui_cell_state cs = tui_tensor_state(t, s->pos);
  double h = tui_tensor_heat(t, s->pos);
  if (h >= 0) tui_draw_printf(a->b, ye - 1, p->x + 1, p->w - 1, cell_look[cs].style,
                              "%s, fuzz heat %.2f", cell_look[cs].name, h);
  else tui_draw_str(a->b, ye - 1, p->x + 1, p->w - 1, cell_look[cs].name, cell_look[cs].style);
}

/* ---- moving ------------------------------------------------------------------ */

static int move(tui_app *a, int64_t dr, int64_t dc)
{
  tui_tensor *t = cur_tensor(a);
  if (!t) {
    tui_app_message(a, true, "no output tensors: the picker needs a problem spec");
    return TUI_HANDLED | TUI_REDRAW;
  }
  pick_state *s = state(a);
  if (s->rd >= 0) {
    int64_t r = s->pos[s->rd] + dr;
    s->pos[s->rd] = r < 0 ? 0 : r >= t->shape[s->rd] ? t->shape[s->rd] - 1 : r;
  }
  int64_t c = s->pos[s->cd] + dc;
  s->pos[s->cd] = c < 0 ? 0 : c >= t->shape[s->cd] ? t->shape[s->cd] - 1 : c;
  return TUI_HANDLED | TUI_REDRAW;
}

static int64_t big(tui_app *a) { (void)a; return INT64_MAX / 4; }

int tui_pick_left(tui_app *a, tui_pane *p, int key) { return move(a, 0, -1); }
int tui_pick_right(tui_app *a, tui_pane *p, int key) { return move(a, 0, 1); }
int tui_pick_up(tui_app *a, tui_pane *p, int key) { return move(a, -1, 0); }
int tui_pick_down(tui_app *a, tui_pane *p, int key) { return move(a, 1, 0); }
int tui_pick_page_up(tui_app *a, tui_pane *p, int key) { return move(a, -state(a)->rows, 0); }
int tui_pick_page_down(tui_app *a, tui_pane *p, int key) { return move(a, state(a)->rows, 0); }
int tui_pick_home(tui_app *a, tui_pane *p, int key) { return move(a, -big(a), -big(a)); }
int tui_pick_end(tui_app *a, tui_pane *p, int key) { return move(a, big(a), big(a)); }

void tui_picker_select(tui_app *a, int tensor, const int64_t *idx)
{
  pick_state *s = state(a);
  if (!s || tensor < 0 || (size_t)tensor >= a->model.tensors.n) return;
  const tui_tensor *t = &a->model.tensors.v[tensor];
  if (s->tensor != tensor) {
    s->tensor = tensor;
    reset_dims(s, t);
  }
  for (int d = 0; d < t->ndim; d++)
    if (idx[d] >= 0 && idx[d] < t->shape[d]) s->pos[d] = idx[d];
}

static int goto_done(tui_app *a, const char *text)
{
  tui_tensor *t = cur_tensor(a);
  if (!t) return TUI_HANDLED | TUI_REDRAW;
  int64_t idx[TUI_MAX_DIMS];
  int n = 0;
  const char *s = text;
  while (*s == ' ') s++;
  size_t nl = strcspn(s, "[");
  if (s[nl] == '[' && nl > 0) {          /* y[1,2] as check prints it: that output, that element */
    size_t k = 0;
    while (k < a->model.tensors.n && (strlen(a->model.tensors.v[k].name) != nl || strncmp(a->model.tensors.v[k].name, s, nl))) k++;
    if (k == a->model.tensors.n) {
      char names[256] = "";
      for (size_t j = 0; j < a->model.tensors.n; j++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "", a->model.tensors.v[j].name);
      tui_app_message(a, true, "goto: no output '%.*s' (outputs: %s)", (int)nl, s, names);
      return TUI_HANDLED | TUI_REDRAW;
    }
    pick_state *ps = state(a);
    if (ps->tensor != (int)k) {
      ps->tensor = (int)k;
      reset_dims(ps, &a->model.tensors.v[k]);
    }
    t = cur_tensor(a);
    s += nl;
  }
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '[' || *s == ']') s++;
    if (!*s) break;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || n == TUI_MAX_DIMS) {
      tui_app_message(a, true, "goto: '%s' is not a list of %d indices (like 3,4)", text, t->ndim);
      return TUI_HANDLED | TUI_REDRAW;
    }
    idx[n++] = v;
    s = end;
  }
  if (n != t->ndim) {
    tui_app_message(a, true, "goto: %s has %d dims, got %d indices", t->name, t->ndim, n);
    return TUI_HANDLED | TUI_REDRAW;
  }
  for (int d = 0; d < n; d++)
    if (idx[d] < 0 || idx[d] >= t->shape[d]) {
      tui_app_message(a, true, "goto: index %lld of dim %d is outside 0..%lld", (long long)idx[d], d,
                      (long long)t->shape[d] - 1);
      return TUI_HANDLED | TUI_REDRAW;
    }
  memcpy(state(a)->pos, idx, (size_t)n * sizeof *idx);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_pick_goto(tui_app *a, tui_pane *p, int key)
{
  if (!cur_tensor(a)) return move(a, 0, 0);
  tui_app_prompt(a, "goto index: ", "", goto_done);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_pick_tensor(tui_app *a, tui_pane *p, int key)
{
  if (!cur_tensor(a)) return move(a, 0, 0);
  pick_state *s = state(a);
  if (a->model.tensors.n == 1) {
    tui_app_message(a, false, "%s is the only output tensor", cur_tensor(a)->name);
    return TUI_HANDLED | TUI_REDRAW;
  }
  s->tensor = (s->tensor + 1) % (int)a->model.tensors.n;
  reset_dims(s, cur_tensor(a));
  return TUI_HANDLED | TUI_REDRAW;
}

/* Cycles through the ordered pairs of distinct dims. */
int tui_pick_dims(tui_app *a, tui_pane *p, int key)
{
  tui_tensor *t = cur_tensor(a);
  if (!t) return move(a, 0, 0);
  pick_state *s = state(a);
  if (t->ndim < 2) {
    tui_app_message(a, false, "%s has one dim", t->name);
    return TUI_HANDLED | TUI_REDRAW;
  }
  do {
    if (++s->cd == t->ndim) {
      s->cd = 0;
      if (++s->rd == t->ndim) s->rd = 0;
    }
  } while (s->cd == s->rd);
  s->sd = -1;
  for (int d = 0; d < t->ndim; d++)
    if (d != s->rd && d != s->cd) { s->sd = d; break; }
  s->top = s->left = 0;
  /* say what changed: a transposed grid looks like the old one with other extents */
  if (s->sd >= 0)
    tui_app_message(a, false, "%s: rows dim %d, columns dim %d, dim %d stepped by +/- (d: other dims)",
                    t->name, s->rd, s->cd, s->sd);
  else
    tui_app_message(a, false, "%s: rows dim %d, columns dim %d (d: the other way round)", t->name, s->rd, s->cd);
  return TUI_HANDLED | TUI_REDRAW;
}

static int slice(tui_app *a, int dir)
{
  tui_tensor *t = cur_tensor(a);
  if (!t) return move(a, 0, 0);
  pick_state *s = state(a);
  if (s->sd < 0) {
    tui_app_message(a, false, "every dim of %s is shown", t->name);
    return TUI_HANDLED | TUI_REDRAW;
  }
  int64_t v = s->pos[s->sd] + dir;
  if (v >= 0 && v < t->shape[s->sd]) s->pos[s->sd] = v;
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_pick_slice_next(tui_app *a, tui_pane *p, int key) { return slice(a, 1); }
int tui_pick_slice_prev(tui_app *a, tui_pane *p, int key) { return slice(a, -1); }

int tui_pick_slice_dim(tui_app *a, tui_pane *p, int key)
{
  tui_tensor *t = cur_tensor(a);
  if (!t) return move(a, 0, 0);
  pick_state *s = state(a);
  for (int k = 1; k <= t->ndim; k++) {
    int d = (s->sd + k + t->ndim) % t->ndim;
    if (d != s->rd && d != s->cd) { s->sd = d; return TUI_HANDLED | TUI_REDRAW; }
  }
  return slice(a, 0);
}

const tui_pane_ops tui_picker_ops = {
  "picker", TUI_CTX_PICKER, pk_open, pk_draw, NULL, pk_close,
};
