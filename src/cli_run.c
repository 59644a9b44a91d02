/* cli_run.c — `dirigo run SCRIPT.lua [args]` and `dirigo run -e CODE [args]`:
 * a scripted session, no screen. Scripts are the user's own programs: they get
 * the standard libraries (unlike specs, which run sandboxed), the `dirigo`
 * module, `arg`, and package.path extended with the data dir's lua/. Errors
 * print a traceback trimmed to the user's files and exit 2. */
#include "cli.h"
#include "lua_spec.h"
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DG_DATADIR
#define DG_DATADIR "."
#endif

/* Traceback, keeping frames of Lua files (not C, not the engine). */
static int msgh(lua_State *L)
{
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, msg, 1);
  const char *tb = lua_tostring(L, -1), *p = strstr(tb, "\nstack traceback:");
  if (!p) return 1;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addlstring(&b, tb, (size_t)(p - tb));
  bool header = false;
  for (p = strchr(p + 1, '\n'); p; ) {
    const char *line = p + 1, *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    while (n && (*line == '\t' || *line == ' ')) line++, n--;
    if (n && strncmp(line, "[C]", 3) && strncmp(line, "(...", 4)) {
      if (!header) luaL_addstring(&b, "\nstack traceback:");
      header = true;
      luaL_addstring(&b, "\n\t");
      luaL_addlstring(&b, line, n);
    }
    p = end;
  }
  luaL_pushresult(&b);
  return 1;
}

static void set_path(lua_State *L)
{
  const char *data = getenv("DIRIGO_DATADIR");
  if (!data || !*data) data = DG_DATADIR;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;%s", data, data, lua_tostring(L, -1));
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
}

int cli_run(int argc, char **argv)
{
  if (argc < 2 || (!strcmp(argv[1], "-e") && argc < 3)) {
    fprintf(stderr, "usage: dirigo run SCRIPT.lua [args] | dirigo run -e CODE [args]\n");
    return DG_EXIT_USAGE;
  }
  bool inline_code = !strcmp(argv[1], "-e");
  int first = inline_code ? 3 : 2;
  lua_State *L = luaL_newstate();
  if (!L) {
    fputs("dirigo: cannot create a Lua state\n", stderr);
    return DG_EXIT_INTERNAL;
  }
  luaL_openlibs(L);
  set_path(L);
  dg_lua_open_dirigo(L);
  lua_pop(L, 1);
  lua_createtable(L, argc - first, 2);
  lua_pushstring(L, inline_code ? "-e" : argv[1]);
  lua_rawseti(L, -2, 0);
  for (int i = first; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - first + 1);
  }
  lua_setglobal(L, "arg");
  lua_pushcfunction(L, msgh);
  int rc = inline_code ? luaL_loadbufferx(L, argv[2], strlen(argv[2]), "=(command line)", "t")
                       : luaL_loadfilex(L, argv[1], "t");
  if (rc == LUA_OK) {
    for (int i = first; i < argc; i++) lua_pushstring(L, argv[i]);
    rc = lua_pcall(L, argc - first, 1, 1);
  }
  int code = DG_EXIT_OK;
  if (rc != LUA_OK) {
    fprintf(stderr, "dirigo run: %s\n", lua_tostring(L, -1));
    code = DG_EXIT_USAGE;
  } else if (lua_isinteger(L, -1)) {
    lua_Integer v = lua_tointeger(L, -1);   /* a script may return its exit code */
    if (v < 0 || v > 255) {                 /* the shell would see it modulo 256: 256 as success */
      fprintf(stderr, "dirigo run: the script returned %lld: an exit status is 0 to 255\n", (long long)v);
      code = DG_EXIT_USAGE;
    } else code = (int)v;
  }
  lua_close(L);
  return code;
}
