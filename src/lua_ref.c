/* lua_ref.c — a problem's reference written in Lua, behind dg_ref_ops.
 * ref(T, i, j, …) sees sizes and attributes in T (T.N, T.eps) and the readable
 * tensors (inputs, accumulate outputs) as 0-based, bounds-checked views:
 * T.x[i][j] is a number (concrete) or a symbolic value (read through the
 * symbolic engine's callback). ref_all(T, out, name), the optional batch form
 * (doc/ops.md), fills a whole output for eval_all and eval_all_within. */
#include "lua_int.h"
#include "lua_spec.h"
#include <stdlib.h>
#include <string.h>

#define VIEW_MT "dirigo.view"
#define OUT_MT "dirigo.out"
#define MAX_RANK 8

typedef struct {
  lua_State *L;
  dg_problem *p;
  int *fn;               /* per tensor: registry ref of its function, LUA_NOREF if none */
  int *fn_all;           /* per tensor: registry ref of its ref_all function, LUA_NOREF if none */
  int T;                 /* registry ref of the T table */
  int64_t *dims;         /* per tensor, MAX_RANK each: shapes at cur_sizes */
  int64_t *cur_sizes;
  bool have_sizes;
  const dg_ref_env *env; /* of the call in progress */
  dg_sym_ops symw;       /* env->sym's callbacks, the deadline looked at before each (sym_apply) */
  bool *too_slow;        /* per tensor: ref_all ran past its budget at slow_sizes */
  int64_t *slow_sizes;   /* per tensor, p->sizes.n each */
} lref;

/* The tensors of T (doc/design.md §3.2 notes): a tensor of rank r is a chain
 * of r - 1 read-only proxy tables whose rows are created on first access and
 * cached (T.x[i] after the first time is a plain table hit, no C call), and
 * a leaf userdata `view` for the last dimension, whose __index reads the
 * element. The chain is rebuilt when the sizes change. */
typedef struct {
  lref *r;
  int t, dim;            /* dims indexed so far */
  bool is_float;
  int64_t off;           /* flat offset of the prefix */
  int64_t n;             /* length of dimension dim */
  int64_t idx[MAX_RANK];
} view;

static int64_t *tdims(lref *r, int t) { return r->dims + (size_t)t * MAX_RANK; }

/* Past the deadline of the call in progress (dg_ref_env.deadline): an error that ends it. The
 * count hook (pcall_ref) looks every 10^4 Lua instructions, but one instruction can be many
 * term callbacks: max(table.unpack(t)) folds 900,000 symbolic values in one C call, 8 s of
 * terms past --budget 1.5 (t/check/budget.sh). So every read and operation of the symbolic
 * domain looks too (a clock read beside a term built). */
static void past_deadline(lua_State *L, const dg_ref_env *env)
{
  if (env->deadline > 0 && dg_now() > env->deadline) luaL_error(L, "the reference ran past the deadline");
}

/* The symbolic domain's callbacks as a reference's values carry them (dgl_value.ops): the
 * caller's, for the call in progress, the deadline looked at first. A value kept from an
 * earlier call (in an upvalue) has no domain once that call is over. */
static const dg_sym_ops *sym_of(lref *r)
{
  if (!r->env || !r->env->sym) luaL_error(r->L, "a symbolic value outside the reference call that made it");
  past_deadline(r->L, r->env);
  return r->env->sym;
}

static dg_symval sym_constant(void *ud, double v)
{
  const dg_sym_ops *o = sym_of(ud);
  return o->constant(o->ud, v);
}

static dg_symval sym_apply(void *ud, dg_vop op, const dg_symval *args)
{
  const dg_sym_ops *o = sym_of(ud);
  return o->apply(o->ud, op, args);
}

/* Pushes element idx of tensor t: a number, or a symbolic value. */
static void push_elem(lua_State *L, lref *r, int t, int64_t flat, const int64_t *idx)
{
  const dg_tensor *tt = &r->p->tensors.v[t];
  const dg_ref_env *env = r->env;
  dg_refval v = { false, 0, 0 };
  if (!env) luaL_error(L, "%s is read outside a reference call", tt->name);
  if (env->data) {
    if (!env->data[t]) luaL_error(L, "%s has no data in this evaluation", tt->name);
    v.num = env->data[t][flat];
  } else {
    past_deadline(L, env);
    if (!env->read || !env->read(env->ud, t, idx, &v)) luaL_error(L, "cannot read %s", tt->name);
  }
  if (v.is_sym) {
    if (!env->sym) luaL_error(L, "symbolic value without a value domain");
    dgl_value_push(L, &r->symw, v.sym);
  } else if (!dg_dtypes[tt->dtype].is_float && v.num == (double)(lua_Integer)v.num) {
    lua_pushinteger(L, (lua_Integer)v.num);     /* index-valued: usable as an index */
  } else {
    lua_pushnumber(L, v.num);
  }
}

/* The index at 2 in [0, n), or an error naming the tensor and dim. */
static lua_Integer check_index(lua_State *L, const lref *r, int t, int dim, int64_t n)
{
  const dg_tensor *tt = &r->p->tensors.v[t];
  int isint;
  lua_Integer i = lua_tointegerx(L, 2, &isint);
  if (!isint && dgl_value_test(L, 2))
    luaL_error(L, "%s: index in dim %d is a symbolic value (an index-valued input needs a range)", tt->name, dim);
  if (!isint)
    luaL_error(L, "%s: index %s is not an integer (dim %d)", tt->name, luaL_tolstring(L, 2, NULL), dim);
  if (i < 0 || i >= n)
    luaL_error(L, "%s: index %I out of range [0,%I) in dim %d", tt->name, i, (lua_Integer)n, dim);
  return i;
}

/* The leaf: v[i] is an element. Only reachable through its metatable, which
 * is hidden (__metatable), so arg 1 is a view. */
static int view_index(lua_State *L)
{
  view *v = lua_touserdata(L, 1);
  if (!v || lua_rawlen(L, 1) != sizeof *v) return luaL_error(L, "not a tensor view");
  lref *r = v->r;
  int isint;
  lua_Integer i = lua_tointegerx(L, 2, &isint);
  if (!isint || i < 0 || i >= v->n) i = check_index(L, r, v->t, v->dim, v->n);
  const dg_ref_env *env = r->env;
  if (env && env->data && env->data[v->t]) {     /* the concrete fast path */
    double x = env->data[v->t][v->off * v->n + i];
    if (!v->is_float && x == (double)(lua_Integer)x) lua_pushinteger(L, (lua_Integer)x);
    else lua_pushnumber(L, x);
    return 1;
  }
  v->idx[v->dim] = i;
  push_elem(L, r, v->t, v->off * v->n + i, v->idx);
  return 1;
}

static int view_newindex(lua_State *L)
{
  view *v = lua_touserdata(L, 1);
  if (!v || lua_rawlen(L, 1) != sizeof *v) return luaL_error(L, "not a tensor view");
  return luaL_error(L, "%s is read-only in a reference", v->r->p->tensors.v[v->t].name);
}

static int view_len(lua_State *L)
{
  view *v = lua_touserdata(L, 1);
  if (!v || lua_rawlen(L, 1) != sizeof *v) return luaL_error(L, "not a tensor view");
  lua_pushinteger(L, v->n);
  return 1;
}

static void push_node(lua_State *L, const view *at);

/* A row not yet cached: (cache, i). Upvalue 1: the node's view (prefix). */
static int node_miss(lua_State *L)
{
  view *v = lua_touserdata(L, lua_upvalueindex(1));
  lua_Integer i = check_index(L, v->r, v->t, v->dim, v->n);
  view w = *v;
  w.idx[v->dim] = i;
  w.off = v->off * v->n + i;
  w.dim = v->dim + 1;
  w.n = tdims(v->r, v->t)[w.dim];
  push_node(L, &w);
  lua_pushvalue(L, -1);
  lua_rawseti(L, 1, i);
  return 1;
}

/* (proxy, k, v): tensors are read-only. Upvalue 1: the node's view. */
static int node_newindex(lua_State *L)
{
  view *v = lua_touserdata(L, lua_upvalueindex(1));
  return luaL_error(L, "%s is read-only in a reference", v->r->p->tensors.v[v->t].name);
}

static int node_len(lua_State *L)
{
  view *v = lua_touserdata(L, lua_upvalueindex(1));
  lua_pushinteger(L, v->n);
  return 1;
}

/* Pushes the node for prefix `at` (dims 0..at->dim-1 indexed): the leaf view
 * for the last dim, else a proxy table { } -> __index cache { } -> node_miss. */
static void push_node(lua_State *L, const view *at)
{
  const dg_tensor *tt = &at->r->p->tensors.v[at->t];
  if (at->dim + 1 >= (int)tt->shape.n) {
    view *v = lua_newuserdatauv(L, sizeof *v, 0);
    *v = *at;
    luaL_setmetatable(L, VIEW_MT);
    return;
  }
  lua_checkstack(L, 8);
  lua_newtable(L);                          /* proxy */
  lua_createtable(L, 0, 4);                 /* its metatable */
  view *u = lua_newuserdatauv(L, sizeof *u, 0);
  *u = *at;
  int ui = lua_gettop(L);
  lua_createtable(L, (int)(at->n < 64 ? at->n : 64), 0);   /* cache */
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, ui);
  lua_pushcclosure(L, node_miss, 1);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setfield(L, -3, "__index");           /* mt.__index = cache */
  lua_pushvalue(L, ui);
  lua_pushcclosure(L, node_newindex, 1);
  lua_setfield(L, -3, "__newindex");
  lua_pushcclosure(L, node_len, 1);         /* takes u */
  lua_setfield(L, -2, "__len");
  lua_pushliteral(L, VIEW_MT);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
}

/* T[name] = the node of every readable tensor of rank >= 1, at cur_sizes. */
static void build_views(lref *r)
{
  lua_State *L = r->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->T);
  for (size_t t = 0; t < r->p->tensors.n; t++) {
    const dg_tensor *tt = &r->p->tensors.v[t];
    bool readable = tt->role == DG_TENSOR_INPUT || (tt->role == DG_TENSOR_OUTPUT && tt->accumulate);
    if (!readable || tt->shape.n == 0) continue;
    view v;
    memset(&v, 0, sizeof v);
    v.r = r;
    v.t = (int)t;
    v.is_float = dg_dtypes[tt->dtype].is_float;
    v.n = tdims(r, (int)t)[0];
    push_node(L, &v);
    lua_setfield(L, -2, tt->name);
  }
  lua_pop(L, 1);
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
  build_views(r);
  return true;
}

/* A reference is the user's Lua: `while true do end` in ref hung check and
 * fuzz for good; its calls are bounded (dg_lua_pcall_bounded), and by the
 * caller's deadline when it gives one (dg_ref_env.deadline: check --budget;
 * a symbolic reference that spends its time in the term callbacks runs far
 * fewer than the bound's 10^9 instructions). */
static _Thread_local double ref_deadline;

static void deadline_hook(lua_State *L, lua_Debug *ar)
{
  (void)ar;
  if (dg_now() > ref_deadline) luaL_error(L, "the reference ran past the deadline");
}

/* dg_lua_pcall_bounded, stopped at env->deadline too */
static int pcall_ref(lref *r, int nargs, int nres, int h, long long millions)
{
  lua_State *L = r->L;
  if (!r->env || r->env->deadline <= 0 || lua_gethook(L))
    return dg_lua_pcall_bounded(L, nargs, nres, h, millions, "the reference ");
  ref_deadline = r->env->deadline;
  lua_sethook(L, deadline_hook, LUA_MASKCOUNT, 10000);
  int rc = lua_pcall(L, nargs, nres, h);
  lua_sethook(L, NULL, 0, 0);
  return rc;
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
  if (pcall_ref(r, rank + 1, 1, h, 1000) != LUA_OK) {
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

/* T's float attributes as env->attr gives them (env NULL: their values again). */
static void set_attrs(lref *r, const dg_ref_env *env)
{
  lua_State *L = r->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->T);
  for (size_t a = 0; a < r->p->attrs.n; a++) {
    const dg_attr *at = &r->p->attrs.v[a];
    if (at->kind != DG_ATTR_FLOAT) continue;
    lua_pushnumber(L, env ? env->attr(env->ud, (int)a, at->f) : at->f);
    lua_setfield(L, -2, at->name);
  }
  lua_pop(L, 1);
}

static dg_ref_status lref_eval(void *self, const dg_ref_env *env, int t, const int64_t *idx,
                               dg_refval *out, char **err)
{
  lref *r = self;
  if (!set_sizes(r, env->sizes, err)) return DG_REF_ERROR;
  r->env = env;
  if (env->attr) set_attrs(r, env);
  dg_ref_status s = call_ref(r, t, idx, out, err);
  if (env->attr) set_attrs(r, NULL);
  r->env = NULL;
  return s;
}

/* ---- the batch path: ref_all(T, out, name) ------------------------------------- */
typedef struct {
  double *out;           /* NULL once the call is over */
  uint8_t *defined;
  int64_t n;
  const char *name;      /* the output's */
} outbuf;

static outbuf *check_out(lua_State *L)
{
  outbuf *o = lua_touserdata(L, 1);
  if (!o || lua_rawlen(L, 1) != sizeof *o) luaL_error(L, "not an output");
  if (!o->out) luaL_error(L, "%s: the output of a finished ref_all", o->name);
  return o;
}

static lua_Integer out_slot(lua_State *L, const outbuf *o)
{
  int isint;
  lua_Integer i = lua_tointegerx(L, 2, &isint);
  if (!isint) luaL_error(L, "%s: flat index %s is not an integer", o->name, luaL_tolstring(L, 2, NULL));
  if (i < 0 || i >= o->n) luaL_error(L, "%s: flat index %I out of range [0,%I)", o->name, i, (lua_Integer)o->n);
  return i;
}

/* out[i] = v: a number (a boolean counts 1/0), or nil (unchecked). */
static int out_newindex(lua_State *L)
{
  outbuf *o = check_out(L);
  lua_Integer i = out_slot(L, o);
  int ty = lua_type(L, 3);
  if (ty == LUA_TNUMBER) o->out[i] = lua_tonumber(L, 3), o->defined[i] = 1;
  else if (ty == LUA_TBOOLEAN) o->out[i] = lua_toboolean(L, 3), o->defined[i] = 1;
  else if (ty == LUA_TNIL) o->out[i] = 0, o->defined[i] = 0;
  else return luaL_error(L, "%s[%I] = a %s (a number or nil expected; ref_all is concrete)", o->name, i,
                         luaL_typename(L, 3));
  return 0;
}

/* out[i]: what was written (nil if nothing), so a scan can read back. */
static int out_index(lua_State *L)
{
  outbuf *o = check_out(L);
  lua_Integer i = out_slot(L, o);
  if (o->defined[i]) lua_pushnumber(L, o->out[i]);
  else lua_pushnil(L);
  return 1;
}

static int out_len(lua_State *L)
{
  lua_pushinteger(L, check_out(L)->n);
  return 1;
}

static dg_ref_status call_ref_all(lref *r, int t, double *out, uint8_t *defined, int64_t n, char **err)
{
  lua_State *L = r->L;
  const dg_tensor *tt = &r->p->tensors.v[t];
  memset(out, 0, (size_t)n * sizeof *out);
  memset(defined, 0, (size_t)n);
  lua_checkstack(L, 8);
  lua_pushcfunction(L, dgl_msgh);
  int h = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->fn_all[t]);
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->T);
  outbuf *o = lua_newuserdatauv(L, sizeof *o, 0);
  *o = (outbuf){ out, defined, n, tt->name };
  luaL_setmetatable(L, OUT_MT);
  lua_pushvalue(L, -1);
  lua_insert(L, h);                       /* kept below the handler to close it after the call */
  h++;
  lua_pushstring(L, tt->name);
  int rc = dg_lua_pcall_bounded(L, 3, 0, h, 1000 + (long long)n / 100, "the reference ");   /* ~10^4 instructions an element on top */
  o->out = NULL;
  o->defined = NULL;
  if (rc != LUA_OK) {
    *err = dg_strdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "error in ref_all");
    lua_settop(L, h - 2);
    return DG_REF_ERROR;
  }
  lua_settop(L, h - 2);
  return DG_REF_OK;
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
  if (r->fn_all[t] != LUA_NOREF && env->data) {
    s = call_ref_all(r, t, out, defined, n, err);
    r->env = NULL;
    return s;
  }
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

/* ---- sampled validation: the batch path when it is cheaper ---------------------- */
static _Thread_local double budget_end;
static _Thread_local bool budget_over;

static void budget_hook(lua_State *L, lua_Debug *ar)
{
  (void)ar;
  if (dg_now() > budget_end) {
    budget_over = true;
    luaL_error(L, "over the time budget of the batch path");
  }
}

/* Times a few elements through ref (spread over the output), then runs
 * ref_all under a deadline of a quarter of k such elements; past it, gives up
 * (DG_REF_NIL) and remembers it for these sizes, so a campaign at fixed sizes
 * pays the attempt once. */
static dg_ref_status lref_eval_all_within(void *self, const dg_ref_env *env, int t, int64_t k, double *out,
                                          uint8_t *defined, char **err)
{
  lref *r = self;
  if (r->fn_all[t] == LUA_NOREF || r->fn[t] == LUA_NOREF || !env->data || k <= 0) return DG_REF_NIL;
  if (!set_sizes(r, env->sizes, err)) return DG_REF_ERROR;
  if (r->too_slow[t] && !memcmp(r->slow_sizes + (size_t)t * r->p->sizes.n, env->sizes,
                                r->p->sizes.n * sizeof *env->sizes))
    return DG_REF_NIL;
  int rank = (int)r->p->tensors.v[t].shape.n;
  const int64_t *dims = tdims(r, t);
  int64_t n = 1, idx[MAX_RANK];
  for (int d = 0; d < rank; d++) n *= dims[d];
  if (n == 0) return DG_REF_NIL;
  r->env = env;
  enum { PROBES = 8 };
  double t0 = dg_now();
  dg_ref_status s = DG_REF_OK;
  for (int j = 0; j < PROBES && s != DG_REF_ERROR; j++) {
    int64_t f = (n - 1) * j / (PROBES - 1);
    for (int d = rank - 1; d >= 0; d--) idx[d] = f % dims[d], f /= dims[d];
    dg_refval v;
    s = call_ref(r, t, idx, &v, err);
  }
  if (s == DG_REF_ERROR) {
    r->env = NULL;
    return s;
  }
  double per = (dg_now() - t0) / PROBES;
  budget_end = dg_now() + 0.25 * per * (double)k;
  budget_over = false;
  lua_sethook(r->L, budget_hook, LUA_MASKCOUNT, 10000);
  s = call_ref_all(r, t, out, defined, n, err);
  lua_sethook(r->L, NULL, 0, 0);
  r->env = NULL;
  if (s == DG_REF_ERROR && budget_over) {
    free(*err);
    *err = NULL;
    memset(defined, 0, (size_t)n);
    r->too_slow[t] = true;
    memcpy(r->slow_sizes + (size_t)t * r->p->sizes.n, env->sizes, r->p->sizes.n * sizeof *env->sizes);
    return DG_REF_NIL;
  }
  return s;
}

static void lref_free(void *self)
{
  lref *r = self;
  lua_close(r->L);
  free(r->fn);
  free(r->fn_all);
  free(r->too_slow);
  free(r->slow_sizes);
  free(r->dims);
  free(r->cur_sizes);
  free(r);
}

static const dg_ref_ops lua_ref_ops = { "lua", lref_eval, lref_eval_all, lref_free, lref_eval_all_within };

/* Per output: the function at idx (a function for all, or a table by name). */
static void take_fns(lua_State *L, const dg_problem *p, int idx, int *fn)
{
  for (size_t t = 0; t < p->tensors.n; t++) {
    fn[t] = LUA_NOREF;
    if (p->tensors.v[t].role != DG_TENSOR_OUTPUT) continue;
    if (lua_type(L, idx) == LUA_TFUNCTION) lua_pushvalue(L, idx);
    else if (lua_type(L, idx) == LUA_TTABLE) lua_getfield(L, idx, p->tensors.v[t].name);
    else lua_pushnil(L);
    if (lua_type(L, -1) == LUA_TFUNCTION) fn[t] = luaL_ref(L, LUA_REGISTRYINDEX);
    else lua_pop(L, 1);
  }
}

void dgl_ref_install(lua_State *L, dg_problem *p, int ref_idx, int ref_all_idx, int attrs_idx)
{
  ref_idx = lua_absindex(L, ref_idx);
  ref_all_idx = lua_absindex(L, ref_all_idx);
  attrs_idx = lua_absindex(L, attrs_idx);
  lref *r = dg_calloc(1, sizeof *r);
  r->L = L;
  r->p = p;
  r->symw = (dg_sym_ops){ sym_constant, sym_apply, r };
  size_t nt = p->tensors.n;
  r->fn = dg_malloc((nt + 1) * sizeof *r->fn);
  r->fn_all = dg_malloc((nt + 1) * sizeof *r->fn_all);
  r->dims = dg_calloc((nt + 1) * MAX_RANK, sizeof *r->dims);
  r->cur_sizes = dg_calloc(p->sizes.n + 1, sizeof *r->cur_sizes);
  r->too_slow = dg_calloc(nt + 1, sizeof *r->too_slow);
  r->slow_sizes = dg_calloc((nt + 1) * (p->sizes.n + 1), sizeof *r->slow_sizes);
  take_fns(L, p, ref_idx, r->fn);
  take_fns(L, p, ref_all_idx, r->fn_all);
  if (luaL_newmetatable(L, VIEW_MT)) {
    static const luaL_Reg mm[] = { { "__index", view_index }, { "__newindex", view_newindex },
                                   { "__len", view_len }, { NULL, NULL } };
    luaL_setfuncs(L, mm, 0);
    lua_pushliteral(L, VIEW_MT);
    lua_setfield(L, -2, "__metatable");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, OUT_MT)) {
    static const luaL_Reg mm[] = { { "__index", out_index }, { "__newindex", out_newindex },
                                   { "__len", out_len }, { NULL, NULL } };
    luaL_setfuncs(L, mm, 0);
    lua_pushliteral(L, OUT_MT);
    lua_setfield(L, -2, "__metatable");
  }
  lua_pop(L, 1);
  /* T: attributes, sizes and tensor views (set when the sizes change) */
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, attrs_idx)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, -4);
  }
  lua_newtable(L);
  lua_pushlightuserdata(L, r);
  lua_pushcclosure(L, T_index, 1);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  r->T = luaL_ref(L, LUA_REGISTRYINDEX);
  p->ref = (dg_ref){ &lua_ref_ops, r };
}
