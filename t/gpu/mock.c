/* mock.c — the GPU session scenario (scenario.h) on a mocked CUDA runtime
 * (mockcuda.c): fork, protocol, guards, faults, watchdog and restarts,
 * tested where there is no GPU. */
#include "scenario.h"
#include "graph.h"

int main(void)
{
  char *why = NULL;
  ok(dg_gpu_available(&why), "the mock counts as a GPU");
  is_str(why, "Mock GPU (sm_90)", "named with its arch");
  free(why);
  char *names[K_N] = { "fill_even", "scale_k_f3", "oob_write", "oob_before", "bad_address", "spin", "say", "stray" };
  dg_gpu_binary bin = { .image = (uint8_t *)"MOCK", .image_len = 5, .lowered = names, .nnames = K_N };
  dg_gpu_opts o = { .launch_timeout_s = 1, .call_timeout_s = 20, .guard_bytes = 4096 };
  scenario(&o, &bin);
  batch_scenario(&o, &bin);
  lanes_scenario(&o, &bin);
  graph_scenario(&o, &bin);
  setenv("DIRIGO_GPU_HOST_GUARDS", "1", 1);   /* the guards compared on the host */
  scenario(&o, &bin);
  unsetenv("DIRIGO_GPU_HOST_GUARDS");
  return tap_done();
}
