/* theme.c — parsing of .theme files, colour names and the 256-colour palette,
 * and the longest-dotted-prefix lookup the screen uses for every span. */
#include "theme.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

static const struct { const char *name; int color; } color_names[] = {
  { "black", 0 }, { "red", 1 }, { "green", 2 }, { "yellow", 3 },
  { "blue", 4 }, { "magenta", 5 }, { "cyan", 6 }, { "white", 7 },
  { "bright-black", 8 }, { "bright-red", 9 }, { "bright-green", 10 },
  { "bright-yellow", 11 }, { "bright-blue", 12 }, { "bright-magenta", 13 },
  { "bright-cyan", 14 }, { "bright-white", 15 },
  { "grey", 8 }, { "gray", 8 }, { "default", DG_COLOR_DEFAULT },
};

static const struct { const char *name; uint16_t attr; } attr_names[] = {
  { "bold", DG_ATTR_BOLD }, { "italic", DG_ATTR_ITALIC },
  { "underline", DG_ATTR_UNDERLINE }, { "reverse", DG_ATTR_REVERSE },
  { "dim", DG_ATTR_DIM },
};

#define COUNT(a) (sizeof (a) / sizeof *(a))

void dg_theme_init(dg_theme *t) { memset(t, 0, sizeof *t); }

void dg_theme_free(dg_theme *t)
{
  for (size_t i = 0; i < t->rules.n; i++) free(t->rules.v[i].name);
  dg_vec_free(&t->rules);
}

void dg_theme_set(dg_theme *t, const char *name, dg_style s)
{
  for (size_t i = 0; i < t->rules.n; i++)
    if (!strcmp(t->rules.v[i].name, name)) {
      t->rules.v[i].style = s;
      return;
    }
  dg_theme_rule r = { dg_strdup(name), s };
  dg_vec_push(&t->rules, r);
}

static const dg_theme_rule *find_exact(const dg_theme *t, const char *name, size_t n)
{
  for (size_t i = 0; i < t->rules.n; i++)
    if (!strncmp(t->rules.v[i].name, name, n) && t->rules.v[i].name[n] == '\0')
      return &t->rules.v[i];
  return NULL;
}

bool dg_theme_lookup(const dg_theme *t, const char *name, dg_style *out)
{
  size_t n = strlen(name);
  for (;;) {
    const dg_theme_rule *r = find_exact(t, name, n);
    if (r) {
      *out = r->style;
      return true;
    }
    while (n > 0 && name[n - 1] != '.') n--;
    if (n == 0) return false;
    n--;                                  /* drop the dot */
  }
}

dg_style dg_style_merge(dg_style base, dg_style over)
{
  dg_style s = base;
  if (over.fg != DG_COLOR_UNSET) s.fg = over.fg;
  if (over.bg != DG_COLOR_UNSET) s.bg = over.bg;
  s.attr |= over.attr;
  return s;
}

/* The xterm palette: 16-231 a 6x6x6 cube, 232-255 a grey ramp. */
static const int cube_level[6] = { 0, 95, 135, 175, 215, 255 };

static void palette_rgb(int c, int rgb[3])
{
  static const int basic[16][3] = {
    {0,0,0}, {205,0,0}, {0,205,0}, {205,205,0}, {0,0,238}, {205,0,205}, {0,205,205}, {229,229,229},
    {127,127,127}, {255,0,0}, {0,255,0}, {255,255,0}, {92,92,255}, {255,0,255}, {0,255,255}, {255,255,255},
  };
  if (c < 16) {
    memcpy(rgb, basic[c], sizeof basic[c]);
  } else if (c < 232) {
    c -= 16;
    rgb[0] = cube_level[c / 36];
    rgb[1] = cube_level[(c / 6) % 6];
    rgb[2] = cube_level[c % 6];
  } else {
    rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
  }
}

static int dist2(const int a[3], const int b[3])
{
  int d = 0;
  for (int i = 0; i < 3; i++) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

int dg_color_nearest256(int r, int g, int b)
{
  int want[3] = { r, g, b }, best = 16, bestd = 1 << 30;
  for (int c = 16; c < 256; c++) {
    int rgb[3];
    palette_rgb(c, rgb);
    int d = dist2(want, rgb);
    if (d < bestd) bestd = d, best = c;
  }
  return best;
}

int dg_color_to8(int c)
{
  if (c < 0) return c;
  if (c < 16) return c & 7;
  int rgb[3], best = 0, bestd = 1 << 30;
  palette_rgb(c, rgb);
  for (int i = 0; i < 8; i++) {
    int o[3];
    palette_rgb(i, o);
    int d = dist2(rgb, o);
    if (d < bestd) bestd = d, best = i;
  }
  return best;
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int dg_color_parse(const char *s, size_t n)
{
  if (n == 7 && s[0] == '#') {
    int v[6];
    for (int i = 0; i < 6; i++)
      if ((v[i] = hexval(s[i + 1])) < 0) return DG_COLOR_UNSET;
    return dg_color_nearest256(v[0] * 16 + v[1], v[2] * 16 + v[3], v[4] * 16 + v[5]);
  }
  if (n >= 1 && n <= 3 && isdigit((unsigned char)s[0])) {
    int v = 0;
    for (size_t i = 0; i < n; i++) {
      if (!isdigit((unsigned char)s[i])) return DG_COLOR_UNSET;
      v = v * 10 + (s[i] - '0');
    }
    return v <= 255 ? v : DG_COLOR_UNSET;
  }
  for (size_t i = 0; i < COUNT(color_names); i++)
    if (strlen(color_names[i].name) == n && !strncmp(color_names[i].name, s, n))
      return color_names[i].color;
  return DG_COLOR_UNSET;
}

static int attr_parse(const char *s, size_t n)
{
  for (size_t i = 0; i < COUNT(attr_names); i++)
    if (strlen(attr_names[i].name) == n && !strncmp(attr_names[i].name, s, n))
      return attr_names[i].attr;
  return -1;
}

static bool is_name_char(char c)
{
  return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* One "fg=…", "bg=…", attribute or bare colour. Returns false with *why set. */
static bool parse_item(const char *s, size_t n, dg_style *st, const char **why)
{
  const char *eq = memchr(s, '=', n);
  if (eq) {
    size_t kn = (size_t)(eq - s), vn = n - kn - 1;
    int c = dg_color_parse(eq + 1, vn);
    if (c == DG_COLOR_UNSET) {
      *why = "not a colour (want #rrggbb, 0-255 or a name)";
      return false;
    }
    if (kn == 2 && !strncmp(s, "fg", 2)) st->fg = (int16_t)c;
    else if (kn == 2 && !strncmp(s, "bg", 2)) st->bg = (int16_t)c;
    else {
      *why = "unknown key (want fg= or bg=)";
      return false;
    }
    return true;
  }
  int a = attr_parse(s, n);
  if (a >= 0) {
    st->attr |= (uint16_t)a;
    return true;
  }
  int c = dg_color_parse(s, n);
  if (c != DG_COLOR_UNSET) {
    st->fg = (int16_t)c;
    return true;
  }
  *why = "unknown attribute or colour";
  return false;
}

/* Parses one line; on error adds a diagnostic and leaves the theme unchanged. */
static void parse_line(dg_theme *t, const char *line, size_t len, uint32_t file,
                       uint32_t lineno, dg_diags *d, int *nbad)
{
  size_t i = 0;
#define FAIL(col, ...) do { \
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){ file, lineno, (uint32_t)(col) + 1 }, __VA_ARGS__); \
    (*nbad)++; return; } while (0)
  while (i < len && isspace((unsigned char)line[i])) i++;
  if (i == len || line[i] == '#') return;
  size_t name0 = i;
  while (i < len && is_name_char(line[i])) i++;
  size_t name1 = i;
  if (name1 == name0) FAIL(i, "expected a style name (like keyword or ui.status)");
  while (i < len && isspace((unsigned char)line[i])) i++;
  if (i == len || line[i] != '=') FAIL(i, "expected '=' after '%.*s'", (int)(name1 - name0), line + name0);
  i++;
  dg_style st = DG_STYLE_UNSET;
  int nitems = 0;
  for (;;) {
    while (i < len && isspace((unsigned char)line[i])) i++;
    if (i == len || line[i] == '#') break;
    size_t it0 = i;
    while (i < len && line[i] != ',' && !isspace((unsigned char)line[i])) i++;
    const char *why = NULL;
    if (i == it0) FAIL(i, "empty item");
    if (!parse_item(line + it0, i - it0, &st, &why))
      FAIL(it0, "'%.*s': %s", (int)(i - it0), line + it0, why);
    nitems++;
    while (i < len && isspace((unsigned char)line[i])) i++;
    if (i < len && line[i] == ',') i++;
    else if (i < len && line[i] != '#') FAIL(i, "expected ',' between items");
  }
  if (!nitems) FAIL(i, "no style after '='");
#undef FAIL
  char *name = dg_strndup(line + name0, name1 - name0);
  dg_theme_set(t, name, st);
  free(name);
}

int dg_theme_parse(dg_theme *t, const dg_srcmgr *sm, uint32_t file, dg_diags *d)
{
  const dg_srcfile *f = &sm->files.v[file];
  const char *s = f->text, *end = f->text + f->len;
  int nbad = 0;
  for (uint32_t lineno = 1; s < end; lineno++) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = (size_t)((nl ? nl : end) - s);
    if (n && s[n - 1] == '\r') n--;
    parse_line(t, s, n, file, lineno, d, &nbad);
    if (!nl) break;
    s = nl + 1;
  }
  return nbad;
}

int dg_theme_load(dg_theme *t, const char *path, dg_srcmgr *sm, dg_diags *d)
{
  uint32_t f = dg_srcmgr_load(sm, path);
  if (!f) {
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){ 0, 0, 0 }, "%s: cannot read theme: %s",
                path, strerror(errno));
    return -1;
  }
  return dg_theme_parse(t, sm, f, d);
}

static bool readable(const char *p)
{
  FILE *f = fopen(p, "r");
  if (f) fclose(f);
  return f != NULL;
}

char *dg_theme_find(const char *name, const char *datadir)
{
  if (strchr(name, '/')) return readable(name) ? dg_strdup(name) : NULL;
  char *cands[3] = { NULL, NULL, NULL };
  const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) cands[0] = dg_printf("%s/dirigo/themes/%s.theme", xdg, name);
  else if (home && *home) cands[0] = dg_printf("%s/.config/dirigo/themes/%s.theme", home, name);
  if (datadir) cands[1] = dg_printf("%s/themes/%s.theme", datadir, name);
  char *found = NULL;
  for (int i = 0; i < 2; i++) {
    if (!found && cands[i] && readable(cands[i])) found = cands[i];
    else free(cands[i]);
  }
  return found;
}
