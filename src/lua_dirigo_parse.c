/* lua_dirigo_parse.c — dirigo.parse(file [, {defines = {…}, instantiate = {…}}]):
 * the front end's view of a kernel file as a Lua table (functions with their
 * parameters, templates, host launches, diagnostics). */
#include "lua_spec_int.h"
#include "fe.h"
#include <stdlib.h>
#include <string.h>

static void setstr(lua_State *L, const char *k, const char *v)
{
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static void push_funcs(lua_State *L, const dg_module *m)
{
  lua_createtable(L, (int)m->funcs.n, 0);
  for (size_t i = 0; i < m->funcs.n; i++) {
    const dg_func *f = m->funcs.v[i];
    lua_createtable(L, 0, 5);
    setstr(L, "name", f->name);
    lua_pushboolean(L, f->is_kernel);
    lua_setfield(L, -2, "kernel");
    lua_pushinteger(L, f->span.line);
    lua_setfield(L, -2, "line");
    lua_createtable(L, f->nparams, 0);
    for (int j = 0; j < f->nparams; j++) {
      lua_createtable(L, 0, 2);
      setstr(L, "name", f->params[j]->name);
      setstr(L, "type", ir_type_name(f->params[j]->type));
      lua_rawseti(L, -2, j + 1);
    }
    lua_setfield(L, -2, "params");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "functions");
}

int dgl_parse(lua_State *L)
{
  const char *path = luaL_checkstring(L, 1);
  DG_VEC(pp_define) defs = {0};
  DG_VEC(const char *) insts = {0};
  if (lua_istable(L, 2)) {
    if (lua_getfield(L, 2, "defines") == LUA_TTABLE) {
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        /* strings only: they stay alive in the table while we use them */
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
          pp_define d = { lua_tostring(L, -2), lua_tostring(L, -1) };
          dg_vec_push(&defs, d);
        }
        lua_pop(L, 1);
      }
    }
    if (lua_getfield(L, 2, "instantiate") == LUA_TTABLE)
      for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
        dg_vec_push(&insts, lua_tostring(L, -1));
        lua_pop(L, 1);
      }
  }
  fe_options opt = { defs.v, (int)defs.n, insts.v, (int)insts.n, true };
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  dg_diags d = {0};
  dg_module *m = fe_load(&sm, path, &opt, &d);
  lua_createtable(L, 0, 4);
  if (m) {
    push_funcs(L, m);
    lua_createtable(L, (int)m->templates.n, 0);
    for (size_t i = 0; i < m->templates.n; i++) {
      lua_pushstring(L, fe_template_decl(m, i));
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "templates");
    lua_createtable(L, (int)m->launches.n, 0);
    for (size_t i = 0; i < m->launches.n; i++) {
      lua_createtable(L, 0, 2);
      setstr(L, "text", m->launches.v[i].text);
      lua_pushinteger(L, m->launches.v[i].span.line);
      lua_setfield(L, -2, "line");
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "launches");
  }
  lua_createtable(L, (int)d.v.n, 0);
  for (size_t i = 0; i < d.v.n; i++) {
    dg_buf b = {0};
    dg_diag_format(&b, &sm, &d.v.v[i]);
    lua_pushstring(L, b.s ? b.s : "");
    dg_buf_free(&b);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "diagnostics");
  lua_pushinteger(L, d.nerrors);
  lua_setfield(L, -2, "errors");
  if (m) fe_module_free(m);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  dg_vec_free(&defs);
  dg_vec_free(&insts);
  return 1;
}
