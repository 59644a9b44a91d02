/* run.c — the GPU session scenario (scenario.h) on the real GPU, with the
 * kernels of fixtures/kernels.cu compiled by NVRTC for the device's arch.
 * Without a GPU: "1..0 # SKIP no GPU: <why>" (exit 0, which automake's TAP
 * driver needs; t/gpu/device-run.sh counts skips). */
#include "scenario.h"
#include "flight.h"

int main(void)
{
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("1..0 # SKIP no GPU: %s\n", why);
    free(why);
    return 0;
  }
  printf("# GPU: %s\n", why);
  free(why);
  char tmpl[] = "/tmp/dg-cubin-XXXXXX";
  char *dir = mkdtemp(tmpl);
  setenv("DIRIGO_CUBIN_CACHE", dir, 1);

  dg_gpu *probe = dg_gpu_open(NULL, NULL);
  char arch[16] = "sm_90";
  if (probe) memcpy(arch, dg_gpu_info_of(probe)->arch, sizeof arch);
  dg_gpu_close(probe);

  const char *src = getenv("DG_SRCDIR");
  char *path = dg_printf("%s/t/gpu/fixtures/kernels.cu", src ? src : "..");
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  uint32_t f = dg_srcmgr_load(&sm, path);
  dg_diags d = {0};
  dg_gpu_copts co = { .names = (const char *const *)kernel_names, .nnames = K_N, .arch = arch };
  dg_gpu_binary bin, again;
  dg_gpu_status st = dg_gpu_compile(&sm, f, &co, &bin, &d);
  dg_diags_print(stdout, &sm, &d);
  is_int(st, DG_GPU_OK, "kernels.cu compiles for %s in %.3f s", arch, bin.seconds);
  st = dg_gpu_compile(&sm, f, &co, &again, &d);
  ok(st == DG_GPU_OK && again.cache_hit && again.image_len == bin.image_len,
     "the second compile hits the cache (%.4f s)", again.seconds);
  dg_gpu_binary_free(&again);
  if (bin.image) {
    dg_gpu_opts o = { .launch_timeout_s = 3, .call_timeout_s = 60 };
    scenario(&o, &bin);
    batch_scenario(&o, &bin);
    lanes_scenario(&o, &bin);
    graph_scenario(&o, &bin);
    flight_scenario(&o, &bin);
    setenv("DIRIGO_GPU_HOST_GUARDS", "1", 1);   /* the guards compared on the host */
    scenario(&o, &bin);
    unsetenv("DIRIGO_GPU_HOST_GUARDS");
  }
  dg_gpu_binary_free(&bin);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  free(path);
  char *cmd = dg_printf("rm -rf '%s'", dir);
  if (system(cmd)) printf("# could not remove %s\n", dir);
  free(cmd);
  return tap_done();
}
