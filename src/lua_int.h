/* lua_int.h — internals shared by the Lua-side files (lua_*.c): the sandbox,
 * symbolic values and value math, the Lua reference, op library lookup and
 * positions inside spec files. Not for engine code (it includes lua.h). */
#ifndef DG_LUA_INT_H
#define DG_LUA_INT_H
#include <lua.h>
#include <lauxlib.h>
#include "problem.h"
#include "fuzz.h"

/* ---- sandbox (lua_sandbox.c) ------------------------------------------------ */
/* A state with base (no dofile/loadfile, text-only load), string, table, math, utf8. */
lua_State *dgl_newstate(void);
typedef enum { DGL_ENV_OP, DGL_ENV_SPEC } dgl_envkind;
/* Pushes a fresh environment table: safe globals, string/table/math, the value
 * math functions, `op`; DGL_ENV_SPEC adds `problem` (and `_P`, used by .cu blocks). */
void dgl_push_env(lua_State *L, dgl_envkind kind);
/* Message handler for lua_pcall: the message plus a traceback of user files. */
int dgl_msgh(lua_State *L);
/* Loads text as chunk `path` with the table at env_idx as _ENV and runs it
 * under pcall; leaves one result on the stack. On error adds a diagnostic at
 * path:line:col (file = the srcmgr id of path) and returns false. */
bool dgl_run_chunk(lua_State *L, const char *text, size_t len, const char *path, int env_idx,
                   const dg_problem *p, uint32_t file, dg_diags *d);
/* "file.lua:12: msg" -> a diagnostic at 12:col (col from "near 'tok'", else 1). */
void dgl_diag_from_msg(const dg_problem *p, uint32_t file, const char *msg, dg_diags *d);

/* ---- positions in spec and op files (lua_locate.c) ---------------------------- */
/* Offset of `key =` (a whole word, not `==`) at or after from, or SIZE_MAX. */
size_t dgl_find_key(const char *text, size_t from, const char *key);
/* Offset of the first byte inside a quoted literal "s" or 's' at or after from, or SIZE_MAX. */
size_t dgl_find_string(const char *text, size_t from, const char *s);
/* Turns a .cu file with a leading dirigo block into a Lua chunk of the same
 * layout (same offsets): everything blanked but the block, which becomes
 * `return _P{ … }`. NULL (and *err) when there is no block. Caller frees. */
char *dgl_cu_block_chunk(const char *text, size_t len, const char **err, size_t *err_off);

/* ---- symbolic values and value math (lua_value.c) ------------------------------ */
#define DGL_VALUE_MT "dirigo.value"
typedef struct { dg_symval id; const dg_sym_ops *ops; } dgl_value;
void dgl_value_push(lua_State *L, const dg_sym_ops *ops, dg_symval id);
dgl_value *dgl_value_test(lua_State *L, int idx);
void dgl_value_register(lua_State *L);          /* the metatable; once per state */
void dgl_vmath_set(lua_State *L, int env_idx);  /* max min exp … into the table at env_idx */

/* ---- the Lua reference (lua_ref.c) -------------------------------------------- */
/* Installs into p->ref a reference that calls the functions found in the table
 * (or function) at ref_idx of L, with attrs (a table at attrs_idx) visible in T.
 * ref_all_idx holds the optional batch functions (ref_all, same form; nil if
 * none), which eval_all calls on concrete data (doc/ops.md).
 * The reference owns L from then on (closes it when p is freed). */
void dgl_ref_install(lua_State *L, dg_problem *p, int ref_idx, int ref_all_idx, int attrs_idx);

/* ---- op library (lua_oplib.c) -------------------------------------------------- */
/* Directories searched for ops, in order (user's first); caller frees each and the array. */
char **dgl_op_dirs(size_t *n);
/* Path of op `name`, or NULL. Caller frees. */
char *dgl_op_find(const char *name);
/* Sorted, unique op names of every directory. Caller frees each and the array. */
char **dgl_op_list(size_t *n);

/* ---- fuzzing from the dirigo module (lua_fuzz.c) ------------------------------- */
/* The problem of a dirigo.problem handle at i (lua_dirigo.c); raises on a closed one. */
dg_problem *dgl_problem_check(lua_State *L, int i);
/* Adds fuzz, replay, strategies, dists, strategy to the module table on top of the stack. */
void dgl_fuzz_open(lua_State *L);
/* dirigo.check(problem, output, idx [, opts]) (lua_check.c) */
int dgl_check(lua_State *L);
/* Calls the gen function at fn for case k (lua_strategy.c; doc/strategies.md):
 * CASE filled c; NONE: no case (nil, or not admissible); ERROR: gen raised
 * (*msg: Lua's message); BAD: the returned case is wrong (*msg says why).
 * The caller frees *msg. */
typedef enum { DGL_GEN_CASE, DGL_GEN_NONE, DGL_GEN_ERROR, DGL_GEN_BAD } dgl_gen_result;
dgl_gen_result dgl_call_gen(lua_State *L, int fn, const fuzz_space *s, int64_t k, dg_rng *r,
                            fuzz_case *c, char **msg);
/* Whether a campaign or replay runs on p now (lua_fuzz.c): closing it then is an error. */
bool dgl_problem_busy(const dg_problem *p);
/* Letters, digits and _ - + . (a strategy name goes into witnesses). */
bool dgl_strategy_name_ok(const char *name);

#endif
