/* dirigo.c — main: dispatches to the subcommands in the table below. */
#include "config.h"
#include "cli.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int cmd_help(int argc, char **argv);

const dg_command dg_commands[] = {
  { "parse", "FILE.cu [--ir] [--json]", "list kernels, print the IR and diagnostics", cli_parse },
  { "fuzz",  "PROBLEM [--strategy S] [--backend cpu|gpu] [--sizes spec|realistic] [--cases N] [--seed S]\n"
             "                      [--budget S] [--json] | --evaluate DIR",
    "fuzz a kernel with a test-generation strategy", cli_fuzz },
  { "check", "PROBLEM [--at i,j,...|NAME[i,j,...]|--auto] [--budget S] [--timeout S] [--size NAME=V]...\n"
             "                      [--float real|ieee] [--seed N] [--json|--sarif] [--explain]",
    "prove output elements equal to the reference for all inputs (Z3)", cli_check },
  { "replay", "PROBLEM WITNESS", "replay a fuzz case or a checker witness", cli_check_replay },
  { "sweep", "DIR [--mode check|fuzz|both] [--budget S] [--jobs N] [--shard i/n] [--json]",
    "check and fuzz every problem under DIR, each in a child; resumable (doc/sweep.md)", cli_sweep },
  { "mutants", "PROBLEM|DIR... [--ops rel,acc,...] [--out DIR]",
    "small plausible bugs planted in a kernel, listed or written out as problems (doc/mutants.md)", cli_mutants },
  { "run",   "SCRIPT.lua [args] | -e CODE", "run a Lua script with the dirigo module, no screen", cli_run },
  { "help",  "", "this text", cmd_help },
  { NULL, NULL, NULL, NULL },
};

const dg_command *dg_command_find(const char *name)
{
  for (const dg_command *c = dg_commands; c->name; c++)
    if (!strcmp(c->name, name)) return c;
  return NULL;
}

static int cmd_help(int argc, char **argv)
{
  printf("dirigo %s — find bugs in CUDA tensor kernels\n\nusage:\n", PACKAGE_VERSION);
  printf("  dirigo [PROBLEM|FILE.cu|DIR]   open the workbench\n");
  for (const dg_command *c = dg_commands; c->name; c++)   /* usage, then what it does, indented */
    printf("  dirigo %-6s%s%s\n                %s\n", c->name, *c->usage ? " " : "", c->usage, c->help);
  printf("\nexit codes: 0 fine, 1 bugs found, 2 usage or input error, 3 internal error\n");
  return DG_EXIT_OK;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
    return cmd_help(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "--version")) {
    printf("dirigo %s\n", PACKAGE_VERSION);
    return DG_EXIT_OK;
  }
  if (argc >= 2) {
    const dg_command *c = dg_command_find(argv[1]);
    if (c) return c->run(argc - 1, argv + 1);
    /* `dirigo chek x.lua`: a word that is neither a command nor a path would
     * reach the workbench and fail there as "needs a terminal" or "no such file" */
    struct stat st;
    const char *w = argv[1];
    if (w[0] != '-' && !strpbrk(w, "./") && stat(w, &st) != 0) {
      fprintf(stderr, "dirigo: '%s' is neither a command nor a file; commands:", w);
      for (const dg_command *k = dg_commands; k->name; k++) fprintf(stderr, " %s", k->name);
      fprintf(stderr, " (dirigo help)\n");
      return DG_EXIT_USAGE;
    }
  }
  return cli_open(argc, argv);
}
