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
#include "fuzz.h"

#define GPU_REF_NKERNELS 6         /* gpu_ref.c's kernels: a kind each, then dg_ref_at */
#define GPU_REF_AT 5

typedef struct {
  dg_gpu *g;                 /* the session: owned */
  dg_gpu_binary bin;         /* the problem's kernels, one name per distinct instance */
  int nnames;
  char **names;              /* "reduce6<float, 256, true>"; owned */
  int *name_of;              /* per launch: index into names */
  dg_gpu_kernel *kern;       /* per name, valid in generation gen */
  unsigned gen;              /* 0: not loaded in the current child */
  /* kept across runs: parameter sizes per name (the same in every child),
   * and one buffer per tensor while its byte size stays (cases of one shape
   * reuse them: re-poisoned on the device, inputs overwritten) */
  int *np;                   /* per name: parameters, -1 not asked yet */
  size_t *psize;             /* per name: GPU_RUN_MAX_PARAMS sizes */
  dg_gpu_buf *bufs;          /* per tensor, valid in generation buf_gen */
  size_t *buf_bytes;
  unsigned buf_gen;          /* 0: none allocated in the current child */
  dg_gpu_batch batch;
  int ntensors;
  uint8_t **raw;             /* per tensor: host bytes as the device holds them, kept */
  size_t *raw_cap;
  int64_t allocs;            /* buffers allocated so far (a test sees the reuse) */
  /* the reference on the GPU (gpu_ref.c), when use_ref and the op has one */
  bool use_ref;              /* set by the caller (fuzz_backend_gpu does) */
  int ref_state;             /* 0 not tried, 1 compiled, -1 unavailable (ref_why says why) */
  char *ref_why;
  dg_gpu_binary ref_bin;
  dg_gpu_kernel ref_kern[GPU_REF_NKERNELS];
  unsigned ref_gen;          /* ref kernels loaded in this generation */
  dg_gpu_buf ref_buf;        /* f64 results, valid in buf_gen */
  size_t ref_bytes;
  int ref_out;               /* after a run: the output tensor want holds, -1 none */
  double *want;              /* that output's reference values */
  int64_t want_n;
  double ref_ms;             /* the reference kernel's time in the last run */
  /* the sampled reference (dg_ref_at): set by gpu_run_sample_next for the
   * next gpu_run; gpu_run_many decides from its seeds and max_check */
  bool samp_next;            /* the next gpu_run computes the reference at the sample alone */
  uint64_t samp_seed;        /* its case seed */
  int64_t samp_max;          /* and the campaign's max_check */
  bool ref_sampled;          /* after a run: the reference holds the sample alone */
  dg_gpu_buf rs_idx;         /* every case's picks (i64), valid in rs_gen when rs_bytes */
  size_t rs_bytes;           /* its bytes + 1 (0: none) */
  unsigned rs_gen;
  int64_t *rs_host;          /* the picks on the host: FUZZ_MANY_MAX x max_check */
  size_t rs_cap;
  struct gpu_env *env;       /* the envelope on the GPU (gpu_env.h), NULL until used */
  /* the comparison on the device (gpu_cmp.c), when dev_cmp and the run has a
   * GPU reference: the output is judged there and only the summary comes back */
  bool dev_cmp;              /* set by the caller (fuzz_backend_gpu does; DIRIGO_GPU_CMP=0: off) */
  int cmp_state;             /* 0 not tried, 1 compiled, -1 unavailable */
  dg_gpu_binary cmp_bin;
  dg_gpu_kernel cmp_kern[3]; /* dg_cmp, dg_cmp_pick, dg_in_hash */
  int fused_state;           /* gpu_fused.h: 0 not tried, 1 compiled, -1 off or unavailable */
  dg_gpu_binary fused_bin;
  dg_gpu_kernel fused_kern[3]; /* dg_fused_hash, dg_fused_map, dg_fused_rows */
  unsigned fused_gen;        /* fused_kern loaded in this generation */
  unsigned cmp_gen;          /* cmp_kern loaded in this generation */
  dg_gpu_buf samp_ref;       /* gpu_run_many: the reference at a case's sample, f64 poison elsewhere */
  size_t samp_bytes;         /* its bytes + 1 (0: none), valid in samp_gen */
  dg_gpu_buf samp_idx;       /* the sample's element indices (i64) */
  size_t samp_idx_bytes;
  unsigned samp_gen;
  dg_gpu_buf ovh_buf;        /* gpu_run_many with side streams: two input hashes a case (u64) */
  size_t ovh_bytes;          /* its bytes + 1 (0: none), valid in ovh_gen */
  unsigned ovh_gen;
  dg_gpu_buf cmp_buf;        /* the summary, valid in buf_gen when cmp_have */
  bool cmp_have;
  bool judged;               /* after a run: cmp_sum judges output ref_out */
  uint64_t cmp_sum[8];
  bool pending;              /* after a run: outputs and reference left on the device
                                (gpu_run_fetch brings them into io and want) */
  size_t *pend_bytes;        /* per tensor: the bytes the run left there */
  struct gpu_many_job *many_jobs[2];   /* gpu_run_many's state, two open at most (gpu_many.c) */
  bool many_timed;           /* gpu_run_many times the kernels (gpu_many_case.ms; benches): event records */
  /* inputs drawn on the device (gpu_gen.h), registered per run with gpu_run_gen */
  int dgen_state;            /* 0 not tried, 1 compiled, -1 unavailable */
  dg_gpu_binary dgen_bin;
  dg_gpu_kernel dgen_kern[2]; /* dg_gen_fill, dg_gen_many (GPU_GEN_NKERNELS) */
  unsigned dgen_gen;         /* dgen_kern loaded in this generation */
  dg_gpu_buf dgen_tab;       /* gpu_run_many: every case's dg_gen_many tasks */
  unsigned dgen_tab_gen;     /* allocated in this generation */
  uint8_t *dgen_on;          /* [slot * ntensors + t]: drawn on the device in the next run */
  fuzz_ctr *dgen_desc;       /* the same shape: its descriptor */
  uint8_t *dgen_last;        /* per tensor: the last gpu_run drew it on the device */
  struct gpu_many_prof {     /* where gpu_run_many's time went, all requests (benches) */
    int64_t requests, cases;
    double prep_s, run_s;    /* host: building the request; the request (child, GPU, sync) */
    double ms[7];            /* device, events: inputs drawn, inputs hashed, reference, kernels,
                                comparison, envelope (gather, judge, fold), the fused reference and
                                comparison (gpu_fused.h: its hash and dg_fused) */
    int64_t sampled;         /* cases judged on the validator's sample inside a request */
    int64_t rsampled;        /* cases whose reference was the sample's alone (dg_ref_at) */
    int lanes;               /* the lanes the last request asked for (1: one stream; grun_lanes) */
    int64_t overlapped;      /* requests with references on side streams (DIRIGO_GPU_OVERLAP) */
    int64_t ov_changed;      /* their cases whose inputs changed under the kernels: run again alone */
    int64_t left[4];         /* cases left to the host (run again alone), why: more elements off the
                                reference than the envelope judges (FUZZ_ENVELOPE_JUDGED), unwritten
                                elements, off the reference and not explained inside the request
                                (outside the envelope, or the op has none there), not judged (the
                                request failed at or before the case) */
  } prof;
} gpu_kernels;
#define GPU_RUN_MAX_PARAMS 64

/* Compiles the problem's source for the session's GPU (NVRTC diagnostics go
 * to d, spans into p->sm). opts NULL: defaults. False when no GPU or no binary. */
bool gpu_kernels_load(gpu_kernels *gk, dg_problem *p, const dg_gpu_opts *opts, dg_diags *d);
/* The compile alone, for arch (no GPU needed): the launches' kernels by name,
 * names[0..*nnames) distinct, name_of[launch] indexing them (both arrays
 * p->launches.n long, the names the caller's to free); the binary in bin. */
bool gpu_problem_compile(dg_problem *p, const char *arch, char **names, int *nnames, int *name_of,
                         dg_gpu_binary *bin, dg_diags *d);
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
  double ms;                 /* kernel time, all launches (the GPU reference's not included) */
  DG_VEC(gpu_oob) oob;
  bool ref_failed;           /* the GPU reference (not the kernel) failed: status and msg are its */
} gpu_run_result;

/* Runs every launch in order on fresh buffers (inputs and accumulate outputs
 * uploaded from io, scratch zero prefixes written, the rest poisoned), then
 * reads outputs and scratch back into io. False only when it could not start
 * (bad sizes or arguments: diagnostics in d); GPU findings are in res. After a
 * FAULT/TIMEOUT/CHILD_DIED the next run reloads the kernels in a fresh child. */
bool gpu_run(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *io,
             gpu_run_result *res, dg_diags *d);
void gpu_run_result_free(gpu_run_result *r);
/* After a run that left its outputs on the device (gk->pending: the
 * comparison ran there), downloads outputs and scratch into io and the
 * reference into gk->want, as a run without dev_cmp would have. OK when
 * nothing was pending; *msg (owned) on failure. */
dg_gpu_status gpu_run_fetch(const dg_problem *p, gpu_kernels *gk, emu_io *io, char **msg);

/* Several cases of one shape in one asynchronous request (dg_gpu_batch.async):
 * per case its inputs uploaded, outputs poisoned, the GPU reference, the
 * launches with their guard checks and the comparison on the device, with
 * one synchronisation for all; only the summaries come back. Needs dev_cmp,
 * a GPU reference and a comparison for the op's output: false otherwise
 * (nothing ran; run the cases with gpu_run). out[c].judged: case c ran
 * cleanly and cmp holds its comparison (cmp.nfail > 0: a failing case);
 * not judged: something went wrong at or before it in the request (a fault,
 * an out-of-bounds write, a launch refused, a hang) — run it with gpu_run,
 * which names what happened. */
typedef struct {
  bool judged;
  fuzz_cmp cmp;
  double ms;                 /* the kernels' time (events) */
  double ref_ms;             /* the reference's */
  int64_t nexplained;        /* judged: elements off the reference the envelope explained
                                on the device (gpu_env_pipe_*; the case passes) */
  bool sampled;              /* judged on the validator's sample (fuzz_sample_indices): more
                                elements off the whole reference than FUZZ_ENVELOPE_JUDGED */
} gpu_many_case;
/* seeds (NULL: none) and max_check > 0: a case whose output has more than
 * max_check elements, none unwritten and more than FUZZ_ENVELOPE_JUDGED off
 * the reference runs again in a later request that judges the validator's
 * sample of it (seeds[c], as fuzz_run.c's validator does on the host). */
bool gpu_run_many(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *const *ios, int n,
                  const uint64_t *seeds, int64_t max_check, gpu_many_case *out);
/* gpu_run_many in two halves (doc/gpu.md §3, "two batches in flight"):
 * _send builds the first request and sends it without waiting (false:
 * nothing sent, as gpu_run_many's false); _end takes its answer, runs the
 * later requests it needs and fills out[]. Between the two the caller can
 * send the next job of the same shape (the GPU runs it right behind this
 * one), at most two open; the emu_io objects ios[] points to stay until
 * _end. Every job sent is ended. */
typedef struct gpu_many_job gpu_many_job;
bool gpu_run_many_send(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *const *ios, int n,
                       const uint64_t *seeds, int64_t max_check, gpu_many_job **job);
bool gpu_run_many_end(gpu_many_job *job, gpu_many_case *out);
int gpu_run_many_cases(const gpu_many_job *job);   /* its n */
void gpu_many_jobs_free(gpu_kernels *gk);

/* The next gpu_run's case is case `seed` of a campaign validating outputs
 * over max_check elements on a sample: true when that run will compute the
 * GPU reference at the validator's sample alone (fuzz_sample_picks), not the
 * whole output — for ops whose reference can (gpu_ref_can_sample) and where
 * it pays (gpu_ref_wants_sample), at outputs over max_check elements;
 * DIRIGO_GPU_REF_SAMPLED=0 never, =1 wherever the op can. gpu_run_many
 * decides the same for each case (out[c].sampled). */
bool gpu_run_sample_next(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, uint64_t seed,
                         int64_t max_check);

/* Input (or accumulate) tensor t of the next gpu_run (slot 0) or of case
 * `slot` of the next gpu_run_many drawn on the device from the counter-based
 * descriptor g (gpu_gen.h: bit for bit fuzz_ctr_fill's values in the
 * tensor's dtype) instead of uploaded from io, whose data for t is then not
 * read. False: the generator is unavailable (NVRTC, DIRIGO_GPU_GEN=0) or
 * slot out of range; upload as usual. A run consumes its registrations. */
bool gpu_run_gen(gpu_kernels *gk, const dg_problem *p, int slot, int t, const fuzz_ctr *g);
/* After a run that drew inputs on the device: their bytes into gk->raw on
 * the host too (what a later request re-uploads: the GPU envelope). */
void gpu_run_host_inputs(const dg_problem *p, gpu_kernels *gk);

/* ---- the comparison on the device (gpu_cmp.c) ---------------------------------
 * fuzz_compare's rule (fuzz_validate.c) as a kernel over an output buffer
 * and its f64 reference buffer (f64 poison = undefined, not checked),
 * reduced to GPU_CMP_WORDS u64: upload gpu_cmp_init's, launch with
 * gpu_cmp_args (9 arguments) and gpu_cmp_dims, download, gpu_cmp_decode
 * (p99_abs left 0). Output dtypes f32, f64, f16, bf16. */
#define GPU_CMP_WORDS 8
const char *gpu_cmp_source(void);
bool gpu_cmp_supported(dg_dtype dt);
int gpu_cmp_args(dg_dtype dt, dg_gpu_buf got, dg_gpu_buf want, int64_t n, dg_tol tol, dg_gpu_buf sum,
                 dg_gpu_arg *args);
void gpu_cmp_dims(int64_t n, dg_gpu_dim3 *grid, dg_gpu_dim3 *block);
void gpu_cmp_init(uint64_t sum[GPU_CMP_WORDS]);
void gpu_cmp_decode(const uint64_t sum[GPU_CMP_WORDS], int64_t n, fuzz_cmp *c);
/* NVRTC for arch (NULL: sm_90), with --fmad=false; no GPU needed. */
dg_gpu_status gpu_cmp_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d);

/* ---- references on the GPU (gpu_ref.c) ----------------------------------------
 * fp64 CUDA kernels computing what lua/ops/<op>.lua computes for softmax,
 * log_softmax, layernorm, rmsnorm, the row reductions (sum, mean, max, min,
 * sumsq, l2norm), matmul, bmm, gemv and the elementwise ops. With
 * gk->use_ref, gpu_run runs the op's kernel on the uploaded inputs before
 * the pipeline and downloads its result: gk->want (gk->ref_out the output it
 * is for; -1 when there was none this run). Only for dirigo's own op files
 * (lua/ops/<op>.lua), one output, and shapes as the op file declares them. */
typedef struct {
  int kind;                  /* internal */
  int in[3];                 /* tensor per kernel input, -1 none */
  int out;
  int64_t n[4];
  double p[3];
  dg_gpu_dim3 grid, block;
  uint32_t shmem;            /* the launch's dynamic shared memory (bytes) */
} gpu_ref_plan;
/* dg_ref_rows's (and dg_fused_rows's) exponentials of a row in shared memory
 * up to this many bytes (an H200's block has 227 KiB): rows up to 24576 */
#define GPU_REF_ROWS_SMEM (192 * 1024)
const char *gpu_ref_source(void);
/* The sampled reference's picks idx[0..m-1] reordered for dg_ref_at's loads
 * (the values do not depend on the order); tmp: m int64 (gpu_ref.c). */
void gpu_ref_at_order(const gpu_ref_plan *pl, int64_t *idx, int64_t m, int64_t *tmp);
int gpu_ref_kernel_names(const char *const **names);   /* the kernels to compile */
int gpu_ref_nops(void);
const char *gpu_ref_op(int i);                          /* the ops with a GPU reference */
bool gpu_ref_supported(const dg_problem *p);
bool gpu_ref_plan_for(const dg_problem *p, const int64_t *sizes, gpu_ref_plan *pl);
int gpu_ref_args(const dg_problem *p, const gpu_ref_plan *pl, dg_gpu_buf out, const dg_gpu_buf *bufs,
                 dg_gpu_arg *args);                     /* 14 arguments */
/* The sampled reference (kernel GPU_REF_AT, dg_ref_at): the plan's values at
 * m element indices alone (i64, at byte offset idx_off of buffer idx), bit
 * for bit what the whole reference computes there; the rest of `out` is left
 * as it was (poisoned: undefined, not compared). For the elementwise ops and
 * matmul/bmm/gemv (gpu_ref_can_sample); used by default where the whole
 * reference costs about the kernel or more (gpu_ref_wants_sample: matmul). */
bool gpu_ref_can_sample(const gpu_ref_plan *pl);
bool gpu_ref_wants_sample(const gpu_ref_plan *pl);
/* The plan's op has an envelope on the device (gpu_env_dev.h: not conv2d). */
bool gpu_ref_env_kind(const gpu_ref_plan *pl);
int gpu_ref_at_args(const dg_problem *p, const gpu_ref_plan *pl, dg_gpu_buf out, const dg_gpu_buf *bufs,
                    dg_gpu_buf idx, size_t idx_off, int64_t m, dg_gpu_arg *args);   /* 17 arguments */
void gpu_ref_at_dims(const gpu_ref_plan *pl, int64_t m, dg_gpu_dim3 *grid, dg_gpu_dim3 *block);
/* gpu_run_sample_next's rule for a plan, an output of n elements and max_check. */
bool gpu_run_ref_sampled(const gpu_kernels *gk, const gpu_ref_plan *pl, int64_t n, int64_t max_check);
/* NVRTC for arch (NULL: sm_90), with --fmad=false; no GPU needed. */
dg_gpu_status gpu_ref_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d);

/* One of the GPU backend's environment switches (DIRIGO_GPU_REF, _CMP, _GEN,
 * _MANY, _ENVELOPE, _ENV_MANY) set to "0": that step stays on the host. */
bool gpu_run_switched_off(const char *var);
/* Session 7: a request's references on their lane's side stream, beside the
 * kernels under test (gpu_many.c; doc/gpu.md §4.6): DIRIGO_GPU_OVERLAP=1. */
bool gpu_run_overlap(void);
/* Session 7: the sampled reference's picks ordered by column for its loads
 * (gpu_ref_at_order): DIRIGO_GPU_REF_AT_ORDER=1. Off by default: on the H200
 * it cost the host 0.07 ms a matmul 1024^3 case (64-bit remainders) and
 * showed no gain in the request's time (doc/gpu.md §6, session 7). */
bool gpu_run_ref_at_order(void);

#endif
