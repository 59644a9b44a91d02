/* gpu.h — the GPU backend: device-side source preparation, NVRTC compilation
 * with an on-disk cubin cache, and kernel launches in an isolated child process.
 *
 * Three layers, usable separately:
 *  1. dg_gpu_src_*   : strip host code from a .cu text (tree-sitter CST), keeping
 *                      every line where it was, so NVRTC's line numbers are the
 *                      user's. Pure; no CUDA needed.
 *  2. dg_gpu_compile : NVRTC for one arch, template instances by name expression,
 *                      log -> dg_diags at the user's file:line:col, cache keyed by
 *                      hash(source, headers, options, arch, NVRTC version).
 *                      Needs libnvrtc only, no GPU; runs in a forked worker so an
 *                      NVRTC crash or hang never takes the caller down.
 *  3. dg_gpu (session): a child process that owns the CUDA context. The caller
 *                      never touches CUDA itself, so a kernel that faults or hangs
 *                      costs the child, not the caller: the call returns a status,
 *                      and the next call starts a fresh child.
 *
 * Ownership: every char * handed out (why, msg, log, lowered names) is owned by
 * the caller and freed with free(); structs have a *_free function.
 * Not thread-safe: one thread drives a session. */
#ifndef DG_GPU_H
#define DG_GPU_H
#include "diag.h"
#include "dtype.h"

/* ---- status codes (one table: name, help) -------------------------------- */
#define DG_GPU_STATUS(X) \
  X(OK,           "ok",             "the call succeeded") \
  X(NO_DEVICE,    "no-device",      "no usable GPU (no driver, no device, or built without CUDA)") \
  X(COMPILE,      "compile-error",  "NVRTC rejected the source (diagnostics name file:line:col)") \
  X(BAD_REQUEST,  "bad-request",    "the request is wrong: stale or unknown handle, size, argument count") \
  X(LAUNCH,       "launch-error",   "the launch was refused (bad configuration, too much shared memory); the context is fine") \
  X(OOB_WRITE,    "out-of-bounds",  "the kernel ran but wrote into a guard region around a buffer") \
  X(FAULT,        "kernel-fault",   "the kernel faulted (illegal address, trap, assert); the child was replaced") \
  X(TIMEOUT,      "timeout",        "the watchdog killed the child: the kernel (or call) ran past its time limit") \
  X(CHILD_DIED,   "child-died",     "the GPU child process died (signal or exit); it was replaced") \
  X(CUDA,         "cuda-error",     "another CUDA API error (out of memory, ...)")
typedef enum {
#define X(id, name, help) DG_GPU_##id,
  DG_GPU_STATUS(X)
#undef X
  DG_GPU_NSTATUS
} dg_gpu_status;
const char *dg_gpu_status_name(dg_gpu_status s);   /* "kernel-fault" */
const char *dg_gpu_status_help(dg_gpu_status s);

/* Is there a usable GPU? Probes once in a short-lived child (CUDA is never
 * initialised in the caller) and caches the answer. On false, *why (if why)
 * gets a sentence: "no CUDA driver: ...", "no GPU device", "built without CUDA",
 * "disabled by DIRIGO_NO_GPU". On true, *why gets "NVIDIA H200 (sm_90)". */
bool dg_gpu_available(char **why);

/* ---- 1. device-side source ---------------------------------------------- */
typedef struct {
  uint32_t line, end_line;   /* 1-based, inclusive */
  char *what;                /* "function main", "#include <torch/extension.h>" */
} dg_gpu_dropped;

typedef struct {
  char *text;                /* the input with host code blanked to spaces; same
                                length and newlines as the input; owned */
  size_t len;
  char *prelude;             /* replacements for dropped standard headers
                                (typedefs, FLT_MAX, ...), to go before `#line 1` */
  DG_VEC(dg_gpu_dropped) dropped;
  DG_VEC(char *) kernels;    /* names of the __global__ functions kept */
  DG_VEC(char *) local_includes;  /* #include "x.h" paths as written */
} dg_gpu_src;

/* Never fails on odd input: what tree-sitter cannot parse is kept, and NVRTC
 * reports it at its line. */
void dg_gpu_src_prepare(const char *text, size_t len, dg_gpu_src *out);
void dg_gpu_src_free(dg_gpu_src *s);

/* ---- 2. compilation ------------------------------------------------------ */
typedef struct {
  const char *const *defines;   /* "NAME=VALUE" or "NAME" (problem spec `defines`) */
  int ndefines;
  const char *const *names;     /* kernels wanted: "softmax", "reduce6<float, 256, true>" */
  int nnames;
  const char *arch;             /* "sm_90"; NULL: sm_90 (use dg_gpu_info(g)->arch) */
  const char *const *extra;     /* further NVRTC options */
  int nextra;
  bool no_cache;                /* neither read nor write the cache */
  double timeout_s;             /* NVRTC wall-clock limit; 0: 120 s */
} dg_gpu_copts;

typedef struct {
  uint8_t *image;               /* CUBIN (or PTX when is_ptx); owned */
  size_t image_len;
  bool is_ptx;                  /* the device's arch is newer than this NVRTC */
  char **lowered;               /* nnames mangled names, parallel to copts.names */
  int nnames;
  char *log;                    /* NVRTC's log, raw (may be ""); owned */
  char *arch;                   /* the arch it was built for */
  bool cache_hit;
  double seconds;               /* wall time of this call */
} dg_gpu_binary;

/* Compiles the device side of sm's file `file`. Errors and warnings of the log
 * go to d at the user's file:line:col (local headers are loaded into sm).
 * Returns DG_GPU_OK, DG_GPU_COMPILE (diagnostics in d), DG_GPU_TIMEOUT, or
 * DG_GPU_NO_DEVICE when built without CUDA (message in d, no span). */
dg_gpu_status dg_gpu_compile(dg_srcmgr *sm, uint32_t file, const dg_gpu_copts *o,
                             dg_gpu_binary *out, dg_diags *d);
/* dirigo's own CUDA source (the references, the comparison, the generator,
 * the envelope): text (taken, freed here) compiled with --fmad=false for
 * arch, kernels names[0..n-1], through the cache. The source is no user's
 * file: a diagnostic's position becomes text, "<what>, line L:C: message". */
dg_gpu_status dg_gpu_compile_own(const char *what, char *text, size_t len, const char *const *names, int nnames,
                                 const char *arch, dg_gpu_binary *bin, dg_diags *d);
void dg_gpu_binary_free(dg_gpu_binary *b);
/* $DIRIGO_CUBIN_CACHE, else $XDG_CACHE_HOME/dirigo/cubin, else ~/.cache/dirigo/cubin. */
char *dg_gpu_cache_dir(void);
/* "13.0", or "none" when built without CUDA. */
const char *dg_gpu_nvrtc_version(void);

/* ---- 3. session: the child that owns the CUDA context -------------------- */
typedef struct dg_gpu dg_gpu;

typedef struct {
  double launch_timeout_s;      /* watchdog for one launch + sync; 0: 10 s */
  double call_timeout_s;        /* any other request; 0: 60 s (start-up included) */
  size_t guard_bytes;           /* canary region before and after each buffer; 0: 64 KiB */
} dg_gpu_opts;

typedef struct {
  char name[128];               /* "NVIDIA H200" */
  char arch[16];                /* "sm_90" */
  int cc_major, cc_minor, sm_count;
  size_t mem_total;
  int driver_version, runtime_version;   /* 13000 */
} dg_gpu_info;

/* Starts the child. NULL with *why (caller frees) when no GPU can be used. */
dg_gpu *dg_gpu_open(const dg_gpu_opts *o, char **why);
void dg_gpu_close(dg_gpu *g);                 /* NULL ok; kills the child */
const dg_gpu_info *dg_gpu_info_of(const dg_gpu *g);
/* Counts children started; handles of an older generation are refused with
 * DG_GPU_BAD_REQUEST. After FAULT, TIMEOUT or CHILD_DIED, the next call starts a
 * fresh child: load modules and allocate buffers again. */
unsigned dg_gpu_generation(const dg_gpu *g);

typedef uint32_t dg_gpu_kernel;   /* generation << 24 | index */
typedef uint32_t dg_gpu_buf;

/* Poison pattern: repeated over a buffer before a launch; elements still equal
 * to it afterwards were not written. */
typedef struct { uint8_t b[8]; uint8_t len; } dg_gpu_pattern;
/* For a dtype: "f32" -> NaN 0x7fc0dead (not the GPU's canonical NaN 0x7fffffff,
 * so a computed NaN is not "unwritten"); f64/f16/bf16 likewise; integer types
 * and unknown names -> 0xff bytes of the dtype's size. */
dg_gpu_pattern dg_gpu_poison_for(const char *dtype);
/* Counts elements of data (n elements of p.len bytes) still equal to p; the
 * first such index goes to *first (SIZE_MAX when none). */
size_t dg_gpu_unwritten(const void *data, size_t n, dg_gpu_pattern p, size_t *first);

/* Loads a compiled binary; kernels[i] gets the handle of b->lowered[i]. */
dg_gpu_status dg_gpu_load(dg_gpu *g, const dg_gpu_binary *b, dg_gpu_kernel *kernels, char **msg);
/* The byte size of each of kernel k's parameters, as the device lays them out
 * (sizes[0..*n-1], at most max); what an argument's bytes must match. */
dg_gpu_status dg_gpu_param_sizes(dg_gpu *g, dg_gpu_kernel k, size_t *sizes, int max, int *n, char **msg);
/* A buffer of `bytes`, filled with `poison`, with guard regions around it. */
dg_gpu_status dg_gpu_alloc(dg_gpu *g, size_t bytes, dg_gpu_pattern poison, dg_gpu_buf *out, char **msg);
dg_gpu_status dg_gpu_upload(dg_gpu *g, dg_gpu_buf b, size_t off, const void *src, size_t n, char **msg);
dg_gpu_status dg_gpu_download(dg_gpu *g, dg_gpu_buf b, size_t off, void *dst, size_t n, char **msg);
dg_gpu_status dg_gpu_poison(dg_gpu *g, dg_gpu_buf b, char **msg);  /* refill with its pattern */
dg_gpu_status dg_gpu_free(dg_gpu *g, dg_gpu_buf b, char **msg);

/* A kernel argument: a buffer (its device address), NULL, or a value of up to
 * 64 bytes passed by value (ints, floats, structs, empty tag types of 1 byte). */
typedef struct {
  enum { DG_GPU_ARG_BUF, DG_GPU_ARG_VALUE } kind;
  dg_gpu_buf buf;
  size_t size;                  /* DG_GPU_ARG_VALUE: bytes used of value */
  size_t buf_off;               /* DG_GPU_ARG_BUF: byte offset into the buffer */
  uint8_t value[64];
} dg_gpu_arg;
dg_gpu_arg dg_gpu_arg_buf(dg_gpu_buf b);
dg_gpu_arg dg_gpu_arg_null(void);
dg_gpu_arg dg_gpu_arg_i32(int32_t v);
dg_gpu_arg dg_gpu_arg_i64(int64_t v);
dg_gpu_arg dg_gpu_arg_f32(float v);
dg_gpu_arg dg_gpu_arg_f64(double v);
dg_gpu_arg dg_gpu_arg_bytes(const void *p, size_t n);
/* A scalar of element type t (dtype.h: f16/bf16 rounded as the GPU does;
 * integers wrap): what a spec's size expression or attribute becomes for a
 * parameter of that type. */
dg_gpu_arg dg_gpu_arg_dtype(dg_dtype t, double v);

typedef struct { uint32_t x, y, z; } dg_gpu_dim3;

typedef struct {
  dg_gpu_buf buf;
  bool after;                   /* false: the guard before the buffer */
  int64_t first_off;            /* byte offset of the first bad byte, relative to
                                   the buffer's start (negative before it) */
  size_t nbytes;                /* corrupted bytes in that guard */
} dg_gpu_guard_hit;

typedef struct {
  dg_gpu_status status;
  char *msg;                    /* owned; NULL on OK: "an illegal memory access was encountered (cudaErrorIllegalAddress)" */
  double ms;                    /* kernel time (events), when it ran */
  DG_VEC(dg_gpu_guard_hit) guards;
  char *output;                 /* what the kernel printf'd (64 KiB at most); owned, NULL if nothing */
} dg_gpu_result;

/* Launches, synchronises, checks the last error and every live buffer's guards.
 * OK, OOB_WRITE (guards lists the damage; canaries are restored), LAUNCH,
 * FAULT / TIMEOUT / CHILD_DIED (the child is gone; next call starts another),
 * BAD_REQUEST. */
dg_gpu_status dg_gpu_launch(dg_gpu *g, dg_gpu_kernel k, dg_gpu_dim3 grid, dg_gpu_dim3 block,
                            uint32_t shmem, const dg_gpu_arg *args, int nargs,
                            dg_gpu_result *res);
void dg_gpu_result_free(dg_gpu_result *r);

/* ---- batches: a whole case in one round trip ------------------------------
 * Uploads, poisons, launches and downloads are queued on the caller's side
 * and sent as one request; the child runs them in order with the same checks
 * as the single calls (arguments against the kernel's parameters, the guards
 * of every live buffer after each launch, faults, the watchdog: the batch's
 * limit is launch_timeout_s per launch, and a hang names its launch). A launch
 * that does not return OK skips the launches (and uploads, poisons) after
 * it; downloads still run unless the child is lost. Poison is filled on the
 * device (a pattern block doubled by device copies), not sent.
 *
 *   dg_gpu_batch b = {0};
 *   dg_gpu_batch_upload(&b, x, 0, xs, n);  dg_gpu_batch_poison(&b, y);
 *   dg_gpu_batch_launch(&b, k, grid, block, 0, args, nargs);
 *   dg_gpu_batch_download(&b, y, 0, ys, n);   (ys written by _run)
 *   dg_gpu_batch_run(g, &b, &res);  …  dg_gpu_batch_free(&b); dg_gpu_batch_result_free(&res);
 * Buffers passed to upload/download are borrowed until _run returns. */
typedef struct {
  uint32_t kind;                /* internal: GP_OP_* */
  dg_gpu_buf buf;
  size_t off, len;
  const void *src;              /* upload */
  void *dst;                    /* download */
  size_t first_arg;             /* launch: index into args */
  int nargs;
  dg_gpu_kernel k;
  dg_gpu_dim3 grid, block;
  uint32_t shmem;
  bool unguarded;
  int lane;                     /* -1: serial (dg_gpu_batch_lane) */
  uint8_t side;                 /* launch: 1 on the lane's side stream, 2 joins it first (dg_gpu_batch_side) */
} dg_gpu_batch_op;
typedef struct {
  DG_VEC(dg_gpu_batch_op) ops;
  DG_VEC(dg_gpu_arg) args;
  int nlaunch;
  /* Set by the caller: launches are queued without a synchronisation each
   * (guard checks queued behind them), one at the end: the fast way to run
   * many small cases. Times, guard hits and downloads come back as usual,
   * but an error that surfaces at the end names no launch (failed_launch
   * -1), a hit stops no later launch, and the watchdog gives the whole
   * batch twice launch_timeout_s: run again without it to name a failure. */
  bool async;
  /* Set by the caller with async: no launch is timed (launch_ms 0), unless
   * DIRIGO_GPU_LAUNCH_EVENTS says otherwise. A timed launch's two event
   * records were most of a replayed graph's launch on the host (doc/gpu.md
   * §6, session 12); the campaign reads the kernels' times only in benches. */
  bool untimed;
  int lane1;                    /* internal: 1 + the lane of the ops pushed now (0: serial) */
} dg_gpu_batch;
void dg_gpu_batch_upload(dg_gpu_batch *b, dg_gpu_buf buf, size_t off, const void *src, size_t n);
void dg_gpu_batch_poison(dg_gpu_batch *b, dg_gpu_buf buf);
void dg_gpu_batch_launch(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_dim3 grid, dg_gpu_dim3 block,
                         uint32_t shmem, const dg_gpu_arg *args, int nargs);
void dg_gpu_batch_download(dg_gpu_batch *b, dg_gpu_buf buf, size_t off, void *dst, size_t n);
/* A launch of dirigo's own kernels (the GPU references): no guard check
 * after it (the kernel under test's launch checks every guard anyway);
 * faults and the watchdog as for any launch. */
void dg_gpu_batch_launch_unguarded(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_dim3 grid, dg_gpu_dim3 block,
                                   uint32_t shmem, const dg_gpu_arg *args, int nargs);
/* Lanes (doc/gpu.md §3, session 6): the ops pushed after
 * dg_gpu_batch_lane(b, L), L in 0..GPU_LANES_MAX-1, run on lane L: a CUDA
 * stream of its own, concurrent with the other lanes, and a copy of its own
 * of every buffer a lane's op or argument names (made by the child before
 * the batch, kept while the set stays the same). L = -1 (the default, and
 * after dg_gpu_batch_clear): serial points, after everything queued before
 * and before everything queued after; an upload or poison there reaches
 * every lane's copy, a download or argument reads lane 0's. Lanes the device
 * memory cannot hold (a quarter of the free memory at most) share a copy
 * and stream (lane L on L % granted): the results are the same. */
#define GPU_LANES_MAX 8
void dg_gpu_batch_lane(dg_gpu_batch *b, int lane);
/* The last launch pushed: how 1 runs it on its lane's side stream (forked
 * from the lane's stream there: after what was queued before it on the lane,
 * beside what is queued after), how 2 waits for the lane's side stream
 * before it (the join), 0 neither. Results are those of the same batch
 * without it wherever every reader of a side launch's writes joins first. */
void dg_gpu_batch_side(dg_gpu_batch *b, int how);
/* Lanes the child granted the last batch with lanes (0: none yet). */
int dg_gpu_lanes_granted(const dg_gpu *g);
void dg_gpu_batch_clear(dg_gpu_batch *b);   /* empty, keeping the memory */
void dg_gpu_batch_free(dg_gpu_batch *b);

typedef struct {
  int launch;                   /* which launch of the batch (0-based) */
  dg_gpu_guard_hit hit;
} dg_gpu_batch_hit;
typedef struct {
  dg_gpu_status status;
  char *msg;                    /* owned; NULL on OK */
  int failed_launch;            /* -1, or the launch of the batch that did not return OK */
  int nran;                     /* launches that ran (the failed one included) */
  double ms;                    /* kernel time, all launches */
  DG_VEC(double) launch_ms;     /* per launch that ran */
  DG_VEC(dg_gpu_batch_hit) guards;
  char *output;                 /* what kernels printed; owned, may be NULL */
  bool downloaded;              /* the downloads' destinations were written */
} dg_gpu_batch_result;
/* OK, or the first failure's status (as dg_gpu_launch's; BAD_REQUEST for a
 * stale handle or a copy outside a buffer, before anything runs). */
dg_gpu_status dg_gpu_batch_run(dg_gpu *g, const dg_gpu_batch *b, dg_gpu_batch_result *res);
/* Two batches in flight (doc/gpu.md §3, session 12): dg_gpu_batch_send
 * writes b's request and returns without waiting for its answer, so the
 * caller can build and send the next batch while the GPU runs this one (the
 * child launches the second behind the first, without the host's gap).
 * dg_gpu_batch_recv(g, b, res) gives b's answer (that of dg_gpu_batch_run);
 * answers are read in the order sent, and any other call on g reads the
 * answers owed first (kept for their recv). b, its upload sources and its
 * download destinations must stay until b's recv. At most DG_GPU_INFLIGHT
 * batches sent and not received: a send past that returns BAD_REQUEST and
 * sends nothing. Every send is received once; dg_gpu_batch_run is send + recv. */
#define DG_GPU_INFLIGHT 2
dg_gpu_status dg_gpu_batch_send(dg_gpu *g, const dg_gpu_batch *b);
dg_gpu_status dg_gpu_batch_recv(dg_gpu *g, const dg_gpu_batch *b, dg_gpu_batch_result *res);
void dg_gpu_batch_result_free(dg_gpu_batch_result *r);

#endif
