/* tui_headless.c — the in-memory backend: the same view code draws into a
 * grid of cells, keys come from a script, and the screen is dumped as text.
 *
 * Key script notation (one or more keys a line; a line's end is not a key):
 *     j  k  G          plain characters, each one key (UTF-8 allowed)
 *     <Down> <PageUp> <Enter> <Esc> <Tab> <S-Tab> <BS> <Space> <F1>
 *     <C-c>            control keys
 *     <lt> <Hash>      the characters '<' and '#'
 *     :cmd<Enter>      so a command line is written as typed
 *     <Resize 80x24>   the terminal changes size
 *     <Dump>           write a dump here
 *     <Wait> <Wait N>  wait until the background job (check, fuzz, replay)
 *                      ends, or reports N units done; the only points where
 *                      a job's results reach the screen, so dumps replay
 *     # ...            a line starting with '#' is a comment
 * When the script has no <Dump>, a dump is written after every key; dump 000
 * is always the first paint. NNN.txt holds the text (trailing blanks cut);
 * NNN.style holds one letter per cell and a legend "a keyword" of the style
 * names, '.' for the base text style. */
#include "tui_backend.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef struct { uint32_t cp; int style; } cell;

struct tui_headless {
  tui_backend base;
  int w, h;
  cell *cells;
  DG_VEC(int) keys;
  DG_VEC(int) resize;        /* w,h pairs, one per TUI_KEY_RESIZE in order */
  DG_VEC(int) waits;         /* N of each TUI_KEY_WAIT in order */
  size_t next, next_resize, next_wait;
  int wait_arg;
  bool marked;
  char *dir;
  int ndumps;
};

#define H(b) ((tui_headless *)(b))

static void hl_size(tui_backend *b, int *w, int *h) { *w = H(b)->w, *h = H(b)->h; }

static void hl_clear(tui_backend *b)
{
  tui_headless *t = H(b);
  for (int i = 0; i < t->w * t->h; i++) t->cells[i] = (cell){ ' ', 0 };
}

static void hl_cell(tui_backend *b, int y, int x, uint32_t cp, int style)
{
  tui_headless *t = H(b);
  if (y < 0 || x < 0 || y >= t->h || x >= t->w) return;
  t->cells[y * t->w + x] = (cell){ cp, style };
}

static void hl_cursor(tui_backend *b, int y, int x) { }
static void hl_flush(tui_backend *b) { }

static int hl_getkey(tui_backend *b)
{
  tui_headless *t = H(b);
  if (t->next >= t->keys.n) return TUI_KEY_NONE;
  int k = t->keys.v[t->next++];
  if (k == TUI_KEY_RESIZE && t->next_resize + 2 <= t->resize.n) {
    t->w = t->resize.v[t->next_resize++];
    t->h = t->resize.v[t->next_resize++];
    free(t->cells);
    t->cells = dg_calloc((size_t)t->w * t->h, sizeof *t->cells);
    hl_clear(b);
  }
  if (k == TUI_KEY_WAIT && t->next_wait < t->waits.n) t->wait_arg = t->waits.v[t->next_wait++];
  return k;
}

static int hl_getkey_or(tui_backend *b, int fd, int ms) { return hl_getkey(b); }

int tui_headless_wait_arg(tui_backend *b) { return H(b)->wait_arg; }

static void hl_free(tui_backend *b)
{
  tui_headless *t = H(b);
  free(t->cells);
  dg_vec_free(&t->keys);
  dg_vec_free(&t->resize);
  dg_vec_free(&t->waits);
  free(t->dir);
  free(t);
}

static const tui_backend_ops headless_ops = {
  "headless", hl_size, hl_clear, hl_cell, hl_cursor, hl_flush, hl_getkey, hl_free, hl_getkey_or,
};

tui_backend *tui_headless_new(int w, int h)
{
  tui_headless *t = dg_calloc(1, sizeof *t);
  t->base.ops = &headless_ops;
  t->base.colour = true;
  t->w = w, t->h = h;
  t->cells = dg_calloc((size_t)w * h, sizeof *t->cells);
  hl_clear(&t->base);
  return &t->base;
}

bool tui_headless_script(tui_backend *b, const char *path, const char *text, char **err)
{
  tui_headless *t = H(b);
  const char *s = text;
  for (int line = 1; *s; line++) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    char *l = dg_strndup(s, n);
    if (n && l[n - 1] == '\r') l[n - 1] = '\0';
    if (l[0] != '#') {
      const char *p = l;
      while (*p) {
        const char *at = p, *why = NULL;
        int w = 0, h = 0;
        int k = tui_key_parse(&p, &w, &h, &why);
        if (k == TUI_KEY_NONE) {
          *err = dg_printf("%s:%d:%d: error: %s", path, line, (int)(at - l) + 1, why);
          free(l);
          return false;
        }
        if (k == TUI_KEY_RESIZE) dg_vec_push(&t->resize, w), dg_vec_push(&t->resize, h);
        if (k == TUI_KEY_WAIT) dg_vec_push(&t->waits, w);
        if (k == TUI_KEY_DUMP) t->marked = true;
        dg_vec_push(&t->keys, k);
      }
    }
    free(l);
    s = nl ? nl + 1 : s + n;
  }
  return true;
}

void tui_headless_dump_to(tui_backend *b, const char *dir)
{
  free(H(b)->dir);
  H(b)->dir = dir ? dg_strdup(dir) : NULL;
}

bool tui_headless_marked(tui_backend *b) { return H(b)->marked; }

static void put_cp(dg_buf *o, uint32_t cp)
{
  char u[4];
  dg_buf_put(o, u, (size_t)tui_utf8_put(u, cp));
}

char *tui_headless_row(tui_backend *b, int y)
{
  tui_headless *t = H(b);
  dg_buf o = {0};
  dg_buf_puts(&o, "");
  if (y < 0 || y >= t->h) return dg_buf_take(&o);
  size_t keep = 0;
  for (int x = 0; x < t->w; x++) {
    uint32_t cp = t->cells[y * t->w + x].cp;
    if (cp == 0) continue;                 /* right half of a wide character */
    put_cp(&o, cp);
    if (cp != ' ') keep = o.n;
  }
  o.n = keep;
  o.s[keep] = '\0';
  return dg_buf_take(&o);
}

static bool write_file(const char *path, const char *s, size_t n, char **err)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(s, 1, n, f) != n || fclose(f) != 0) {
    *err = dg_printf("%s: cannot write dump: %s", path, strerror(errno));
    if (f) fclose(f);
    return false;
  }
  return true;
}

static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

bool tui_headless_dump(tui_backend *b, char **err)
{
  tui_headless *t = H(b);
  if (!t->dir) return true;
  dg_buf txt = {0}, sty = {0};
  dg_buf_puts(&txt, "");
  DG_VEC(int) legend = {0};              /* style ids in order of first use */
  dg_buf grid = {0};
  dg_buf_puts(&grid, "");
  for (int y = 0; y < t->h; y++) {
    char *row = tui_headless_row(b, y);
    dg_buf_printf(&txt, "%s\n", row);
    free(row);
    for (int x = 0; x < t->w; x++) {
      int s = t->cells[y * t->w + x].style;
      char c = '.';
      if (s != 0) {
        size_t i = 0;
        while (i < legend.n && legend.v[i] != s) i++;
        if (i == legend.n) dg_vec_push(&legend, s);
        c = i < sizeof letters - 1 ? letters[i] : '?';
      }
      dg_buf_putc(&grid, c);
    }
    dg_buf_putc(&grid, '\n');
  }
  for (size_t i = 0; i < legend.n && i < sizeof letters - 1; i++) {
    const char *name = b->styles && (size_t)legend.v[i] < b->styles->n
                         ? b->styles->v[legend.v[i]].name : "?";
    dg_buf_printf(&sty, "%c %s\n", letters[i], name);
  }
  dg_buf_puts(&sty, "--\n");
  dg_buf_put(&sty, grid.s, grid.n);
  char *p1 = dg_printf("%s/%03d.txt", t->dir, t->ndumps);
  char *p2 = dg_printf("%s/%03d.style", t->dir, t->ndumps);
  t->ndumps++;
  bool ok = write_file(p1, txt.s, txt.n, err) && write_file(p2, sty.s, sty.n, err);
  free(p1);
  free(p2);
  dg_buf_free(&txt);
  dg_buf_free(&sty);
  dg_buf_free(&grid);
  dg_vec_free(&legend);
  return ok;
}
