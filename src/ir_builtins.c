/* ir_builtins.c — the builtin-function table, built from builtins.def. */
#include "ir.h"
#include <string.h>

const dg_intrin_info dg_intrins[DG_IN__COUNT] = {
#define DG_INTRIN(id, name, arity, sig, cls) [DG_IN_##id] = { name, arity, sig, DG_IC_##cls },
#include "builtins.def"
#undef DG_INTRIN
};

int dg_intrin_lookup(const char *name)
{
  /* The table is small (~120); a linear scan costs nothing next to parsing. */
  for (int i = 0; i < DG_IN__COUNT; i++)
    if (!strcmp(dg_intrins[i].name, name)) return i;
  return -1;
}
