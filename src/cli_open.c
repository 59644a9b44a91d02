/* cli_open.c — placeholder until the workbench lands: says so plainly. */
#include "cli.h"
#include <stdio.h>

int cli_open(int argc, char **argv)
{
  fprintf(stderr, "dirigo: the workbench screen is not built yet; try 'dirigo help'\n");
  return DG_EXIT_USAGE;
}
