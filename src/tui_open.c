/* tui_open.c — opening a document in the workbench: a .cu kernel (with or
 * without a problem spec), a problem .lua, or a directory holding one. The
 * source is highlighted; the model gets the syntax errors and, when a spec
 * gives them, the output tensors. Without a spec the picker says what is
 * missing and how to write it. */
#include "tui.h"
#include <sys/stat.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

static bool has_suffix(const char *s, const char *suf)
{
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && !strcmp(s + n - m, suf);
}

/* A directory: its first problem .lua, else its first .cu (sorted). */
static char *pick_in_dir(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char *lua = NULL, *cu = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    char **slot = has_suffix(e->d_name, ".lua") ? &lua : has_suffix(e->d_name, ".cu") ? &cu : NULL;
    if (slot && (!*slot || strcmp(e->d_name, *slot) < 0)) {
      free(*slot);
      *slot = dg_strdup(e->d_name);
    }
  }
  closedir(d);
  char *pick = lua ? lua : cu;
  char *r = pick ? dg_path_join(dir, pick) : NULL;
  free(lua);
  free(cu);
  return r;
}

static char *spec_help(const char *path)
{
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  size_t stem = has_suffix(base, ".cu") ? strlen(base) - 3 : strlen(base);
  return dg_printf(
    "No problem spec for %s: the picker needs the output tensor shapes.\n"
    "Write %.*s.lua next to it:\n"
    "  return problem {\n"
    "    source = \"%s\",\n"
    "    op     = \"softmax\",   -- a reference op from lua/ops/\n"
    "    sizes  = { N = 64, C = 1000 },\n"
    "    launch = \"kernel<<<grid, block>>>(y, x, N, C)\",\n"
    "  }\n"
    "or put the same fields in a /* dirigo: ... */ block at the top\n"
    "of %s.",
    base, (int)stem, base, base, base);
}

/* The syntax errors tree-sitter found become diagnostics on their lines. */
static void syntax_diags(tui_app *a)
{
  for (size_t i = 0; a->doc && i < a->doc->errors.n; i++) {
    const dg_hl_error *e = &a->doc->errors.v[i];
    tui_model_add_diag(&a->model, DG_SEV_ERROR, e->line, e->col,
                       e->missing ? "syntax error: something is missing here" : "syntax error");
  }
}

bool tui_app_open(tui_app *a, const char *path)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    tui_app_message(a, true, "%s: %s", path, strerror(errno));
    return false;
  }
  char *file = S_ISDIR(st.st_mode) ? pick_in_dir(path) : dg_strdup(path);
  if (!file) {
    tui_app_message(a, true, "%s: no problem (.lua) or kernel (.cu) in this directory", path);
    return false;
  }
  size_t len;
  char *text = dg_read_file(file, &len);
  if (!text) {
    tui_app_message(a, true, "%s: %s", file, strerror(errno));
    free(file);
    return false;
  }
  /* the old document goes */
  dg_hl_doc_free(a->doc);
  free(a->text);
  free(a->path);
  tui_model_free(&a->model);
  tui_model_init(&a->model);
  a->path = file;
  a->text = text;
  a->len = len;
  bool lua = has_suffix(file, ".lua");
  a->doc = dg_hl_doc_new(lua ? NULL : a->query, text, len);
  if (!lua) syntax_diags(a);
  if (lua) {
    tui_model_set_missing(&a->model,
                          "Problem specs are read by the problem loader, which is not\n"
                          "available yet in the workbench: no output tensors to show.");
  } else if (!strncmp(text, "/* dirigo:", 10) || strstr(text, "/* dirigo:")) {
    tui_model_set_missing(&a->model,
                          "This file has a /* dirigo: */ spec block; reading it needs the\n"
                          "problem loader, which is not available yet in the workbench.");
  } else {
    char *m = spec_help(file);
    tui_model_set_missing(&a->model, m);
    free(m);
  }
  a->focus = TUI_PANE_SOURCE;
  a->overlay = -1;
  if (a->doc && a->doc->kernels.n) tui_source_goto(a, a->doc->kernels.v[0].line);
  return true;
}
