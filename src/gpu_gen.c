/* gpu_gen.c — fuzz inputs drawn on the device (gpu_gen.h): one CUDA kernel
 * that fills a buffer of any dtype from a counter-based descriptor
 * (fuzz_ctr), compiled by NVRTC from fuzz_ctr.c's own source text, so the
 * device computes what fuzz_fill computes on the host, bit for bit. */
#include "gpu_gen.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names fuzz_ctr.c's definition uses, spelled for CUDA. */
static const char prelude[] =
  "typedef unsigned long long ctr_u64;\n"
  "typedef long long ctr_i64;\n"
  "typedef unsigned int ctr_u32;\n"
  "#define CTR_FN static __forceinline__\n"
  "#define CTR_NAN __longlong_as_double(0x7ff8000000000000ll)\n"
  "#define CTR_INF __longlong_as_double(0x7ff0000000000000ll)\n"
  "#define ctr_f2u(f) __float_as_uint(f)\n"
  "#define ctr_u2f(u) __uint_as_float(u)\n";

/* Element i of the descriptor in the bytes dg_dtype_store writes on the
 * host; a NaN as the host's (float)NAN (0x7fc00000), not the GPU's
 * canonical 0x7fffffff. dg_gen_fill: grid-stride over [first, first + count).
 * dg_gen_many: the tasks of a case in one launch (gpu_gen_many_*), blockIdx.y
 * the task, read from a table of GPU_GEN_TASK_WORDS words a task: an input
 * drawn (the same dg_gen_store) or a buffer filled with its poison. */
static const char kernel[] =
  "static __device__ __forceinline__ void dg_gen_store(void *out, ctr_u64 key, int dist, int dt, int flags,\n"
  "    ctr_i64 row, ctr_i64 n, ctr_i64 lo, ctr_i64 hi, ctr_i64 i) {\n"
  "  double v = ctr_value(key, dist, dt, flags, row, n, lo, hi, i);\n"
  "  float f = v != v ? __uint_as_float(0x7fc00000u) : (float)v;\n"
  "  switch (dt) {\n"
  "  case DG_DT_F32: ((float *)out)[i] = f; break;\n"
  "  case DG_DT_F16: ((unsigned short *)out)[i] = (unsigned short)ctr_f16_bits(f); break;\n"
  "  case DG_DT_BF16: ((unsigned short *)out)[i] = (unsigned short)ctr_bf16_bits(f); break;\n"
  "  case DG_DT_F64: ((double *)out)[i] = v; break;\n"
  "  case DG_DT_I32: ((int *)out)[i] = (int)(ctr_i64)v; break;\n"
  "  case DG_DT_I64: ((ctr_i64 *)out)[i] = (ctr_i64)v; break;\n"
  "  case DG_DT_U8: ((unsigned char *)out)[i] = (unsigned char)(ctr_i64)v; break;\n"
  "  case DG_DT_BOOL: ((unsigned char *)out)[i] = v != 0.0; break;\n"
  "  }\n"
  "}\n"
  /* f32 inputs (no range) at 32-bit indices: the loop instantiated per
     distribution (DG_GEN_CASES, gpu_gen_source), so ctr_value's switches fold
     to the one path; the same function, the same values */
  "template <int D> static __device__ __forceinline__ void dg_gen_f32(float *__restrict__ out, ctr_u64 key,\n"
  "    int flags, ctr_i64 row, ctr_i64 n, unsigned i, unsigned end, unsigned step) {\n"
  "  for (; i < end; i += step) {\n"
  "    double v = ctr_value(key, D, DG_DT_F32, flags, row, n, 0, 0, (ctr_i64)i);\n"
  "    out[i] = v != v ? __uint_as_float(0x7fc00000u) : (float)v;\n"
  "  }\n"
  "}\n"
  "/* any dtype, 64-bit indices: the distribution's own loop too (the per-launch work ctr_value's other\n"
  "   distributions would hoist, a 64-bit remainder among it, stays out) */\n"
  "template <int D> static __device__ __forceinline__ void dg_gen_any(void *out, ctr_u64 key, int dt, int flags,\n"
  "    ctr_i64 row, ctr_i64 n, ctr_i64 lo, ctr_i64 hi, ctr_i64 i, ctr_i64 end, ctr_i64 step) {\n"
  "  for (; i < end; i += step) dg_gen_store(out, key, D, dt, flags, row, n, lo, hi, i);\n"
  "}\n"
  "#define DG_GEN_F32(D) case D: dg_gen_f32<D>(o, key, f, row, n, i, end, st); return;\n"
  "#define DG_GEN_ANY(D) case D: dg_gen_any<D>(out, key, dt, flags, row, n, lo, hi, first + k0, first + count, step); return;\n"
  "/* elements [first, first + count) of a descriptor, this thread's from first + k0 by step */\n"
  "static __device__ __forceinline__ void dg_gen_task(void *out, ctr_u64 key, int dist, int dt, int flags,\n"
  "    ctr_i64 row, ctr_i64 n, ctr_i64 lo, ctr_i64 hi, ctr_i64 first, ctr_i64 count, ctr_i64 k0, ctr_i64 step) {\n"
  "  if (dt == DG_DT_F32 && !(flags & 1) && first >= 0 && count >= 0 && first + count <= 0x7fffffffll &&\n"
  "      step <= 0x7fffffffll) {\n"
  "    unsigned i = (unsigned)(first + k0), end = (unsigned)(first + count), st = (unsigned)step;\n"
  "    int f = flags & 2;\n"
  "    float *o = (float *)out;\n"
  "    switch (dist) { DG_GEN_CASES(DG_GEN_F32) }\n"
  "  }\n"
  "  switch (dist) { DG_GEN_CASES(DG_GEN_ANY) }\n"
  "  for (ctr_i64 i = first + k0; i < first + count; i += step)\n"
  "    dg_gen_store(out, key, dist, dt, flags, row, n, lo, hi, i);\n"
  "}\n"
  "extern \"C\" __global__ void dg_gen_fill(void *out, ctr_u64 key, int dist, int dt, int flags,\n"
  "                                       ctr_i64 row, ctr_i64 n, ctr_i64 lo, ctr_i64 hi,\n"
  "                                       ctr_i64 first, ctr_i64 count) {\n"
  "  dg_gen_task(out, key, dist, dt, flags, row, n, lo, hi, first, count,\n"
  "              blockIdx.x * (ctr_i64)blockDim.x + threadIdx.x, (ctr_i64)gridDim.x * blockDim.x);\n"
  "}\n"
  "/* task words: 0 kind (0 draw, 1 poison) | buffer slot << 8 | dist << 16 | dtype << 32 | flags << 48;\n"
  " * draw: 1 key, 2 row, 3 n, 4 lo, 5 hi; poison: 1 the pattern in 8 bytes, 3 bytes */\n"
  "extern \"C\" __global__ void dg_gen_many(const ctr_u64 *__restrict__ tab, ctr_i64 ntask, unsigned char *b0,\n"
  "    unsigned char *b1, unsigned char *b2, unsigned char *b3, unsigned char *b4, unsigned char *b5,\n"
  "    unsigned char *b6, unsigned char *b7) {\n"
  "  if ((ctr_i64)blockIdx.y >= ntask) return;\n"
  "  const ctr_u64 *w = tab + 8 * blockIdx.y;\n"
  "  ctr_u64 h = w[0], key = w[1];\n"
  "  ctr_i64 row = (ctr_i64)w[2], n = (ctr_i64)w[3], lo = (ctr_i64)w[4], hi = (ctr_i64)w[5];\n"
  "  int sl = (int)((h >> 8) & 7);\n"
  "  unsigned char *out = sl < 4 ? (sl < 2 ? (sl ? b1 : b0) : (sl == 3 ? b3 : b2))\n"
  "                              : (sl < 6 ? (sl == 5 ? b5 : b4) : (sl == 7 ? b7 : b6));\n"
  "  ctr_i64 stride = (ctr_i64)gridDim.x * blockDim.x, k0 = blockIdx.x * (ctr_i64)blockDim.x + threadIdx.x;\n"
  "  if ((h & 255) == 0) {\n"
  "    dg_gen_task(out, key, (int)((h >> 16) & 0xffff), (int)((h >> 32) & 0xffff), (int)(h >> 48), row, n, lo, hi,\n"
  "                0, n, k0, stride);\n"
  "  } else {\n"
  "    ctr_i64 bytes = n, words = bytes >> 3;\n"
  "    for (ctr_i64 i = k0; i < words; i += stride) ((ctr_u64 *)out)[i] = key;\n"
  "    for (ctr_i64 i = 8 * words + k0; i < bytes; i += stride) out[i] = (unsigned char)(key >> (8 * (i & 7)));\n"
  "  }\n"
  "}\n";

static const struct { int v; const char *name; } consts[] = {
#define FUZZ_DIST(id, name, help) { FUZZ_DIST_##id, "FUZZ_DIST_" #id },
#include "fuzz_dists.def"
#undef FUZZ_DIST
#define DT(x) { DG_DT_##x, "DG_DT_" #x }
  DT(F32), DT(F16), DT(BF16), DT(F64), DT(I32), DT(I64), DT(U8), DT(BOOL),
#undef DT
};

const char *gpu_gen_source(void)
{
  static char src[32768];      /* built once; no allocation to leak */
  if (src[0]) return src;
  size_t n = (size_t)snprintf(src, sizeof src, "%s", prelude);
  for (size_t i = 0; i < sizeof consts / sizeof consts[0] && n < sizeof src; i++)
    n += (size_t)snprintf(src + n, sizeof src - n, "#define %s %d\n", consts[i].name, consts[i].v);
  n += (size_t)snprintf(src + n, sizeof src - n, "#define DG_GEN_CASES(X)");   /* X(FUZZ_DIST_...) for each */
  for (size_t i = 0; i < sizeof consts / sizeof consts[0] && n < sizeof src; i++)
    if (!strncmp(consts[i].name, "FUZZ_DIST_", 10)) n += (size_t)snprintf(src + n, sizeof src - n, " X(%s)", consts[i].name);
  if (n < sizeof src) snprintf(src + n, sizeof src - n, "\n%s\n%s", fuzz_ctr_source(), kernel);
  return src;
}

dg_gpu_status gpu_gen_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  const char *src = gpu_gen_source();
  static const char *const names[] = { GPU_GEN_KERNEL, GPU_GEN_MANY_KERNEL };
  return dg_gpu_compile_own("GPU input generator", dg_strdup(src), strlen(src), names, 2, arch, bin, d);
}

bool gpu_gen_desc_of(const dg_problem *p, int t, fuzz_dist dist, uint64_t case_seed,
                     const int64_t *sizes, fuzz_ctr *out, char *msg, size_t msgn)
{
  const dg_tensor *ts = &p->tensors.v[t];
  *out = (fuzz_ctr){ .key = fuzz_input_key(case_seed, t), .dist = dist, .dtype = ts->dtype,
                     .positive = ts->positive };
  out->n = dg_problem_numel(p, t, sizes);
  if (out->n < 0) {
    snprintf(msg, msgn, "the shape of '%s' cannot be evaluated at these sizes", ts->name);
    return false;
  }
  int64_t dims[16];
  if (ts->shape.n && ts->shape.n <= 16 && dg_problem_shape(p, t, sizes, dims, NULL))
    out->row = dims[ts->shape.n - 1];
  if (ts->has_range) {
    dg_diags d = {0};
    bool ok = dg_problem_range(p, t, sizes, &out->lo, &out->hi, &d);
    dg_diags_free(&d);
    if (!ok || out->hi < out->lo) {
      snprintf(msg, msgn, "the range of '%s' is empty at these sizes", ts->name);
      return false;
    }
    out->has_range = true;
  }
  return true;
}

void gpu_gen_launch_of(const fuzz_ctr *g, dg_gpu_buf buf, int64_t first, int64_t count, gpu_gen_launch *l)
{
  int64_t blocks = (count + 255) / 256;
  if (blocks > 65536) blocks = 65536;   /* grid-stride beyond */
  if (blocks < 1) blocks = 1;
  l->grid = (dg_gpu_dim3){ (uint32_t)blocks, 1, 1 };
  l->block = (dg_gpu_dim3){ 256, 1, 1 };
  dg_gpu_arg *a = l->args;
  a[0] = dg_gpu_arg_buf(buf);
  a[1] = dg_gpu_arg_bytes(&g->key, 8);
  a[2] = dg_gpu_arg_i32((int32_t)g->dist);
  a[3] = dg_gpu_arg_i32((int32_t)g->dtype);
  a[4] = dg_gpu_arg_i32(fuzz_ctr_flags(g));
  a[5] = dg_gpu_arg_i64(g->row);
  a[6] = dg_gpu_arg_i64(g->n);
  a[7] = dg_gpu_arg_i64(g->lo);
  a[8] = dg_gpu_arg_i64(g->hi);
  a[9] = dg_gpu_arg_i64(first);
  a[10] = dg_gpu_arg_i64(count);
}

void gpu_gen_batch(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_buf buf, const fuzz_ctr *g)
{
  if (g->n <= 0) return;
  gpu_gen_launch l;
  gpu_gen_launch_of(g, buf, 0, g->n, &l);
  dg_gpu_batch_launch_unguarded(b, k, l.grid, l.block, 0, l.args, GPU_GEN_NARGS);
}

bool gpu_gen_many_draw(gpu_gen_many *m, int slot, const fuzz_ctr *g)
{
  if (m->ntask >= GPU_GEN_MANY_TASKS || slot < 0 || slot >= m->nbuf) return false;
  uint64_t *w = m->tab + (size_t)m->ntask++ * GPU_GEN_TASK_WORDS;
  memset(w, 0, GPU_GEN_TASK_WORDS * sizeof *w);
  w[0] = (uint64_t)slot << 8 | (uint64_t)(g->dist & 0xffff) << 16 | (uint64_t)(g->dtype & 0xffff) << 32 |
         (uint64_t)(fuzz_ctr_flags(g) & 0xffff) << 48;
  w[1] = g->key;
  w[2] = (uint64_t)g->row, w[3] = (uint64_t)g->n, w[4] = (uint64_t)g->lo, w[5] = (uint64_t)g->hi;
  if (g->n > m->most) m->most = g->n;
  return true;
}

bool gpu_gen_many_poison(gpu_gen_many *m, int slot, dg_gpu_pattern pat, int64_t bytes)
{
  if (m->ntask >= GPU_GEN_MANY_TASKS || slot < 0 || slot >= m->nbuf || pat.len < 1 || 8 % pat.len || bytes < 0)
    return false;
  uint64_t *w = m->tab + (size_t)m->ntask++ * GPU_GEN_TASK_WORDS;
  memset(w, 0, GPU_GEN_TASK_WORDS * sizeof *w);
  uint8_t eight[8];
  for (int i = 0; i < 8; i++) eight[i] = pat.b[i % pat.len];
  w[0] = 1 | (uint64_t)slot << 8;
  memcpy(&w[1], eight, 8);
  w[3] = (uint64_t)bytes;
  if (bytes / 8 > m->most) m->most = bytes / 8;
  return true;
}

int gpu_gen_many_slot(gpu_gen_many *m, dg_gpu_buf b)
{
  for (int i = 0; i < m->nbuf; i++)
    if (m->buf[i] == b) return i;
  if (m->nbuf == 8) return -1;
  m->buf[m->nbuf] = b;
  return m->nbuf++;
}

void gpu_gen_many_batch(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_buf tab, size_t tab_off, const gpu_gen_many *m,
                        int64_t cap)
{
  if (!m->ntask) return;
  int64_t blocks = (m->most + 255) / 256;
  int64_t most = cap > 0 ? cap : 4096;
  if (blocks > most) blocks = most;   /* grid-stride beyond */
  if (blocks < 1) blocks = 1;
  dg_gpu_arg a[GPU_GEN_MANY_NARGS];
  a[0] = dg_gpu_arg_buf(tab);
  a[0].buf_off = tab_off;
  a[1] = dg_gpu_arg_i64(m->ntask);
  for (int i = 0; i < 8; i++) a[2 + i] = i < m->nbuf ? dg_gpu_arg_buf(m->buf[i]) : dg_gpu_arg_null();
  dg_gpu_batch_launch_unguarded(b, k, (dg_gpu_dim3){ (uint32_t)blocks, (uint32_t)m->ntask, 1 },
                                (dg_gpu_dim3){ 256, 1, 1 }, 0, a, GPU_GEN_MANY_NARGS);
}
