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

/* --shard i/n of both (cli_specs.c): 1 <= i <= n <= 10^6, decimal digits
 * only; false when s is not that. Problem k of cli_find_specs's list is in
 * shard i when k % n == i - 1, so the shards together run every problem once. */
bool cli_parse_shard(const char *s, int *i, int *n);
static inline bool cli_in_shard(size_t k, int i, int n) { return (int)(k % (size_t)n) == i - 1; }

#endif
