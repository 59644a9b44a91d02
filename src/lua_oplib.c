/* lua_oplib.c — where ops live: the user's $XDG_CONFIG_HOME/dirigo/ops (or
 * ~/.config/dirigo/ops) first, so a user can shadow a shipped op, then
 * $DIRIGO_DATADIR/lua/ops (default: the compile-time DG_DATADIR). */
#include "lua_int.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DG_DATADIR
#define DG_DATADIR "."
#endif

char **dgl_op_dirs(size_t *n)
{
  char **d = dg_calloc(2, sizeof *d);
  *n = 0;
  const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) d[(*n)++] = dg_printf("%s/dirigo/ops", xdg);
  else if (home && *home) d[(*n)++] = dg_printf("%s/.config/dirigo/ops", home);
  const char *data = getenv("DIRIGO_DATADIR");
  d[(*n)++] = dg_printf("%s/lua/ops", data && *data ? data : DG_DATADIR);
  return d;
}

static void free_list(char **v, size_t n)
{
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static bool valid_name(const char *name)
{
  if (!*name) return false;
  for (const char *c = name; *c; c++)
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))) return false;
  return true;
}

char *dgl_op_find(const char *name)
{
  if (!valid_name(name)) return NULL;
  size_t n;
  char **dirs = dgl_op_dirs(&n), *found = NULL;
  for (size_t i = 0; i < n && !found; i++) {
    char *path = dg_printf("%s/%s.lua", dirs[i], name);
    if (access(path, R_OK) == 0) found = path;
    else free(path);
  }
  free_list(dirs, n);
  return found;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **dgl_op_list(size_t *count)
{
  size_t nd;
  char **dirs = dgl_op_dirs(&nd);
  DG_VEC(char *) names = {0};
  for (size_t i = 0; i < nd; i++) {
    DIR *dir = opendir(dirs[i]);
    if (!dir) continue;
    for (struct dirent *e; (e = readdir(dir)); ) {
      size_t l = strlen(e->d_name);
      if (l < 5 || strcmp(e->d_name + l - 4, ".lua")) continue;
      char *nm = dg_strndup(e->d_name, l - 4);
      if (valid_name(nm)) dg_vec_push(&names, nm);
      else free(nm);
    }
    closedir(dir);
  }
  free_list(dirs, nd);
  if (names.n) qsort(names.v, names.n, sizeof *names.v, cmp_str);
  size_t k = 0;
  for (size_t i = 0; i < names.n; i++) {
    if (k && !strcmp(names.v[k - 1], names.v[i])) free(names.v[i]);
    else names.v[k++] = names.v[i];
  }
  *count = k;
  if (!names.v) return dg_calloc(1, sizeof(char *));
  return names.v;
}
