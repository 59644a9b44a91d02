/* fuzz_gpu.h — the GPU fuzz backend (fuzz_gpu.c). */
#ifndef DG_FUZZ_GPU_H
#define DG_FUZZ_GPU_H
#include "fuzz_run.h"
#include "gpu_run.h"

/* gk is borrowed: load it with gpu_kernels_load before the campaign. */
fuzz_backend fuzz_backend_gpu(gpu_kernels *gk);

#endif
