/* lua_spec.h — loading problem specs (DESIGN 3.1) and ops (3.2) with Lua, and
 * the `dirigo` module for scripts. The result is an engine dg_problem whose
 * reference runs in the spec's own sandboxed Lua state. */
#ifndef DG_LUA_SPEC_H
#define DG_LUA_SPEC_H
#include "problem.h"

/* Loads a spec: a .lua file returning problem { … }, or a .cu/.cuh file with a
 * leading block comment dirigo: … holding the same fields. Always returns a
 * problem (owned by the caller, freed with dg_problem_free); when d->nerrors > 0
 * it is unusable except for p->sm, which the diagnostics' spans index. */
dg_problem *dg_spec_load(const char *path, dg_diags *d);

/* Op library: the names of every op found (sorted); caller frees each and the array. */
char **dg_ops_list(size_t *n);
/* Path of op `name` in the library, or NULL; caller frees. */
char *dg_ops_find(const char *name);

struct lua_State;
/* Opens the `dirigo` module in L (as package.loaded.dirigo and the global
 * `dirigo`): load, ops, ref, … (doc/lua-api.md). */
int dg_lua_open_dirigo(struct lua_State *L);
/* lua_pcall stopped after millions x 10^6 instructions (an endless loop in the
 * user's Lua), with "FILE:LINE: <what>runs too long ..." (lua_sandbox.c). */
int dg_lua_pcall_bounded(struct lua_State *L, int nargs, int nres, int msgh, long long millions, const char *what);

#endif
