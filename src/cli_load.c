/* cli_load.c — loading a problem for the subcommands (cli_load.h). */
#include "cli_load.h"
#include "lua_spec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line that names an error among diagnostics printed by print(). */
static char *first_error(void (*print)(FILE *, const void *, const void *), const void *a, const void *b)
{
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) return NULL;
  print(f, a, b);
  fclose(f);
  char *why = NULL;
  for (char *line = text; line && *line && !why; ) {
    char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *e = strstr(line, ": error: ");
    if (e && e < line + len) why = dg_printf("%.*s", (int)len, line);
    line = end ? end + 1 : NULL;
  }
  free(text);
  return why;
}

static void print_spec_diags(FILE *f, const void *p, const void *d)
{
  dg_diags_print(f, &((const dg_problem *)p)->sm, d);
}

static void print_kernel_diags(FILE *f, const void *L, const void *kd)
{
  const cli_problem *c = L;
  emu_kernels_print_diags(f, &c->k);
  dg_diags_print(f, &c->p->sm, kd);
}

bool cli_problem_load(cli_problem *L, const char *path, bool quiet)
{
  memset(L, 0, sizeof *L);
  dg_diags d = {0};
  L->p = dg_spec_load(path, &d);
  bool ok = d.nerrors == 0;
  if (!quiet) dg_diags_print(stderr, &L->p->sm, &d);
  if (!ok) L->why = first_error(print_spec_diags, L->p, &d);
  dg_diags_free(&d);
  if (!ok) return false;
  dg_diags kd = {0};
  L->have_k = true;
  ok = emu_kernels_load(&L->k, L->p, &kd);
  if (!quiet) print_kernel_diags(stderr, L, &kd);
  if (!ok) L->why = first_error(print_kernel_diags, L, &kd);
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
