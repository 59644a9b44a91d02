/* cli_specs.c — the problem specs under a folder, as `dirigo sweep` and
 * `dirigo fuzz --evaluate` both find them (one walk, so the two commands
 * see the same problems): *.lua files outside scripts/ folders, and .cu /
 * .cuh files that open with a dirigo: block (DESIGN 3.1). */
#include "cli_load.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef DG_VEC(char *) strvec;

/* The file opens with a dirigo: block (dg_spec_block: the loader's rule). */
static bool cu_spec(const char *path)
{
  size_t len;
  char *text = dg_read_file(path, &len);
  bool yes = text && dg_spec_block(text, NULL);
  free(text);
  return yes;
}

static bool has_ext(const char *name, const char *ext)
{
  size_t n = strlen(name), e = strlen(ext);
  return n > e && !strcmp(name + n - e, ext);
}

static void walk(const char *dir, strvec *out)
{
  DIR *D = opendir(dir);
  if (!D) return;
  struct dirent *e;
  while ((e = readdir(D))) {
    if (e->d_name[0] == '.') continue;
    char *path = dg_printf("%s/%s", dir, e->d_name);
    struct stat st;
    bool isdir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (isdir && strcmp(e->d_name, "scripts")) walk(path, out);
    else if (!isdir && (has_ext(e->d_name, ".lua") ||
                        ((has_ext(e->d_name, ".cu") || has_ext(e->d_name, ".cuh")) && cu_spec(path)))) {
      dg_vec_push(out, path);
      path = NULL;
    }
    free(path);
  }
  closedir(D);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **cli_find_specs(const char *dir, size_t *n)
{
  strvec v = {0};
  walk(dir, &v);
  if (v.n) qsort(v.v, v.n, sizeof *v.v, cmp_str);
  *n = v.n;
  return v.v;
}

static bool shard_num(const char *s, const char *end, int *v)
{
  long x = 0;
  if (s == end) return false;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9' || x > 1000000) return false;
    x = x * 10 + (*s - '0');
  }
  if (x < 1 || x > 1000000) return false;
  *v = (int)x;
  return true;
}

bool cli_parse_shard(const char *s, int *i, int *n)
{
  const char *slash = strchr(s, '/');
  int a, b;
  if (!slash || !shard_num(s, slash, &a) || !shard_num(slash + 1, slash + 1 + strlen(slash + 1), &b) || a > b)
    return false;
  *i = a, *n = b;
  return true;
}
