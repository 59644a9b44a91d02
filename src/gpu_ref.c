/* gpu_ref.c — references on the GPU: fp64-accumulating CUDA kernels for the
 * ops that dominate a campaign's time (row ops, row reductions, matmul,
 * elementwise), run in the GPU child on the case's own device buffers before
 * the kernel under test, so that the reference stops binding the campaign to
 * the CPU. The Lua reference stays the oracle for every other op, for the
 * emulator, and for the envelope's second opinion on failing elements.
 *
 * Each op maps to one of five generic kernels with one parameter list
 *   (double *y, const void *a, int ta, const void *b, int tb, const void *c, int tc,
 *    i64 n0, i64 n1, i64 n2, i64 n3, double p0, double p1, double p2)
 * (ta..tc: the inputs' dtypes), so the host side is one table. The kernels
 * compute what lua/ops/<op>.lua computes, operation for operation, in double
 * (compiled with --fmad=false: no contraction the Lua reference does not
 * do); only the order of long sums differs (a block tree instead of a loop),
 * which moves fp64 results by ulps: t/gpu/ref.c checks the agreement. */
#include "gpu_run.h"
#include "gpu_fused.h"
#include <stdlib.h>
#include <string.h>

static const char ref_source[] =
  "typedef long long i64;\n"
  "__device__ double dg_nan() { return __longlong_as_double(0x7ff8000000000000LL); }\n"
  "__device__ double dg_inf() { return __longlong_as_double(0x7ff0000000000000LL); }\n"
  "__device__ double dg_f16(unsigned short h) {\n"
  "  int e = (h >> 10) & 31, m = h & 1023;\n"
  "  double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? dg_nan() : dg_inf())\n"
  "                                                      : ldexp((double)(m | 1024), e - 25);\n"
  "  return h >> 15 ? -v : v;\n"
  "}\n"
  "/* dtype codes: gpu_ref.c's ref_dtype */\n"
  "__device__ double dg_ld(const void *p, int t, i64 i) {\n"
  "  switch (t) {\n"
  "  case 0: return (double)((const float *)p)[i];\n"
  "  case 1: return ((const double *)p)[i];\n"
  "  case 2: return dg_f16(((const unsigned short *)p)[i]);\n"
  "  case 3: return (double)__int_as_float((int)((unsigned)((const unsigned short *)p)[i] << 16));\n"
  "  case 4: return (double)((const int *)p)[i];\n"
  "  case 5: return (double)((const i64 *)p)[i];\n"
  "  case 6: return (double)((const unsigned char *)p)[i];\n"
  "  }\n"
  "  return dg_nan();\n"
  "}\n"
  "/* NaN propagates through max/min, as in problem_vop.c */\n"
  "__device__ double dg_max(double a, double b) { return a != a || b != b ? dg_nan() : a > b ? a : b; }\n"
  "__device__ double dg_min(double a, double b) { return a != a || b != b ? dg_nan() : a < b ? a : b; }\n"
  "#define DG_RB 256\n"
  "/* op 0 sum, 1 max, 2 min, over the block's first DG_RB threads (every\n"
  "   thread of the block calls it: a block of 1024 leaves the rest out) */\n"
  "__device__ double dg_reduce(double v, int op) {\n"
  "  __shared__ double s[DG_RB];\n"
  "  int t = threadIdx.x;\n"
  "  if (t < DG_RB) s[t] = v;\n"
  "  __syncthreads();\n"
  "  for (int w = DG_RB / 2; w > 0; w >>= 1) {\n"
  "    if (t < w) s[t] = op == 0 ? s[t] + s[t + w] : op == 1 ? dg_max(s[t], s[t + w]) : dg_min(s[t], s[t + w]);\n"
  "    __syncthreads();\n"
  "  }\n"
  "  double r = s[0];\n"
  "  __syncthreads();\n"
  "  return r;\n"
  "}\n"
  "/* rows of x {R, C}: mode 0 softmax, 1 log_softmax, 2 layernorm (w, b; eps p0),\n"
  "   3 rmsnorm (w; eps p0). One block a row: DG_RB threads whose partial sums\n"
  "   (each over k = t, t + DG_RB, ... in order) a tree adds (dg_reduce). Softmax\n"
  "   and log_softmax run 1024 threads: all of them compute exp(x - m) into y,\n"
  "   the first DG_RB then sum those values in the same order as ever, and all\n"
  "   write the outputs — the same operations on the same values (the bits),\n"
  "   four times the threads for the exponentials of a long row. The steps are\n"
  "   device functions that gpu_fused.c's dg_fused calls too (the same bits\n"
  "   compared where they are computed, none written). */\n"
  "__device__ double dg_rows_max(const void *x, int tx, i64 base, i64 C) {   /* every thread of the block */\n"
  "  int t = threadIdx.x;\n"
  "  double m = dg_ld(x, tx, base);\n"
  "  if (tx == 0 && t < DG_RB) {   /* f32: 16 loads in flight (the same maxima in the same order) */\n"
  "    const float *xf = (const float *)x + base;\n"
  "#pragma unroll 16\n"
  "    for (i64 k = t; k < C; k += DG_RB) m = dg_max(m, (double)xf[k]);\n"
  "  } else\n"
  "    for (i64 k = t; t < DG_RB && k < C; k += DG_RB) m = dg_max(m, dg_ld(x, tx, base + k));\n"
  "  return dg_reduce(m, 1);\n"
  "}\n"
  "/* the launch's dynamic shared memory in bytes: softmax and log_softmax keep\n"
  "   a row's exponentials there (dg_rows_e) when the plan gave them room\n"
  "   (gpu_ref_plan.shmem), in y otherwise: the same values either way */\n"
  "extern __shared__ double dg_rows_e[];\n"
  "__device__ unsigned dg_dyn_smem(void) { unsigned r; asm(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(r)); return r; }\n"
  "__device__ bool dg_rows_fit(i64 C) { return (i64)dg_dyn_smem() >= C * 8; }   /* a row's exponentials in dg_rows_e */\n"
  "__device__ double *dg_rows_exps(double *y, i64 C) { return dg_rows_fit(C) ? dg_rows_e : y; }\n"
  "__device__ double dg_sm_exp(const void *x, int tx, i64 base, i64 k, double m) { return exp(dg_ld(x, tx, base + k) - m); }\n"
  "/* layernorm's mean and 1/sd, rmsnorm's 1/rms (*mean 0): every thread, DG_RB of them summing */\n"
  "__device__ void dg_rows_norm(i64 mode, const void *x, int tx, i64 base, i64 C, double eps, double *mean, double *rs) {\n"
  "  *mean = 0;\n"
  "  if (mode == 2) {\n"
  "    double s = 0;\n"
  "    for (i64 k = threadIdx.x; k < C; k += DG_RB) s = s + dg_ld(x, tx, base + k);\n"
  "    double mu = dg_reduce(s, 0) / (double)C;\n"
  "    double v = 0;\n"
  "    for (i64 k = threadIdx.x; k < C; k += DG_RB) { double d = dg_ld(x, tx, base + k) - mu; v = v + d * d; }\n"
  "    *mean = mu;\n"
  "    *rs = 1.0 / sqrt(dg_reduce(v, 0) / (double)C + eps);\n"
  "  } else {\n"
  "    double ss = 0;\n"
  "    for (i64 k = threadIdx.x; k < C; k += DG_RB) { double v = dg_ld(x, tx, base + k); ss = ss + v * v; }\n"
  "    *rs = 1.0 / sqrt(dg_reduce(ss, 0) / (double)C + eps);\n"
  "  }\n"
  "}\n"
  "/* element k of the row: mode 0 e / s (e: dg_sm_exp's value), 1 x - m - ls,\n"
  "   2 (x - mean) rs w + b (a = mean, s = rs), 3 x rs w (s = rs) */\n"
  "__device__ double dg_rows_val(i64 mode, const void *x, int tx, const void *w, int tw, const void *b, int tb,\n"
  "                              i64 base, i64 k, double e, double a, double s, double ls) {\n"
  "  if (mode == 0) return e / s;\n"
  "  if (mode == 1) return dg_ld(x, tx, base + k) - a - ls;\n"
  "  if (mode == 2) return (dg_ld(x, tx, base + k) - a) * s * dg_ld(w, tw, k) + dg_ld(b, tb, k);\n"
  "  return dg_ld(x, tx, base + k) * s * dg_ld(w, tw, k);\n"
  "}\n"
  "extern \"C\" __global__ void dg_ref_rows(double *y, const void *x, int tx, const void *w, int tw, const void *b,\n"
  "                            int tb, i64 R, i64 C, i64 mode, i64 n3, double eps, double p1, double p2) {\n"
  "  i64 r = blockIdx.x, base = r * C;\n"
  "  if (r >= R) return;\n"
  "  double *out = y + base;\n"
  "  int t = threadIdx.x, nt = blockDim.x;\n"
  "  if (mode <= 1) {\n"
  "    double m = dg_rows_max(x, tx, base, C), *e = dg_rows_exps(out, C);\n"
  "    for (i64 k = t; k < C; k += nt) e[k] = dg_sm_exp(x, tx, base, k, m);\n"
  "    __syncthreads();\n"
  "    double s = 0;\n"
  "    for (i64 k = t; t < DG_RB && k < C; k += DG_RB) s = s + e[k];\n"
  "    s = dg_reduce(s, 0);\n"
  "    double ls = log(s);\n"
  "    for (i64 k = t; k < C; k += nt) out[k] = dg_rows_val(mode, x, tx, w, tw, b, tb, base, k, e[k], m, s, ls);\n"
  "  } else {\n"
  "    double mean, rs;\n"
  "    dg_rows_norm(mode, x, tx, base, C, eps, &mean, &rs);\n"
  "    for (i64 k = threadIdx.x; k < C; k += DG_RB) out[k] = dg_rows_val(mode, x, tx, w, tw, b, tb, base, k, 0, mean, rs, 0);\n"
  "  }\n"
  "}\n"
  "/* x {N, C} reduced over dim n2 (1: along rows, N outputs; 0: down columns, C outputs);\n"
  "   mode 0 sum, 1 mean, 2 max, 3 min, 4 sumsq, 5 l2norm. One block an output. */\n"
  "extern \"C\" __global__ void dg_ref_reduce(double *y, const void *x, int tx, const void *u1, int t1, const void *u2,\n"
  "                              int t2, i64 N, i64 C, i64 dim, i64 mode, double p0, double p1, double p2) {\n"
  "  i64 i = blockIdx.x, len = dim == 1 ? C : N, nout = dim == 1 ? N : C;\n"
  "  if (i >= nout) return;\n"
  "  i64 at = dim == 1 ? i * C : i, step = dim == 1 ? 1 : C;\n"
  "  int op = mode == 2 ? 1 : mode == 3 ? 2 : 0;\n"
  "  double acc = op ? dg_ld(x, tx, at) : 0;\n"
  "  for (i64 k = threadIdx.x; k < len; k += DG_RB) {\n"
  "    double v = dg_ld(x, tx, at + k * step);\n"
  "    acc = op == 1 ? dg_max(acc, v) : op == 2 ? dg_min(acc, v) : mode >= 4 ? acc + v * v : acc + v;\n"
  "  }\n"
  "  acc = dg_reduce(acc, op);\n"
  "  if (threadIdx.x == 0) y[i] = mode == 1 ? acc / (double)len : mode == 5 ? sqrt(acc) : acc;\n"
  "}\n"
  "/* elementwise: element i, mode: 0 residual_add a + p0 b, 1 add, 2 mul, 3 scale p0 a,\n"
  "   4 relu, 5 sigmoid, 6 silu, 7 tanh, 8 gelu_erf, 9 gelu_tanh, 10 leaky_relu (p0), 11 elu (p0) */\n"
  "__device__ double dg_map1(const void *a, int ta, const void *b, int tb, i64 i, i64 mode, double p0) {\n"
  "  double x = dg_ld(a, ta, i), r = 0;\n"
  "  switch (mode) {\n"
  "  case 0: r = x + p0 * dg_ld(b, tb, i); break;\n"
  "  case 1: r = x + dg_ld(b, tb, i); break;\n"
  "  case 2: r = x * dg_ld(b, tb, i); break;\n"
  "  case 3: r = p0 * x; break;\n"
  "  case 4: r = x != x ? dg_nan() : x > 0 ? x : 0.0; break;\n"
  "  case 5: r = 1 / (1 + exp(-x)); break;\n"
  "  case 6: r = x / (1 + exp(-x)); break;\n"
  "  case 7: r = tanh(x); break;\n"
  "  case 8: r = 0.5 * x * (1 + erf(x * 0.7071067811865476)); break;\n"
  "  case 9: r = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); break;\n"
  "  case 10: r = x > 0 ? x : p0 * x; break;\n"
  "  case 11: r = x > 0 ? x : p0 * (exp(x) - 1); break;\n"
  "  default: r = dg_nan();\n"
  "  }\n"
  "  return r;\n"
  "}\n"
  "/* elementwise over n0 elements, mode n1 (dg_map1) */\n"
  "extern \"C\" __global__ void dg_ref_map(double *y, const void *a, int ta, const void *b, int tb, const void *u,\n"
  "                           int tu, i64 n, i64 mode, i64 n2, i64 n3, double p0, double p1, double p2) {\n"
  "  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)\n"
  "    y[i] = dg_map1(a, ta, b, tb, i, mode, p0);\n"
  "}\n"
  "/* c[z] = p0 * op(a[z]) op(b[z]), row-major {M, N}, K terms summed in order;\n"
  "   n3 = bit 0 transA, bit 1 transB; blockIdx.z the batch. One thread an element. */\n"
  /* a 32 x 32 tile of the output a block (32 x 8 threads, four rows each),
     the operands staged in shared memory 32 k at a time; every element still
     sums its K products one by one in k order (--fmad=false), so the values
     are those of one thread per element looping over k */
  "extern \"C\" __global__ void dg_ref_matmul(double *y, const void *a, int ta, const void *b, int tb, const void *u,\n"
  "                              int tu, i64 M, i64 N, i64 K, i64 flags, double alpha, double p1, double p2) {\n"
  "  __shared__ double As[32][33], Bs[32][33];\n"
  "  int tx = threadIdx.x, ty = threadIdx.y;\n"
  "  i64 m0 = blockIdx.y * (i64)32, n = blockIdx.x * (i64)32 + tx, z = blockIdx.z;\n"
  "  i64 ab = z * M * K, bb = z * K * N;\n"
  "  double acc[4] = { 0, 0, 0, 0 };\n"
  "  for (i64 k0 = 0; k0 < K; k0 += 32) {\n"
  "    for (int q = ty * 32 + tx; q < 1024; q += 256) {\n"
  "      int r = q >> 5, c = q & 31;\n"
  "      i64 gm = m0 + r, gk = k0 + c;\n"
  "      As[r][c] = gm < M && gk < K ? dg_ld(a, ta, ab + (flags & 1 ? gk * M + gm : gm * K + gk)) : 0;\n"
  "      i64 bk = k0 + r, bn = blockIdx.x * (i64)32 + c;\n"
  "      Bs[r][c] = bk < K && bn < N ? dg_ld(b, tb, bb + (flags & 2 ? bn * K + bk : bk * N + bn)) : 0;\n"
  "    }\n"
  "    __syncthreads();\n"
  "    int kn = K - k0 < 32 ? (int)(K - k0) : 32;\n"
  "    for (int kk = 0; kk < kn; kk++) {\n"
  "      double bv = Bs[kk][tx];\n"
  "      for (int i = 0; i < 4; i++) acc[i] = acc[i] + As[ty + 8 * i][kk] * bv;\n"
  "    }\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (int i = 0; i < 4; i++) {\n"
  "    i64 m = m0 + ty + 8 * i;\n"
  "    if (m < M && n < N) y[z * M * N + m * N + n] = alpha * acc[i];\n"
  "  }\n"
  "}\n"
  "/* conv2d (lua/ops/conv2d.lua): x {N, C, H, W}, w {K, C, R, S}, y {N, K, OH, OW};\n"
  "   n0 = N << 32 | C, n1 = H << 32 | W, n2 = K << 32 | R << 16 | S, n3 = OH << 32 | OW,\n"
  "   p0 stride, p1 padding, p2 dilation. Element i summed over c, r, s in the op\n"
  "   file's order, rows and columns outside the input skipped as it skips them. */\n"
  "__device__ double dg_conv1(const void *x, int tx, const void *w, int tw, i64 n0, i64 n1, i64 n2, i64 n3,\n"
  "                           double p0, double p1, double p2, i64 i) {\n"
  "  i64 C = n0 & 0xffffffff, H = n1 >> 32, W = n1 & 0xffffffff, K = n2 >> 32;\n"
  "  i64 R = (n2 >> 16) & 0xffff, S = n2 & 0xffff, OH = n3 >> 32, OW = n3 & 0xffffffff;\n"
  "  i64 st = (i64)p0, pad = (i64)p1, dil = (i64)p2;\n"
  "  i64 ow = i % OW, t = i / OW, oh = t % OH; t /= OH;\n"
  "  i64 k = t % K, n = t / K;\n"
  "  double acc = 0;\n"
  "  for (i64 c = 0; c < C; c++) {\n"
  "    i64 xb = (n * C + c) * H, wb = (k * C + c) * R;\n"
  "    for (i64 r = 0; r < R; r++) {\n"
  "      i64 ih = oh * st - pad + r * dil;\n"
  "      if (ih < 0 || ih >= H) continue;\n"
  "      for (i64 s = 0; s < S; s++) {\n"
  "        i64 iw = ow * st - pad + s * dil;\n"
  "        if (iw >= 0 && iw < W) acc = acc + dg_ld(x, tx, (xb + ih) * W + iw) * dg_ld(w, tw, (wb + r) * S + s);\n"
  "      }\n"
  "    }\n"
  "  }\n"
  "  return acc;\n"
  "}\n"
  "/* n elements of y: one thread an element (grid-stride) */\n"
  "extern \"C\" __global__ void dg_ref_conv(double *y, const void *x, int tx, const void *w, int tw, const void *u,\n"
  "                            int tu, i64 n0, i64 n1, i64 n2, i64 n3, double p0, double p1, double p2) {\n"
  "  i64 n = (n0 >> 32) * (n2 >> 32) * (n3 >> 32) * (n3 & 0xffffffff);\n"
  "  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)\n"
  "    y[i] = dg_conv1(x, tx, w, tw, n0, n1, n2, n3, p0, p1, p2, i);\n"
  "}\n"
  "/* The reference at the validator's sample alone (gpu_run.h, 'sampled\n"
  "   reference'): y[idx[j]] for j < m, the rest of y left as it is (the f64\n"
  "   poison). kind 2: dg_ref_map's element, a thread each. kinds 3 (matmul)\n"
  "   and 4 (conv2d): a warp an element, its lanes computing the products of\n"
  "   32 consecutive terms at a time (loads side by side; one thread's serial\n"
  "   loads made this 0.4 ms at 1024^3), every lane then adding them to its\n"
  "   acc in term order through shuffles — the operations and order of one\n"
  "   thread looping over the terms (acc = acc + a b from 0; matmul: then\n"
  "   alpha acc; conv2d: terms outside the input skipped, not added as 0), so\n"
  "   the bits of dg_ref_matmul's and dg_ref_conv's element (--fmad=false). */\n"
  "__device__ void dg_mm_at(i64 i, i64 M, i64 N, i64 K, i64 fl, i64 *a0, i64 *as, i64 *b0, i64 *bs) {\n"
  "  i64 MN = M * N, z = i / MN, r = i - z * MN, row = r / N, col = r - row * N;\n"
  "  *as = fl & 1 ? M : 1, *a0 = z * M * K + (fl & 1 ? row : row * K);\n"
  "  *bs = fl & 2 ? 1 : N, *b0 = z * K * N + (fl & 2 ? col * K : col);\n"
  "}\n"
  "/* term t of conv2d's element i: the product, false when outside the input */\n"
  "__device__ bool dg_conv_term(const void *x, int tx, const void *w, int tw, i64 n0, i64 n1, i64 n2, i64 n3,\n"
  "                             double p0, double p1, double p2, i64 i, i64 t, double *v) {\n"
  "  i64 C = n0 & 0xffffffff, H = n1 >> 32, W = n1 & 0xffffffff, K = n2 >> 32;\n"
  "  i64 R = (n2 >> 16) & 0xffff, S = n2 & 0xffff, OH = n3 >> 32, OW = n3 & 0xffffffff;\n"
  "  i64 ow = i % OW, q = i / OW, oh = q % OH; q /= OH;\n"
  "  i64 k = q % K, n = q / K, c = t / (R * S), rs = t - c * (R * S), r = rs / S, s = rs - r * S;\n"
  "  i64 ih = oh * (i64)p0 - (i64)p1 + r * (i64)p2, iw = ow * (i64)p0 - (i64)p1 + s * (i64)p2;\n"
  "  if (ih < 0 || ih >= H || iw < 0 || iw >= W) return false;\n"
  "  *v = dg_ld(x, tx, (((n * C + c) * H) + ih) * W + iw) * dg_ld(w, tw, ((k * C + c) * R + r) * S + s);\n"
  "  return true;\n"
  "}\n"
  "extern \"C\" __global__ void dg_ref_at(double *y, const void *a, int ta, const void *b, int tb, const void *u,\n"
  "                          int tu, i64 n0, i64 n1, i64 n2, i64 n3, double p0, double p1, double p2,\n"
  "                          const long long *idx, long long m, int kind) {\n"
  "  long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
  "  if (kind == 2) {\n"
  "    if (g < m && idx[g] >= 0 && idx[g] < n0) y[idx[g]] = dg_map1(a, ta, b, tb, idx[g], n1, p0);\n"
  "    return;\n"
  "  }\n"
  "  long long j = g >> 5;   /* the warp's element: the same in every lane */\n"
  "  int lane = threadIdx.x & 31;\n"
  "  if (j >= m || (kind != 3 && kind != 4)) return;\n"
  "  i64 i = idx[j], T, a0 = 0, as = 0, b0 = 0, bs = 0;\n"
  "  if (kind == 3) {\n"
  "    if (i < 0 || n0 * n1 <= 0) return;\n"
  "    dg_mm_at(i, n0, n1, n2, n3, &a0, &as, &b0, &bs);\n"
  "    T = n2;\n"
  "  } else {\n"
  "    if (i < 0 || i >= (n0 >> 32) * (n2 >> 32) * (n3 >> 32) * (n3 & 0xffffffff)) return;\n"
  "    T = (n0 & 0xffffffff) * ((n2 >> 16) & 0xffff) * (n2 & 0xffff);\n"
  "  }\n"
  "  double acc = 0;\n"
  "#ifndef DG_AT_SHFL\n"
  "  __shared__ double dg_at_sv[8][64];   /* the block's 8 warps: a round's 64 products each */\n"
  "  double *sv = dg_at_sv[(threadIdx.x >> 5) & 7];\n"
  "#endif\n"
  "  for (i64 t0 = 0; t0 < T; t0 += 64) {   /* two rounds of 32 terms loaded ahead of their sums */\n"
  "    double v[2] = { 0, 0 };\n"
  "    bool in[2] = { false, false };\n"
  "    for (int h = 0; h < 2; h++) {\n"
  "      i64 t = t0 + 32 * h + lane;\n"
  "      if (t >= T) continue;\n"
  "      if (kind == 3) v[h] = dg_ld(a, ta, a0 + t * as) * dg_ld(b, tb, b0 + t * bs), in[h] = true;\n"
  "      else in[h] = dg_conv_term(a, ta, b, tb, n0, n1, n2, n3, p0, p1, p2, i, t, &v[h]);\n"
  "    }\n"
  "#ifdef DG_AT_SHFL\n"
  "    for (int h = 0; h < 2; h++) {\n"
  "      i64 left = T - t0 - 32 * h;\n"
  "      int kn = left < 32 ? (int)left : 32;\n"
  "      for (int q = 0; q < kn; q++) {\n"
  "        double x = __shfl_sync(0xffffffffu, v[h], q);\n"
  "        if (__shfl_sync(0xffffffffu, (int)in[h], q)) acc = acc + x;\n"
  "      }\n"
  "    }\n"
  "#else\n"
  "    /* session 7: the round's products through shared memory (a broadcast\n"
  "       read a term, two a 16-byte load) and which are in as two ballots,\n"
  "       instead of three shuffles a term; the same adds in the same order */\n"
  "    unsigned in0 = __ballot_sync(0xffffffffu, in[0]), in1 = __ballot_sync(0xffffffffu, in[1]);\n"
  "    sv[lane] = v[0], sv[32 + lane] = v[1];\n"
  "    __syncwarp();\n"
  "    i64 left = T - t0;\n"
  "    if (left >= 64 && (in0 & in1) == 0xffffffffu) {\n"
  "#pragma unroll\n"
  "      for (int q = 0; q < 64; q++) acc = acc + sv[q];\n"
  "    } else {\n"
  "      int kn = left < 64 ? (int)left : 64;\n"
  "      for (int q = 0; q < kn; q++)\n"
  "        if (((q < 32 ? in0 : in1) >> (q & 31)) & 1u) acc = acc + sv[q];\n"
  "    }\n"
  "    __syncwarp();\n"
  "#endif\n"
  "  }\n"
  "  if (lane == 0) y[i] = kind == 3 ? p0 * acc : acc;\n"
  "}\n";

typedef enum { REF_ROWS, REF_REDUCE, REF_MAP, REF_MATMUL, REF_CONV, REF_NKINDS } ref_kind;
_Static_assert(REF_NKINDS == GPU_REF_AT, "dg_ref_at follows the kinds' kernels");
static const char *const kind_kernel[REF_NKINDS + 1] = { "dg_ref_rows", "dg_ref_reduce", "dg_ref_map",
                                                         "dg_ref_matmul", "dg_ref_conv", "dg_ref_at" };

/* op -> kernel, mode, tensors (as the op file names them), attributes (p0..p2
 * for ROWS/MAP/MATMUL; the reduction's dim for REDUCE). */
static const struct {
  const char *op;
  ref_kind kind;
  int mode;
  const char *in[3], *out, *attr[3];
} ref_tab[] = {
  { "softmax", REF_ROWS, 0, { "x" }, "y", { 0 } },
  { "log_softmax", REF_ROWS, 1, { "x" }, "y", { 0 } },
  { "layernorm", REF_ROWS, 2, { "x", "w", "b" }, "y", { "eps" } },
  { "rmsnorm", REF_ROWS, 3, { "x", "w" }, "y", { "eps" } },
  { "sum", REF_REDUCE, 0, { "x" }, "y", { "dim" } },
  { "mean", REF_REDUCE, 1, { "x" }, "y", { "dim" } },
  { "max", REF_REDUCE, 2, { "x" }, "y", { "dim" } },
  { "min", REF_REDUCE, 3, { "x" }, "y", { "dim" } },
  { "sumsq", REF_REDUCE, 4, { "x" }, "y", { "dim" } },
  { "l2norm", REF_REDUCE, 5, { "x" }, "y", { "dim" } },
  { "residual_add", REF_MAP, 0, { "x", "r" }, "y", { "alpha" } },
  { "add", REF_MAP, 1, { "a", "b" }, "c", { 0 } },
  { "mul", REF_MAP, 2, { "a", "b" }, "c", { 0 } },
  { "scale", REF_MAP, 3, { "x" }, "y", { "alpha" } },
  { "relu", REF_MAP, 4, { "x" }, "y", { 0 } },
  { "sigmoid", REF_MAP, 5, { "x" }, "y", { 0 } },
  { "silu", REF_MAP, 6, { "x" }, "y", { 0 } },
  { "tanh", REF_MAP, 7, { "x" }, "y", { 0 } },
  { "gelu_erf", REF_MAP, 8, { "x" }, "y", { 0 } },
  { "gelu_tanh", REF_MAP, 9, { "x" }, "y", { 0 } },
  { "leaky_relu", REF_MAP, 10, { "x" }, "y", { "negative_slope" } },
  { "elu", REF_MAP, 11, { "x" }, "y", { "alpha" } },
  { "matmul", REF_MATMUL, 0, { "a", "b" }, "c", { "transA", "transB", "alpha" } },
  { "bmm", REF_MATMUL, 1, { "a", "b" }, "c", { "transA", "transB", "alpha" } },
  { "gemv", REF_MATMUL, 2, { "a", "x" }, "y", { 0 } },
  { "conv2d", REF_CONV, 0, { "x", "w" }, "y", { "stride", "padding", "dilation" } },
};
#define NREF (sizeof ref_tab / sizeof *ref_tab)

const char *gpu_ref_source(void) { return ref_source; }

int gpu_ref_kernel_names(const char *const **names)
{
  *names = kind_kernel;
  return REF_NKINDS + 1;
}

int gpu_ref_nops(void) { return (int)NREF; }
const char *gpu_ref_op(int i) { return i >= 0 && i < (int)NREF ? ref_tab[i].op : NULL; }

/* The kernel's dtype code (dg_ld), -1 if none. */
static int ref_dtype(dg_dtype t)
{
  static const int code[DG_DT__COUNT] = {
    [DG_DT_F32] = 0, [DG_DT_F64] = 1, [DG_DT_F16] = 2, [DG_DT_BF16] = 3,
    [DG_DT_I32] = 4, [DG_DT_I64] = 5, [DG_DT_U8] = 6, [DG_DT_BOOL] = 6,
  };
  return (unsigned)t < DG_DT__COUNT ? code[t] : -1;
}

/* The op file is dirigo's own (lua/ops/<op>.lua): the kernels implement
 * those files, not an op of the same name written elsewhere. */
static bool own_op_file(const dg_problem *p, const char *op)
{
  if (!p->op_path || !p->op_name || strcmp(p->op_name, op)) return false;
  char *tail = dg_printf("/lua/ops/%s.lua", op);
  size_t n = strlen(p->op_path), m = strlen(tail);
  bool ok = n >= m && !strcmp(p->op_path + n - m, tail);
  free(tail);
  return ok;
}

static int ref_entry(const dg_problem *p)
{
  for (size_t i = 0; i < NREF; i++)
    if (own_op_file(p, ref_tab[i].op)) return (int)i;
  return -1;
}

static bool attr_num(const dg_problem *p, const char *name, double *v)
{
  int a = name ? dg_problem_attr(p, name) : -1;
  if (a < 0) return false;
  const dg_attr *at = &p->attrs.v[a];
  if (at->kind != DG_ATTR_INT && at->kind != DG_ATTR_FLOAT && at->kind != DG_ATTR_BOOL) return false;
  *v = at->f;
  return true;
}

bool gpu_ref_supported(const dg_problem *p)
{
  int e = ref_entry(p);
  if (e < 0 || p->n_outputs != 1) return false;
  int out = dg_problem_tensor(p, ref_tab[e].out);
  if (out < 0 || p->tensors.v[out].role != DG_TENSOR_OUTPUT || p->tensors.v[out].accumulate) return false;
  for (int i = 0; i < 3 && ref_tab[e].in[i]; i++) {
    int t = dg_problem_tensor(p, ref_tab[e].in[i]);
    if (t < 0 || p->tensors.v[t].role != DG_TENSOR_INPUT || ref_dtype(p->tensors.v[t].dtype) < 0) return false;
  }
  for (int i = 0; i < 3 && ref_tab[e].attr[i]; i++) {
    double v;
    if (!attr_num(p, ref_tab[e].attr[i], &v)) return false;
  }
  return true;
}

/* Dimensions of tensor `name`; its rank, -1 when it has none. */
static int dims_of(const dg_problem *p, const char *name, const int64_t *sizes, int64_t *dims, int *t)
{
  *t = dg_problem_tensor(p, name);
  if (*t < 0 || p->tensors.v[*t].shape.n > 8) return -1;
  dg_diags d = {0};
  bool ok = dg_problem_shape(p, *t, sizes, dims, &d);
  dg_diags_free(&d);
  return ok ? (int)p->tensors.v[*t].shape.n : -1;
}

static int64_t prod(const int64_t *d, int n)
{
  int64_t r = 1;
  for (int i = 0; i < n; i++) r *= d[i];
  return r;
}

/* The shapes the kernels assume, checked against the problem's. */
static bool plan_rows(const dg_problem *p, const int64_t *sizes, int e, gpu_ref_plan *pl)
{
  int64_t xd[8], od[8], wd[8];
  int xt, ot, wt;
  int xr = dims_of(p, ref_tab[e].in[0], sizes, xd, &xt), orank = dims_of(p, ref_tab[e].out, sizes, od, &ot);
  if (xr < 1 || orank != xr || memcmp(xd, od, sizeof *xd * (size_t)xr)) return false;
  int64_t C = xd[xr - 1], R = prod(xd, xr - 1);
  for (int i = 1; i < 3 && ref_tab[e].in[i]; i++)
    if (dims_of(p, ref_tab[e].in[i], sizes, wd, &wt) != 1 || wd[0] != C) return false;
  if (R <= 0 || C <= 0 || R > INT32_MAX) return false;
  pl->n[0] = R, pl->n[1] = C, pl->n[2] = ref_tab[e].mode;
  pl->grid = (dg_gpu_dim3){ (uint32_t)R, 1, 1 };
  pl->block = (dg_gpu_dim3){ ref_tab[e].mode <= 1 && C > 256 ? 1024 : 256, 1, 1 };   /* dg_ref_rows */
  /* softmax's and log_softmax's exponentials in shared memory (dg_rows_exps):
   * their sum reads them back in 256 chains, which from y (global memory)
   * waited on a load a term */
  pl->shmem = ref_tab[e].mode <= 1 && C <= GPU_REF_ROWS_SMEM / 8 ? (uint32_t)C * 8 : 0;
  return true;
}

static bool plan_reduce(const dg_problem *p, const int64_t *sizes, int e, gpu_ref_plan *pl)
{
  int64_t xd[8], od[8];
  int xt, ot;
  if (dims_of(p, "x", sizes, xd, &xt) != 2 || dims_of(p, ref_tab[e].out, sizes, od, &ot) != 1) return false;
  int dim = (int)pl->p[0];
  int64_t nout = dim == 1 ? xd[0] : xd[1];
  if ((dim != 0 && dim != 1) || od[0] != nout || xd[0] <= 0 || xd[1] <= 0 || nout > INT32_MAX) return false;
  pl->n[0] = xd[0], pl->n[1] = xd[1], pl->n[2] = dim, pl->n[3] = ref_tab[e].mode;
  pl->grid = (dg_gpu_dim3){ (uint32_t)nout, 1, 1 };
  pl->block = (dg_gpu_dim3){ 256, 1, 1 };
  return true;
}

static bool plan_map(const dg_problem *p, const int64_t *sizes, int e, gpu_ref_plan *pl)
{
  int64_t d[8];
  int t, r = dims_of(p, ref_tab[e].out, sizes, d, &t);
  if (r < 0) return false;
  int64_t n = prod(d, r);
  for (int i = 0; i < 3 && ref_tab[e].in[i]; i++) {
    int ri = dims_of(p, ref_tab[e].in[i], sizes, d, &t);
    if (ri < 0 || prod(d, ri) != n) return false;
  }
  if (n <= 0) return false;
  int64_t blocks = (n + 255) / 256;
  pl->n[0] = n, pl->n[1] = ref_tab[e].mode;
  pl->grid = (dg_gpu_dim3){ (uint32_t)(blocks < 65536 ? blocks : 65536), 1, 1 };
  pl->block = (dg_gpu_dim3){ 256, 1, 1 };
  return true;
}

static bool plan_matmul(const dg_problem *p, const int64_t *sizes, int e, gpu_ref_plan *pl)
{
  int64_t ad[8], bd[8], cd[8];
  int at, bt, ct;
  int ar = dims_of(p, ref_tab[e].in[0], sizes, ad, &at), br = dims_of(p, ref_tab[e].in[1], sizes, bd, &bt);
  int cr = dims_of(p, ref_tab[e].out, sizes, cd, &ct);
  bool ta = pl->p[0] != 0, tb = pl->p[1] != 0;
  int64_t B = 1, M, N, K;
  if (ref_tab[e].mode == 2) {                       /* gemv: a {M, K}, x {K} */
    if (ar != 2 || br != 1 || cr != 1 || bd[0] != ad[1] || cd[0] != ad[0]) return false;
    M = ad[0], K = ad[1], N = 1, ta = tb = false;
    pl->p[2] = 1;
  } else {
    int o = ref_tab[e].mode == 1;                   /* bmm: a leading batch dimension */
    if (ar != 2 + o || br != 2 + o || cr != 2 + o) return false;
    if (o && (ad[0] != bd[0] || ad[0] != cd[0])) return false;
    B = o ? ad[0] : 1;
    M = ta ? ad[o + 1] : ad[o], K = ta ? ad[o] : ad[o + 1];
    N = cd[o + 1];
    if (cd[o] != M || (tb ? bd[o] != N || bd[o + 1] != K : bd[o] != K || bd[o + 1] != N)) return false;
  }
  if (B <= 0 || M <= 0 || N <= 0 || K < 0 || B > 65535 || (M + 31) / 32 > 65535 || (N + 31) / 32 > INT32_MAX)
    return false;
  /* bit 2: alpha is not an attribute of the op (gemv's 1): the envelope's
   * backward error leaves it alone (gpu_env_dev.h's dge_attr) */
  pl->n[0] = M, pl->n[1] = N, pl->n[2] = K, pl->n[3] = (ta ? 1 : 0) | (tb ? 2 : 0) | (ref_tab[e].mode == 2 ? 4 : 0);
  pl->p[0] = pl->p[2];                              /* alpha */
  pl->p[1] = pl->p[2] = 0;
  pl->grid = (dg_gpu_dim3){ (uint32_t)((N + 31) / 32), (uint32_t)((M + 31) / 32), (uint32_t)B };
  pl->block = (dg_gpu_dim3){ 32, 8, 1 };
  return true;
}

static bool plan_conv(const dg_problem *p, const int64_t *sizes, int e, gpu_ref_plan *pl)
{
  int64_t xd[8], wd[8], yd[8];
  int xt, wt, yt;
  if (dims_of(p, "x", sizes, xd, &xt) != 4 || dims_of(p, "w", sizes, wd, &wt) != 4 ||
      dims_of(p, ref_tab[e].out, sizes, yd, &yt) != 4)
    return false;
  int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], K = wd[0], R = wd[2], S = wd[3], OH = yd[2], OW = yd[3];
  double st = pl->p[0], pad = pl->p[1], dil = pl->p[2];
  if (wd[1] != C || yd[0] != N || yd[1] != K || N <= 0 || C <= 0 || K <= 0 || OH <= 0 || OW <= 0 || H <= 0 ||
      W <= 0 || R <= 0 || S <= 0)
    return false;
  int64_t big = (int64_t)1 << 31;
  if (N >= big || C >= big || H >= big || W >= big || K >= big || OH >= big || OW >= big || R > 0xffff ||
      S > 0xffff || st != (double)(int64_t)st || pad != (double)(int64_t)pad || dil != (double)(int64_t)dil ||
      st < 1 || pad < 0 || dil < 1)
    return false;
  int64_t n = N * K * OH * OW, blocks = (n + 255) / 256;
  pl->n[0] = N << 32 | C, pl->n[1] = H << 32 | W, pl->n[2] = K << 32 | R << 16 | S, pl->n[3] = OH << 32 | OW;
  pl->grid = (dg_gpu_dim3){ (uint32_t)(blocks < 65536 ? blocks : 65536), 1, 1 };
  pl->block = (dg_gpu_dim3){ 256, 1, 1 };
  return true;
}

static bool (*const planners[REF_NKINDS])(const dg_problem *, const int64_t *, int, gpu_ref_plan *) = {
  [REF_ROWS] = plan_rows, [REF_REDUCE] = plan_reduce, [REF_MAP] = plan_map, [REF_MATMUL] = plan_matmul,
  [REF_CONV] = plan_conv,
};

bool gpu_ref_plan_for(const dg_problem *p, const int64_t *sizes, gpu_ref_plan *pl)
{
  memset(pl, 0, sizeof *pl);
  for (int i = 0; i < 3; i++) pl->in[i] = -1;
  if (!gpu_ref_supported(p)) return false;
  int e = ref_entry(p);
  pl->kind = (int)ref_tab[e].kind;
  pl->out = dg_problem_tensor(p, ref_tab[e].out);
  for (int i = 0; i < 3 && ref_tab[e].in[i]; i++) pl->in[i] = dg_problem_tensor(p, ref_tab[e].in[i]);
  for (int i = 0; i < 3 && ref_tab[e].attr[i]; i++) attr_num(p, ref_tab[e].attr[i], &pl->p[i]);
  return planners[ref_tab[e].kind](p, sizes, e, pl);
}

/* The launch's 14 arguments: out, then (input, dtype) x 3, n0..n3, p0..p2. */
int gpu_ref_args(const dg_problem *p, const gpu_ref_plan *pl, dg_gpu_buf out, const dg_gpu_buf *bufs,
                 dg_gpu_arg *args)
{
  int k = 0;
  args[k++] = dg_gpu_arg_buf(out);
  for (int i = 0; i < 3; i++) {
    int t = pl->in[i];
    args[k++] = t >= 0 ? dg_gpu_arg_buf(bufs[t]) : dg_gpu_arg_null();
    args[k++] = dg_gpu_arg_i32(t >= 0 ? ref_dtype(p->tensors.v[t].dtype) : 0);
  }
  for (int i = 0; i < 4; i++) args[k++] = dg_gpu_arg_i64(pl->n[i]);
  for (int i = 0; i < 3; i++) args[k++] = dg_gpu_arg_f64(pl->p[i]);
  return k;
}

bool gpu_ref_can_sample(const gpu_ref_plan *pl)
{
  return pl->kind == REF_MAP || pl->kind == REF_MATMUL || pl->kind == REF_CONV;
}

/* Rows and elementwise ops: an element's reference is cheap to compute where
 * it is compared (gpu_fused.c, whose kind numbers are these). Reductions are
 * not fused: their f64 output is 1/C of the input, its write and read cheap. */
_Static_assert(REF_ROWS == 0 && REF_MAP == 2, "dg_fused's kinds");
bool gpu_ref_fusable(const gpu_ref_plan *pl) { return pl->kind == REF_ROWS || pl->kind == REF_MAP; }

/* Where the whole reference costs about as much as the kernel under test or
 * more (matmul, bmm, gemv: K products an element), a realistic case computes
 * it at the validator's sample alone. */
bool gpu_ref_wants_sample(const gpu_ref_plan *pl) { return pl->kind == REF_MATMUL || pl->kind == REF_CONV; }

/* The kinds gpu_env_dev.h's envelope evaluates (all five since session 5). */
bool gpu_ref_env_kind(const gpu_ref_plan *pl) { return pl->kind <= REF_CONV; }

/* dg_ref_at's 17 arguments: the kind's 14, the sample's indices (m of them,
 * at byte offset idx_off of idx), the kind. */
int gpu_ref_at_args(const dg_problem *p, const gpu_ref_plan *pl, dg_gpu_buf out, const dg_gpu_buf *bufs,
                    dg_gpu_buf idx, size_t idx_off, int64_t m, dg_gpu_arg *args)
{
  int k = gpu_ref_args(p, pl, out, bufs, args);
  args[k] = dg_gpu_arg_buf(idx);
  args[k++].buf_off = idx_off;
  args[k++] = dg_gpu_arg_i64(m);
  args[k++] = dg_gpu_arg_i32(pl->kind);
  return k;
}

/* A thread an element (elementwise: 32 a block, a sample of 4096 spread over
 * 128 SMs), or a warp an element (matmul, conv2d: 8 a block since session
 * 7, 4 before: a block's warps share an SM's L1, see gpu_ref_at_order). */
void gpu_ref_at_dims(const gpu_ref_plan *pl, int64_t m, dg_gpu_dim3 *grid, dg_gpu_dim3 *block)
{
  bool warp = pl->kind == REF_MATMUL || pl->kind == REF_CONV;
  int64_t g = warp ? (m + 7) / 8 : (m + 31) / 32;
  *grid = (dg_gpu_dim3){ (uint32_t)(g < 1 ? 1 : g), 1, 1 };
  *block = (dg_gpu_dim3){ warp ? 256 : 32, 1, 1 };
}

/* Session 7: matmul's picks (not transB: B read down a column, a 32-byte
 * sector a term) ordered by column, stably, so that the warps of a block,
 * and blocks launched together, read the same sectors of B (8 columns a
 * sector) through L1 instead of each its own from L2. Each pick's value is
 * computed alone and written to its own element: the order changes no value
 * (repeats write the same bits twice). tmp: m spare int64. */
void gpu_ref_at_order(const gpu_ref_plan *pl, int64_t *idx, int64_t m, int64_t *tmp)
{
  if (pl->kind != REF_MATMUL || (pl->n[3] & 2) || m < 2) return;
  int64_t N = pl->n[1];
  if (N <= 0) return;
  enum { NB = 1024 };   /* buckets of columns (ceil(N / NB) columns each), counted */
  int64_t cnt[NB + 1] = {0}, per = (N + NB - 1) / NB;
#define AT_BUCKET(i) ((i) >= 0 ? ((i) % N) / per : 0)
  for (int64_t j = 0; j < m; j++) cnt[AT_BUCKET(idx[j]) + 1]++;
  for (int b = 0; b < NB; b++) cnt[b + 1] += cnt[b];
  for (int64_t j = 0; j < m; j++) tmp[cnt[AT_BUCKET(idx[j])]++] = idx[j];
#undef AT_BUCKET
  memcpy(idx, tmp, (size_t)m * sizeof *idx);
}

dg_gpu_status gpu_ref_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  /* DIRIGO_GPU_REF_AT_SHFL=1: dg_ref_at's sums through shuffles, as before
   * session 7 (the bench measures both in one device call) */
  const char *v = getenv("DIRIGO_GPU_REF_AT_SHFL");
  char *text = dg_printf("%s%s", v && !strcmp(v, "1") ? "#define DG_AT_SHFL 1\n" : "", ref_source);
  return dg_gpu_compile_own("GPU reference source", text, strlen(text), kind_kernel, REF_NKINDS + 1, arch, bin, d);
}
