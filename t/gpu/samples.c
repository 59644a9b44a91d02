/* samples.c — every .cu under samples/ compiles with NVRTC (device side only), with
 * the defines its problem spec gives (`defines = { NAME = "value" }` on one
 * line of the sibling .lua). Needs libnvrtc, no GPU. The cache lives in the
 * build dir (make check's shared one, DG_CUBIN_SHARED, when set), so only the
 * first run pays NVRTC's time. */
#include "gpu.h"
#include "config.h"
#include "../tap.h"
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>

/* "NAME=value" strings from `defines = { A = "x", B = 3 }` in the .lua beside path. */
static int spec_defines(const char *cu, char **out, int max)
{
  char *lua = dg_printf("%.*s.lua", (int)strlen(cu) - 3, cu);
  size_t n;
  char *t = dg_read_file(lua, &n);
  free(lua);
  int k = 0;
  const char *p = t ? strstr(t, "defines") : NULL;
  const char *open = p ? strchr(p, '{') : NULL, *close = open ? strchr(open, '}') : NULL;
  for (const char *q = open ? open + 1 : NULL; q && q < close && k < max;) {
    while (q < close && !isalpha((unsigned char)*q) && *q != '_') q++;
    const char *name = q;
    while (q < close && (isalnum((unsigned char)*q) || *q == '_')) q++;
    size_t nl = (size_t)(q - name);
    while (q < close && (*q == ' ' || *q == '=')) q++;
    const char *val = q;
    char quote = *q == '"' || *q == '\'' ? *q : 0;
    if (quote) {
      val = ++q;
      while (q < close && *q != quote) q++;
    } else {
      while (q < close && *q != ',' && !isspace((unsigned char)*q)) q++;
    }
    if (nl) out[k++] = dg_printf("%.*s=%.*s", (int)nl, name, (int)(q - val), val);
    if (quote && q < close) q++;
  }
  free(t);
  return k;
}

static void compile_dir(const char *dir, int *count)
{
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = dg_printf("%s/%s", dir, e->d_name);
    size_t nl = strlen(e->d_name);
    struct stat st;
    if (!stat(p, &st) && S_ISDIR(st.st_mode)) {
      compile_dir(p, count);
    } else if (nl > 3 && !strcmp(e->d_name + nl - 3, ".cu")) {
      char *defs[16];
      int nd = spec_defines(p, defs, 16);
      dg_srcmgr sm;
      dg_srcmgr_init(&sm);
      uint32_t f = dg_srcmgr_load(&sm, p);
      dg_diags dg = {0};
      dg_gpu_binary b;
      dg_gpu_copts o = { .arch = "sm_90", .defines = (const char *const *)defs, .ndefines = nd };
      dg_gpu_status s = dg_gpu_compile(&sm, f, &o, &b, &dg);
      ok(s == DG_GPU_OK && b.image_len > 0, "%s compiles%s (%.2f s)", p, nd ? " with its defines" : "",
         b.seconds);
      if (s != DG_GPU_OK) dg_diags_print(stdout, &sm, &dg);
      for (int i = 0; i < nd; i++) free(defs[i]);
      dg_gpu_binary_free(&b);
      dg_diags_free(&dg);
      dg_srcmgr_free(&sm);
      (*count)++;
    }
    free(p);
  }
  closedir(d);
}

int main(void)
{
#ifndef DG_HAVE_CUDA
  printf("1..0 # SKIP built without CUDA\n");
  return 0;
#else
  const char *b = getenv("DG_BUILDDIR"), *shared = getenv("DG_CUBIN_SHARED");
  char *cache = shared && *shared ? dg_strdup(shared) : dg_printf("%s/t/gpu/cubin-cache", b ? b : ".");
  setenv("DIRIGO_CUBIN_CACHE", cache, 1);
  free(cache);
  const char *src = getenv("DG_SRCDIR");
  char *dir = dg_printf("%s/samples", src ? src : "..");
  int count = 0;
  compile_dir(dir, &count);
  ok(count > 0, "%d samples compiled", count);
  free(dir);
  return tap_done();
#endif
}
