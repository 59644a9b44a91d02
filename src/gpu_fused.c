/* gpu_fused.c — the reference fused into the comparison (gpu_fused.h):
 * dg_fused computes each output element's fp64 reference with gpu_ref.c's
 * device functions (dg_map1; dg_rows_max, dg_sm_exp, dg_rows_norm,
 * dg_rows_val, dg_reduce: the operations and order of dg_ref_map and
 * dg_ref_rows, so the values are the bits those kernels write) and judges it
 * with gpu_cmp.c's dg_cmp_one, folding into the summary with dg_cmp_fold:
 * the summary is the one dg_cmp gives over the materialised reference. The
 * program is the two sources and this one's, compiled as one
 * (--fmad=false, as both are). */
#include "gpu_fused.h"
#include "gpu_run_int.h"
#include <stdlib.h>
#include <string.h>

static const char fused_source[] =
  "/* element i of an input (sz bytes an element): its bits times the odd 2i + 1\n"
  "   (mod 2^64): a change of any one element changes the sum (one multiply of\n"
  "   32 bits, for the loads it follows; a mixing hash cost as much as the pass) */\n"
  "__device__ u64 dg_fz_hash(const void *p, int sz, long long i) {\n"
  "  if (sz == 8) return ((const u64 *)p)[i] * (u64)(2 * i + 1);\n"
  "  u32 z = sz == 1 ? ((const unsigned char *)p)[i] : sz == 2 ? ((const unsigned short *)p)[i] : ((const u32 *)p)[i];\n"
  "  return (u64)z * (u32)(2 * i + 1) + (u64)sz;\n"
  "}\n"
  "/* before the kernel under test: every element of the (up to three) inputs\n"
  "   hashed into sum[7]; sizes: a byte an input, its element size (0: none) */\n"
  "extern \"C\" __global__ void dg_fused_hash(const void *a, const void *b, const void *c, long long na, long long nb,\n"
  "                                          long long nc, long long sizes, u64 *sum) {\n"
  "  const void *p[3] = { a, b, c };\n"
  "  long long n[3] = { na, nb, nc };\n"
  "  u64 h = 0;\n"
  "  for (int t = 0; t < 3; t++) {\n"
  "    int sz = (int)(sizes >> (8 * t)) & 255;\n"
  "    if (!sz || !p[t]) continue;\n"
  "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n[t];\n"
  "         i += (long long)gridDim.x * blockDim.x)\n"
  "      h += dg_fz_hash(p[t], sz, i);\n"
  "  }\n"
  "  dg_cmp_acc s;\n"
  "  dg_cmp_start(&s);\n"
  "  dg_cmp_fold(&s, 0ull - h, sum);   /* adds h */\n"
  "}\n"
  "/* the reference compared where it is computed: dg_fused_map for kind 2\n"
  "   (elementwise, dg_ref_map's element: a thread an element, grid-stride),\n"
  "   dg_fused_rows for kind 0 (dg_ref_rows: a block a row, up to 1024 threads);\n"
  "   the first 14 parameters are the reference's (got in y's place), then the\n"
  "   kind and the inputs' element sizes, the last 6 dg_cmp's; the inputs' hash\n"
  "   subtracted from sum[7] */\n"
  "#define DG_FZ_PARAMS const unsigned char *got, const void *a, int ta, const void *b, int tb, const void *c, int tc, \\\n"
  "  i64 n0, i64 n1, i64 n2, i64 n3, double p0, double p1, double p2, int kind, long long sizes, int dt, double atol, \\\n"
  "  double rtol, u64 poison, u64 ref_poison, u64 *sum\n"
  "extern \"C\" __global__ void __launch_bounds__(256, 4) dg_fused_map(DG_FZ_PARAMS) {\n"
  "  dg_cmp_acc s;\n"
  "  dg_cmp_start(&s);\n"
  "  u64 h = 0;\n"
  "  int sa = (int)sizes & 255, sb = (int)(sizes >> 8) & 255;\n"
  "  {\n"
  "    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n0; i += (i64)gridDim.x * blockDim.x) {\n"
  "      dg_cmp_one(&s, got, i, dg_map1(a, ta, b, tb, i, n1, p0), dt, atol, rtol, poison, ref_poison);\n"
  "      if (sa) h += dg_fz_hash(a, sa, i);\n"
  "      if (sb) h += dg_fz_hash(b, sb, i);\n"
  "    }\n"
  "  }\n"
  "  dg_cmp_fold(&s, h, sum);\n"
  "}\n"
  "extern \"C\" __global__ void __launch_bounds__(1024) dg_fused_rows(DG_FZ_PARAMS) {\n"
  "  dg_cmp_acc s;\n"
  "  dg_cmp_start(&s);\n"
  "  u64 h = 0;\n"
  "  int sa = (int)sizes & 255, sb = (int)(sizes >> 8) & 255, sc = (int)(sizes >> 16) & 255;\n"
  "  if ((i64)blockIdx.x < n0) {   /* row r of x {R = n0, C = n1}, mode n2, eps p0 */\n"
  "    i64 C = n1, mode = n2, base = (i64)blockIdx.x * C;\n"
  "    int t = threadIdx.x, nt = blockDim.x;\n"
  "    if (mode <= 1) {\n"
  "      /* dg_ref_rows keeps exp(x - m) in y and its first DG_RB threads sum\n"
  "         k = t, t + DG_RB, ...: here the block's chunk of nt exponentials\n"
  "         in shared memory, the same threads adding them in the same order */\n"
  "      __shared__ double e[1024];\n"
  "      double m = dg_rows_max(a, ta, base, C), sm = 0;\n"
  "      bool whole = dg_rows_fit(C);   /* the row's exponentials in dg_rows_e (the plan's shmem) */\n"
  "      if (whole) {\n"
  "        for (i64 k = t; k < C; k += nt) dg_rows_e[k] = dg_sm_exp(a, ta, base, k, m);\n"
  "        __syncthreads();\n"
  "        for (i64 k = t; t < DG_RB && k < C; k += DG_RB) sm = sm + dg_rows_e[k];\n"
  "      } else\n"
  "        for (i64 k0 = 0; k0 < C; k0 += nt) {\n"
  "          if (k0 + t < C) e[t] = dg_sm_exp(a, ta, base, k0 + t, m);\n"
  "          __syncthreads();\n"
  "          if (t < DG_RB)\n"
  "            for (int j = t; j < nt && k0 + j < C; j += DG_RB) sm = sm + e[j];\n"
  "          __syncthreads();\n"
  "        }\n"
  "      sm = dg_reduce(sm, 0);\n"
  "      double ls = log(sm);\n"
  "      for (i64 k = t; k < C; k += nt) {\n"
  "        double ek = mode != 0 ? 0 : whole ? dg_rows_e[k] : dg_sm_exp(a, ta, base, k, m);\n"
  "        double v = dg_rows_val(mode, a, ta, b, tb, c, tc, base, k, ek, m, sm, ls);\n"
  "        dg_cmp_one(&s, got, base + k, v, dt, atol, rtol, poison, ref_poison);\n"
  "        h += dg_fz_hash(a, sa, base + k);\n"
  "      }\n"
  "    } else {\n"
  "      double mean, rs;\n"
  "      dg_rows_norm(mode, a, ta, base, C, p0, &mean, &rs);\n"
  "      for (i64 k = t; k < C; k += DG_RB) {\n"
  "        dg_cmp_one(&s, got, base + k, dg_rows_val(mode, a, ta, b, tb, c, tc, base, k, 0, mean, rs, 0), dt, atol,\n"
  "                   rtol, poison, ref_poison);\n"
  "        h += dg_fz_hash(a, sa, base + k);\n"
  "      }\n"
  "    }\n"
  "    if (blockIdx.x == 0)   /* the row vectors (w, b), hashed once */\n"
  "      for (i64 k = t; k < C; k += nt) {\n"
  "        if (sb) h += dg_fz_hash(b, sb, k);\n"
  "        if (sc) h += dg_fz_hash(c, sc, k);\n"
  "      }\n"
  "  }\n"
  "  dg_cmp_fold(&s, h, sum);\n"
  "}\n";

const char *gpu_fused_source(void) { return fused_source; }

static const char *const fused_names[] = { "dg_fused_hash", "dg_fused_map", "dg_fused_rows" };

dg_gpu_status gpu_fused_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  char *text = dg_printf("%s%s%s", gpu_ref_source(), gpu_cmp_source(), fused_source);
  return dg_gpu_compile_own("GPU fused reference and comparison", text, strlen(text), fused_names, 3, arch, bin, d);
}

/* kinds as gpu_ref.c numbers them (ref_kind): 0 rows, 2 elementwise */
bool gpu_fused_prepare(const dg_problem *p, const gpu_ref_plan *pl, const dg_gpu_buf *bufs, dg_gpu_buf sum,
                       gpu_fused_launch *fl)
{
  memset(fl, 0, sizeof *fl);
  if (!gpu_ref_fusable(pl) || pl->out < 0 || !gpu_cmp_supported(p->tensors.v[pl->out].dtype)) return false;
  bool rows = pl->kind == 0;
  int64_t sizes = 0, n[3] = { 0, 0, 0 };
  for (int i = 0; i < 3; i++) {
    int t = pl->in[i];
    if (t < 0) continue;
    sizes |= (int64_t)dg_dtypes[p->tensors.v[t].dtype].size << (8 * i);
    n[i] = rows ? (i ? pl->n[1] : pl->n[0] * pl->n[1]) : pl->n[0];
  }
  dg_gpu_arg ca[9];
  int64_t nout = rows ? pl->n[0] * pl->n[1] : pl->n[0];
  gpu_cmp_args(p->tensors.v[pl->out].dtype, bufs[pl->out], bufs[pl->out], nout, dg_problem_tol(p, pl->out), sum, ca);
  int k = gpu_ref_args(p, pl, bufs[pl->out], bufs, fl->fa);
  fl->fa[k++] = dg_gpu_arg_i32(pl->kind);
  fl->fa[k++] = dg_gpu_arg_i64(sizes);
  for (int i = 3; i < 9; i++) fl->fa[k++] = ca[i];
  if (k != GPU_FUSED_NARGS) return false;
  k = 0;
  for (int i = 0; i < 3; i++) fl->ha[k++] = pl->in[i] >= 0 ? dg_gpu_arg_buf(bufs[pl->in[i]]) : dg_gpu_arg_null();
  for (int i = 0; i < 3; i++) fl->ha[k++] = dg_gpu_arg_i64(n[i]);
  fl->ha[k++] = dg_gpu_arg_i64(sizes);
  fl->ha[k++] = dg_gpu_arg_buf(sum);
  /* elementwise: 256 threads, at least 4 elements a thread, at most 32
   * blocks an SM of an H200's 132; rows: the reference's own grid and block
   * (the block's size is the sum's order) */
  int64_t g = (nout + 1023) / 1024;
  fl->fg = rows ? pl->grid : (dg_gpu_dim3){ (uint32_t)(g < 1 ? 1 : g > 4224 ? 4224 : g), 1, 1 };
  fl->fb = rows ? pl->block : (dg_gpu_dim3){ 256, 1, 1 };
  fl->fshmem = rows ? pl->shmem : 0;
  fl->kern = rows ? 2 : 1;
  g = (n[0] + 1023) / 1024;
  fl->hg = (dg_gpu_dim3){ (uint32_t)(g < 1 ? 1 : g > 4224 ? 4224 : g), 1, 1 };
  fl->hb = (dg_gpu_dim3){ 256, 1, 1 };
  return true;
}

/* Off unless DIRIGO_GPU_FUSED=1: on the H200 (session 6, doc/gpu.md §4.6,
 * item 8) the fused pass and its hash took as long as the reference and
 * dg_cmp they replace, or longer (residual_add 6.3 M: 0.245 against 0.220 ms
 * a case; layernorm 8192 x 768: 0.578 against 0.562) — both passes are bound
 * by the rule's fp64 arithmetic more than by the f64 buffer's bytes. */
static bool fused_wanted(void)
{
  const char *v = getenv("DIRIGO_GPU_FUSED");
  return v && !strcmp(v, "1");
}

bool gpu_fused_ready(gpu_kernels *gk, const gpu_ref_plan *pl)
{
  if (!gpu_ref_fusable(pl) || !fused_wanted() || gk->fused_state < 0) return false;
  if (gk->fused_state == 0) {
    dg_diags d = {0};
    gk->fused_state = gpu_fused_compile(dg_gpu_info_of(gk->g)->arch, &gk->fused_bin, &d) != DG_GPU_OK ? -1 : 1;
    dg_diags_free(&d);
    if (gk->fused_state < 0) return false;
  }
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->fused_gen != gen) {
    char *msg = NULL;
    dg_gpu_status st = dg_gpu_load(gk->g, &gk->fused_bin, gk->fused_kern, &msg);
    free(msg);
    if (st != DG_GPU_OK) {
      if (!grun_child_lost(st)) gk->fused_state = -1;
      return false;
    }
    gk->fused_gen = gen;
  }
  return gen == dg_gpu_generation(gk->g);
}
