/* gpu_fused.h — the reference fused into the comparison (gpu_fused.c,
 * session 6, issue #6): in the first request of a group, for the ops whose
 * reference is cheap to recompute where it is compared (elementwise: an
 * element a thread; row ops: a block a row), one launch computes each
 * element's fp64 reference with the reference kernel's own device functions
 * (gpu_ref.c) and applies dg_cmp's rule to it there (gpu_cmp.c's
 * dg_cmp_one and dg_cmp_fold), into the case's 64-byte summary: no f64
 * reference buffer written or read.
 *
 * The reference kernel runs before the kernel under test and reads its
 * inputs as drawn; the fused pass runs after it. So that a kernel that
 * writes into its inputs is not judged against a reference of what it left
 * there, dg_fused_hash adds a hash of every input element (tensor, index,
 * bits) to the summary's word 7 before the kernel, and dg_fused subtracts
 * the same hash of the elements it reads: word 7 is 0 unless an input
 * changed (then the case is not judged in the request and runs alone, the
 * reference first). */
#ifndef DG_GPU_FUSED_H
#define DG_GPU_FUSED_H
#include "gpu_run.h"

#define GPU_FUSED_NARGS 22       /* dg_fused's parameters */
#define GPU_FUSED_HASH_NARGS 8   /* dg_fused_hash's */

/* The two launches of a case: dg_fused_hash before the kernel under test,
 * dg_fused_map or dg_fused_rows after it; the summary's slot at sum_off of both (caller sets
 * fa[GPU_FUSED_NARGS - 1].buf_off and ha[GPU_FUSED_HASH_NARGS - 1].buf_off). */
typedef struct {
  dg_gpu_arg fa[GPU_FUSED_NARGS], ha[GPU_FUSED_HASH_NARGS];
  dg_gpu_dim3 fg, fb, hg, hb;
  uint32_t fshmem;               /* dg_fused_rows's dynamic shared memory: the plan's */
  int kern;                      /* gpu_kernels.fused_kern[kern]: 1 dg_fused_map, 2 dg_fused_rows */
} gpu_fused_launch;

/* gpu_ref.c: the plan's kind has a fused pass (rows and elementwise ops) */
bool gpu_ref_fusable(const gpu_ref_plan *pl);
/* dg_fused and dg_fused_hash: their own source, and compiled after
 * gpu_ref.c's and gpu_cmp.c's device code, as one program */
const char *gpu_fused_source(void);
dg_gpu_status gpu_fused_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d);
/* The launches for plan pl of p (output pl->out in bufs, compared with its
 * tolerance into sum); false when the plan has no fused pass. */
bool gpu_fused_prepare(const dg_problem *p, const gpu_ref_plan *pl, const dg_gpu_buf *bufs, dg_gpu_buf sum,
                       gpu_fused_launch *fl);
/* The fused pass for this run: DIRIGO_GPU_FUSED=1 (off otherwise: measured
 * no faster on the H200) and the plan fusable, its kernels compiled once and
 * loaded in the current child. */
bool gpu_fused_ready(gpu_kernels *gk, const gpu_ref_plan *pl);
#endif
