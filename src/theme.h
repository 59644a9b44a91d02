/* theme.h — colour themes: a map from dotted style names (tree-sitter capture
 * names like "function.builtin", UI slots like "ui.status") to styles.
 * Engine-side: no curses. The screen turns dg_style into terminal attributes.
 *
 * File format (themes/NAME.theme), one rule a line, '#' starts a comment:
 *     keyword   = fg=#c678dd,bold
 *     ui.status = fg=231,bg=24
 *     comment   = bright-black,italic        # a bare colour is the foreground
 * Colours: #rrggbb (mapped to the nearest of the 256-colour palette), 0-255,
 * names (black red green yellow blue magenta cyan white, bright-<name>, grey),
 * or "default" (the terminal's own colour). Attributes: bold italic underline
 * reverse dim. A bad line gives "file:line:col: error: ..." and the rest loads. */
#ifndef DG_THEME_H
#define DG_THEME_H
#include "util.h"
#include "diag.h"

enum { DG_COLOR_UNSET = -2, DG_COLOR_DEFAULT = -1 };
enum {
  DG_ATTR_BOLD = 1, DG_ATTR_ITALIC = 2, DG_ATTR_UNDERLINE = 4,
  DG_ATTR_REVERSE = 8, DG_ATTR_DIM = 16,
};

typedef struct {
  int16_t fg, bg;       /* 0-255, DG_COLOR_DEFAULT, or DG_COLOR_UNSET (inherit) */
  uint16_t attr;        /* DG_ATTR_* */
} dg_style;

#define DG_STYLE_UNSET ((dg_style){ DG_COLOR_UNSET, DG_COLOR_UNSET, 0 })

typedef struct {
  char *name;           /* owned */
  dg_style style;
} dg_theme_rule;

typedef struct {
  DG_VEC(dg_theme_rule) rules;   /* later rules for the same name replace earlier ones */
} dg_theme;

void dg_theme_init(dg_theme *t);
void dg_theme_free(dg_theme *t);

/* Parses theme text registered in sm as `file`; bad lines become diagnostics
 * and are skipped. Returns the number of bad lines. */
int dg_theme_parse(dg_theme *t, const dg_srcmgr *sm, uint32_t file, dg_diags *d);
/* Loads a theme file (registering it in sm). -1 with a diagnostic when the file
 * cannot be read, else the number of bad lines. */
int dg_theme_load(dg_theme *t, const char *path, dg_srcmgr *sm, dg_diags *d);

/* Sets one rule (replacing a rule of the same name). */
void dg_theme_set(dg_theme *t, const char *name, dg_style s);
/* Style of `name` by longest dotted prefix: "function.builtin.cuda" tries the
 * full name, then "function.builtin", then "function". False when none matches. */
bool dg_theme_lookup(const dg_theme *t, const char *name, dg_style *out);
/* `over` drawn on top of `base`: unset colours inherit, attributes add up. */
dg_style dg_style_merge(dg_style base, dg_style over);

/* One colour: returns 0-255 or DG_COLOR_DEFAULT; DG_COLOR_UNSET when s is not a colour. */
int dg_color_parse(const char *s, size_t n);
/* Nearest entry of the xterm 256-colour palette (cube and grey ramp: 16-255). */
int dg_color_nearest256(int r, int g, int b);
/* The nearest of the 8 basic colours to palette entry c (for 8-colour terminals). */
int dg_color_to8(int c);

/* Where a theme named `name` lives: $XDG_CONFIG_HOME/dirigo/themes/NAME.theme
 * (or ~/.config/...) first, then DATADIR/themes/NAME.theme. A name containing
 * '/' is taken as a path. NULL when not found; caller frees. */
char *dg_theme_find(const char *name, const char *datadir);

#endif
