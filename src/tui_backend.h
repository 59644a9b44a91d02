/* tui_backend.h — the narrow interface between the views and a terminal.
 * Two backends implement it: curses (tui_curses.c) and an in-memory one for
 * tests (tui_headless.c). Views never call curses: they draw cells through
 * tui_draw_* (tui_draw.c), which handle UTF-8, wide characters and clipping.
 * Also here: key codes and their names (used by key scripts and the help). */
#ifndef DG_TUI_BACKEND_H
#define DG_TUI_BACKEND_H
#include "util.h"
#include "theme.h"

/* Keys: Unicode code points and ASCII control codes as themselves
 * (Enter = 10, Tab = 9, Esc = 27, Ctrl-A = 1), special keys above Unicode. */
enum {
  TUI_KEY_NONE = -1,                 /* no more input (end of a key script) */
  TUI_KEY_TAB = 9, TUI_KEY_ENTER = 10, TUI_KEY_ESC = 27,
  TUI_KEY_SPECIAL = 0x110000,
  TUI_KEY_UP, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT,
  TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END,
  TUI_KEY_BACKSPACE, TUI_KEY_DELETE, TUI_KEY_BTAB, TUI_KEY_F1,
  TUI_KEY_RESIZE,                    /* the terminal changed size */
  TUI_KEY_DUMP,                      /* key scripts: write a screen dump here */
  TUI_KEY_WAIT,                      /* key scripts: wait for the background job (<Wait>,
                                        <Wait N>: until it reports N units done) */
  TUI_KEY_IDLE,                      /* getkey_or: no key, but the fd is readable or time is up */
};
#define TUI_CTRL(c) ((c) & 0x1f)

/* "<Down>", "j", "<C-c>", "<Space>": the name of a key, in key-script
 * notation; writes into buf (>= 16 bytes) and returns it. */
const char *tui_key_name(int key, char *buf, size_t n);
/* Parses one key at *s (advancing *s). Returns the key, or TUI_KEY_NONE with
 * *err set on a bad name. <Resize WxH> gives TUI_KEY_RESIZE and sets *w,*h;
 * <Wait> and <Wait N> give TUI_KEY_WAIT and set *w to N (0: to the end). */
int tui_key_parse(const char **s, int *w, int *h, const char **err);

/* A resolved style: what a backend needs to draw a cell. */
typedef struct {
  char *name;          /* "keyword", "ui.status", "ui.cursorline+keyword"; owned */
  dg_style st;         /* colours already inherited from the base text style */
} tui_style;

typedef struct tui_backend tui_backend;
typedef struct {
  const char *name;
  void (*size)(tui_backend *b, int *w, int *h);
  void (*clear)(tui_backend *b);                  /* all cells blank, style 0 */
  /* One cell. cp is a code point; a wide one covers x and x+1 (the draw layer
   * then passes cp = 0 for x+1). style indexes the table of tui_styles. */
  void (*cell)(tui_backend *b, int y, int x, uint32_t cp, int style);
  void (*cursor)(tui_backend *b, int y, int x);   /* y < 0: hidden */
  void (*flush)(tui_backend *b);                  /* a frame is complete */
  int (*getkey)(tui_backend *b);                  /* blocks; TUI_KEY_NONE at end */
  void (*free)(tui_backend *b);
  /* A key, or TUI_KEY_IDLE when fd (a background job's pipe; -1: none)
   * became readable or ms passed first. The headless backend never idles:
   * its scripts wait for jobs with <Wait>, so dumps stay reproducible. */
  int (*getkey_or)(tui_backend *b, int fd, int ms);
} tui_backend_ops;

struct tui_backend {
  const tui_backend_ops *ops;
  const DG_VEC(tui_style) *styles;   /* the app's style table; the backend reads it */
  bool colour;                       /* false: attributes only (mono) */
};

/* The curses backend: takes over the terminal (restored by free, at exit and
 * on fatal signals). NULL with *err set when there is no usable terminal. */
tui_backend *tui_curses_new(bool force_mono, const char **err);

/* The headless backend: w x h cells in memory; keys come from a script; the
 * screen is dumped to dir as NNN.txt (text) and NNN.style (style names). */
typedef struct tui_headless tui_headless;
tui_backend *tui_headless_new(int w, int h);
/* Key script text (see tui_headless.c for the notation). Errors name
 * path:line:col; false on a bad script. */
bool tui_headless_script(tui_backend *b, const char *path, const char *text, char **err);
void tui_headless_dump_to(tui_backend *b, const char *dir);
/* Text of row y (UTF-8, trailing blanks cut); caller frees. For tests/bench. */
char *tui_headless_row(tui_backend *b, int y);
/* Writes the dump files now (called by the app after each key / <Dump>). */
bool tui_headless_dump(tui_backend *b, char **err);
/* True when the script asked for dumps only at <Dump> markers. */
bool tui_headless_marked(tui_backend *b);
/* N of the last <Wait N> read (0 for <Wait>). */
int tui_headless_wait_arg(tui_backend *b);

/* ---- drawing (tui_draw.c): UTF-8, wide characters, clipping --------------- */
/* Draws s[0..n) at (y, x), at most maxw columns (a tab draws as one blank,
 * control bytes as '?'). Returns the column after the last cell drawn. */
int tui_draw_text(tui_backend *b, int y, int x, int maxw, const char *s, size_t n, int style);
int tui_draw_str(tui_backend *b, int y, int x, int maxw, const char *s, int style);
int tui_draw_printf(tui_backend *b, int y, int x, int maxw, int style, const char *fmt, ...)
  __attribute__((format(printf, 6, 7)));
void tui_draw_fill(tui_backend *b, int y, int x, int w, int style);
/* One code point at (y, x) if it fits before column `limit`; returns its width
 * (0 when it did not fit; 1 or 2 otherwise). */
int tui_draw_cp(tui_backend *b, int y, int x, int limit, uint32_t cp, int style);
/* Draws text with its lines wrapped to w columns, skipping the first `skip`
 * screen rows and drawing at most h. Returns the rows the whole text takes. */
int tui_draw_wrapped(tui_backend *b, int y, int x, int w, int h, const char *s, int skip, int style);
/* How many bytes of s[0..n) to put on a line of w columns: all when they
 * fit, else up to the last blank that fits (a word wider than w is cut). */
size_t tui_wrap(const char *s, size_t n, int w);
/* Columns that s[0..n) takes on screen. */
int tui_text_width(const char *s, size_t n);
/* Decodes one UTF-8 sequence (invalid bytes decode as U+FFFD, length 1). */
uint32_t tui_utf8_next(const char *s, size_t n, size_t *len);
/* Encodes cp as UTF-8 into u; returns the byte count (1-4). */
int tui_utf8_put(char u[4], uint32_t cp);

#endif
