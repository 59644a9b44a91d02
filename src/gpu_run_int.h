/* gpu_run_int.h — internal to gpu_run.c and gpu_many.c: the pipeline's
 * steps that both the one-case run and the several-case request use. */
#ifndef DG_GPU_RUN_INT_H
#define DG_GPU_RUN_INT_H
#include "gpu_run.h"
#include "fuzz_run.h"   /* FUZZ_MANY_MAX */

#define MAX_PARAMS GPU_RUN_MAX_PARAMS
bool grun_child_lost(dg_gpu_status st);
dg_gpu_status grun_ensure_loaded(gpu_kernels *gk, char **msg);
dg_gpu_status grun_param_sizes(gpu_kernels *gk, int name, char **msg);
dg_gpu_status grun_ensure_buffers(const dg_problem *p, gpu_kernels *gk, const emu_io *io, int *bad, char **msg);
bool grun_ref_ready(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, gpu_ref_plan *pl);
bool grun_cmp_ready(const dg_problem *p, gpu_kernels *gk, int t);
bool grun_rs_ready(gpu_kernels *gk, int n, int64_t max_check);
/* A device buffer kept across cases: *kept is its bytes + 1 (0: none). It is
 * allocated again (filled with dtype's poison) unless it already has exactly
 * `bytes` (exact) or at least that many; false when that fails. */
bool grun_keep_buf(gpu_kernels *gk, dg_gpu_buf *buf, size_t *kept, size_t bytes, bool exact, const char *dtype);
bool grun_launch_args(const dg_problem *p, int li, const int64_t *sizes, const dg_gpu_buf *bufs,
                      const size_t *psize, int np, dg_gpu_arg *args, dg_diags *d);
/* gpu_many.c: input tensor t of io into raw (the device's bytes), and the
 * inputs of slot's case drawn on the device (false: upload them) */
void grun_to_raw(const dg_tensor *ts, const emu_io *io, int t, uint8_t *raw);
bool grun_dgen_ready(gpu_kernels *gk);
/* The lanes a request of m cases runs on (gpu.h dg_gpu_batch_lane; doc/gpu.md
 * §3, session 6): DIRIGO_GPU_STREAMS (1: none, today's one stream), by
 * default 1 where a case's device buffers hold less than GRUN_LANES_BYTES,
 * 8 below GRUN_LANES8_BYTES (session 11: softmax 16 x 16384, 4 MiB a case,
 * whose passes hold a few SMs each, 0.023-0.025 ms a case on 8 lanes
 * against 0.027-0.030 on 4 on the H200), 4 beyond (matmul 1024^3 was 4%
 * slower on 8); never more than m. Counted in gk->prof.lanes. */
#define GRUN_LANES_BYTES ((size_t)1 << 20)
#define GRUN_LANES8_BYTES ((size_t)8 << 20)
int grun_lanes(gpu_kernels *gk, int m);
#endif
