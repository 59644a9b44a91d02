/* fuzz_gpu.h — the GPU fuzz backend (fuzz_gpu.c). */
#ifndef DG_FUZZ_GPU_H
#define DG_FUZZ_GPU_H
#include "fuzz_run.h"
#include "gpu_run.h"

/* gk is borrowed: load it with gpu_kernels_load before the campaign. Sets
 * gk->use_ref: where the op has a GPU reference (gpu_ref.c) the cases are
 * judged against it (every element, fp64, computed on the device) instead
 * of the Lua reference on the CPU (DIRIGO_GPU_REF=0 turns that off). */
fuzz_backend fuzz_backend_gpu(gpu_kernels *gk);

/* The same backend, adding each run's wall time (gpu_run: allocation, upload,
 * launches, download) and kernel time (events) to t: what benchmarks split a
 * case's time with. t and t->gk are borrowed. */
typedef struct {
  gpu_kernels *gk;
  int64_t runs;
  double run_s, kernel_ms;
  int64_t ref_runs;          /* outputs judged by the GPU reference */
  double ref_ms;             /* its kernel time */
  int64_t dev_judged;        /* outputs judged by the comparison on the device (passing) */
  int64_t many;              /* cases that passed in a request of several (gpu_run_many) */
  int64_t env_passed;        /* of those, cases off the reference the envelope passed there */
  int64_t sampled;           /* of those, cases judged on the validator's sample there */
  bool untimed_many;         /* requests of several cases not timed (kernel_ms gets none of them):
                                as the untimed backend runs them */
} fuzz_gpu_timed;
fuzz_backend fuzz_backend_gpu_timed(fuzz_gpu_timed *t);

#endif
