/* mock.c — the GPU session scenario (scenario.h) on a mocked CUDA runtime
 * (mockcuda.c): fork, protocol, guards, faults, watchdog and restarts,
 * tested where there is no GPU. */
#include "scenario.h"
#include "flight.h"
#include "gpu_run_int.h"

/* grun_lanes's rule by a case's device bytes (gpu_run_int.h): none below
 * 1 MiB, 8 lanes below 8 MiB (softmax 16 x 16384: x and y 1 MiB each, its
 * f64 reference 2), 4 beyond; never more than the request's cases; the
 * variable first. */
static void lane_rule(void)
{
  gpu_kernels gk;
  memset(&gk, 0, sizeof gk);
  size_t bytes[2] = { (size_t)1 << 20, (size_t)1 << 20 };
  gk.buf_bytes = bytes, gk.ntensors = 2, gk.ref_bytes = (size_t)2 << 20;
  unsetenv("DIRIGO_GPU_STREAMS");
  ok(grun_lanes(&gk, 32) == 8, "lanes: 8 for a 4 MiB case (softmax 16 x 16384)");
  ok(grun_lanes(&gk, 3) == 3, "lanes: no more than the request's cases");
  gk.ref_bytes = (size_t)16 << 20;
  ok(grun_lanes(&gk, 32) == 4, "lanes: 4 from 8 MiB a case");
  bytes[0] = bytes[1] = 1000, gk.ref_bytes = 2000;
  ok(grun_lanes(&gk, 32) == 1, "lanes: one stream below 1 MiB a case");
  setenv("DIRIGO_GPU_STREAMS", "2", 1);
  ok(grun_lanes(&gk, 32) == 2, "lanes: DIRIGO_GPU_STREAMS first");
  unsetenv("DIRIGO_GPU_STREAMS");
}

int main(void)
{
  char *why = NULL;
  ok(dg_gpu_available(&why), "the mock counts as a GPU");
  is_str(why, "Mock GPU (sm_90)", "named with its arch");
  free(why);
  lane_rule();
  char *names[K_N] = { "fill_even", "scale_k_f3", "oob_write", "oob_before", "bad_address", "spin", "say", "stray" };
  dg_gpu_binary bin = { .image = (uint8_t *)"MOCK", .image_len = 5, .lowered = names, .nnames = K_N };
  dg_gpu_opts o = { .launch_timeout_s = 1, .call_timeout_s = 20, .guard_bytes = 4096 };
  scenario(&o, &bin);
  batch_scenario(&o, &bin);
  lanes_scenario(&o, &bin);
  graph_scenario(&o, &bin);
  flight_scenario(&o, &bin);
  setenv("DIRIGO_GPU_HOST_GUARDS", "1", 1);   /* the guards compared on the host */
  scenario(&o, &bin);
  unsetenv("DIRIGO_GPU_HOST_GUARDS");
  return tap_done();
}
