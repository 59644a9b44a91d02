/* cli_load.c — loading a problem for the subcommands (cli_load.h). */
#include "cli_load.h"
#include "lua_spec.h"
#include <string.h>

bool cli_problem_load(cli_problem *L, const char *path, bool quiet)
{
  memset(L, 0, sizeof *L);
  dg_diags d = {0};
  L->p = dg_spec_load(path, &d);
  bool ok = d.nerrors == 0;
  if (!quiet) dg_diags_print(stderr, &L->p->sm, &d);
  dg_diags_free(&d);
  if (!ok) return false;
  dg_diags kd = {0};
  L->have_k = true;
  ok = emu_kernels_load(&L->k, L->p, &kd);
  if (!quiet) {
    emu_kernels_print_diags(stderr, &L->k);
    dg_diags_print(stderr, &L->p->sm, &kd);
  }
  dg_diags_free(&kd);
  return ok;
}

void cli_problem_free(cli_problem *L)
{
  if (L->have_k) emu_kernels_free(&L->k);
  if (L->p) dg_problem_free(L->p);
  memset(L, 0, sizeof *L);
}
