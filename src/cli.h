/* cli.h — the subcommands of the dirigo binary. Each returns the process exit
 * code of DESIGN 3.4: 0 fine, 1 bugs found, 2 usage or input error, 3 internal. */
#ifndef DG_CLI_H
#define DG_CLI_H

enum { DG_EXIT_OK = 0, DG_EXIT_BUGS = 1, DG_EXIT_USAGE = 2, DG_EXIT_INTERNAL = 3 };

typedef struct {
  const char *name;
  const char *usage;      /* arguments, for help */
  const char *help;       /* one line */
  int (*run)(int argc, char **argv);   /* argv[0] is the command name */
} dg_command;

/* The table, in dirigo.c; NULL-terminated. */
extern const dg_command dg_commands[];
const dg_command *dg_command_find(const char *name);

int cli_parse(int argc, char **argv);      /* cli_parse.c */
int cli_fuzz(int argc, char **argv);       /* cli_fuzz.c */
int cli_replay(int argc, char **argv);     /* cli_fuzz.c */
int cli_check(int argc, char **argv);      /* cli_check.c */
int cli_check_replay(int argc, char **argv);   /* cli_check.c: witness files, else cli_replay */
int cli_run(int argc, char **argv);        /* cli_run.c */
int cli_sweep(int argc, char **argv);      /* cli_sweep.c */
int cli_mutants(int argc, char **argv);    /* cli_mutants.c */
int cli_open(int argc, char **argv);       /* the workbench (tui); argv[1] optional path */

#endif
