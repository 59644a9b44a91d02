/* gpu_run.h — a problem's whole pipeline on the GPU, shaped like emu_run
 * (emu.h) so the fuzzer and witness replay can swap backends: the same
 * emu_io in (inputs as doubles) and out (outputs as doubles + a written mask,
 * from the poison left in each element), plus what the GPU found (a fault,
 * a hang, writes into a guard region, named by tensor and element).
 *
 * Argument bytes come from the kernel's own parameter sizes on the device
 * (dg_gpu_param_sizes), so kernels the front end cannot lower still run. */
#ifndef DG_GPU_RUN_H
#define DG_GPU_RUN_H
#include "gpu.h"
#include "emu.h"

typedef struct {
  dg_gpu *g;                 /* the session: owned */
  dg_gpu_binary bin;         /* the problem's kernels, one name per distinct instance */
  int nnames;
  char **names;              /* "reduce6<float, 256, true>"; owned */
  int *name_of;              /* per launch: index into names */
  dg_gpu_kernel *kern;       /* per name, valid in generation gen */
  unsigned gen;              /* 0: not loaded in the current child */
} gpu_kernels;

/* Compiles the problem's source for the session's GPU (NVRTC diagnostics go
 * to d, spans into p->sm). opts NULL: defaults. False when no GPU or no binary. */
bool gpu_kernels_load(gpu_kernels *gk, dg_problem *p, const dg_gpu_opts *opts, dg_diags *d);
void gpu_kernels_free(gpu_kernels *gk);

typedef struct {
  int launch;                /* which launch of the pipeline */
  int tensor;                /* index into p->tensors */
  bool after;                /* past the end (else before the start) */
  int64_t element;           /* first element written out of bounds (numel.. or negative) */
  size_t nbytes;
} gpu_oob;

typedef struct {
  dg_gpu_status status;      /* OK, or what stopped the pipeline */
  int failed_launch;         /* -1, or the launch that stopped it */
  char *msg;                 /* owned: "launch 2 (softmax): an illegal memory access ..." */
  char *output;              /* what kernels printed; owned, may be NULL */
  double ms;                 /* kernel time, all launches */
  DG_VEC(gpu_oob) oob;
} gpu_run_result;

/* Runs every launch in order on fresh buffers (inputs and accumulate outputs
 * uploaded from io, scratch zero prefixes written, the rest poisoned), then
 * reads outputs and scratch back into io. False only when it could not start
 * (bad sizes or arguments: diagnostics in d); GPU findings are in res. After a
 * FAULT/TIMEOUT/CHILD_DIED the next run reloads the kernels in a fresh child. */
bool gpu_run(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *io,
             gpu_run_result *res, dg_diags *d);
void gpu_run_result_free(gpu_run_result *r);

#endif
