/* fuzz_gpu.h — the GPU fuzz backend (fuzz_gpu.c). */
#ifndef DG_FUZZ_GPU_H
#define DG_FUZZ_GPU_H
#include "fuzz_run.h"
#include "gpu_run.h"

/* gk is borrowed: load it with gpu_kernels_load before the campaign. */
fuzz_backend fuzz_backend_gpu(gpu_kernels *gk);

/* The same backend, adding each run's wall time (gpu_run: allocation, upload,
 * launches, download) and kernel time (events) to t: what benchmarks split a
 * case's time with. t and t->gk are borrowed. */
typedef struct {
  gpu_kernels *gk;
  int64_t runs;
  double run_s, kernel_ms;
} fuzz_gpu_timed;
fuzz_backend fuzz_backend_gpu_timed(fuzz_gpu_timed *t);

#endif
