/* cli_load.c — loading a problem for the subcommands (cli_load.h). */
#include "cli_load.h"
#include "lua_spec.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The first error of d that has a position, as dg_diags_print writes it
 * ("file:line:col: error: …", its first line); NULL when there is none. */
static char *first_error(const dg_srcmgr *sm, const dg_diags *d)
{
  for (size_t i = 0; i < d->v.n; i++) {
    const dg_diag *e = &d->v.v[i];
    if (e->sev != DG_SEV_ERROR || !e->span.file) continue;
    dg_buf b = {0};
    dg_diag_format(&b, sm, e);
    char *why = dg_printf("%.*s", (int)strcspn(b.s, "\n"), b.s);
    dg_buf_free(&b);
    return why;
  }
  return NULL;
}

bool cli_problem_load(cli_problem *L, const char *path, bool quiet)
{
  memset(L, 0, sizeof *L);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {   /* "cannot read the spec: Is a directory" */
    L->why = dg_printf("%s: a folder, not a problem: 'dirigo sweep %s' runs every problem under it, "
                       "'dirigo %s' opens them in the workbench", path, path, path);
    if (!quiet) fprintf(stderr, "%s\n", L->why);
    return false;
  }
  dg_diags d = {0};
  L->p = dg_spec_load(path, &d);
  bool ok = d.nerrors == 0;
  if (!quiet) dg_diags_print(stderr, &L->p->sm, &d);
  if (!ok) L->why = first_error(&L->p->sm, &d);
  dg_diags_free(&d);
  if (!ok) return false;
  dg_diags kd = {0};
  L->have_k = true;
  ok = emu_kernels_load(&L->k, L->p, &kd);
  if (!quiet) {
    emu_kernels_print_diags(stderr, &L->k);
    dg_diags_print(stderr, &L->p->sm, &kd);
  }
  if (!ok) {   /* the kernel file's own diagnostics first, as they print */
    L->why = L->k.mod ? first_error(&L->k.sm, &L->k.mod->diags) : NULL;
    if (!L->why) L->why = first_error(&L->p->sm, &kd);
  }
  dg_diags_free(&kd);
  return ok;
}

void cli_problem_free(cli_problem *L)
{
  if (L->have_k) emu_kernels_free(&L->k);
  if (L->p) dg_problem_free(L->p);
  free(L->why);
  memset(L, 0, sizeof *L);
}
