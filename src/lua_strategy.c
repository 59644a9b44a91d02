/* lua_strategy.c — fuzz strategies written in Lua: loading the strategy files
 * into the engine's registry, and calling their gen(space, k, rng) for each
 * case. All strategies share one sandboxed state (no io, os, package, no
 * math.random: every case must replay from (seed, k) through the C dg_rng).
 * doc/strategies.md is the user's side of this file. */
#include "lua_int.h"
#include "lua_fuzz.h"
#include "fuzz.h"
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#ifndef DG_DATADIR
#define DG_DATADIR "."
#endif

#define RNG_MT "dirigo.fuzz.rng"
#define STRATEGY_MT "dirigo.fuzz.strategy"
#define GEN_BUDGET 100          /* hook calls of 10^6 instructions: a case is never that costly */

typedef struct {
  int ref;                      /* the strategy table in the registry */
  char *name, *path;
  int line;                     /* where gen is defined: errors about its result point here */
  char *err;                    /* why the last gen gave no case (a broken strategy) */
} lstrat;

static struct {
  lua_State *L;
  dg_problem *files;            /* holds the source manager the diagnostics index */
  bool loaded;
  const fuzz_space *space;      /* the space of the gen running now, else NULL */
  int ticks;
} S;

char **dg_strategy_dirs(size_t *n)
{
  char **d = dg_calloc(2, sizeof *d);
  *n = 0;
  const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) d[(*n)++] = dg_printf("%s/dirigo/strategies", xdg);
  else if (home && *home) d[(*n)++] = dg_printf("%s/.config/dirigo/strategies", home);
  const char *data = getenv("DIRIGO_DATADIR");
  d[(*n)++] = dg_printf("%s/lua/strategies", data && *data ? data : DG_DATADIR);
  return d;
}

/* ---- the rng object: the campaign's dg_rng, valid while gen runs ----------- */
typedef struct { dg_rng *r; } rng_ud;

static dg_rng *check_rng(lua_State *L)
{
  rng_ud *u = luaL_checkudata(L, 1, RNG_MT);
  if (!u->r) luaL_error(L, "the rng is only valid inside the gen call it was given to");
  return u->r;
}

static int r_below(lua_State *L)
{
  dg_rng *r = check_rng(L);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 1, 2, "rng:below(n) needs n >= 1");
  lua_pushinteger(L, (lua_Integer)dg_rng_below(r, (uint64_t)n));
  return 1;
}

static int r_int(lua_State *L)      /* rng:int(lo, hi): uniform in [lo, hi] */
{
  dg_rng *r = check_rng(L);
  lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
  luaL_argcheck(L, lo <= hi, 3, "rng:int(lo, hi) needs lo <= hi");
  lua_pushinteger(L, lo + (lua_Integer)dg_rng_below(r, (uint64_t)(hi - lo) + 1));
  return 1;
}

static int r_unit(lua_State *L)
{
  lua_pushnumber(L, dg_rng_unit(check_rng(L)));
  return 1;
}

static int r_normal(lua_State *L)
{
  lua_pushnumber(L, dg_rng_normal(check_rng(L)));
  return 1;
}

static int r_pick(lua_State *L)
{
  dg_rng *r = check_rng(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
  luaL_argcheck(L, n >= 1, 2, "rng:pick(list) needs a non-empty list");
  lua_rawgeti(L, 2, 1 + (lua_Integer)dg_rng_below(r, (uint64_t)n));
  return 1;
}

/* ---- the space: a plain table built for each call ----------------------------- */
static int s_admissible(lua_State *L)   /* space:admissible({C = 33}) */
{
  const fuzz_space *s = S.space;
  if (!s) return luaL_error(L, "space:admissible is only valid inside gen");
  luaL_checktype(L, 2, LUA_TTABLE);
  int64_t sizes[FUZZ_MAX_SYMS];
  memcpy(sizes, s->defaults, sizeof sizes);
  for (lua_pushnil(L); lua_next(L, 2); lua_pop(L, 1)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int i = 0;
    while (k && i < s->nsyms && strcmp(s->syms[i], k)) i++;
    if (!k || i == s->nsyms)
      return luaL_error(L, "space:admissible: '%s' is not a size of this problem", k ? k : luaL_typename(L, -2));
    if (!lua_isinteger(L, -1)) return luaL_error(L, "space:admissible: sizes.%s must be an integer", k);
    sizes[i] = lua_tointeger(L, -1);
  }
  bool ok = true;
  for (int i = 0; i < s->nsyms; i++) ok = ok && sizes[i] >= 1;
  lua_pushboolean(L, ok && (!s->admissible || s->admissible(s->ud, sizes)));
  return 1;
}

static void push_ints(lua_State *L, const int64_t *v, int n)
{
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushinteger(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static void push_space(lua_State *L, const fuzz_space *s)
{
  lua_createtable(L, 0, 8);
  lua_createtable(L, s->nsyms, 0);             /* sizes: ordered list */
  lua_createtable(L, 0, s->nsyms);             /* defaults: name -> value */
  for (int i = 0; i < s->nsyms; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, s->syms[i]);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, s->defaults[i]);
    lua_setfield(L, -2, "default");
    push_ints(L, s->cands[i], s->cands[i] ? s->ncands[i] : 0);
    lua_setfield(L, -2, "candidates");
    lua_rawseti(L, -3, i + 1);
    lua_pushinteger(L, s->defaults[i]);
    lua_setfield(L, -2, s->syms[i]);
  }
  lua_setfield(L, -3, "defaults");
  lua_setfield(L, -2, "sizes");
  push_ints(L, s->block, s->nblock);
  lua_setfield(L, -2, "block");
  const char *inner = s->nsyms ? s->syms[s->nsyms - 1] : NULL;
  bool inner_set = false;
  lua_createtable(L, s->ninputs, 0);
  for (int i = 0; i < s->ninputs && i < FUZZ_MAX_INPUTS; i++) {
    lua_createtable(L, 0, 3);
    if (s->input_names[i]) lua_pushstring(L, s->input_names[i]);
    else lua_pushfstring(L, "input%d", i + 1);
    lua_setfield(L, -2, "name");
    lua_pushboolean(L, s->input_has_range[i]);
    lua_setfield(L, -2, "index_valued");
    int j = s->input_names[i] ? s->input_inner[i] : -1;
    if (j >= 0 && j < s->nsyms) {
      lua_pushstring(L, s->syms[j]);
      lua_setfield(L, -2, "inner");
      if (!inner_set && !s->input_has_range[i]) inner = s->syms[j], inner_set = true;
    }
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "inputs");
  if (inner) {
    lua_pushstring(L, inner);
    lua_setfield(L, -2, "inner");
  }
  lua_createtable(L, FUZZ_DIST__COUNT, 0);
  for (int d = 0; d < FUZZ_DIST__COUNT; d++) {
    lua_pushstring(L, fuzz_dists[d].name);
    lua_rawseti(L, -2, d + 1);
  }
  lua_setfield(L, -2, "dists");
  lua_pushcfunction(L, s_admissible);
  lua_setfield(L, -2, "admissible");
}

/* ---- the case gen returns ------------------------------------------------------ */
/* Read outside lua_pcall: raw access only, so no metamethod can raise here. */
static int rawfield(lua_State *L, int t, const char *k)
{
  lua_pushstring(L, k);
  return lua_rawget(L, t);
}

static const char *dist_list(dg_buf *b)
{
  for (int d = 0; d < FUZZ_DIST__COUNT; d++) dg_buf_printf(b, "%s%s", d ? ", " : "", fuzz_dists[d].name);
  return b->s;
}

static bool bad_dist(char **err, const char *v, const char *input)
{
  dg_buf b = {0};
  *err = dg_printf("unknown value distribution '%s'%s%s (known: %s)", v, input ? " for input " : "",
                   input ? input : "", dist_list(&b));
  dg_buf_free(&b);
  return false;
}

static bool case_sizes(lua_State *L, int t, const fuzz_space *s, fuzz_case *c, char **err)
{
  memcpy(c->sizes, s->defaults, sizeof c->sizes);
  if (rawfield(L, t, "sizes") == LUA_TNIL) return lua_pop(L, 1), true;
  if (!lua_istable(L, -1)) return *err = dg_strdup("case.sizes must be a table such as { C = 33 }"), false;
  for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int i = 0;
    while (k && i < s->nsyms && strcmp(s->syms[i], k)) i++;
    if (!k || i == s->nsyms) {
      dg_buf b = {0};
      for (int j = 0; j < s->nsyms; j++) dg_buf_printf(&b, "%s%s", j ? ", " : "", s->syms[j]);
      *err = dg_printf("case.sizes: '%s' is not a size of this problem (sizes: %s)",
                       k ? k : luaL_typename(L, -2), b.s ? b.s : "none");
      dg_buf_free(&b);
      return false;
    }
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || v < 1) {
      *err = dg_printf("case.sizes.%s must be an integer >= 1", k);
      return false;
    }
    c->sizes[i] = v;
  }
  lua_pop(L, 1);
  return true;
}

static bool case_values(lua_State *L, int t, const fuzz_space *s, fuzz_case *c, char **err)
{
  for (int i = 0; i < FUZZ_MAX_INPUTS; i++) c->dist[i] = FUZZ_DIST_NORMAL;
  int ty = rawfield(L, t, "values");
  if (ty == LUA_TNIL) return lua_pop(L, 1), true;
  if (ty == LUA_TSTRING) {
    int d = fuzz_dist_parse(lua_tostring(L, -1));
    if (d < 0) return bad_dist(err, lua_tostring(L, -1), NULL);
    for (int i = 0; i < FUZZ_MAX_INPUTS; i++) c->dist[i] = (fuzz_dist)d;
    return lua_pop(L, 1), true;
  }
  if (ty != LUA_TTABLE)
    return *err = dg_strdup("case.values must be a distribution name or a table such as { x = \"max-last\" }"), false;
  for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int i = 0;
    while (k && i < s->ninputs && !(s->input_names[i] && !strcmp(s->input_names[i], k))) i++;
    if (!k || i == s->ninputs) {
      *err = dg_printf("case.values: '%s' is not an input of this problem", k ? k : luaL_typename(L, -2));
      return false;
    }
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int d = v ? fuzz_dist_parse(v) : -1;
    if (d < 0) return bad_dist(err, v ? v : luaL_typename(L, -1), k);
    c->dist[i] = (fuzz_dist)d;
  }
  lua_pop(L, 1);
  return true;
}

/* ---- calling gen ------------------------------------------------------------------ */
static void gen_hook(lua_State *L, lua_Debug *ar)
{
  if (++S.ticks <= GEN_BUDGET) return;
  lua_sethook(L, NULL, 0, 0);
  lua_getinfo(L, "Sl", ar);
  luaL_error(L, "%s:%d: gen runs too long (an endless loop?)", ar->short_src, ar->currentline);
}

/* "chunk:LINE: msg" from Lua -> "path:LINE: error: strategy 'n': msg" (Lua may
 * shorten a long chunk name, so the path comes from the strategy). */
static char *gen_error(const lstrat *ls, const char *msg)
{
  int line = ls->line;
  const char *rest = msg, *eol = strchr(msg, '\n');
  for (const char *q = strchr(msg, ':'); q && (!eol || q < eol); q = strchr(q + 1, ':')) {
    char *e;
    long n = strtol(q + 1, &e, 10);
    if (e > q + 1 && *e == ':' && isdigit((unsigned char)q[1])) {
      line = (int)n, rest = e + 1;
      break;
    }
  }
  while (*rest == ' ') rest++;
  const char *tb = strstr(rest, "\nstack traceback:");
  return dg_printf("%s:%d: error: strategy '%s': %.*s", ls->path, line, ls->name,
                   tb ? (int)(tb - rest) : (int)strlen(rest), rest);
}

static void rng_metatable(lua_State *L)
{
  static const luaL_Reg methods[] = {
    { "below", r_below }, { "int", r_int }, { "unit", r_unit }, { "normal", r_normal },
    { "pick", r_pick }, { NULL, NULL },
  };
  if (luaL_newmetatable(L, RNG_MT)) {
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
}

dgl_gen_result dgl_call_gen(lua_State *L, int fn, const fuzz_space *s, int64_t k, dg_rng *r,
                            fuzz_case *c, char **msg)
{
  fn = lua_absindex(L, fn);
  *msg = NULL;
  int top = lua_gettop(L);
  lua_pushcfunction(L, dgl_msgh);                  /* top+1 */
  rng_metatable(L);
  rng_ud *u = lua_newuserdatauv(L, sizeof *u, 0);  /* top+2: kept here so u outlives the call */
  u->r = r;
  luaL_setmetatable(L, RNG_MT);
  lua_pushvalue(L, fn);
  push_space(L, s);
  lua_pushinteger(L, k);
  lua_pushvalue(L, top + 2);
  const fuzz_space *outer = S.space;               /* a script's gen may run a campaign */
  int outer_ticks = S.ticks;
  lua_Hook hook = lua_gethook(L);
  int mask = lua_gethookmask(L), count = lua_gethookcount(L);
  S.space = s;
  S.ticks = 0;
  lua_sethook(L, gen_hook, LUA_MASKCOUNT, 1000000);
  int rc = lua_pcall(L, 3, 1, top + 1);
  lua_sethook(L, hook, mask, count);
  S.space = outer;
  S.ticks = outer_ticks;
  u->r = NULL;                                     /* a kept rng turns invalid */
  dgl_gen_result res = DGL_GEN_NONE;
  if (rc != LUA_OK) {
    *msg = dg_strdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
    res = DGL_GEN_ERROR;
  } else if (lua_isnil(L, -1) || (lua_isboolean(L, -1) && !lua_toboolean(L, -1))) {
    res = DGL_GEN_NONE;
  } else if (!lua_istable(L, -1)) {
    *msg = dg_printf("gen returned a %s; it returns a case table { sizes = {…}, values = … } or nil",
                     luaL_typename(L, -1));
    res = DGL_GEN_BAD;
  } else if (case_sizes(L, lua_gettop(L), s, c, msg) && case_values(L, lua_gettop(L), s, c, msg)) {
    bool adm = true;
    for (int i = 0; i < s->nsyms; i++) adm = adm && c->sizes[i] >= 1;
    res = adm && (!s->admissible || s->admissible(s->ud, c->sizes)) ? DGL_GEN_CASE : DGL_GEN_NONE;
  } else res = DGL_GEN_BAD;
  lua_settop(L, top);
  return res;
}

static bool lgen(void *ud, const fuzz_space *s, int64_t k, dg_rng *r, fuzz_case *c)
{
  lstrat *ls = ud;
  lua_State *L = S.L;
  free(ls->err);
  ls->err = NULL;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ls->ref);
  lua_getfield(L, -1, "gen");
  char *msg;
  dgl_gen_result res = dgl_call_gen(L, -1, s, k, r, c, &msg);
  lua_pop(L, 2);
  if (res == DGL_GEN_ERROR) ls->err = gen_error(ls, msg);
  else if (res == DGL_GEN_BAD)
    ls->err = dg_printf("%s:%d: error: strategy '%s', case %lld: %s", ls->path, ls->line, ls->name,
                        (long long)k, msg);
  free(msg);
  return res == DGL_GEN_CASE;
}

static const char *lerror(void *ud) { return ((lstrat *)ud)->err; }

static void lfree(void *ud)
{
  lstrat *ls = ud;
  if (S.L) luaL_unref(S.L, LUA_REGISTRYINDEX, ls->ref);
  free(ls->name), free(ls->path), free(ls->err);
  free(ls);
}

/* ---- loading ----------------------------------------------------------------------- */
bool dgl_strategy_name_ok(const char *n)
{
  if (!*n || strlen(n) > 48) return false;
  for (const char *c = n; *c; c++)
    if (!isalnum((unsigned char)*c) && !strchr("_-+.", *c)) return false;
  return true;
}

/* strategy "name" { help = "…", gen = function(space, k, rng) … end } */
static int l_strategy_named(lua_State *L)
{
  const char *name = lua_tostring(L, lua_upvalueindex(1));
  luaL_checktype(L, 1, LUA_TTABLE);
  for (lua_pushnil(L); lua_next(L, 1); lua_pop(L, 1)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
    if (strcmp(k, "help") && strcmp(k, "gen") && strcmp(k, "name"))
      return luaL_error(L, "strategy '%s': unknown field '%s' (fields: help, gen)", name, k);
  }
  if (lua_getfield(L, 1, "gen") != LUA_TFUNCTION)
    return luaL_error(L, "strategy '%s': gen must be a function(space, k, rng) returning a case", name);
  if (lua_getfield(L, 1, "help") != LUA_TSTRING)
    return luaL_error(L, "strategy '%s': help must be a string saying what it tries", name);
  lua_Debug ar;
  lua_pushvalue(L, -2);
  lua_getinfo(L, ">S", &ar);
  lua_createtable(L, 0, 4);
  lua_insert(L, -3);
  lua_setfield(L, -3, "help");
  lua_setfield(L, -2, "gen");
  lua_pushstring(L, name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, ar.linedefined);
  lua_setfield(L, -2, "line");
  luaL_setmetatable(L, STRATEGY_MT);
  return 1;
}

static int l_strategy(lua_State *L)
{
  const char *name = luaL_checkstring(L, 1);
  if (!dgl_strategy_name_ok(name))
    return luaL_error(L, "strategy name '%s': use letters, digits and _ - + . (no ':' or '@': it goes into witnesses)", name);
  lua_settop(L, 1);
  lua_pushcclosure(L, l_strategy_named, 1);
  return 1;
}

static int l_print(lua_State *L)   /* print goes to stderr: stdout may be a JSON report */
{
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) fprintf(stderr, "%s%s", i > 1 ? "\t" : "", luaL_tolstring(L, i, NULL));
  fputc('\n', stderr);
  return 0;
}

static const char *const env_globals[] = {
  "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber", "tostring",
  "type", "xpcall", "rawequal", "rawget", "rawlen", "rawset", "setmetatable", "getmetatable",
  "string", "table", "utf8", NULL,
};

static void push_env(lua_State *L)
{
  lua_newtable(L);
  for (const char *const *g = env_globals; *g; g++) {
    lua_getglobal(L, *g);
    lua_setfield(L, -2, *g);
  }
  lua_newtable(L);                      /* math without random: cases replay from the rng */
  lua_getglobal(L, "math");
  for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
    const char *k = lua_tostring(L, -2);
    if (strcmp(k, "random") && strcmp(k, "randomseed")) {
      lua_pushvalue(L, -2);
      lua_pushvalue(L, -2);
      lua_settable(L, -6);
    }
  }
  lua_pop(L, 1);
  lua_setfield(L, -2, "math");
  lua_pushcfunction(L, l_print);
  lua_setfield(L, -2, "print");
  lua_pushcfunction(L, l_strategy);
  lua_setfield(L, -2, "strategy");
}

static void open_state(void)
{
  S.L = dgl_newstate();
  S.files = dg_problem_new();
  luaL_newmetatable(S.L, STRATEGY_MT);
  lua_pop(S.L, 1);
}

static bool same_dir(const char *a, const char *b)
{
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
  return na == nb && !strncmp(a, b, na);
}

static bool is_strategy(lua_State *L, int i)
{
  if (!lua_istable(L, i) || !lua_getmetatable(L, i)) return false;
  luaL_getmetatable(L, STRATEGY_MT);
  bool yes = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return yes;
}

static void load_file(const char *path, dg_diags *d)
{
  lua_State *L = S.L;
  uint32_t f = dg_srcmgr_load(&S.files->sm, path);
  if (!f) {
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){0}, "%s: cannot read the strategy file", path);
    return;
  }
  const dg_srcfile *sf = &S.files->sm.files.v[f];
  int top = lua_gettop(L);
  push_env(L);
  if (!dgl_run_chunk(L, sf->text, sf->len, path, -1, S.files, f, d)) {
    lua_settop(L, top);
    return;
  }
  if (!is_strategy(L, -1)) {
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){ f, 1, 1 },
                "a strategy file returns strategy \"name\" { help = \"…\", gen = function(space, k, rng) … end }");
    lua_settop(L, top);
    return;
  }
  lua_getfield(L, -1, "name");
  lua_getfield(L, -2, "line");
  const char *name = lua_tostring(L, -2);
  int line = (int)lua_tointeger(L, -1);
  const fuzz_strategy *old = fuzz_strategy_find(name);
  if (old && (!old->origin || same_dir(old->origin, path))) {
    if (old->origin)
      dg_diag_add(d, DG_SEV_ERROR, (dg_span){ f, (uint32_t)line, 1 },
                  "strategy '%s' is already defined in %s", name, old->origin);
    else
      dg_diag_add(d, DG_SEV_ERROR, (dg_span){ f, (uint32_t)line, 1 },
                  "strategy '%s' is built in; give this one another name", name);
  } else if (!old) {                                /* else shadowed by the user's own */
    lstrat *ls = dg_calloc(1, sizeof *ls);
    ls->name = dg_strdup(name);
    ls->path = dg_strdup(path);
    ls->line = line;
    lua_pushvalue(L, top + 2);
    ls->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, top + 2, "help");
    fuzz_strategy st = { .name = name, .help = lua_tostring(L, -1), .gen_ud = lgen, .error = lerror,
                         .ud = ls, .origin = path };
    fuzz_strategy_register(&st, lfree);
  }
  lua_settop(L, top);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void load_dir(const char *dir, dg_diags *d)
{
  DIR *D = opendir(dir);
  if (!D) return;
  DG_VEC(char *) files = {0};
  for (struct dirent *e; (e = readdir(D)); ) {
    size_t l = strlen(e->d_name);
    if (l > 4 && e->d_name[0] != '.' && !strcmp(e->d_name + l - 4, ".lua"))
      dg_vec_push(&files, dg_printf("%s/%s", dir, e->d_name));
  }
  closedir(D);
  if (files.n) qsort(files.v, files.n, sizeof *files.v, cmp_str);
  for (size_t i = 0; i < files.n; i++) {
    load_file(files.v[i], d);
    free(files.v[i]);
  }
  free(files.v);
}

void dg_strategies_load(dg_diags *d)
{
  if (S.loaded) return;
  S.loaded = true;
  if (!S.L) open_state();
  size_t n;
  char **dirs = dg_strategy_dirs(&n);
  for (size_t i = 0; i < n; i++) {
    load_dir(dirs[i], d);
    free(dirs[i]);
  }
  free(dirs);
}

void dg_strategies_load_print(FILE *f)
{
  dg_diags d = {0};
  dg_strategies_load(&d);
  dg_diags_print(f, dg_strategies_sources(), &d);
  dg_diags_free(&d);
}

const dg_srcmgr *dg_strategies_sources(void)
{
  if (!S.L) open_state();
  return &S.files->sm;
}

void dg_strategies_unload(void)
{
  fuzz_strategy_clear();
  if (S.L) lua_close(S.L);
  if (S.files) dg_problem_free(S.files);
  memset(&S, 0, sizeof S);
}
