/* cli_parse.c — placeholder until the front end lands. */
#include "cli.h"
#include <stdio.h>

int cli_parse(int argc, char **argv)
{
  fprintf(stderr, "dirigo parse: the front end is not built yet\n");
  return DG_EXIT_INTERNAL;
}
