/* lua_dirigo.c — the `dirigo` module for scripts (dirigo run SCRIPT.lua):
 * load problems, list ops, parse kernel files, evaluate references. One
 * metatable per C type; handles turn invalid when closed. doc/lua-api.md
 * documents each binding. */
#include "config.h"
#include "lua_spec_int.h"
#include <stdlib.h>
#include <string.h>

#define PROBLEM_MT "dirigo.problem"

typedef struct { dg_problem *p; } problem_ud;

static dg_problem *check_problem(lua_State *L, int i)
{
  problem_ud *u = luaL_checkudata(L, i, PROBLEM_MT);
  if (!u->p) luaL_error(L, "the problem is closed");
  return u->p;
}

dg_problem *dgl_problem_check(lua_State *L, int i) { return check_problem(L, i); }

static char *diags_text(const dg_srcmgr *sm, const dg_diags *d)
{
  dg_buf b = {0};
  for (size_t i = 0; i < d->v.n; i++) {
    if (i) dg_buf_putc(&b, '\n');
    dg_diag_format(&b, sm, &d->v.v[i]);
  }
  return dg_buf_take(&b);
}

/* dirigo.load(path) -> problem | nil, diagnostics */
static int l_load(lua_State *L)
{
  const char *path = luaL_checkstring(L, 1);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  if (d.nerrors) {
    char *t = diags_text(&p->sm, &d);
    lua_pushnil(L);
    lua_pushstring(L, t);
    free(t);
    dg_diags_free(&d);
    dg_problem_free(p);
    return 2;
  }
  dg_diags_free(&d);
  problem_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->p = p;
  luaL_setmetatable(L, PROBLEM_MT);
  return 1;
}

static int p_close(lua_State *L)
{
  problem_ud *u = luaL_checkudata(L, 1, PROBLEM_MT);
  if (u->p && dgl_problem_busy(u->p)) return luaL_error(L, "the problem is in use by dirigo.fuzz or dirigo.replay");
  dg_problem_free(u->p);
  u->p = NULL;
  return 0;
}

/* sizes: a table name -> value over the spec's defaults, at stack index i (optional). */
static void sizes_arg(lua_State *L, const dg_problem *p, int i, int64_t *sizes)
{
  dg_problem_default_sizes(p, sizes);
  if (i <= 0 || lua_isnoneornil(L, i)) return;
  luaL_checktype(L, i, LUA_TTABLE);
  for (size_t k = 0; k < p->sizes.n; k++) {
    if (lua_getfield(L, i, p->sizes.v[k].name) != LUA_TNIL) {
      int isint;
      sizes[k] = lua_tointegerx(L, -1, &isint);
      if (!isint) luaL_error(L, "size '%s' must be an integer", p->sizes.v[k].name);
    }
    lua_pop(L, 1);
  }
  /* a name the problem does not have (a misspelt N) would silently keep the spec's value */
  for (lua_pushnil(L); lua_next(L, i); lua_pop(L, 1)) {
    if (lua_type(L, -2) == LUA_TSTRING && dg_problem_size(p, lua_tostring(L, -2)) >= 0) continue;
    dg_buf b = {0};
    for (size_t k = 0; k < p->sizes.n; k++) dg_buf_printf(&b, "%s%s", k ? ", " : "", p->sizes.v[k].name);
    lua_pushfstring(L, "no size '%s' (its sizes: %s)", lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?",
                    b.s ? b.s : "none");
    dg_buf_free(&b);
    lua_error(L);
  }
}

static void push_sizes(lua_State *L, const dg_problem *p, const int64_t *sizes)
{
  lua_createtable(L, 0, (int)p->sizes.n);
  for (size_t k = 0; k < p->sizes.n; k++) {
    lua_pushinteger(L, sizes[k]);
    lua_setfield(L, -2, p->sizes.v[k].name);
  }
}

static void push_i3(lua_State *L, const int64_t *v)
{
  lua_createtable(L, 3, 0);
  for (int k = 0; k < 3; k++) {
    lua_pushinteger(L, v[k]);
    lua_rawseti(L, -2, k + 1);
  }
}

static const char *const role_names[] = { "input", "output", "scratch" };
static const char *const arg_kinds[] = { "expr", "float", "bool", "null", "tag", "tensor", "attr" };

static void push_tensor(lua_State *L, const dg_problem *p, int t, const int64_t *sizes)
{
  const dg_tensor *tt = &p->tensors.v[t];
  lua_createtable(L, 0, 8);
  lua_pushstring(L, tt->name);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, role_names[tt->role]);
  lua_setfield(L, -2, "role");
  lua_pushstring(L, dg_dtypes[tt->dtype].name);
  lua_setfield(L, -2, "dtype");
  lua_pushboolean(L, tt->accumulate);
  lua_setfield(L, -2, "accumulate");
  int64_t dims[16];
  bool have = tt->shape.n <= 16 && dg_problem_shape(p, t, sizes, dims, NULL);
  lua_createtable(L, (int)tt->shape.n, 0);
  lua_createtable(L, (int)tt->shape.n, 0);
  for (size_t k = 0; k < tt->shape.n; k++) {
    lua_pushstring(L, tt->shape.v[k].text);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
    if (have) lua_pushinteger(L, dims[k]);
    else lua_pushnil(L);
    lua_rawseti(L, -3, (lua_Integer)k + 1);
  }
  lua_setfield(L, -3, "shape_expr");
  lua_setfield(L, -2, "shape");
  int64_t lo, hi;
  if (dg_problem_range(p, t, sizes, &lo, &hi, NULL)) {
    int64_t r[3] = { lo, hi, 0 };
    push_i3(L, r);
    lua_pushnil(L);
    lua_rawseti(L, -2, 3);
    lua_setfield(L, -2, "range");
  }
}

static void push_launch(lua_State *L, const dg_problem *p, int i, const int64_t *sizes)
{
  const dg_launch *l = p->launches.v[i];
  lua_createtable(L, 0, 8);
  lua_pushstring(L, l->kernel);
  lua_setfield(L, -2, "kernel");
  lua_pushstring(L, l->text);
  lua_setfield(L, -2, "text");
  lua_createtable(L, (int)l->targs.n, 0);
  for (size_t k = 0; k < l->targs.n; k++) {
    lua_pushstring(L, l->targs.v[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "template");
  int64_t g[3], b[3], sh;
  if (dg_problem_launch_dims(p, i, sizes, g, b, &sh, NULL)) {
    push_i3(L, g);
    lua_setfield(L, -2, "grid");
    push_i3(L, b);
    lua_setfield(L, -2, "block");
    lua_pushinteger(L, sh);
    lua_setfield(L, -2, "shared");
  }
  lua_createtable(L, (int)l->args.n, 0);
  for (size_t k = 0; k < l->args.n; k++) {
    const dg_launch_arg *a = &l->args.v[k];
    lua_createtable(L, 0, 3);
    lua_pushstring(L, a->text);
    lua_setfield(L, -2, "text");
    lua_pushstring(L, arg_kinds[a->kind]);
    lua_setfield(L, -2, "kind");
    int64_t v;
    if (dg_problem_arg_int(p, i, (int)k, sizes, &v, NULL)) {
      lua_pushinteger(L, v);
      lua_setfield(L, -2, "value");
    }
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "args");
}

/* problem.<field> — computed at the spec's sizes. */
static int p_index(lua_State *L)
{
  dg_problem *p = check_problem(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (luaL_getmetafield(L, 1, "methods") && lua_getfield(L, -1, k) != LUA_TNIL) return 1;
  int64_t sizes[p->sizes.n + 1];
  dg_problem_default_sizes(p, sizes);
  if (!strcmp(k, "path")) lua_pushstring(L, p->spec_path);
  else if (!strcmp(k, "source")) lua_pushstring(L, p->source);
  else if (!strcmp(k, "op")) lua_pushstring(L, p->op_name);
  else if (!strcmp(k, "dtype")) lua_pushstring(L, dg_dtypes[p->dtype].name);
  else if (!strcmp(k, "sizes")) push_sizes(L, p, sizes);
  else if (!strcmp(k, "seeded_bug")) lua_pushstring(L, p->bug_pattern);
  else if (!strcmp(k, "tensors") || !strcmp(k, "launches") || !strcmp(k, "constraints") || !strcmp(k, "attrs")) {
    size_t n = k[0] == 't' ? p->tensors.n : k[0] == 'l' ? p->launches.n : k[0] == 'c' ? p->constraints.n : p->attrs.n;
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
      if (k[0] == 't') push_tensor(L, p, (int)i, sizes);
      else if (k[0] == 'l') push_launch(L, p, (int)i, sizes);
      else if (k[0] == 'c') lua_pushstring(L, p->constraints.v[i].e.text);
      else {
        const dg_attr *a = &p->attrs.v[i];
        if (a->kind == DG_ATTR_STR) lua_pushstring(L, a->s);
        else if (a->kind == DG_ATTR_BOOL) lua_pushboolean(L, (int)a->i);
        else if (a->kind == DG_ATTR_INT) lua_pushinteger(L, a->i);
        else if (a->kind == DG_ATTR_FLOAT) lua_pushnumber(L, a->f);
        else {
          lua_createtable(L, (int)a->list.n, 0);
          for (size_t j = 0; j < a->list.n; j++) {
            lua_pushnumber(L, a->list.v[j]);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
          }
        }
        lua_setfield(L, -2, a->name);
        continue;
      }
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
  } else lua_pushnil(L);
  return 1;
}

/* problem:shape(name [, sizes]) -> {dims} */
static int p_shape(lua_State *L)
{
  dg_problem *p = check_problem(L, 1);
  int t = dg_problem_tensor(p, luaL_checkstring(L, 2));
  luaL_argcheck(L, t >= 0, 2, "no such tensor");
  int64_t sizes[p->sizes.n + 1];
  sizes_arg(L, p, 3, sizes);
  push_tensor(L, p, t, sizes);
  lua_getfield(L, -1, "shape");
  return 1;
}

/* problem:check_sizes(sizes) -> true | false, diagnostics */
static int p_check_sizes(lua_State *L)
{
  dg_problem *p = check_problem(L, 1);
  int64_t sizes[p->sizes.n + 1];
  sizes_arg(L, p, 2, sizes);
  dg_diags d = {0};
  bool good = dg_problem_check_sizes(p, sizes, &d);
  lua_pushboolean(L, good);
  if (!good) {
    char *t = diags_text(&p->sm, &d);
    lua_pushstring(L, t);
    free(t);
  }
  dg_diags_free(&d);
  return good ? 1 : 2;
}

static int p_tostring(lua_State *L)
{
  problem_ud *u = luaL_checkudata(L, 1, PROBLEM_MT);
  if (!u->p) lua_pushliteral(L, "problem (closed)");
  else lua_pushfstring(L, "problem %s (op %s)", u->p->spec_path, u->p->op_name);
  return 1;
}

/* ---- dirigo.ref ----------------------------------------------------------------------- */
/* Inputs for every tensor: from opts.inputs (flat, row-major) or random by
 * seed. The buffers are userdata anchored in a table pushed on the stack, so
 * an error raised half-way leaks nothing. */
static void ref_inputs(lua_State *L, const dg_problem *p, const int64_t *sizes, int opts, double **data)
{
  uint64_t seed = 1;
  if (opts && lua_getfield(L, opts, "seed") != LUA_TNIL) seed = (uint64_t)luaL_checkinteger(L, -1);
  if (opts) lua_pop(L, 1);
  dg_rng rng;
  dg_rng_seed(&rng, seed);
  lua_createtable(L, (int)p->tensors.n, 0);
  int anchor = lua_gettop(L);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *tt = &p->tensors.v[t];
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    if (n < 0 || n > ((int64_t)1 << 31)) luaL_error(L, "cannot make tensor %s at these sizes", tt->name);
    data[t] = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof(double), 0);
    lua_rawseti(L, anchor, (lua_Integer)t + 1);
    bool given = opts && lua_getfield(L, opts, "inputs") == LUA_TTABLE && lua_getfield(L, -1, tt->name) != LUA_TNIL;
    if (given && !lua_istable(L, -1)) luaL_error(L, "opts.inputs.%s must be a list of numbers (flat, row-major)", tt->name);
    if (given && (int64_t)lua_rawlen(L, -1) != n)
      luaL_error(L, "opts.inputs.%s has %d values, the tensor %d at these sizes", tt->name, (int)lua_rawlen(L, -1), (int)n);
    int64_t lo = 0, hi = 0;
    bool ranged = dg_problem_range(p, (int)t, sizes, &lo, &hi, NULL);
    for (int64_t i = 0; i < n; i++) {
      if (given) {
        if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER)
          luaL_error(L, "opts.inputs.%s[%d] is not a number", tt->name, (int)(i + 1));
        data[t][i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
      } else if (ranged) data[t][i] = (double)(lo + (int64_t)dg_rng_below(&rng, (uint64_t)(hi - lo + 1)));
      else if (tt->positive) data[t][i] = 0.1 + dg_rng_unit(&rng);
      else data[t][i] = dg_rng_normal(&rng);
    }
    lua_settop(L, anchor);
  }
}

/* dirigo.ref(problem, output, idx, [opts]) -> value | nil (unchecked element) */
static int l_ref(lua_State *L)
{
  dg_problem *p = check_problem(L, 1);
  const char *out = luaL_checkstring(L, 2);
  int t = dg_problem_tensor(p, out);
  luaL_argcheck(L, t >= 0 && p->tensors.v[t].role == DG_TENSOR_OUTPUT, 2, "not an output of the problem");
  size_t rank = p->tensors.v[t].shape.n;
  int64_t idx[16] = {0};
  if (lua_type(L, 3) == LUA_TNUMBER) idx[0] = luaL_checkinteger(L, 3);
  else {
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_argcheck(L, lua_rawlen(L, 3) == rank && rank <= 16, 3, "one index per dimension");
    for (size_t k = 0; k < rank; k++) {
      lua_rawgeti(L, 3, (lua_Integer)k + 1);
      int isint;
      idx[k] = lua_tointegerx(L, -1, &isint);
      if (!isint) luaL_argerror(L, 3, lua_pushfstring(L, "index %d must be an integer", (int)k + 1));
      lua_pop(L, 1);
    }
  }
  int opts = lua_istable(L, 4) ? 4 : 0;
  int64_t sizes[p->sizes.n + 1];
  if (opts) lua_getfield(L, opts, "sizes");
  sizes_arg(L, p, opts ? lua_gettop(L) : 0, sizes);
  if (opts) lua_settop(L, opts);
  dg_diags d = {0};
  if (!dg_problem_check_sizes(p, sizes, &d)) {
    char *m = diags_text(&p->sm, &d);
    dg_diags_free(&d);
    lua_pushstring(L, m);
    free(m);
    return lua_error(L);
  }
  double **data = lua_newuserdatauv(L, (p->tensors.n + 1) * sizeof *data, 0);
  ref_inputs(L, p, sizes, opts, data);
  dg_ref_env env = { .sizes = sizes, .data = (const double *const *)data };
  dg_refval v;
  char *err = NULL;
  dg_ref_status s = dg_problem_ref_eval(p, &env, t, idx, &v, &err);
  if (s == DG_REF_ERROR) {
    lua_pushstring(L, err ? err : "reference failed");
    free(err);
    return lua_error(L);
  }
  if (s == DG_REF_NIL) lua_pushnil(L);
  else lua_pushnumber(L, v.num);
  return 1;
}

/* dirigo.ops() -> sorted list of op names */
static int l_ops(lua_State *L)
{
  size_t n;
  char **names = dg_ops_list(&n);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
    free(names[i]);
  }
  free(names);
  return 1;
}

/* dirigo.op_path(name) -> path | nil */
static int l_op_path(lua_State *L)
{
  char *path = dg_ops_find(luaL_checkstring(L, 1));
  if (path) lua_pushstring(L, path);
  else lua_pushnil(L);
  free(path);
  return 1;
}

static const luaL_Reg problem_methods[] = {
  { "shape", p_shape }, { "check_sizes", p_check_sizes }, { "close", p_close }, { NULL, NULL },
};

int dg_lua_open_dirigo(lua_State *L)
{
  if (luaL_newmetatable(L, PROBLEM_MT)) {
    static const luaL_Reg mm[] = { { "__index", p_index }, { "__gc", p_close }, { "__close", p_close },
                                   { "__tostring", p_tostring }, { NULL, NULL } };
    luaL_setfuncs(L, mm, 0);
    luaL_newlib(L, problem_methods);
    lua_setfield(L, -2, "methods");
  }
  lua_pop(L, 1);
  static const luaL_Reg fns[] = {
    { "load", l_load }, { "ops", l_ops }, { "op_path", l_op_path }, { "ref", l_ref },
    { "parse", dgl_parse }, { "check", dgl_check }, { NULL, NULL },
  };
  luaL_newlib(L, fns);
  dgl_fuzz_open(L);                    /* fuzz, replay, strategies, dists (lua_fuzz.c) */
  lua_pushstring(L, PACKAGE_VERSION);
  lua_setfield(L, -2, "version");
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "dirigo");
  lua_pop(L, 1);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "dirigo");
  return 1;
}
