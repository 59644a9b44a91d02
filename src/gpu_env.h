/* gpu_env.h — the validator's kernel-precision envelope on the GPU, for the
 * ops with a GPU reference (gpu_ref.c): fuzz_envelope.c's rule (the fp32
 * evaluation of the reference, its overflow and NaN-input facts, and the
 * backward-error test at perturbed inputs) as one CUDA kernel, `dg_env`,
 * one thread per element to judge. The rule's code is shared with the host
 * (src/gpu_env_dev.h), so both give the same verdicts.
 *
 * The kernel (every parameter 8 bytes):
 *   dg_env(u8 *ok, const double *cand, i64 m, i64 kind,
 *          const void *a, i64 ta, i64 ia, const void *b, i64 tb, i64 ib,
 *          const void *c, i64 tc, i64 ic, i64 n0, i64 n1, i64 n2, i64 n3,
 *          double p0, double p1, double p2, i64 odt, double atol, double rtol)
 * judges m candidates: cand[3j] the element's flat index in the output,
 * cand[3j+1] the kernel's value, cand[3j+2] the fp64 reference's; ok[j] = 1
 * when the element is inside the envelope. Inputs a, b, c: the case's input
 * tensors on the device as they were before the kernel under test ran, with
 * their dtype codes (t*) and tensor indices (i*, which key the perturbation).
 *
 * From the GPU child (device pointers), with the parameters worked out on
 * the host once per shape:
 *   gpu_env_launch L; gpu_env_launch_for(p, sizes, t, tol, &L);   (false: none)
 *   uint64_t vals[GPU_ENV_NARGS]; void *ptrs[GPU_ENV_NARGS];
 *   gpu_env_kernel_args(&L, d_ok, d_cand, m, (const void *[3]){ d_x, d_w, d_b }, vals, ptrs);
 *   cudaLaunchKernel(k_dg_env, gpu_env_grid(m), gpu_env_block(), ptrs, 0, stream);
 * (k_dg_env: gpu_env_compile's binary, kernel gpu_env_kernel_name()).
 * The caps of the host rule (FUZZ_ENVELOPE_JUDGED elements judged, 32 left
 * failing) are the caller's: pass the first FUZZ_ENVELOPE_JUDGED elements
 * that miss the fp64 reference, apply the caps in order over the verdicts. */
#ifndef DG_GPU_ENV_H
#define DG_GPU_ENV_H
#include "gpu_run.h"

#define GPU_ENV_NARGS 23
#define GPU_ENV_BLOCK 96    /* 32 candidates, a warp for each perturbed evaluation (gpu_env.c) */
#define GPU_ENV_GRID 2048
typedef struct {
  int64_t kind, n[4];
  double p[3];
  int64_t in_t[3], in_dt[3];   /* per kernel input: tensor index, dtype code; -1 none */
  int64_t out_dt;              /* the output's dtype code (0..3 floats; others judged by NaN inputs) */
  double atol, rtol;
} gpu_env_launch;

/* Output t of p at these sizes has a device envelope (the op's GPU
 * reference, inputs without a value range). */
bool gpu_env_launch_for(const dg_problem *p, const int64_t *sizes, int t, dg_tol tol, gpu_env_launch *L);
void gpu_env_kernel_args(const gpu_env_launch *L, void *ok, const void *cand, int64_t m,
                         const void *const in_dev[3], uint64_t vals[GPU_ENV_NARGS], void *ptrs[GPU_ENV_NARGS]);
dg_gpu_dim3 gpu_env_grid(int64_t m);
dg_gpu_dim3 gpu_env_block(void);
const char *gpu_env_kernel_name(void);    /* "dg_env" */
const char *gpu_env_source(void);         /* the NVRTC source */
/* NVRTC for arch (NULL: sm_90), --fmad=false; no GPU needed. */
dg_gpu_status gpu_env_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d);

/* Through the session of gk, after a gpu_run that computed output t's GPU
 * reference: the verdicts ok[0..m-1] of elements idx[] (kernel values got[],
 * fp64 reference want[]), in one batch (the inputs uploaded again from the
 * host's bytes, the candidates up, the kernel, the verdicts down). False: no
 * device envelope here (then the host judges): no GPU reference this run,
 * DIRIGO_GPU_ENVELOPE=0, or the kernel could not be built or run (that turns
 * it off for the session; gk->env's why says so). */
bool gpu_env_judge(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                   const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *ok);
/* Compiles the kernel now (NVRTC, cached; ~1 s cold) instead of at the
 * first failing case, so it is not timed as part of a case; the fuzz
 * backends call it. Nothing without a session. */
void gpu_env_prepare(gpu_kernels *gk);
/* Counters of the device envelope in gk (for benches and tests). */
typedef struct {
  int64_t calls, refused;      /* gpu_env_judge calls, and those that left it to the host */
  int64_t batches, judged;     /* device batches run, elements judged there */
  double ms;                   /* the kernel's time, all batches */
  int64_t pipe_requests;       /* gpu_run_many requests that judged inside their stream */
  const char *why;             /* why it is off, or NULL */
} gpu_env_stats;
gpu_env_stats gpu_env_stats_of(const gpu_kernels *gk);
void gpu_env_free(gpu_kernels *gk);

/* Inside gpu_run_many's stream, per case, no host round trip: before the
 * kernel under test a hash of the inputs the envelope reads (dg_env_hash);
 * after the comparison (dg_cmp), when its summary has failing elements, none
 * unwritten and at most FUZZ_ENVELOPE_JUDGED, the grid gathers them in no
 * particular order (dg_env_gather), dg_env_many judges them, and dg_env_fold
 * (the grid hashing the inputs again, its last block deciding) turns the summary into a pass (word 1 failing 0, word 6 first
 * none, word 7 the elements the envelope explained) when every one is inside
 * the envelope and the inputs hash as before the kernel ran (a kernel that
 * wrote into its inputs is judged on the host). A case that still fails keeps
 * its summary, and the host judges it as before. Ready: the op has a device
 * envelope, its inputs are plain inputs, the kernels load (DIRIGO_GPU_ENVELOPE=0
 * or DIRIGO_GPU_ENV_MANY=0: off). */
typedef struct {
  gpu_env_launch L;
  dg_gpu_kernel hash, gather, judge, fold;
  dg_gpu_buf work;
  dg_gpu_arg hash_args[7], gather_args[11], env_args[GPU_ENV_NARGS], fold_args[9];
  dg_gpu_dim3 gather_grid, judge_grid, judge_block;   /* judge: dg_env_many, or dg_env_mm for matmul */
} gpu_env_pipe;
bool gpu_env_pipe_ready(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, int t, gpu_env_pipe *P);
void gpu_env_pipe_start(const gpu_env_pipe *P, dg_gpu_batch *b);    /* once a request: the words zeroed */
void gpu_env_pipe_before(const gpu_env_pipe *P, dg_gpu_batch *b);   /* before the kernel under test */
void gpu_env_pipe_after(const gpu_env_pipe *P, dg_gpu_batch *b);    /* after dg_cmp, before the download */

#endif
