/* tui_gallery.c — the samples gallery (dirigo with no argument): every
 * problem under DATADIR/samples/<group>/ — problem specs (*.lua) and kernels
 * with no spec of the same name (*.cu) — to pick one and open it; '/'
 * narrows the list to labels containing a string (case-insensitive). */
#include "tui.h"
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef DG_VEC(char *) strvec;

typedef struct {
  DG_VEC(char *) paths;     /* full paths */
  DG_VEC(char *) labels;    /* "group/name.lua   first comment" */
  DG_VEC(size_t) shown;     /* indices of the entries passing the filter */
  char *filter;             /* NULL: all */
  size_t sel, top;          /* into shown */
  bool loaded;
  char *root;
} gal_state;

static bool contains_nocase(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n)) return true;
  return n == 0;
}

static void refilter(gal_state *s)
{
  s->shown.n = 0;
  for (size_t i = 0; i < s->labels.n; i++)
    if (!s->filter || contains_nocase(s->labels.v[i], s->filter)) dg_vec_push(&s->shown, i);
  s->sel = s->top = 0;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suf)
{
  size_t n = strlen(s), m = strlen(suf);
  return n > m && !strcmp(s + n - m, suf);
}

/* Sorted entries of a directory (names only); caller frees. */
static void list_dir(const char *dir, strvec *out)
{
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') dg_vec_push(out, dg_strdup(e->d_name));
  closedir(d);
  if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_str);
}

/* The first comment line of a file ("-- ..." or "// ..."), for the label. */
static char *first_comment(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) return dg_strdup("");
  char line[256];
  char *r = NULL;
  for (int i = 0; i < 5 && !r && fgets(line, sizeof line, f); i++) {
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!strncmp(s, "--", 2) || !strncmp(s, "//", 2)) {
      s += 2;
      while (*s == ' ' || *s == '-' || *s == '/') s++;
      s[strcspn(s, "\r\n")] = '\0';
      r = dg_strdup(s);
    }
  }
  fclose(f);
  return r ? r : dg_strdup("");
}

static void add_entry(gal_state *s, const char *group, const char *dir, const char *name)
{
  char *path = dg_printf("%s/%s", dir, name);
  char *c = first_comment(path);
  if (!*c && has_suffix(name, ".lua")) {     /* a spec without a comment: its kernel's */
    free(c);
    char *cu = dg_printf("%s/%.*s.cu", dir, (int)(strlen(name) - 4), name);
    c = first_comment(cu);
    free(cu);
  }
  dg_vec_push(&s->paths, path);
  char *rel = dg_printf("%s/%s", group, name);
  dg_vec_push(&s->labels, dg_printf("%-36s %s", rel, c));
  free(rel);
  free(c);
}

/* The samples folder as the title will name what opens from it: without
 * "build/../", and relative when it is under the working directory (the
 * README's "samples/softmax/..."), so an 80-column title keeps the file name. */
static char *samples_root(const tui_app *a)
{
  char *raw = dg_printf("%s/samples", a->datadir), *real = realpath(raw, NULL);
  if (!real) return raw;
  free(raw);
  char cwd[4096];
  size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
  if (n > 1 && !strncmp(real, cwd, n) && real[n] == '/') {
    char *rel = dg_strdup(real + n + 1);
    free(real);
    return rel;
  }
  return real;
}

static void load(tui_app *a, gal_state *s)
{
  s->loaded = true;
  s->root = samples_root(a);
  strvec groups = {0};
  list_dir(s->root, &groups);
  for (size_t g = 0; g < groups.n; g++) {
    char *dir = dg_printf("%s/%s", s->root, groups.v[g]);
    struct stat st;
    /* scripts/ holds `dirigo run` scripts, not problems (cli_specs.c skips it too) */
    if (strcmp(groups.v[g], "scripts") && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
      strvec files = {0};
      list_dir(dir, &files);
      for (size_t i = 0; i < files.n; i++) {
        const char *f = files.v[i];
        bool lua = has_suffix(f, ".lua"), cu = has_suffix(f, ".cu");
        if (cu) {                        /* a kernel with its own spec is listed by the spec */
          char *spec = dg_printf("%.*s.lua", (int)(strlen(f) - 3), f);
          for (size_t j = 0; j < files.n; j++)
            if (!strcmp(files.v[j], spec)) cu = false;
          free(spec);
        }
        if (lua || cu) add_entry(s, groups.v[g], dir, f);
      }
      for (size_t i = 0; i < files.n; i++) free(files.v[i]);
      dg_vec_free(&files);
    }
    free(dir);
  }
  for (size_t g = 0; g < groups.n; g++) free(groups.v[g]);
  dg_vec_free(&groups);
}

static void gal_open(tui_app *a, tui_pane *p)
{
  if (!p->st) p->st = dg_calloc(1, sizeof(gal_state));
}

static void gal_close(tui_app *a, tui_pane *p)
{
  gal_state *s = p->st;
  if (!s) return;
  for (size_t i = 0; i < s->paths.n; i++) free(s->paths.v[i]), free(s->labels.v[i]);
  dg_vec_free(&s->paths);
  dg_vec_free(&s->labels);
  dg_vec_free(&s->shown);
  free(s->filter);
  free(s->root);
  free(s);
  p->st = NULL;
}

static gal_state *state(tui_app *a)
{
  gal_state *s = a->panes[TUI_PANE_GALLERY].st;
  if (!s->loaded) {
    load(a, s);
    refilter(s);
  }
  return s;
}

static void gal_draw(tui_app *a, tui_pane *p)
{
  gal_state *s = state(a);
  char *t = s->filter ? dg_printf("samples  %zu of %zu problems matching '%s'", s->shown.n, s->paths.n, s->filter)
                      : dg_printf("samples  %zu problems in %s", s->paths.n, s->root);
  tui_draw_title(a, p, t);
  free(t);
  if (!s->paths.n) {
    tui_draw_printf(a->b, p->y + 2, p->x + 2, p->w - 2, TUI_ST_NOTICE,
                    "no problems found under %s/<group>/ (*.lua specs or *.cu kernels)", s->root);
    tui_draw_str(a->b, p->y + 3, p->x + 2, p->w - 2,
                 "set DIRIGO_DATADIR, or open a file: dirigo KERNEL.cu", TUI_ST_NOTICE);
    return;
  }
  if (!s->shown.n) {
    tui_draw_str(a->b, p->y + 2, p->x + 2, p->w - 2, "nothing matches; / with nothing shows all", TUI_ST_NOTICE);
    return;
  }
  size_t rows = p->h > 1 ? (size_t)p->h - 1 : 1;
  if (s->sel < s->top) s->top = s->sel;
  if (s->sel >= s->top + rows) s->top = s->sel - rows + 1;
  for (size_t i = 0; i < rows && s->top + i < s->shown.n; i++) {
    int y = p->y + 1 + (int)i, st = s->top + i == s->sel ? TUI_ST_SELECTED : TUI_ST_TEXT;
    if (st != TUI_ST_TEXT) tui_draw_fill(a->b, y, p->x, p->w, st);
    tui_draw_str(a->b, y, p->x + 2, p->w - 2, s->labels.v[s->shown.v[s->top + i]], st);
  }
}

static int step(tui_app *a, int d)
{
  gal_state *s = state(a);
  if (d < 0 && s->sel > 0) s->sel--;
  if (d > 0 && s->sel + 1 < s->shown.n) s->sel++;
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_gal_down(tui_app *a, tui_pane *p, int key) { return step(a, 1); }
int tui_gal_up(tui_app *a, tui_pane *p, int key) { return step(a, -1); }

static int filter_done(tui_app *a, const char *text)
{
  gal_state *s = state(a);
  free(s->filter);
  s->filter = *text ? dg_strdup(text) : NULL;
  refilter(s);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_gal_filter(tui_app *a, tui_pane *p, int key)
{
  tui_app_prompt(a, "filter: ", "", filter_done);      /* empty: show all again */
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_gal_open(tui_app *a, tui_pane *p, int key)
{
  gal_state *s = state(a);
  if (!s->shown.n) {
    tui_app_message(a, true, "nothing to open");
    return TUI_HANDLED | TUI_REDRAW;
  }
  char *path = dg_strdup(s->paths.v[s->shown.v[s->sel]]);
  if (tui_app_open(a, path)) a->gallery = false;
  free(path);
  return TUI_HANDLED | TUI_REDRAW;
}

const tui_pane_ops tui_gallery_ops = {
  "gallery", TUI_CTX_GALLERY, gal_open, gal_draw, NULL, gal_close,
};
