/* lua_fuzz.h — fuzz strategies written in Lua (doc/strategies.md) and fuzzing
 * from the `dirigo` module (doc/lua-api.md). Strategy files live in the
 * user's $XDG_CONFIG_HOME/dirigo/strategies/ (or ~/.config/dirigo/strategies/)
 * and in $DIRIGO_DATADIR/lua/strategies/; each returns
 * strategy "name" { help = "…", gen = function(space, k, rng) … end }.
 * They run in one sandboxed Lua state of their own and join the engine's
 * strategy registry (fuzz.h), so campaigns, --evaluate and replay find them. */
#ifndef DG_LUA_FUZZ_H
#define DG_LUA_FUZZ_H
#include <stdio.h>
#include "diag.h"

/* Loads every strategy file into the registry, once (a second call does
 * nothing until dg_strategies_unload). A file that fails to load adds an error
 * at file:line to d and is skipped; the others still load. Spans index
 * dg_strategies_sources(). The user's directory comes first: a user's strategy
 * shadows a shipped one of the same name; a name taken by a built-in or twice
 * in one directory is an error. */
void dg_strategies_load(dg_diags *d);
/* The same, printing the diagnostics on f. */
void dg_strategies_load_print(FILE *f);
const dg_srcmgr *dg_strategies_sources(void);
/* Drops the Lua strategies from the registry and closes their state. */
void dg_strategies_unload(void);
/* Directories searched, the user's first; caller frees each and the array. */
char **dg_strategy_dirs(size_t *n);

#endif
