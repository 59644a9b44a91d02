/* lua_value.c — symbolic values as Lua userdata (one metatable overloading
 * + - * / and unary -; '^', '<', '==' … refused as doc/ops.md says) and the value math functions of references (max min exp
 * log … where lt …), which work on numbers and on symbolic values alike. */
#include "lua_int.h"
#include <math.h>

/* The metatable is also kept under this address in the registry: the symbolic
 * path pushes and tests a value per operation, and a lookup by name costs a
 * string compare each time. */
static const char mt_key = 0;

void dgl_value_push(lua_State *L, const dg_sym_ops *ops, dg_symval id)
{
  dgl_value *v = lua_newuserdatauv(L, sizeof *v, 0);
  v->id = id;
  v->ops = ops;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &mt_key);
  lua_setmetatable(L, -2);
}

dgl_value *dgl_value_test(lua_State *L, int idx)
{
  void *u = lua_touserdata(L, idx);
  if (!u || !lua_getmetatable(L, idx)) return NULL;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &mt_key);
  bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? u : NULL;
}

/* An argument: a number (booleans count as 1/0), or a symbolic value. */
typedef struct { bool sym; double num; dgl_value *v; } arg;

static arg get_arg(lua_State *L, int i, const char *fname)
{
  arg a = { false, 0, NULL };
  if (lua_type(L, i) == LUA_TNUMBER) a.num = lua_tonumber(L, i);
  else if (lua_type(L, i) == LUA_TBOOLEAN) a.num = lua_toboolean(L, i);
  else if ((a.v = dgl_value_test(L, i))) a.sym = true;
  else luaL_error(L, "bad argument #%d to '%s' (number or value expected, got %s)", i, fname, luaL_typename(L, i));
  return a;
}

static dg_symval as_sym(const dg_sym_ops *ops, arg a) { return a.sym ? a.v->id : ops->constant(ops->ud, a.num); }

/* Applies op to args (all numbers: concrete; else through the symbolic domain). */
static int apply(lua_State *L, dg_vop op, arg *a, int n)
{
  const dg_sym_ops *ops = NULL;
  for (int i = 0; i < n; i++)
    if (a[i].sym) ops = a[i].v->ops;
  if (!ops) {
    double x[3];
    for (int i = 0; i < n; i++) x[i] = a[i].num;
    double r = dg_vop_num(op, x);
    if (op >= DG_VOP_LT) lua_pushboolean(L, r != 0);     /* comparisons on numbers: Lua booleans */
    else if ((op == DG_VOP_FLOOR || op == DG_VOP_CEIL) && fabs(r) < 9.0e15) lua_pushinteger(L, (lua_Integer)r);
    else lua_pushnumber(L, r);
    return 1;
  }
  dg_symval s[3];
  for (int i = 0; i < n; i++) s[i] = as_sym(ops, a[i]);
  dgl_value_push(L, ops, ops->apply(ops->ud, op, s));
  return 1;
}

/* max/min fold left over their arguments; with numbers the winner keeps its
 * subtype (an integer stays an integer, so it can index a tensor). */
static int l_maxmin(lua_State *L, dg_vop op)
{
  int n = lua_gettop(L);
  const char *name = dg_vop_info[op].name;
  luaL_argcheck(L, n >= 1, 1, "value expected");
  arg acc = get_arg(L, 1, name);
  int acc_idx = 1;
  lua_pushnil(L);                 /* slot n + 1: the fold's value (a push a step overflowed the stack) */
  for (int i = 2; i <= n; i++) {
    arg b = get_arg(L, i, name);
    if (!acc.sym && !b.sym) {
      bool take_b = isnan(b.num) || (!isnan(acc.num) && (op == DG_VOP_MAX ? b.num > acc.num : b.num < acc.num));
      if (take_b) acc = b, acc_idx = i;
      continue;
    }
    arg two[2] = { acc, b };
    apply(L, op, two, 2);
    lua_replace(L, n + 1);
    acc = get_arg(L, n + 1, name);
    acc_idx = n + 1;
  }
  lua_pushvalue(L, acc_idx);
  return 1;
}

static int l_where(lua_State *L)
{
  luaL_checkany(L, 3);
  if (lua_type(L, 1) == LUA_TBOOLEAN || lua_type(L, 1) == LUA_TNIL) {
    lua_pushvalue(L, lua_toboolean(L, 1) ? 2 : 3);
    return 1;
  }
  arg a[3] = { get_arg(L, 1, "where"), get_arg(L, 2, "where"), get_arg(L, 3, "where") };
  if (!a[0].sym) {
    lua_pushvalue(L, a[0].num != 0 ? 2 : 3);
    return 1;
  }
  return apply(L, DG_VOP_WHERE, a, 3);
}

static int l_vop(lua_State *L)
{
  dg_vop op = (dg_vop)lua_tointeger(L, lua_upvalueindex(1));
  if (op == DG_VOP_MAX || op == DG_VOP_MIN) return l_maxmin(L, op);
  if (op == DG_VOP_WHERE) return l_where(L);
  int n = dg_vop_info[op].arity;
  if (lua_gettop(L) != n) return luaL_error(L, "'%s' takes %d argument%s", dg_vop_info[op].name, n, n > 1 ? "s" : "");
  arg a[3];
  for (int i = 0; i < n; i++) a[i] = get_arg(L, i + 1, dg_vop_info[op].name);
  return apply(L, op, a, n);
}

/* The names a reference sees (doc/ops.md): arithmetic is spelled with operators. */
static const dg_vop exported[] = {
  DG_VOP_MAX, DG_VOP_MIN, DG_VOP_EXP, DG_VOP_LOG, DG_VOP_SQRT, DG_VOP_RSQRT, DG_VOP_TANH,
  DG_VOP_ERF, DG_VOP_ABS, DG_VOP_POW, DG_VOP_FLOOR, DG_VOP_CEIL, DG_VOP_WHERE,
  DG_VOP_LT, DG_VOP_LE, DG_VOP_GT, DG_VOP_GE, DG_VOP_EQ, DG_VOP_NE,
};

void dgl_vmath_set(lua_State *L, int env_idx)
{
  env_idx = lua_absindex(L, env_idx);
  for (size_t i = 0; i < sizeof exported / sizeof *exported; i++) {
    lua_pushinteger(L, exported[i]);
    lua_pushcclosure(L, l_vop, 1);
    lua_setfield(L, env_idx, dg_vop_info[exported[i]].name);
  }
}

/* ---- the metatable ------------------------------------------------------------ */
static int arith(lua_State *L, dg_vop op)
{
  const char *name = dg_vop_info[op].name;
  arg a[2] = { get_arg(L, 1, name), get_arg(L, 2, name) };
  return apply(L, op, a, 2);
}
static int m_add(lua_State *L) { return arith(L, DG_VOP_ADD); }
static int m_sub(lua_State *L) { return arith(L, DG_VOP_SUB); }
static int m_mul(lua_State *L) { return arith(L, DG_VOP_MUL); }
static int m_div(lua_State *L) { return arith(L, DG_VOP_DIV); }
static int m_unm(lua_State *L)
{
  arg a = get_arg(L, 1, "neg");
  return apply(L, DG_VOP_NEG, &a, 1);
}

static int m_tostring(lua_State *L)
{
  dgl_value *v = luaL_checkudata(L, 1, DGL_VALUE_MT);
  lua_pushfstring(L, "value#%d", (int)v->id);
  return 1;
}

static int refuse(lua_State *L)
{
  const char *what = lua_tostring(L, lua_upvalueindex(1));
  return luaL_error(L, "a reference %s a symbolic value", what);
}

static const struct { const char *mm, *why; } refused[] = {
  { "__lt", "compares (with '<'; use lt/where)" }, { "__le", "compares (with '<='; use le/where)" },
  { "__eq", "compares (with '=='; use eq/where)" }, { "__idiv", "applies '//' to" },
  { "__mod", "applies '%' to" }, { "__concat", "concatenates" }, { "__index", "indexes" },
  { "__newindex", "assigns into" }, { "__len", "takes the length of" }, { "__call", "calls" },
  { "__pow", "applies '^' to (use pow(a, b))" }, { "__band", "applies '&' to" }, { "__bor", "applies '|' to" }, { "__bxor", "applies '~' to" },
  { "__shl", "shifts" }, { "__shr", "shifts" }, { "__bnot", "applies '~' to" },
};

void dgl_value_register(lua_State *L)
{
  static const luaL_Reg mm[] = {
    { "__add", m_add }, { "__sub", m_sub }, { "__mul", m_mul }, { "__div", m_div },
    { "__unm", m_unm }, { "__tostring", m_tostring }, { NULL, NULL },
  };
  if (!luaL_newmetatable(L, DGL_VALUE_MT)) {
    lua_pop(L, 1);
    return;
  }
  luaL_setfuncs(L, mm, 0);
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    lua_pushstring(L, refused[i].why);
    lua_pushcclosure(L, refuse, 1);
    lua_setfield(L, -2, refused[i].mm);
  }
  lua_pushliteral(L, "value");
  lua_setfield(L, -2, "__name");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &mt_key);
}
