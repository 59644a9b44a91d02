/* lua_check.c — dirigo.check for scripts: the symbolic check of one output
 * element (check.h), its verdict and the evidence the check keeps (writer,
 * slice, both terms, and on request the writer thread's steps). The result
 * is a plain table: nothing of the engine outlives the call. */
#include "lua_int.h"
#include "check.h"
#include <string.h>

static void setstr(lua_State *L, const char *k, const char *v)
{
  if (!v) return;
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}
static void setint(lua_State *L, const char *k, int64_t v) { lua_pushinteger(L, v), lua_setfield(L, -2, k); }

/* opts.<k> as a number, or dflt */
static double opt_num(lua_State *L, int opts, const char *k, double dflt)
{
  if (!opts) return dflt;
  double v = dflt;
  if (lua_getfield(L, opts, k) != LUA_TNIL) v = luaL_checknumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static bool opt_bool(lua_State *L, int opts, const char *k)
{
  if (!opts) return false;
  bool v = lua_getfield(L, opts, k) != LUA_TNIL && lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

static void check_opts_arg(lua_State *L, int opts, check_opts *o)
{
  static const char *const known[] = { "timeout", "seed", "float", "steps", "smtlib", NULL };
  memset(o, 0, sizeof *o);
  if (!opts) return;
  lua_pushnil(L);
  while (lua_next(L, opts)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    bool ok = false;
    for (int i = 0; k && known[i]; i++) ok |= !strcmp(k, known[i]);
    if (!ok) luaL_error(L, "dirigo.check: unknown option '%s' (timeout, seed, float, steps, smtlib)", k ? k : "?");
    lua_pop(L, 1);
  }
  o->timeout_s = opt_num(L, opts, "timeout", 10);
  if (!(o->timeout_s > 0)) luaL_error(L, "dirigo.check: opts.timeout must be a positive number of seconds");
  o->seed = 1;
  if (lua_getfield(L, opts, "seed") != LUA_TNIL) {
    int isint;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    if (!isint || v < 0) luaL_error(L, "dirigo.check: opts.seed must be an integer >= 0");
    o->seed = (uint64_t)v;
  }
  lua_pop(L, 1);
  o->want_steps = opt_bool(L, opts, "steps");
  o->want_smtlib = opt_bool(L, opts, "smtlib");
  if (lua_getfield(L, opts, "float") != LUA_TNIL) {
    const char *f = luaL_checkstring(L, -1);
    if (!strcmp(f, "ieee")) o->model = TERM_MODEL_IEEE;
    else if (strcmp(f, "real")) luaL_error(L, "dirigo.check: float is \"real\" or \"ieee\", not \"%s\"", f);
  }
  lua_pop(L, 1);
}

static void push_span(lua_State *L, const emu_kernels *k, dg_span s)
{
  lua_createtable(L, 0, 3);
  setstr(L, "file", s.file ? dg_srcmgr_path(&k->sm, s.file) : "");
  setint(L, "line", s.line);
  setint(L, "col", s.col);
}

static void push_steps(lua_State *L, const emu_kernels *k, const check_result *r)
{
  lua_createtable(L, (int)r->nsteps, 0);
  for (size_t i = 0; i < r->nsteps; i++) {
    const check_step *s = &r->steps[i];
    push_span(L, k, s->span);
    size_t n;
    const char *src = check_step_source(k, s, &n);
    lua_pushlstring(L, src, n);
    lua_setfield(L, -2, "source");
    setint(L, "depth", s->depth);
    setstr(L, "what", s->what == SIMT_STEP_UPDATE ? "update" : s->what == SIMT_STEP_COND ? "condition" : "statement");
    setstr(L, "target", s->target);
    setstr(L, "value", s->value);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "steps");
  setint(L, "steps_more", r->steps_more);
}

static void push_result(lua_State *L, const dg_problem *p, const emu_kernels *k, const check_result *r)
{
  lua_createtable(L, 0, 16);
  setstr(L, "verdict", check_verdict_name(r->verdict));
  setstr(L, "reason", r->reason ? r->reason : "");
  dg_buf el = {0};
  check_format_elem(&el, p, r->tensor, r->index, r->nidx);
  setstr(L, "element", el.s);
  dg_buf_free(&el);
  lua_pushboolean(L, check_verdict_is_finding(r->verdict));
  lua_setfield(L, -2, "finding");
  if (r->have_values) {
    lua_pushnumber(L, r->kernel_value), lua_setfield(L, -2, "kernel_value");
    lua_pushnumber(L, r->ref_value), lua_setfield(L, -2, "reference_value");
  }
  setstr(L, "witness", r->witness_text);
  if (r->writer_launch >= 0) {
    lua_createtable(L, 0, 3);
    setint(L, "launch", r->writer_launch + 1);
    setint(L, "block", r->writer_block);
    setint(L, "thread", r->writer_thread);
    lua_setfield(L, -2, "writer");
  }
  lua_createtable(L, (int)r->nslice, 0);
  for (size_t i = 0; i < r->nslice; i++) {
    push_span(L, k, r->slice[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "slice");
  setstr(L, "kernel_term", r->kernel_term);
  setstr(L, "reference_term", r->ref_term);
  setstr(L, "smtlib", r->smtlib);
  if (r->steps || r->steps_more) push_steps(L, k, r);
  lua_pushnumber(L, r->t_total);
  lua_setfield(L, -2, "seconds");
}

/* dirigo.check(problem, output, idx [, opts]) -> result */
int dgl_check(lua_State *L)
{
  dg_problem *p = dgl_problem_check(L, 1);
  int t = dg_problem_tensor(p, luaL_checkstring(L, 2));
  luaL_argcheck(L, t >= 0 && p->tensors.v[t].role == DG_TENSOR_OUTPUT, 2, "not an output of the problem");
  int rank = (int)p->tensors.v[t].shape.n;
  int64_t idx[8] = {0};
  luaL_argcheck(L, rank <= 8, 2, "more than 8 dimensions");
  if (lua_type(L, 3) == LUA_TNUMBER) {
    luaL_argcheck(L, rank == 1, 3, "one index per dimension");
    idx[0] = luaL_checkinteger(L, 3);
  } else {
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_argcheck(L, lua_rawlen(L, 3) == (size_t)rank, 3, "one index per dimension");
    for (int i = 0; i < rank; i++) {
      lua_rawgeti(L, 3, i + 1);
      int isint;
      idx[i] = lua_tointegerx(L, -1, &isint);
      if (!isint) luaL_argerror(L, 3, lua_pushfstring(L, "index %d must be an integer", i + 1));
      lua_pop(L, 1);
    }
  }
  int opts = lua_istable(L, 4) ? 4 : 0;
  if (!opts) luaL_argcheck(L, lua_isnoneornil(L, 4), 4, "a table of options");
  check_opts o;
  check_opts_arg(L, opts, &o);
  emu_kernels k;
  dg_diags d = {0};
  if (!emu_kernels_load(&k, p, &d)) {
    dg_buf b = {0};
    dg_buf_puts(&b, "dirigo.check: the kernels do not load");
    for (size_t i = 0; i < d.v.n; i++) dg_buf_putc(&b, '\n'), dg_diag_format(&b, &p->sm, &d.v.v[i]);
    for (size_t i = 0; k.mod && i < k.mod->diags.v.n; i++)
      if (k.mod->diags.v.v[i].sev <= DG_SEV_UNSUPPORTED) dg_buf_putc(&b, '\n'), dg_diag_format(&b, &k.sm, &k.mod->diags.v.v[i]);
    dg_diags_free(&d);
    emu_kernels_free(&k);
    lua_pushstring(L, b.s);
    dg_buf_free(&b);
    return lua_error(L);
  }
  dg_diags_free(&d);
  check_result r;
  check_element(p, &k, t, idx, rank, &o, &r);
  /* the table is built before anything is freed; a memory error while
   * building it would leak r and k, as any allocation failure under Lua does */
  push_result(L, p, &k, &r);
  check_result_free(&r);
  emu_kernels_free(&k);
  return 1;
}
