/* diag.c — the source manager and diagnostics. */
#include "diag.h"
#include <stdlib.h>
#include <string.h>

static const char *const sev_names[] = {
  [DG_SEV_ERROR] = "error", [DG_SEV_UNSUPPORTED] = "unsupported",
  [DG_SEV_WARNING] = "warning", [DG_SEV_NOTE] = "note",
};

const char *dg_severity_name(dg_severity s) { return sev_names[s]; }

void dg_srcmgr_init(dg_srcmgr *sm)
{
  memset(sm, 0, sizeof *sm);
  dg_srcfile none = { dg_strdup("<none>"), dg_strdup(""), 0 };
  dg_vec_push(&sm->files, none);
}

void dg_srcmgr_free(dg_srcmgr *sm)
{
  for (size_t i = 0; i < sm->files.n; i++) {
    free(sm->files.v[i].path);
    free(sm->files.v[i].text);
  }
  dg_vec_free(&sm->files);
}

uint32_t dg_srcmgr_add(dg_srcmgr *sm, const char *path, char *text, size_t len)
{
  dg_srcfile f = { dg_strdup(path), text, len };
  dg_vec_push(&sm->files, f);
  return (uint32_t)(sm->files.n - 1);
}

uint32_t dg_srcmgr_load(dg_srcmgr *sm, const char *path)
{
  for (size_t i = 1; i < sm->files.n; i++)
    if (!strcmp(sm->files.v[i].path, path)) return (uint32_t)i;
  size_t len;
  char *text = dg_read_file(path, &len);
  if (!text) return 0;
  return dg_srcmgr_add(sm, path, text, len);
}

const char *dg_srcmgr_path(const dg_srcmgr *sm, uint32_t file)
{
  return file < sm->files.n ? sm->files.v[file].path : "<none>";
}

const char *dg_srcmgr_line(const dg_srcmgr *sm, uint32_t file, uint32_t line, size_t *n)
{
  *n = 0;
  if (file == 0 || file >= sm->files.n || line == 0) return "";
  const char *s = sm->files.v[file].text, *end = s + sm->files.v[file].len;
  for (uint32_t l = 1; l < line; l++) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    if (!nl) return "";
    s = nl + 1;
  }
  const char *nl = memchr(s, '\n', (size_t)(end - s));
  *n = (size_t)((nl ? nl : end) - s);
  return s;
}

void dg_diag_add(dg_diags *d, dg_severity sev, dg_span span, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  dg_diag x = { sev, span, dg_vprintf(fmt, ap) };
  va_end(ap);
  dg_vec_push(&d->v, x);
  if (sev <= DG_SEV_UNSUPPORTED) d->nerrors++;
}

void dg_diags_free(dg_diags *d)
{
  for (size_t i = 0; i < d->v.n; i++) free(d->v.v[i].msg);
  dg_vec_free(&d->v);
  d->nerrors = 0;
}

void dg_diag_format(dg_buf *out, const dg_srcmgr *sm, const dg_diag *d)
{
  if (d->span.file)
    dg_buf_printf(out, "%s:%u:%u: ", dg_srcmgr_path(sm, d->span.file), d->span.line, d->span.col);
  dg_buf_printf(out, "%s: %s", sev_names[d->sev], d->msg);
}

void dg_diags_print(FILE *f, const dg_srcmgr *sm, const dg_diags *d)
{
  for (size_t i = 0; i < d->v.n; i++) {
    dg_buf b = {0};
    dg_diag_format(&b, sm, &d->v.v[i]);
    fprintf(f, "%s\n", b.s);
    dg_buf_free(&b);
  }
}
