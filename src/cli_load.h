/* cli_load.h — a problem and its kernels, loaded for a subcommand, with the
 * diagnostics of both printed on stderr as file:line:col. */
#ifndef DG_CLI_LOAD_H
#define DG_CLI_LOAD_H
#include "emu.h"

typedef struct {
  dg_problem *p;
  emu_kernels k;
  bool have_k;
  char *why;      /* when the load fails: its first diagnostic, "file:line:col: error: …" */
} cli_problem;

/* False when the spec or its kernels cannot be used (quiet: print nothing).
 * Call cli_problem_free in every case. */
bool cli_problem_load(cli_problem *L, const char *path, bool quiet);
void cli_problem_free(cli_problem *L);

/* The problem specs under dir (cli_specs.c), sorted: *.lua outside scripts/
 * folders, and .cu/.cuh files that open with a dirigo: block; what `dirigo
 * sweep` and `dirigo fuzz --evaluate` run. Caller frees each path and the
 * array (NULL when none). */
char **cli_find_specs(const char *dir, size_t *n);

#endif
