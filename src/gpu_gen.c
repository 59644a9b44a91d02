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
 * canonical 0x7fffffff. Grid-stride over [first, first + count). */
static const char kernel[] =
  "extern \"C\" __global__ void dg_gen_fill(void *out, ctr_u64 key, int dist, int dt, int flags,\n"
  "                                       ctr_i64 row, ctr_i64 n, ctr_i64 lo, ctr_i64 hi,\n"
  "                                       ctr_i64 first, ctr_i64 count) {\n"
  "  for (ctr_i64 k = blockIdx.x * (ctr_i64)blockDim.x + threadIdx.x; k < count;\n"
  "       k += (ctr_i64)gridDim.x * blockDim.x) {\n"
  "    ctr_i64 i = first + k;\n"
  "    double v = ctr_value(key, dist, dt, flags, row, n, lo, hi, i);\n"
  "    float f = v != v ? __uint_as_float(0x7fc00000u) : (float)v;\n"
  "    switch (dt) {\n"
  "    case DG_DT_F32: ((float *)out)[i] = f; break;\n"
  "    case DG_DT_F16: ((unsigned short *)out)[i] = (unsigned short)ctr_f16_bits(f); break;\n"
  "    case DG_DT_BF16: ((unsigned short *)out)[i] = (unsigned short)ctr_bf16_bits(f); break;\n"
  "    case DG_DT_F64: ((double *)out)[i] = v; break;\n"
  "    case DG_DT_I32: ((int *)out)[i] = (int)(ctr_i64)v; break;\n"
  "    case DG_DT_I64: ((ctr_i64 *)out)[i] = (ctr_i64)v; break;\n"
  "    case DG_DT_U8: ((unsigned char *)out)[i] = (unsigned char)(ctr_i64)v; break;\n"
  "    case DG_DT_BOOL: ((unsigned char *)out)[i] = v != 0.0; break;\n"
  "    }\n"
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
  if (n < sizeof src) snprintf(src + n, sizeof src - n, "%s\n%s", fuzz_ctr_source(), kernel);
  return src;
}

dg_gpu_status gpu_gen_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  const char *src = gpu_gen_source();
  static const char *const names[] = { GPU_GEN_KERNEL };
  return dg_gpu_compile_own("GPU input generator", dg_strdup(src), strlen(src), names, 1, arch, bin, d);
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
