/* lua_ref.c — a problem's reference written in Lua, behind dg_ref_ops.
 * ref(T, i, j, …) sees sizes and attributes in T (T.N, T.eps) and the readable
 * tensors (inputs, accumulate outputs) as 0-based, bounds-checked views:
 * T.x[i][j] is a number (concrete) or a symbolic value (read through the
 * symbolic engine's callback). */
#include "lua_int.h"
#include <stdlib.h>
#include <string.h>

#define VIEW_MT "dirigo.view"
#define MAX_RANK 8

typedef struct {
  lua_State *L;
  dg_problem *p;
  int *fn;               /* per tensor: registry ref of its function, LUA_NOREF if none */
  int T;                 /* registry ref of the T table */
  int64_t *dims;         /* per tensor, MAX_RANK each: shapes at cur_sizes */
  int64_t *cur_sizes;
  bool have_sizes;
  const dg_ref_env *env; /* of the call in progress */
} lref;

typedef struct {
  lref *r;
  int t, dim;            /* dims indexed so far */
  int64_t off;           /* flat offset of the prefix */
  int64_t idx[MAX_RANK];
} view;

static int64_t *tdims(lref *r, int t) { return r->dims + (size_t)t * MAX_RANK; }

/* Pushes element idx of tensor t: a number, or a symbolic value. */
static void push_elem(lua_State *L, lref *r, int t, int64_t flat, const int64_t *idx)
{
  const dg_tensor *tt = &r->p->tensors.v[t];
  const dg_ref_env *env = r->env;
  dg_refval v = { false, 0, 0 };
  if (env->data) {
    if (!env->data[t]) luaL_error(L, "%s has no data in this evaluation", tt->name);
    v.num = env->data[t][flat];
  } else if (!env->read || !env->read(env->ud, t, idx, &v)) {
    luaL_error(L, "cannot read %s", tt->name);
  }
  if (v.is_sym) {
    if (!env->sym) luaL_error(L, "symbolic value without a value domain");
    dgl_value_push(L, env->sym, v.sym);
  } else if (!dg_dtypes[tt->dtype].is_float && v.num == (double)(lua_Integer)v.num) {
    lua_pushinteger(L, (lua_Integer)v.num);     /* index-valued: usable as an index */
  } else {
    lua_pushnumber(L, v.num);
  }
}

static int view_index(lua_State *L)
{
  view *v = luaL_checkudata(L, 1, VIEW_MT);
  lref *r = v->r;
  const dg_tensor *tt = &r->p->tensors.v[v->t];
  int isint;
  lua_Integer i = lua_tointegerx(L, 2, &isint);
  if (!isint && dgl_value_test(L, 2))
    return luaL_error(L, "%s: index in dim %d is a symbolic value (an index-valued input needs a range)", tt->name, v->dim);
  if (!isint)
    return luaL_error(L, "%s: index %s is not an integer (dim %d)", tt->name, luaL_tolstring(L, 2, NULL), v->dim);
  int64_t n = tdims(r, v->t)[v->dim];
  if (i < 0 || i >= n)
    return luaL_error(L, "%s: index %I out of range [0,%I) in dim %d", tt->name, i, (lua_Integer)n, v->dim);
  int64_t off = v->off * n + i;
  if (v->dim + 1 == (int)tt->shape.n) {
    v->idx[v->dim] = i;
    push_elem(L, r, v->t, off, v->idx);
    return 1;
  }
  view *w = lua_newuserdatauv(L, sizeof *w, 0);
  *w = *v;
  w->idx[v->dim] = i;
  w->dim = v->dim + 1;
  w->off = off;
  luaL_setmetatable(L, VIEW_MT);
  return 1;
}

static int view_newindex(lua_State *L)
{
  view *v = luaL_checkudata(L, 1, VIEW_MT);
  return luaL_error(L, "%s is read-only in a reference", v->r->p->tensors.v[v->t].name);
}

static int view_len(lua_State *L)
{
  view *v = luaL_checkudata(L, 1, VIEW_MT);
  lua_pushinteger(L, tdims(v->r, v->t)[v->dim]);
  return 1;
}

/* T.s for a rank-0 tensor s: read on access (T's __index). */
static int T_index(lua_State *L)
{
  lref *r = lua_touserdata(L, lua_upvalueindex(1));
  const char *k = lua_tostring(L, 2);
  int t = k ? dg_problem_tensor(r->p, k) : -1;
  if (t < 0) return 0;
  const dg_tensor *tt = &r->p->tensors.v[t];
  if (tt->shape.n != 0 || (tt->role == DG_TENSOR_OUTPUT && !tt->accumulate)) return 0;
  int64_t idx[1] = { 0 };
  push_elem(L, r, t, 0, idx);
  return 1;
}

static bool readable(const dg_tensor *t)
{
  return t->role == DG_TENSOR_INPUT || (t->role == DG_TENSOR_OUTPUT && t->accumulate);
}

/* New sizes: shapes, T's size fields. */
static bool set_sizes(lref *r, const int64_t *sizes, char **err)
{
  size_t ns = r->p->sizes.n;
  if (r->have_sizes && !memcmp(r->cur_sizes, sizes, ns * sizeof *sizes)) return true;
  dg_diags d = {0};
  for (size_t t = 0; t < r->p->tensors.n; t++) {
    if (r->p->tensors.v[t].shape.n > MAX_RANK || !dg_problem_shape(r->p, (int)t, sizes, tdims(r, (int)t), &d)) {
      dg_buf b = {0};
      if (d.v.n) dg_diag_format(&b, &r->p->sm, &d.v.v[0]);
      else dg_buf_printf(&b, "%s: rank above %d", r->p->tensors.v[t].name, MAX_RANK);
      *err = dg_buf_take(&b);
      dg_diags_free(&d);
      r->have_sizes = false;
      return false;
    }
  }
  memcpy(r->cur_sizes, sizes, ns * sizeof *sizes);
  r->have_sizes = true;
  lua_State *L = r->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->T);
  for (size_t i = 0; i < ns; i++) {
    lua_pushinteger(L, sizes[i]);
    lua_setfield(L, -2, r->p->sizes.v[i].name);
  }
  lua_pop(L, 1);
  return true;
}

static dg_ref_status call_ref(lref *r, int t, const int64_t *idx, dg_refval *out, char **err)
{
  lua_State *L = r->L;
  const dg_tensor *tt = &r->p->tensors.v[t];
  if (r->fn[t] == LUA_NOREF) {
    *err = dg_printf("the op has no reference for output %s", tt->name);
    return DG_REF_ERROR;
  }
  int rank = (int)tt->shape.n;
  for (int k = 0; k < rank; k++)
    if (idx[k] < 0 || idx[k] >= tdims(r, t)[k]) {
      *err = dg_printf("%s: index %lld out of range [0,%lld) in dim %d", tt->name, (long long)idx[k],
                       (long long)tdims(r, t)[k], k);
      return DG_REF_ERROR;
    }
  lua_checkstack(L, rank + 4);
  lua_pushcfunction(L, dgl_msgh);
  int h = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->fn[t]);
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->T);
  for (int k = 0; k < rank; k++) lua_pushinteger(L, idx[k]);
  if (lua_pcall(L, rank + 1, 1, h) != LUA_OK) {
    *err = dg_strdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "error in the reference");
    lua_settop(L, h - 1);
    return DG_REF_ERROR;
  }
  dg_ref_status s = DG_REF_OK;
  dgl_value *v;
  *out = (dg_refval){ false, 0, 0 };
  if (lua_isnil(L, -1)) s = DG_REF_NIL;
  else if (lua_type(L, -1) == LUA_TNUMBER) out->num = lua_tonumber(L, -1);
  else if (lua_type(L, -1) == LUA_TBOOLEAN) out->num = lua_toboolean(L, -1);
  else if ((v = dgl_value_test(L, -1))) out->is_sym = true, out->sym = v->id;
  else {
    *err = dg_printf("the reference of %s returned a %s (a number, a value or nil expected)", tt->name,
                     luaL_typename(L, -1));
    s = DG_REF_ERROR;
  }
  lua_settop(L, h - 1);
  return s;
}

static dg_ref_status lref_eval(void *self, const dg_ref_env *env, int t, const int64_t *idx,
                               dg_refval *out, char **err)
{
  lref *r = self;
  if (!set_sizes(r, env->sizes, err)) return DG_REF_ERROR;
  r->env = env;
  dg_ref_status s = call_ref(r, t, idx, out, err);
  r->env = NULL;
  return s;
}

static dg_ref_status lref_eval_all(void *self, const dg_ref_env *env, int t, double *out,
                                   uint8_t *defined, char **err)
{
  lref *r = self;
  if (!set_sizes(r, env->sizes, err)) return DG_REF_ERROR;
  r->env = env;
  int rank = (int)r->p->tensors.v[t].shape.n;
  const int64_t *dims = tdims(r, t);
  int64_t idx[MAX_RANK] = {0}, n = 1;
  for (int k = 0; k < rank; k++) n *= dims[k];
  dg_ref_status s = DG_REF_OK;
  for (int64_t lin = 0; lin < n && s != DG_REF_ERROR; lin++) {
    dg_refval v;
    s = call_ref(r, t, idx, &v, err);
    if (s == DG_REF_OK && v.is_sym) {
      *err = dg_printf("the reference gave a symbolic value in a concrete evaluation");
      s = DG_REF_ERROR;
    }
    out[lin] = s == DG_REF_OK ? v.num : 0;
    defined[lin] = s == DG_REF_OK;
    for (int k = rank - 1; k >= 0 && ++idx[k] == dims[k]; k--) idx[k] = 0;   /* row-major odometer */
  }
  r->env = NULL;
  return s == DG_REF_ERROR ? s : DG_REF_OK;
}

static void lref_free(void *self)
{
  lref *r = self;
  lua_close(r->L);
  free(r->fn);
  free(r->dims);
  free(r->cur_sizes);
  free(r);
}

static const dg_ref_ops lua_ref_ops = { "lua", lref_eval, lref_eval_all, lref_free };

void dgl_ref_install(lua_State *L, dg_problem *p, int ref_idx, int attrs_idx)
{
  ref_idx = lua_absindex(L, ref_idx);
  attrs_idx = lua_absindex(L, attrs_idx);
  lref *r = dg_calloc(1, sizeof *r);
  r->L = L;
  r->p = p;
  size_t nt = p->tensors.n;
  r->fn = dg_malloc((nt + 1) * sizeof *r->fn);
  r->dims = dg_calloc((nt + 1) * MAX_RANK, sizeof *r->dims);
  r->cur_sizes = dg_calloc(p->sizes.n + 1, sizeof *r->cur_sizes);
  for (size_t t = 0; t < nt; t++) {
    r->fn[t] = LUA_NOREF;
    if (p->tensors.v[t].role != DG_TENSOR_OUTPUT) continue;
    if (lua_type(L, ref_idx) == LUA_TFUNCTION) lua_pushvalue(L, ref_idx);
    else if (lua_type(L, ref_idx) == LUA_TTABLE) lua_getfield(L, ref_idx, p->tensors.v[t].name);
    else lua_pushnil(L);
    if (lua_type(L, -1) == LUA_TFUNCTION) r->fn[t] = luaL_ref(L, LUA_REGISTRYINDEX);
    else lua_pop(L, 1);
  }
  if (luaL_newmetatable(L, VIEW_MT)) {
    static const luaL_Reg mm[] = { { "__index", view_index }, { "__newindex", view_newindex },
                                   { "__len", view_len }, { NULL, NULL } };
    luaL_setfuncs(L, mm, 0);
  }
  lua_pop(L, 1);
  /* T: attributes, sizes (set per call), tensor views */
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, attrs_idx)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, -4);
  }
  for (size_t t = 0; t < nt; t++) {
    const dg_tensor *tt = &p->tensors.v[t];
    if (!readable(tt) || tt->shape.n == 0) continue;
    view *v = lua_newuserdatauv(L, sizeof *v, 0);
    memset(v, 0, sizeof *v);
    v->r = r;
    v->t = (int)t;
    luaL_setmetatable(L, VIEW_MT);
    lua_setfield(L, -2, tt->name);
  }
  lua_newtable(L);
  lua_pushlightuserdata(L, r);
  lua_pushcclosure(L, T_index, 1);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  r->T = luaL_ref(L, LUA_REGISTRYINDEX);
  p->ref = (dg_ref){ &lua_ref_ops, r };
}
