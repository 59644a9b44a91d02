/* compile.c — NVRTC compilation (gpu_nvrtc.c): needs libnvrtc, not a GPU.
 * Template instances by name expression, diagnostics at the user's
 * file:line:col through blanked host code and local headers, the cache. */
#include "gpu.h"
#include "config.h"
#include "../tap.h"
#include <unistd.h>

static char *fixture(const char *name)
{
  const char *src = getenv("DG_SRCDIR");
  return dg_printf("%s/t/gpu/fixtures/%s", src ? src : "..", name);
}

static char *first_diag(dg_srcmgr *sm, dg_diags *d, dg_severity sev)
{
  for (size_t i = 0; i < d->v.n; i++)
    if (d->v.v[i].sev == sev) {
      dg_buf b = {0};
      dg_diag_format(&b, sm, &d->v.v[i]);
      return dg_buf_take(&b);
    }
  return dg_strdup("(none)");
}

static dg_gpu_status compile(const char *name, const dg_gpu_copts *o, dg_gpu_binary *bin,
                             char **diag)
{
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  char *path = fixture(name);
  uint32_t f = dg_srcmgr_load(&sm, path);
  dg_diags d = {0};
  dg_gpu_status st = dg_gpu_compile(&sm, f, o, bin, &d);
  *diag = first_diag(&sm, &d, DG_SEV_ERROR);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  free(path);
  return st;
}

#ifndef DG_HAVE_CUDA
int main(void)
{
  dg_gpu_binary b;
  char *diag;
  dg_gpu_status st = compile("torch_ext.cu", NULL, &b, &diag);
  is_int(st, DG_GPU_NO_DEVICE, "without CUDA the compile says no device");
  has_str(diag, "built without CUDA", "and why");
  free(diag);
  dg_gpu_binary_free(&b);
  char *why = NULL;
  ok(!dg_gpu_available(&why), "no GPU without CUDA");
  is_str(why, "built without CUDA", "gpu_available says built without CUDA");
  free(why);
  return tap_done();
}
#else
int main(void)
{
  char tmpl[] = "/tmp/dg-cubin-XXXXXX";
  char *dir = mkdtemp(tmpl);
  setenv("DIRIGO_CUBIN_CACHE", dir, 1);
  char *cd = dg_gpu_cache_dir();
  is_str(cd, dir, "cache dir from DIRIGO_CUBIN_CACHE");
  free(cd);

  /* a torch extension: host code stripped, a template instance and a plain kernel */
  const char *names[] = { "reduce6<float, 256, true>", "scale_add" };
  dg_gpu_copts o = { .names = names, .nnames = 2, .arch = "sm_90" };
  dg_gpu_binary b;
  char *diag;
  dg_gpu_status st = compile("torch_ext.cu", &o, &b, &diag);
  is_int(st, DG_GPU_OK, "torch extension compiles for sm_90 (%s)", diag);
  free(diag);
  ok(b.image_len > 4 && !memcmp(b.image, "\177ELF", 4) && !b.is_ptx, "a CUBIN (ELF) came back");
  ok(b.nnames == 2 && !strncmp(b.lowered[0], "_Z7reduce6IfLi256ELb1EEvPKT_PS0_i", 40),
     "template instance lowered: %s", b.nnames ? b.lowered[0] : "?");
  ok(b.nnames == 2 && !strcmp(b.lowered[1], "_Z9scale_addPfPKfi"), "plain kernel lowered: %s",
     b.nnames > 1 ? b.lowered[1] : "?");
  ok(!b.cache_hit, "first compile misses the cache");
  is_str(b.arch, "sm_90", "built for sm_90");
  double cold = b.seconds;
  size_t len = b.image_len;
  dg_gpu_binary_free(&b);

  st = compile("torch_ext.cu", &o, &b, &diag);
  free(diag);
  ok(st == DG_GPU_OK && b.cache_hit, "second compile hits the cache");
  ok(b.image_len == len && b.nnames == 2 && !strcmp(b.lowered[1], "_Z9scale_addPfPKfi"),
     "cached binary and names are the same");
  ok(b.seconds < cold, "cached (%.4f s) faster than cold (%.3f s)", b.seconds, cold);
  dg_gpu_binary_free(&b);

  const char *defs[] = { "BLOCK_EXTRA=1" };
  dg_gpu_copts o2 = o;
  o2.defines = defs;
  o2.ndefines = 1;
  st = compile("torch_ext.cu", &o2, &b, &diag);
  free(diag);
  ok(st == DG_GPU_OK && !b.cache_hit, "another define misses the cache");
  dg_gpu_binary_free(&b);

  /* errors at the user's line and column, past blanked host code */
  const char *bn[] = { "broken" };
  dg_gpu_copts o3 = { .names = bn, .nnames = 1 };
  st = compile("bad.cu", &o3, &b, &diag);
  is_int(st, DG_GPU_COMPILE, "an undefined identifier is a compile error");
  ok(strstr(diag, "bad.cu:10:12: error: identifier \"undefined_thing\" is undefined") != NULL,
     "diagnostic at bad.cu:10:12: %s", diag);
  free(diag);
  ok(b.image == NULL && b.log && strstr(b.log, "undefined_thing"), "no image; the raw log is kept");
  dg_gpu_binary_free(&b);

  const char *hn[] = { "uses" };
  dg_gpu_copts o4 = { .names = hn, .nnames = 1 };
  st = compile("bad_header.cu", &o4, &b, &diag);
  is_int(st, DG_GPU_COMPILE, "an error in a local header");
  ok(strstr(diag, "bad_header.h:4:16: error:") != NULL, "named at the header's line: %s", diag);
  free(diag);
  dg_gpu_binary_free(&b);

  const char *wrong[] = { "no_such_kernel" };
  dg_gpu_copts o5 = { .names = wrong, .nnames = 1 };
  st = compile("torch_ext.cu", &o5, &b, &diag);
  is_int(st, DG_GPU_COMPILE, "an unknown kernel name is an error");
  has_str(diag, "no_such_kernel", "naming the kernel");
  free(diag);
  dg_gpu_binary_free(&b);

  /* a real sample, device side only */
  const char *src = getenv("DG_SRCDIR");
  char *sp = dg_printf("%s/samples/elementwise/residual_add.cu", src ? src : "..");
  if (access(sp, R_OK) == 0) {
    dg_srcmgr sm;
    dg_srcmgr_init(&sm);
    uint32_t f = dg_srcmgr_load(&sm, sp);
    dg_diags d = {0};
    const char *rn[] = { "residual_add_kernel" };
    dg_gpu_copts o6 = { .names = rn, .nnames = 1, .defines = (const char *[]){ "TORCH_EXTENSION_NAME=ext" }, .ndefines = 1 };
    st = dg_gpu_compile(&sm, f, &o6, &b, &d);
    char *e = first_diag(&sm, &d, DG_SEV_ERROR);
    is_int(st, DG_GPU_OK, "sample residual_add.cu with its torch wrapper compiles (%s)", e);
    free(e);
    dg_gpu_binary_free(&b);
    dg_diags_free(&d);
    dg_srcmgr_free(&sm);
  }
  free(sp);

  char *cmd = dg_printf("rm -rf '%s'", dir);
  ok(system(cmd) == 0, "cache dir removed");
  free(cmd);
  return tap_done();
}
#endif
