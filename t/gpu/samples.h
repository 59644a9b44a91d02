/* samples.h — what the GPU tests that walk the samples share: loading a
 * problem by its name under samples/ (or a path under t/), the sorted list
 * of every sample, and a cubin cache of their own for the run. Header-only:
 * each test is one program. */
#ifndef DG_T_GPU_SAMPLES_H
#define DG_T_GPU_SAMPLES_H
#include "lua_spec.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "softmax/softmax_block" (samples/) or "t/gpu/fixtures/x" (the tree), without .lua */
static inline dg_problem *gt_load(const char *rel)
{
  const char *src = getenv("DG_SRCDIR");
  char *path = !strncmp(rel, "t/", 2) ? dg_printf("%s/%s.lua", src ? src : "..", rel)
                                      : dg_printf("%s/samples/%s.lua", src ? src : "..", rel);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  if (p && d.nerrors) {
    dg_problem_free(p);
    p = NULL;
  }
  dg_diags_free(&d);
  free(path);
  return p;
}

typedef DG_VEC(char *) gt_names;

/* Samples (dir/name) in samples/, sorted. */
static inline void gt_all_samples(gt_names *out)
{
  const char *src = getenv("DG_SRCDIR");
  char *root = dg_printf("%s/samples", src ? src : "..");
  DIR *top = opendir(root);
  struct dirent *e, *f;
  while (top && (e = readdir(top))) {
    if (e->d_name[0] == '.') continue;
    char *dir = dg_printf("%s/%s", root, e->d_name);
    DIR *sub = opendir(dir);
    while (sub && (f = readdir(sub))) {
      size_t n = strlen(f->d_name);
      if (n > 4 && !strcmp(f->d_name + n - 4, ".lua"))
        dg_vec_push(out, dg_printf("%s/%.*s", e->d_name, (int)(n - 4), f->d_name));
    }
    if (sub) closedir(sub);
    free(dir);
  }
  if (top) closedir(top);
  free(root);
  for (size_t i = 0; i < out->n; i++)   /* insertion sort: a few dozen names */
    for (size_t j = i; j > 0 && strcmp(out->v[j - 1], out->v[j]) > 0; j--) {
      char *t = out->v[j];
      out->v[j] = out->v[j - 1];
      out->v[j - 1] = t;
    }
}

/* A fresh, empty cubin cache for this run (DIRIGO_CUBIN_CACHE), made from
 * tmpl ("/tmp/dg-cubin-XXXXXX", the caller's array); NULL when none could be
 * made (the default cache is used). gt_cubin_cache_drop removes it.
 * Under make check, DG_CUBIN_SHARED names one cache for every test of the
 * build and every stage of CI (Makefile.am): that one is used and kept (NULL
 * returned), so each of our device modules is compiled once, not once a test.
 * Sharing is safe: a binary's key is its whole input (source with the
 * defines a test injects, headers, options, arch, kernel names, NVRTC's
 * version); the tests of the cache itself (compile.t, run.t) keep their own. */
static inline char *gt_cubin_cache(char *tmpl)
{
  const char *shared = getenv("DG_CUBIN_SHARED");
  if (shared && *shared) {
    setenv("DIRIGO_CUBIN_CACHE", shared, 1);
    return NULL;
  }
  char *dir = mkdtemp(tmpl);
  if (dir) setenv("DIRIGO_CUBIN_CACHE", dir, 1);
  return dir;
}

static inline void gt_cubin_cache_drop(const char *dir)
{
  if (!dir) return;
  char *cmd = dg_printf("rm -rf '%s'", dir);
  if (system(cmd)) printf("# could not remove %s\n", dir);
  free(cmd);
}
#endif
