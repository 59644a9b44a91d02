/* tui_open.c — opening a document in the workbench: a .cu kernel (with or
 * without a problem spec), a problem .lua, or a directory holding one. The
 * source is highlighted; the model gets the syntax errors and, when a spec
 * gives them, the output tensors. Without a spec the picker says what is
 * missing and how to write it. */
#include "tui.h"
#include "lua_spec.h"
#include "fe.h"
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

/* X.cu's spec X.lua beside it, when it exists and names X.cu; NULL otherwise. */
static char *sibling_spec(const char *cu)
{
  if (!has_suffix(cu, ".cu")) return NULL;
  char *spec = dg_printf("%.*s.lua", (int)(strlen(cu) - 3), cu);
  const char *base = strrchr(cu, '/') ? strrchr(cu, '/') + 1 : cu;
  struct stat st;
  char *text = stat(spec, &st) == 0 && S_ISREG(st.st_mode) ? dg_read_file(spec, NULL) : NULL;
  bool names = text && strstr(text, base);
  free(text);
  if (!names) free(spec);
  return names ? spec : NULL;
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

/* Diagnostics in the shown file go on their lines; all of them (also those
 * in the spec or the op) are listed in `rest` when given. */
static void place_diags(tui_app *a, const dg_srcmgr *sm, const dg_diags *d, const char *shown,
                        dg_buf *rest)
{
  for (size_t i = 0; i < d->v.n; i++) {
    const dg_diag *g = &d->v.v[i];
    if (g->span.file && shown && !strcmp(dg_srcmgr_path(sm, g->span.file), shown)) {
      tui_model_add_diag(&a->model, g->sev, g->span.line, g->span.col, g->msg);
    }
    if (rest) {
      dg_diag_format(rest, sm, g);
      dg_buf_putc(rest, '\n');
    }
  }
}

/* The front end's diagnostics (unsupported constructs, type errors) for the
 * kernel file: it runs the preprocessor and the lowering once at open. */
static void fe_diags(tui_app *a, const char *src)
{
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  dg_diags d = {0};
  fe_options opt = { .instantiate_launches = true };
  if (a->problem) {
    opt.defines = a->problem->defines.v;
    opt.ndefines = (int)a->problem->defines.n;
  }
  dg_module *m = fe_load(&sm, src, &opt, &d);
  place_diags(a, &sm, &d, src, NULL);
  if (m) fe_module_free(m);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
}

/* Output tensors of the problem at the spec's sizes. */
static void add_outputs(tui_app *a, dg_buf *why)
{
  dg_problem *p = a->problem;
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  dg_diags d = {0};
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *x = &p->tensors.v[t];
    if (x->role != DG_TENSOR_OUTPUT) continue;
    int64_t dims[TUI_MAX_DIMS];
    if (x->shape.n < 1 || x->shape.n > TUI_MAX_DIMS) {
      dg_buf_printf(why, "output %s has rank %zu: the picker shows ranks 1 to %d\n", x->name,
                    x->shape.n, TUI_MAX_DIMS);
      continue;
    }
    if (!dg_problem_shape(p, (int)t, sizes, dims, &d) ||
        tui_model_add_tensor(&a->model, x->name, (int)x->shape.n, dims) < 0)
      dg_buf_printf(why, "output %s: no usable shape at the spec's sizes\n", x->name);
  }
  for (size_t i = 0; i < d.v.n; i++) {
    dg_diag_format(why, &p->sm, &d.v.v[i]);
    dg_buf_putc(why, '\n');
  }
  dg_diags_free(&d);
  free(sizes);
}

/* The work after the first paint: syntax errors and front-end diagnostics. */
static void full_work(tui_app *a)
{
  syntax_diags(a);
  fe_diags(a, a->source);
}

/* How much of a big file the first paint highlights: through some 150 lines
 * past its first kernel (where the cursor goes), at least TUI_PREFIX_MIN. */
static size_t prefix_bytes(const char *text, size_t len)
{
  const char *g = strstr(text, "__global__");
  size_t at = g ? (size_t)(g - text) : 0;
  for (int lines = 0; at < len && lines < 150; at++)
    if (text[at] == '\n') lines++;
  return at > TUI_PREFIX_MIN ? at : TUI_PREFIX_MIN;
}

bool tui_app_idle(tui_app *a)
{
  if (!a->pending) return false;
  a->pending = false;
  dg_hl_doc_free(a->doc);
  a->doc = dg_hl_doc_new(a->query, a->text, a->len);
  full_work(a);
  return true;
}

void tui_app_close_doc(tui_app *a)
{
  tui_job_cancel(a, "cancelled");      /* its records name this document's tensors */
  tui_checks_free(a);
  a->tab = TUI_TAB_SUMMARY;
  a->zoom = false;
  dg_hl_doc_free(a->doc);
  a->doc = NULL;
  free(a->text);
  free(a->path);
  free(a->source);
  a->text = a->path = a->source = NULL;
  a->len = 0;
  a->pending = false;
  if (a->problem) dg_problem_free(a->problem);
  a->problem = NULL;
  tui_model_free(&a->model);
  tui_model_init(&a->model);
}

/* One file's size and mtime, hashed (0: it cannot be read). */
static uint64_t file_stamp(const char *path)
{
  struct stat st;
  if (!path || stat(path, &st) != 0) return 0;
  int64_t v[3] = { (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec };
  return dg_hash_bytes(v, sizeof v, 0x5eed);
}

static void doc_stamp(const tui_app *a, uint64_t out[2])
{
  out[0] = file_stamp(a->path);
  out[1] = file_stamp(a->source);
}

bool tui_app_stale(tui_app *a)
{
  uint64_t now[2];
  if (!a->path) return false;
  doc_stamp(a, now);
  /* name the file that changed: the spec edited while the kernel stayed is
   * not "the kernel changed" */
  bool spec = now[0] != a->stamp[0], kernel = now[1] != a->stamp[1] && a->source && strcmp(a->source, a->path);
  if (!spec && !kernel) return false;
  if (spec && kernel)
    tui_app_message(a, true, "%s and %s changed on disk since they were opened: :reload loads them (the screen shows the old version)",
                    a->path, a->source);
  else
    tui_app_message(a, true, "%s changed on disk since it was opened: :reload loads it (the screen shows the old version)",
                    spec ? a->path : a->source);
  return true;
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
  bool lua = has_suffix(file, ".lua");
  char *spec = !lua && !dg_spec_block(text, NULL) ? sibling_spec(file) : NULL;
  if (spec) {                             /* the kernel of a problem: open the problem */
    free(text);
    free(file);
    bool ok = tui_app_open(a, spec);
    free(spec);
    return ok;
  }
  tui_app_close_doc(a);
  a->path = file;
  dg_buf why = {0};
  char *src = NULL;                       /* the kernel file shown */
  dg_diags d = {0};
  if (lua || dg_spec_block(text, NULL)) {
    a->problem = dg_spec_load(file, &d);
    if (a->problem->source) src = dg_strdup(a->problem->source);
    else if (!lua) src = dg_strdup(file);
  } else {
    src = dg_strdup(file);
  }
  if (src && strcmp(src, file)) {         /* show the kernel, not the spec */
    free(text);
    text = dg_read_file(src, &len);
    if (!text) {
      dg_buf_printf(&why, "%s: cannot read the kernel: %s\n", src, strerror(errno));
      free(src);
      src = NULL;
      text = dg_read_file(file, &len);
    }
  }
  a->text = text;
  a->len = len;
  a->source = src;
  if (a->problem) place_diags(a, &a->problem->sm, &d, src ? src : file, &why);
  if (a->problem && d.nerrors == 0) add_outputs(a, &why);
  if (src && len > TUI_PREFIX_BYTES) {
    /* a big file: highlight a prefix for the first paint, the rest when idle */
    a->doc = dg_hl_doc_new_prefix(a->query, a->text, a->len, prefix_bytes(a->text, a->len));
    a->pending = true;
  } else {
    a->doc = dg_hl_doc_new(src ? a->query : NULL, a->text, a->len);   /* a spec alone: plain */
    if (src) full_work(a);
  }
  if (!a->problem) {
    char *m = spec_help(file);
    tui_model_set_missing(&a->model, m);
    free(m);
  } else if (d.nerrors) {
    char *m = dg_printf("The problem spec has errors; no output tensors:\n%s", why.s ? why.s : "");
    tui_model_set_missing(&a->model, m);
    free(m);
  } else if (!a->model.tensors.n) {
    char *m = dg_printf("The problem has no output tensor to show.\n%s", why.s ? why.s : "");
    tui_model_set_missing(&a->model, m);
    free(m);
  }
  dg_buf_free(&why);
  dg_diags_free(&d);
  doc_stamp(a, a->stamp);
  a->focus = TUI_PANE_SOURCE;
  a->overlay = -1;
  a->gallery = false;
  if (a->doc && a->doc->kernels.n) tui_source_goto(a, a->doc->kernels.v[0].line);
  return true;
}
