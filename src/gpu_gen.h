/* gpu_gen.h — fuzz inputs drawn on the device: the counter-based value
 * definition of fuzz.h (fuzz_ctr) as one CUDA kernel, so that the GPU backend
 * uploads nothing for a case's inputs and the host, when it needs values
 * (the emulator, the Lua reference, replay), computes the same bytes.
 *
 * The contract (bit for bit): for a descriptor g (a fuzz_ctr, fuzz.h),
 *   device bytes of element i  ==  dg_dtype_store(g->dtype, ., i, fuzz_ctr_value(g, i))
 * for every i in [0, g->n), every distribution and every dtype of dtype.h
 * (f32 f16 bf16 f64 i32 i64 u8 bool). And fuzz_fill — what every strategy's
 * case draws on the host — is fuzz_ctr_fill of the descriptor whose key is
 * the first draw of the generator it is given, so
 *   fuzz_run's fill_inputs(case c, input tensor t)  ==  gpu_gen_desc_of(p, t, c->dist[i], c->seed, sizes)
 * (t/gpu/gen.c checks both on the device; t/unit/gen.c the host half).
 *
 * Use (caller's side, like the GPU references of gpu_ref.c):
 *   once:     gpu_gen_compile(arch, &bin, &d); dg_gpu_load(g, &bin, &k, &msg);   (k: 1 kernel)
 *   per case: fuzz_ctr gd; if (!gpu_gen_desc_of(p, t, c->dist[i], c->seed, sizes, &gd, msg, n)) ...;
 *             gpu_gen_batch(&batch, k, bufs[t], &gd);  (an unguarded launch filling the buffer)
 *             ... the kernel under test ..., and on the host, only where values are needed:
 *             fuzz_ctr_fill(&gd, 0, gd.n, io.data[t]);
 * A Lua strategy's case uses the same built-in distributions, so it is
 * generated on the device too; values that come from anywhere else (a
 * script's own tensors) are uploaded as before. */
#ifndef DG_GPU_GEN_H
#define DG_GPU_GEN_H
#include "fuzz.h"
#include "gpu.h"
#include "problem.h"

/* The descriptor of input tensor t of a case with seed case_seed and value
 * distribution dist at sizes: key (fuzz_input_key(case_seed, t)), dist,
 * dtype, positive, row length (innermost dimension), n = numel, and the
 * range of an index-valued tensor. Exactly what fuzz_run.c's fill_inputs
 * gives fuzz_fill. False (msg says why) when a shape cannot be evaluated or
 * the range is empty at these sizes. */
bool gpu_gen_desc_of(const dg_problem *p, int t, fuzz_dist dist, uint64_t case_seed,
                     const int64_t *sizes, fuzz_ctr *out, char *msg, size_t msgn);

/* The CUDA source (one kernel, GPU_GEN_KERNEL) and its compilation by NVRTC
 * (no GPU needed; cached like any module; --fmad=false). */
#define GPU_GEN_KERNEL "dg_gen_fill"
#define GPU_GEN_NARGS 11
/* The module's second kernel (dg_gpu_load gives two handles: fill, many). */
#define GPU_GEN_MANY_KERNEL "dg_gen_many"
#define GPU_GEN_MANY_NARGS 10
#define GPU_GEN_NKERNELS 2
const char *gpu_gen_source(void);
dg_gpu_status gpu_gen_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d);

/* The launch filling elements [first, first + count) of buf (a buffer of
 * g->n elements of g->dtype) from g: GPU_GEN_NARGS arguments into args, the
 * grid and block. count == 0 on return: nothing to launch. */
typedef struct {
  dg_gpu_arg args[GPU_GEN_NARGS];
  dg_gpu_dim3 grid, block;
} gpu_gen_launch;
void gpu_gen_launch_of(const fuzz_ctr *g, dg_gpu_buf buf, int64_t first, int64_t count, gpu_gen_launch *l);
/* Appends that launch (all of buf) to a batch, unguarded (dirigo's own kernel). */
void gpu_gen_batch(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_buf buf, const fuzz_ctr *g);

/* A case's inputs drawn and buffers poisoned in one launch of dg_gen_many
 * (instead of a launch an input and copies a poison): the tasks go into a
 * table of GPU_GEN_TASK_WORDS words each, which the caller uploads to a
 * device buffer (one upload for every case of a request) before the launch.
 * At most 8 buffers (gpu_gen_many_slot: -1 beyond) and GPU_GEN_MANY_TASKS
 * tasks (false beyond): then draw and poison as before. A poison writes the
 * pattern over `bytes` bytes from the buffer's start, as dg_gpu_poison does. */
#define GPU_GEN_TASK_WORDS 8
#define GPU_GEN_MANY_TASKS 16
typedef struct {
  uint64_t tab[GPU_GEN_MANY_TASKS * GPU_GEN_TASK_WORDS];
  int ntask, nbuf;
  dg_gpu_buf buf[8];
  int64_t most;                 /* the largest task's elements (words for a poison) */
} gpu_gen_many;
int gpu_gen_many_slot(gpu_gen_many *m, dg_gpu_buf b);
bool gpu_gen_many_draw(gpu_gen_many *m, int slot, const fuzz_ctr *g);
bool gpu_gen_many_poison(gpu_gen_many *m, int slot, dg_gpu_pattern pat, int64_t bytes);
/* cap: the most blocks a task (0: 4096), grid-stride beyond: a request's
 * lanes share the GPU (gpu_many.c), where a full grid of drawing held every
 * SM's threads while the other lanes' kernels waited. */
void gpu_gen_many_batch(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_buf tab, size_t tab_off, const gpu_gen_many *m,
                        int64_t cap);

#endif
