/* tui_draw.c — drawing text into a backend: UTF-8 decoding, wide characters
 * (two cells), clipping to a width. Every view draws through these. */
#include "tui_backend.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

uint32_t tui_utf8_next(const char *s, size_t n, size_t *len)
{
  const unsigned char *u = (const unsigned char *)s;
  *len = 1;
  if (u[0] < 0x80) return u[0];
  int need = u[0] >= 0xf0 ? 3 : u[0] >= 0xe0 ? 2 : u[0] >= 0xc0 ? 1 : -1;
  if (need < 0 || (size_t)need >= n) return 0xfffd;
  uint32_t cp = u[0] & (0x3f >> need);
  for (int i = 1; i <= need; i++) {
    if ((u[i] & 0xc0) != 0x80) return 0xfffd;
    cp = cp << 6 | (u[i] & 0x3f);
  }
  if (cp > 0x10ffff) return 0xfffd;
  *len = (size_t)need + 1;
  return cp;
}

int tui_utf8_put(char u[4], uint32_t cp)
{
  if (cp < 0x80) { u[0] = (char)cp; return 1; }
  if (cp < 0x800) {
    u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    u[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Cell width of a code point, from our own table rather than wcwidth(3):
 * the headless dumps must not depend on the test machine's locale. */
static const struct { uint32_t lo, hi; } wide[] = {
  { 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a }, { 0x23e9, 0x23ec },
  { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff },
  { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe30, 0xfe4f },
  { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f }, { 0x1f900, 0x1f9ff },
  { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};
static const struct { uint32_t lo, hi; } zero[] = {
  { 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
  { 0x064b, 0x065f }, { 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x20d0, 0x20ff },
  { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
};

static int cp_width(uint32_t cp)
{
  if (cp < 0x300) return 1;                        /* controls are drawn as '?' */
  for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
    if (cp >= zero[i].lo && cp <= zero[i].hi) return 0;
  for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
    if (cp >= wide[i].lo && cp <= wide[i].hi) return 2;
  return 1;
}

int tui_draw_cp(tui_backend *b, int y, int x, int limit, uint32_t cp, int style)
{
  if (cp == '\t') cp = ' ';
  else if (cp < 0x20 || cp == 0x7f) cp = '?';
  int w = cp_width(cp);
  if (w == 0) return 0;                            /* combining marks: dropped */
  if (x < 0 || x + w > limit) return 0;
  b->ops->cell(b, y, x, cp, style);
  if (w == 2) b->ops->cell(b, y, x + 1, 0, style);
  return w;
}

int tui_draw_text(tui_backend *b, int y, int x, int maxw, const char *s, size_t n, int style)
{
  int limit = x + maxw;
  size_t i = 0;
  while (i < n && x < limit) {
    size_t len;
    uint32_t cp = tui_utf8_next(s + i, n - i, &len);
    i += len;
    int w = tui_draw_cp(b, y, x, limit, cp, style);
    if (w == 0 && cp_width(cp) > 0) break;         /* a wide char that does not fit */
    x += w;
  }
  return x;
}

int tui_draw_str(tui_backend *b, int y, int x, int maxw, const char *s, int style)
{
  return tui_draw_text(b, y, x, maxw, s, strlen(s), style);
}

int tui_draw_printf(tui_backend *b, int y, int x, int maxw, int style, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = dg_vprintf(fmt, ap);
  va_end(ap);
  int r = tui_draw_str(b, y, x, maxw, s, style);
  free(s);
  return r;
}

void tui_draw_fill(tui_backend *b, int y, int x, int w, int style)
{
  for (int i = 0; i < w; i++) b->ops->cell(b, y, x + i, ' ', style);
}

int tui_text_width(const char *s, size_t n)
{
  int w = 0;
  for (size_t i = 0; i < n;) {
    size_t len;
    uint32_t cp = tui_utf8_next(s + i, n - i, &len);
    i += len;
    w += cp == '\t' ? 1 : cp_width(cp);
  }
  return w;
}

size_t tui_wrap(const char *s, size_t n, int w)
{
  size_t i = 0, blank = 0;
  int col = 0;
  while (i < n) {
    size_t len;
    uint32_t cp = tui_utf8_next(s + i, n - i, &len);
    int cw = cp == '\t' ? 1 : cp_width(cp);
    if (col + cw > w) break;
    col += cw;
    i += len;
    if (cp == ' ') blank = i;
  }
  if (i == n) return n;
  if (blank > 0) return blank;
  return i > 0 ? i : (n ? 1 : 0);                  /* always make progress */
}

int tui_draw_wrapped(tui_backend *b, int y, int x, int w, int h, const char *s, int skip, int style)
{
  int row = 0;
  while (*s && w > 0) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    do {
      size_t cut = tui_wrap(s, n, w);
      size_t dn = cut;
      while (dn && s[dn - 1] == ' ') dn--;            /* no styled blank at the end */
      if (row >= skip && row - skip < h) tui_draw_text(b, y + row - skip, x, w, s, dn, style);
      row++;
      s += cut, n -= cut;
      while (n && *s == ' ') s++, n--;
    } while (n);
    if (!nl) break;
    s = nl + 1;
  }
  return row;
}

/* ---- key names ------------------------------------------------------------ */

static const struct { const char *name; int key; } key_names[] = {
  { "Up", TUI_KEY_UP }, { "Down", TUI_KEY_DOWN }, { "Left", TUI_KEY_LEFT },
  { "Right", TUI_KEY_RIGHT }, { "PageUp", TUI_KEY_PGUP }, { "PageDown", TUI_KEY_PGDN },
  { "Home", TUI_KEY_HOME }, { "End", TUI_KEY_END }, { "BS", TUI_KEY_BACKSPACE },
  { "Del", TUI_KEY_DELETE }, { "S-Tab", TUI_KEY_BTAB }, { "F1", TUI_KEY_F1 },
  { "Enter", TUI_KEY_ENTER }, { "Tab", TUI_KEY_TAB }, { "Esc", TUI_KEY_ESC },
  { "Space", ' ' }, { "lt", '<' }, { "Hash", '#' }, { "Dump", TUI_KEY_DUMP },
  { "Resize", TUI_KEY_RESIZE }, { "Wait", TUI_KEY_WAIT },
};

const char *tui_key_name(int key, char *buf, size_t n)
{
  for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
    if (key_names[i].key == key) {
      snprintf(buf, n, "<%s>", key_names[i].name);
      return buf;
    }
  if (key >= 1 && key <= 26) snprintf(buf, n, "<C-%c>", 'a' + key - 1);
  else if (key > 0x20 && key < TUI_KEY_SPECIAL) {
    char u[5] = {0};
    tui_utf8_put(u, (uint32_t)key);
    snprintf(buf, n, "%s", u);
  } else snprintf(buf, n, "<0x%x>", (unsigned)key);
  return buf;
}

int tui_key_parse(const char **sp, int *w, int *h, const char **err)
{
  const char *s = *sp;
  if (*s != '<' || !strchr(s, '>')) {
    size_t len;
    uint32_t cp = tui_utf8_next(s, strlen(s), &len);
    *sp = s + len;
    return (int)cp;
  }
  const char *end = strchr(s, '>');
  const char *name = s + 1;
  size_t n = (size_t)(end - name);
  *sp = end + 1;
  if (n == 3 && name[0] == 'C' && name[1] == '-' && name[2] >= 'a' && name[2] <= 'z')
    return TUI_CTRL(name[2]);
  if (n > 7 && !strncmp(name, "Resize ", 7)) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(n - 7), name + 7);
    if (sscanf(tmp, "%dx%d", w, h) == 2 && *w >= 10 && *h >= 5 && *w <= 1000 && *h <= 1000)
      return TUI_KEY_RESIZE;
    *err = "bad <Resize WxH> (want e.g. <Resize 80x24>, at least 10x5)";
    return TUI_KEY_NONE;
  }
  if (n > 5 && !strncmp(name, "Wait ", 5)) {
    char tmp[32], *e;
    snprintf(tmp, sizeof tmp, "%.*s", (int)(n - 5), name + 5);
    long v = strtol(tmp, &e, 10);
    if (e != tmp && !*e && v >= 1 && v <= 1000000) {
      *w = (int)v;
      return TUI_KEY_WAIT;
    }
    *err = "bad <Wait N> (want e.g. <Wait 3>: until the job reports 3 units done)";
    return TUI_KEY_NONE;
  }
  if (n == 4 && !strncmp(name, "Wait", 4)) {
    *w = 0;
    return TUI_KEY_WAIT;
  }
  for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
    if (strlen(key_names[i].name) == n && !strncmp(key_names[i].name, name, n)
        && key_names[i].key != TUI_KEY_RESIZE)
      return key_names[i].key;
  *err = "unknown key name";
  return TUI_KEY_NONE;
}
