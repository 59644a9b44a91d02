/* lua_sandbox.c — the sandboxed Lua state in which specs, ops and references
 * run: no io, os, package, debug, dofile, loadfile or bytecode; environments
 * built from a whitelist; errors turned into file:line:col diagnostics with a
 * traceback trimmed to the user's files. */
#include "lua_int.h"
#include "lua_spec.h"
#include <lualib.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

/* load(text [, name [, mode [, env]]]) restricted to text chunks. */
static int l_load_text(lua_State *L)
{
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  const char *name = luaL_optstring(L, 2, "=(load)");
  int env = !lua_isnone(L, 4) ? 4 : 0;
  if (luaL_loadbufferx(L, s, n, name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (env) {
    lua_pushvalue(L, env);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

lua_State *dgl_newstate(void)
{
  lua_State *L = luaL_newstate();
  if (!L) dg_oom();
  static const luaL_Reg libs[] = {
    { LUA_GNAME, luaopen_base }, { LUA_TABLIBNAME, luaopen_table }, { LUA_STRLIBNAME, luaopen_string },
    { LUA_MATHLIBNAME, luaopen_math }, { LUA_UTF8LIBNAME, luaopen_utf8 }, { NULL, NULL },
  };
  for (const luaL_Reg *l = libs; l->name; l++) {
    luaL_requiref(L, l->name, l->func, 1);
    lua_pop(L, 1);
  }
  lua_pushnil(L);
  lua_setglobal(L, "dofile");
  lua_pushnil(L);
  lua_setglobal(L, "loadfile");
  lua_pushcfunction(L, l_load_text);
  lua_setglobal(L, "load");
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  dgl_value_register(L);
  return L;
}

/* An op file sees only these plain helpers besides `op` and the value
 * functions (doc/ops.md: no math.*, so a ref cannot bypass the value domain). */
static const char *const op_globals[] = {
  "ipairs", "pairs", "select", "type", "error", "assert", "tostring", "tonumber", NULL,
};
/* A spec is the user's configuration: the safe parts of the standard library. */
static const char *const spec_globals[] = {
  "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber", "tostring",
  "type", "xpcall", "rawequal", "rawget", "rawlen", "rawset", "setmetatable", "getmetatable",
  "print", "load", "string", "table", "math", "utf8", NULL,
};

/* What the sandbox withholds: reading one of these names is an error that
 * says so, instead of Lua's "attempt to index a nil value (global 'os')". */
static const char *const withheld_globals[] = {
  "os", "io", "package", "debug", "require", "dofile", "loadfile", "collectgarbage", NULL,
};

static int l_env_index(lua_State *L)
{
  const char *k = lua_tostring(L, 2);
  for (const char *const *g = withheld_globals; k && *g; g++)
    if (!strcmp(k, *g)) {
      luaL_where(L, 1);
      lua_pushfstring(L, "%s'%s' is not available: specs and op files run in a sandbox without os, io, package, "
                      "debug, require, dofile, loadfile and collectgarbage", lua_tostring(L, -1), k);
      return lua_error(L);
    }
  return 0;
}

/* op "name" { … }: names the table and returns it. */
static int l_op_named(lua_State *L)
{
  luaL_checktype(L, 1, LUA_TTABLE);
  if (lua_getfield(L, 1, "name") == LUA_TNIL) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setfield(L, 1, "name");
  }
  lua_pop(L, 1);
  lua_settop(L, 1);
  return 1;
}

static int l_op(lua_State *L)
{
  if (lua_type(L, 1) == LUA_TTABLE) return 1;        /* op { … } (inline, unnamed) */
  luaL_checkstring(L, 1);
  lua_settop(L, 1);
  lua_pushcclosure(L, l_op_named, 1);
  return 1;
}

/* problem { … }: remembers the table (a chunk that forgets `return` still works). */
static int l_problem(lua_State *L)
{
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "dirigo.problem");
  return 1;
}

void dgl_push_env(lua_State *L, dgl_envkind kind)
{
  lua_newtable(L);
  for (const char *const *g = kind == DGL_ENV_OP ? op_globals : spec_globals; *g; g++) {
    lua_getglobal(L, *g);
    lua_setfield(L, -2, *g);
  }
  dgl_vmath_set(L, -1);
  lua_newtable(L);
  lua_pushcfunction(L, l_env_index);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_pushcfunction(L, l_op);
  lua_setfield(L, -2, "op");
  if (kind == DGL_ENV_SPEC) {
    lua_pushcfunction(L, l_problem);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "problem");
    lua_setfield(L, -2, "_P");
  }
}

/* Keeps traceback lines that name a user's file (not [C], not the engine). */
static void trim_traceback(dg_buf *out, const char *tb)
{
  const char *p = strstr(tb, "\nstack traceback:");
  if (!p) {
    dg_buf_puts(out, tb);
    return;
  }
  dg_buf_put(out, tb, (size_t)(p - tb));
  bool header = false;
  for (p = strchr(p + 1, '\n'); p && *p; ) {
    const char *line = p + 1, *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    while (n && isspace((unsigned char)*line)) line++, n--;
    bool user = n && strncmp(line, "[C]", 3) && strncmp(line, "(...", 4) && memchr(line, ':', n);
    if (user) {
      if (!header) dg_buf_puts(out, "\nstack traceback:");
      header = true;
      dg_buf_puts(out, "\n\t");
      dg_buf_put(out, line, n);
    }
    p = end;
  }
}

int dgl_msgh(lua_State *L)
{
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  dg_buf b = {0};
  trim_traceback(&b, lua_tostring(L, -1));
  lua_pushstring(L, b.s ? b.s : msg);
  dg_buf_free(&b);
  return 1;
}

static bool is_word(char c)
{
  return isalnum((unsigned char)c) || c == '_';
}

void dgl_diag_from_msg(const dg_problem *p, uint32_t file, const char *msg, dg_diags *d)
{
  /* "chunkname:LINE: msg"; Lua may shorten a long chunk name with "...", so
   * look for the first ":digits:" of the first line rather than the path. */
  dg_span sp = { file, 1, 1 };
  const char *rest = msg, *colon = NULL, *eol = strchr(msg, '\n');
  for (const char *q = strchr(msg, ':'); q && (!eol || q < eol); q = strchr(q + 1, ':')) {
    const char *e = q + 1;
    while (isdigit((unsigned char)*e)) e++;
    if (e > q + 1 && *e == ':') {
      colon = q;
      break;
    }
  }
  if (colon) {
    char *end;
    sp.line = (uint32_t)strtoul(colon + 1, &end, 10);
    rest = *end == ':' ? end + 1 : end;
    while (*rest == ' ') rest++;
    /* a column from "near 'tok'" on that line */
    /* the column of the token the message quotes: "near 'tok'", Lua's
     * "(global 'tok')", or the sandbox's "'tok' is not available" */
    const char *near = strstr(rest, "near '"), *tok = near ? near + 6 : NULL;
    if (!tok && (near = strstr(rest, "(global '"))) tok = near + 9;
    if (!tok && *rest == '\'') tok = rest + 1;
    size_t n;
    const char *line = dg_srcmgr_line(&p->sm, file, sp.line, &n);
    if (tok && line) {
      const char *q = strchr(tok, '\'');
      size_t tl = q ? (size_t)(q - tok) : 0;
      for (size_t i = 0; tl && i + tl <= n; i++)
        if (!strncmp(line + i, tok, tl) && !(is_word(tok[0]) && i && is_word(line[i - 1]))
            && !(is_word(tok[tl - 1]) && i + tl < n && is_word(line[i + tl]))) {
          sp.col = (uint32_t)i + 1;   /* the token as a whole word: 'os' is not the end of 'pos' */
          break;
        }
    }
  }
  const char *tb = strstr(rest, "\nstack traceback:");   /* the position says enough */
  dg_diag_add(d, DG_SEV_ERROR, sp, "%.*s", tb ? (int)(tb - rest) : (int)strlen(rest), rest);
}

/* The user's Lua could loop forever (a spec or op file, a reference, a shape
 * function, the workbench's :lua and hooks): a call is stopped after
 * `millions` x 10^6 VM instructions with "FILE:LINE: <what>runs too long (an
 * endless loop?): stopped after N x 10^6 Lua instructions". Where a hook is
 * already set (an outer call's budget, a strategy's gen), that one governs. */
static _Thread_local long long bound_ticks, bound_max;
static _Thread_local const char *bound_what;

static void bound_hook(lua_State *L, lua_Debug *ar)
{
  if (++bound_ticks <= bound_max) return;
  lua_getinfo(L, "Sl", ar);
  luaL_error(L, "%s:%d: %sruns too long (an endless loop?): stopped after %d x 10^6 Lua instructions",
             ar->short_src, ar->currentline, bound_what, (int)(bound_max < INT32_MAX ? bound_max : INT32_MAX));
}

int dg_lua_pcall_bounded(lua_State *L, int nargs, int nres, int msgh, long long millions, const char *what)
{
  if (lua_gethook(L)) return lua_pcall(L, nargs, nres, msgh);
  bound_ticks = 0, bound_max = millions, bound_what = what;
  lua_sethook(L, bound_hook, LUA_MASKCOUNT, 1000000);
  int rc = lua_pcall(L, nargs, nres, msgh);
  lua_sethook(L, NULL, 0, 0);
  return rc;
}

/* A spec or op file: 2*10^8 VM instructions (under a second) is far beyond any real spec. */
#define DGL_CHUNK_BUDGET 200

bool dgl_run_chunk(lua_State *L, const char *text, size_t len, const char *path, int env_idx,
                   const dg_problem *p, uint32_t file, dg_diags *d)
{
  env_idx = lua_absindex(L, env_idx);
  lua_pushcfunction(L, dgl_msgh);
  int h = lua_gettop(L);
  char *chunkname = dg_printf("@%s", path);
  int rc = luaL_loadbufferx(L, text, len, chunkname, "t");
  free(chunkname);
  if (rc == LUA_OK) {
    lua_pushvalue(L, env_idx);
    lua_setupvalue(L, -2, 1);
    rc = dg_lua_pcall_bounded(L, 0, 1, h, DGL_CHUNK_BUDGET, "the file ");
  }
  if (rc != LUA_OK) {
    dgl_diag_from_msg(p, file, lua_tostring(L, -1) ? lua_tostring(L, -1) : "error", d);
    lua_pop(L, 2);
    return false;
  }
  lua_remove(L, h);
  return true;
}
