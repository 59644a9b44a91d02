/* tui_curses.c — the ncursesw backend: wide characters, 256 colours with an
 * 8-colour and a mono fallback, KEY_RESIZE, and the terminal restored on
 * every way out (normal exit, atexit, fatal signals). */
#define _XOPEN_SOURCE_EXTENDED 1
#define _DEFAULT_SOURCE 1
#include "tui_backend.h"
#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>

typedef struct {
  tui_backend base;
  DG_VEC(short) pair_of;     /* style id -> colour pair (0: not made yet, -1: none) */
  DG_VEC(attr_t) attr_of;
  size_t nstyles_seen;
  int npairs;
  int ncolors;
} curses_be;

static volatile sig_atomic_t active;

static void restore(void)
{
  if (active) {
    active = 0;
    endwin();
  }
}

/* Fatal signals: put the terminal back, then die of the same signal. */
static void on_fatal(int sig)
{
  if (active) {
    active = 0;
    endwin();
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGHUP, SIGQUIT };

#define C(b) ((curses_be *)(b))

static void cu_size(tui_backend *b, int *w, int *h) { getmaxyx(stdscr, *h, *w); }
static void cu_clear(tui_backend *b) { erase(); }

static int map_colour(curses_be *c, int col)
{
  if (col < 0) return -1;
  if (c->ncolors >= 256) return col;
  if (c->ncolors >= 16 && col < 16) return col;
  return dg_color_to8(col);
}

/* Resolves style id s to (pair, attrs), making colour pairs on first use. */
static void style_of(curses_be *c, int s, short *pair, attr_t *attr)
{
  const DG_VEC(tui_style) *st = (const void *)c->base.styles;
  if (!st || s < 0 || (size_t)s >= st->n) { *pair = 0, *attr = A_NORMAL; return; }
  while (c->pair_of.n < st->n) dg_vec_push(&c->pair_of, 0), dg_vec_push(&c->attr_of, 0);
  if (c->pair_of.v[s] == 0) {
    dg_style x = st->v[s].st;
    attr_t a = A_NORMAL;
    if (x.attr & DG_ATTR_BOLD) a |= A_BOLD;
    if (x.attr & DG_ATTR_UNDERLINE) a |= A_UNDERLINE;
    if (x.attr & DG_ATTR_REVERSE) a |= A_REVERSE;
    if (x.attr & DG_ATTR_DIM) a |= A_DIM;
#ifdef A_ITALIC
    if (x.attr & DG_ATTR_ITALIC) a |= A_ITALIC;
#endif
    short p = -1;
    int fg = map_colour(c, x.fg), bg = map_colour(c, x.bg);
    if (c->base.colour && c->ncolors >= 8 && (fg >= 0 || bg >= 0)) {
      /* reuse a pair with the same colours */
      for (size_t i = 0; i < c->pair_of.n && p < 0; i++) {
        if (c->pair_of.v[i] <= 0) continue;
        short f, g;
        pair_content(c->pair_of.v[i], &f, &g);
        if (f == fg && g == bg) p = c->pair_of.v[i];
      }
      if (p < 0 && c->npairs + 1 < COLOR_PAIRS) {
        p = (short)++c->npairs;
        init_pair(p, (short)fg, (short)bg);
      }
    }
    c->pair_of.v[s] = p;
    c->attr_of.v[s] = a;
  }
  *pair = c->pair_of.v[s] > 0 ? c->pair_of.v[s] : 0;
  *attr = c->attr_of.v[s];
}

static void cu_cell(tui_backend *b, int y, int x, uint32_t cp, int style)
{
  if (cp == 0) return;                         /* right half of a wide character */
  short pair;
  attr_t attr;
  style_of(C(b), style, &pair, &attr);
  wchar_t wc[2] = { (wchar_t)cp, 0 };
  cchar_t cc;
  setcchar(&cc, wc, attr, pair, NULL);
  mvadd_wch(y, x, &cc);
}

static void cu_cursor(tui_backend *b, int y, int x)
{
  if (y < 0) curs_set(0);
  else {
    curs_set(1);
    move(y, x);
  }
}

static void cu_flush(tui_backend *b) { refresh(); }

static const struct { int curses; int key; } key_map[] = {
  { KEY_UP, TUI_KEY_UP }, { KEY_DOWN, TUI_KEY_DOWN }, { KEY_LEFT, TUI_KEY_LEFT },
  { KEY_RIGHT, TUI_KEY_RIGHT }, { KEY_PPAGE, TUI_KEY_PGUP }, { KEY_NPAGE, TUI_KEY_PGDN },
  { KEY_HOME, TUI_KEY_HOME }, { KEY_END, TUI_KEY_END }, { KEY_BACKSPACE, TUI_KEY_BACKSPACE },
  { KEY_DC, TUI_KEY_DELETE }, { KEY_BTAB, TUI_KEY_BTAB }, { KEY_F(1), TUI_KEY_F1 },
  { KEY_RESIZE, TUI_KEY_RESIZE }, { KEY_ENTER, TUI_KEY_ENTER },
};

/* One get_wch result as a key; TUI_KEY_NONE for nothing usable. */
static int translate(int r, wint_t ch)
{
  if (r == ERR) return TUI_KEY_NONE;           /* interrupted (SIGWINCH), or no key yet */
  if (r == KEY_CODE_YES) {
    for (size_t i = 0; i < sizeof key_map / sizeof *key_map; i++)
      if (key_map[i].curses == (int)ch) return key_map[i].key;
    return TUI_KEY_NONE;                       /* a key we have no name for */
  }
  if (ch == '\r') return TUI_KEY_ENTER;
  if (ch == 127 || ch == 8) return TUI_KEY_BACKSPACE;
  return (int)ch;
}

static int cu_getkey(tui_backend *b)
{
  for (;;) {
    wint_t ch;
    int r = get_wch(&ch);
    int k = translate(r, ch);
    if (k != TUI_KEY_NONE) return k;
  }
}

/* Drains what curses already buffered (no delay), then sleeps in poll on the
 * terminal and the job's fd: curses may hold bytes of a key sequence that
 * poll on stdin would not see. */
static int cu_getkey_or(tui_backend *b, int fd, int ms)
{
  double end = dg_now() + ms / 1000.0;
  for (;;) {
    wint_t ch;
    nodelay(stdscr, TRUE);
    int r = get_wch(&ch);
    nodelay(stdscr, FALSE);
    int k = translate(r, ch);
    if (k != TUI_KEY_NONE) return k;
    int left = (int)((end - dg_now()) * 1000);
    if (left <= 0) return TUI_KEY_IDLE;
    struct pollfd pf[2] = { { STDIN_FILENO, POLLIN, 0 }, { fd, POLLIN, 0 } };
    int n = poll(pf, fd >= 0 ? 2 : 1, left);
    if (n == 0 || (n > 0 && fd >= 0 && pf[1].revents)) return TUI_KEY_IDLE;
  }
}

static void cu_free(tui_backend *b)
{
  restore();
  dg_vec_free(&C(b)->pair_of);
  dg_vec_free(&C(b)->attr_of);
  free(b);
}

static const tui_backend_ops curses_ops = {
  "curses", cu_size, cu_clear, cu_cell, cu_cursor, cu_flush, cu_getkey, cu_free, cu_getkey_or,
};

tui_backend *tui_curses_new(bool force_mono, const char **err)
{
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    *err = "the workbench needs a terminal (use --headless for scripts)";
    return NULL;
  }
  setlocale(LC_ALL, "");
  if (!newterm(NULL, stdout, stdin)) {
    *err = "cannot start curses on this terminal (is TERM set?)";
    return NULL;
  }
  active = 1;
  static bool hooked;
  if (!hooked) {
    atexit(restore);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) signal(fatal_signals[i], on_fatal);
    hooked = true;
  }
  raw();                     /* ^C is a key (quit), restored by endwin */
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  curses_be *c = dg_calloc(1, sizeof *c);
  c->base.ops = &curses_ops;
  c->base.colour = false;
  if (!force_mono && has_colors()) {
    start_color();
    use_default_colors();
    c->ncolors = COLORS;
    c->base.colour = true;
  }
  return &c->base;
}
