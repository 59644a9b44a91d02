/* avail.c — dg_gpu_available and dg_gpu_open say plainly why there is no GPU.
 * On a machine without NVIDIA device nodes the answer must be "no", with one
 * of the documented reasons; with a GPU, "yes" names the device and arch. */
#include "gpu.h"
#include "config.h"
#include "../tap.h"
#include <unistd.h>

static __attribute__((unused)) bool starts(const char *s, const char *p) { return s && !strncmp(s, p, strlen(p)); }

int main(void)
{
  char *why = NULL;
  setenv("DIRIGO_NO_GPU", "1", 1);
  ok(dg_gpu_open(NULL, &why) == NULL, "DIRIGO_NO_GPU=1 disables the GPU");
  is_str(why, "disabled by DIRIGO_NO_GPU", "and says so");
  free(why);
  unsetenv("DIRIGO_NO_GPU");

  bool nodes = access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0;
  double t0 = dg_now();
  bool avail = dg_gpu_available(&why);
  double t1 = dg_now();
  printf("# dg_gpu_available: %s: %s (%.3f s)\n", avail ? "yes" : "no", why, t1 - t0);
#ifndef DG_HAVE_CUDA
  (void)nodes;
  ok(!avail, "built without CUDA: no GPU");
  is_str(why, "built without CUDA", "the reason");
#else
  if (!nodes) {
    ok(!avail, "no NVIDIA device nodes: no GPU");
    ok(starts(why, "no CUDA driver") || starts(why, "no GPU device"),
       "the reason is plain: %s", why);
  } else if (avail) {
    ok(strstr(why, "(sm_") != NULL, "a GPU, named with its arch: %s", why);
    ok(true, "device nodes present");
  } else {
    ok(why && *why, "device nodes but no usable GPU: %s", why);
    ok(true, "device nodes present");
  }
#endif
  free(why);
  char *again = NULL;
  double t2 = dg_now();
  ok(dg_gpu_available(&again) == avail && dg_now() - t2 < (t1 - t0) + 0.05, "the answer is cached");
  free(again);
  return tap_done();
}
