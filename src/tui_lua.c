/* tui_lua.c — ':lua CODE' in the workbench: a Lua state of the user's own
 * (standard libraries, the `dirigo` module of lua_spec.h, and a `workbench`
 * table onto the screen), created on first use and closed with the app.
 * Hooks: $XDG_CONFIG_HOME/dirigo/init.lua (or ~/.config/...) runs at start
 * when it exists; it may set workbench.on_check(verdict, tensor, index) and
 * workbench.on_fuzz(summary), called after each check / campaign.
 * CODE is tried as an expression first ("return CODE"), like the lua REPL;
 * print() writes into the result pane (stdout belongs to curses). Errors
 * come back with a traceback; nothing here runs from a signal handler. */
#include "tui.h"
#include "lua_spec.h"
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

static tui_app *app_of(lua_State *L)
{
  return lua_touserdata(L, lua_upvalueindex(1));
}

/* print(...) -> the output buffer of the current :lua */
static int l_print(lua_State *L)
{
  tui_app *a = app_of(L);
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_tolstring(L, i, &len);
    if (i > 1) dg_buf_putc(&a->lua_out, '\t');
    dg_buf_put(&a->lua_out, s, len);
    lua_pop(L, 1);
  }
  dg_buf_putc(&a->lua_out, '\n');
  return 0;
}

/* workbench.selected() -> tensor name, {i, j, ...} (0-based) or nil */
static int l_selected(lua_State *L)
{
  tui_app *a = app_of(L);
  int t;
  int64_t idx[TUI_MAX_DIMS];
  if (!tui_picker_selected(a, &t, idx)) return 0;
  const tui_tensor *x = &a->model.tensors.v[t];
  lua_pushstring(L, x->name);
  lua_createtable(L, x->ndim, 0);
  for (int d = 0; d < x->ndim; d++) {
    lua_pushinteger(L, idx[d]);
    lua_rawseti(L, -2, d + 1);
  }
  return 2;
}

/* workbench.message(text): the status line */
static int l_message(lua_State *L)
{
  tui_app_message(app_of(L), false, "%s", luaL_checkstring(L, 1));
  return 0;
}

/* workbench.line(n): moves the source pane to line n */
static int l_goto(lua_State *L)
{
  lua_Integer l = luaL_checkinteger(L, 1);
  luaL_argcheck(L, l >= 1, 1, "lines start at 1");
  tui_source_goto(app_of(L), (uint32_t)l);
  return 0;
}

/* A result for the pane: a flat table shows as {a, b, c} (its address would
 * mean nothing to the user), anything else through tostring. */
static void show(lua_State *L, int i, dg_buf *b)
{
  if (lua_type(L, i) == LUA_TTABLE && !luaL_getmetafield(L, i, "__tostring")) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, i);
    dg_buf_putc(b, '{');
    for (lua_Integer k = 1; k <= n && k <= 32; k++) {
      const char *sep = k > 1 ? ", " : "";
      if (lua_rawgeti(L, i, k) == LUA_TTABLE) {
        dg_buf_printf(b, "%s{...}", sep);
        lua_pop(L, 1);
      } else {
        dg_buf_printf(b, "%s%s", sep, luaL_tolstring(L, -1, NULL));
        lua_pop(L, 2);                               /* the value and its string */
      }
    }
    if (n > 32) dg_buf_puts(b, ", ...");
    dg_buf_putc(b, '}');
    return;
  }
  if (lua_type(L, i) == LUA_TTABLE) lua_pop(L, 1);   /* the __tostring field */
  size_t len;
  const char *s = luaL_tolstring(L, i, &len);
  dg_buf_put(b, s, len);
  lua_pop(L, 1);
}

static int traceback(lua_State *L)
{
  const char *m = lua_tostring(L, 1);
  luaL_traceback(L, L, m ? m : "(error object is not a string)", 1);
  return 1;
}

/* :lua, the hooks and init.lua run on the screen's thread: an endless loop
 * would freeze the workbench for good. A call is stopped after about 10^9 Lua
 * instructions (seconds of Lua; time spent inside dirigo.* C functions is not
 * counted), or at <C-c>: every 10^6 instructions the hook reads the keys typed
 * meanwhile. <C-c> stops the Lua (the terminal is raw: no SIGINT; read after
 * the call it would have quit dirigo); other keys wait in a->typed, in order,
 * for the loop. */
#define TUI_LUA_MILLIONS 1000
static tui_app *hook_app;
static long long hook_ticks;

static void limit_hook(lua_State *L, lua_Debug *ar)
{
  tui_app *a = hook_app;
  for (int k; a && a->b->ops->getkey_or && (k = a->b->ops->getkey_or(a->b, -1, 0)) != TUI_KEY_IDLE && k != TUI_KEY_NONE;) {
    if (k == TUI_CTRL('c')) {
      lua_getinfo(L, "Sl", ar);
      luaL_error(L, "%s:%d: interrupted (<C-c>)", ar->short_src, ar->currentline);
    }
    dg_vec_push(&a->typed, k);
  }
  if (++hook_ticks <= TUI_LUA_MILLIONS) return;
  lua_getinfo(L, "Sl", ar);
  luaL_error(L, "%s:%d: runs too long (an endless loop?): stopped after %d x 10^6 Lua instructions",
             ar->short_src, ar->currentline, TUI_LUA_MILLIONS);
}

static int pcall_limited(tui_app *a, lua_State *L, int nargs, int nres, int msgh)
{
  if (lua_gethook(L)) return lua_pcall(L, nargs, nres, msgh);   /* an outer call's hook governs */
  hook_app = a, hook_ticks = 0;
  lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1000000);
  int rc = lua_pcall(L, nargs, nres, msgh);
  lua_sethook(L, NULL, 0, 0);
  hook_app = NULL;
  return rc;
}

static lua_State *state(tui_app *a)
{
  if (a->lua) return a->lua;
  lua_State *L = luaL_newstate();
  if (!L) dg_oom();
  luaL_openlibs(L);
  dg_lua_open_dirigo(L);
  lua_settop(L, 0);
  lua_pushlightuserdata(L, a);
  lua_pushcclosure(L, l_print, 1);
  lua_setglobal(L, "print");
  static const luaL_Reg wb[] = {
    { "selected", l_selected }, { "message", l_message }, { "line", l_goto }, { NULL, NULL },
  };
  luaL_newlibtable(L, wb);
  lua_pushlightuserdata(L, a);
  luaL_setfuncs(L, wb, 1);
  lua_setglobal(L, "workbench");
  a->lua = L;
  return L;
}

/* Keeps `workbench.path` / `.source` in step with the open document. */
static void refresh(tui_app *a, lua_State *L)
{
  lua_getglobal(L, "workbench");
  lua_pushstring(L, a->path);                  /* NULL pushes nil */
  lua_setfield(L, -2, "path");
  lua_pushstring(L, a->source);
  lua_setfield(L, -2, "source");
  lua_pop(L, 1);
}

int tui_lua_run(tui_app *a, const char *code)
{
  if (!*code) {
    tui_app_message(a, true, ":lua needs code, e.g. :lua workbench.selected()");
    return TUI_HANDLED | TUI_REDRAW;
  }
  lua_State *L = state(a);
  refresh(a, L);
  a->lua_out.n = 0;
  dg_buf_printf(&a->lua_out, "lua> %s\n", code);
  int base = lua_gettop(L);
  lua_pushcfunction(L, traceback);
  char *expr = dg_printf("return %s", code);
  int st = luaL_loadbuffer(L, expr, strlen(expr), "=:lua");
  free(expr);
  if (st != LUA_OK) {
    lua_pop(L, 1);
    st = luaL_loadbuffer(L, code, strlen(code), "=:lua");
  }
  if (st == LUA_OK) st = pcall_limited(a, L, 0, LUA_MULTRET, base + 1);
  if (st != LUA_OK) {
    dg_buf_printf(&a->lua_out, "error: %s\n", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
  } else {
    for (int i = base + 2; i <= lua_gettop(L); i++) {
      show(L, i, &a->lua_out);
      dg_buf_putc(&a->lua_out, i < lua_gettop(L) ? '\t' : '\n');
    }
  }
  lua_settop(L, base);
  tui_app_result(a, a->lua_out.s);
  return TUI_HANDLED | TUI_REDRAW;
}

/* Calls workbench[name](args...) if the user defined it; args are already
 * pushed (nargs of them). Errors go to the status line. */
static void call_hook(tui_app *a, const char *name, int nargs)
{
  lua_State *L = a->lua;
  int base = lua_gettop(L) - nargs;
  lua_getglobal(L, "workbench");
  lua_getfield(L, -1, name);
  if (!lua_isfunction(L, -1)) {
    lua_settop(L, base);
    return;
  }
  lua_replace(L, -2);                          /* the hook where the table was */
  lua_insert(L, base + 1);                     /* the hook below its arguments */
  lua_pushcfunction(L, traceback);
  lua_insert(L, base + 1);
  refresh(a, L);
  if (pcall_limited(a, L, nargs, 0, base + 1) != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    tui_app_message(a, true, "workbench.%s: %.*s", name, (int)strcspn(m ? m : "?", "\n"), m ? m : "?");
  }
  lua_settop(L, base);
}

void tui_lua_on_check(tui_app *a, const char *verdict, const char *tensor, const int64_t *idx, int n)
{
  if (!a->lua) return;
  lua_pushstring(a->lua, verdict);
  lua_pushstring(a->lua, tensor);
  lua_createtable(a->lua, n, 0);
  for (int d = 0; d < n; d++) {
    lua_pushinteger(a->lua, idx[d]);
    lua_rawseti(a->lua, -2, d + 1);
  }
  call_hook(a, "on_check", 3);
}

void tui_lua_on_fuzz(tui_app *a, const char *summary)
{
  if (!a->lua) return;
  lua_pushstring(a->lua, summary);
  call_hook(a, "on_fuzz", 1);
}

void tui_lua_init(tui_app *a)
{
  const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
  char *path = xdg && *xdg ? dg_printf("%s/dirigo/init.lua", xdg)
             : home && *home ? dg_printf("%s/.config/dirigo/init.lua", home) : NULL;
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f) {
    free(path);
    return;
  }
  fclose(f);
  lua_State *L = state(a);
  refresh(a, L);
  lua_pushcfunction(L, traceback);
  if (luaL_loadfile(L, path) != LUA_OK || pcall_limited(a, L, 0, 0, -2) != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    tui_app_message(a, true, "%.*s", (int)strcspn(m ? m : "?", "\n"), m ? m : "?");
  }
  lua_settop(L, 0);
  free(path);
}

void tui_lua_close(tui_app *a)
{
  if (a->lua) lua_close(a->lua);
  a->lua = NULL;
  dg_buf_free(&a->lua_out);
}
