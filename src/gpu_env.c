/* gpu_env.c — the validator's envelope on the GPU (see gpu_env.h): the
 * dg_env kernel's source (the shared rule of gpu_env_dev.h behind a kernel
 * entry), its parameters from a problem's GPU reference plan, and the
 * session-side driver the fuzz backend's envelope hook calls. */
#include "gpu_env.h"
#include "fuzz_run.h"   /* FUZZ_ENVELOPE_JUDGED */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DG_ENV_EMIT(...) #__VA_ARGS__
static const char env_source[] =   /* DG_DEV: __device__ (device_text) */
#include "gpu_env_dev.h"
  "\n"
  /* 32 candidates a block of three warps: warp w runs, for lane l's candidate, the round32 pass and
     then perturbed evaluation k = w alone (dge_judge_part), side by side with the other two; warp 0
     joins the three parts into the verdict (dge_judge_join). Half the serial chain of one thread
     running all four passes, the warps' lanes as uniform as they were. */
  "__device__ void dge_judge_parts(int *sv, double *sc, unsigned char *ok, const double *cand, long long m,\n"
  "    long long kind, const void *a, long long ta, long long ia, const void *b, long long tb, long long ib,\n"
  "    const void *c, long long tc, long long ic, long long n0, long long n1, long long n2, long long n3,\n"
  "    double p0, double p1, double p2, long long odt, double atol, double rtol) {\n"
  "  int w = threadIdx.x >> 5, l = threadIdx.x & 31;\n"
  "  long long n[4] = { n0, n1, n2, n3 };\n"
  "  double p[3] = { p0, p1, p2 };\n"
  "  for (long long j0 = blockIdx.x * 32ll; j0 < m; j0 += gridDim.x * 32ll) {\n"
  "    long long j = j0 + l;\n"
  "    if (j < m) {\n"
  "      dge_st e;\n"
  "      e.pre = 0, e.given = 0, e.absorb = 0;\n"
  "      e.in[0] = a, e.in[1] = b, e.in[2] = c;\n"
  "      e.dt[0] = (int)ta, e.dt[1] = (int)tb, e.dt[2] = (int)tc;\n"
  "      e.tid[0] = ia, e.tid[1] = ib, e.tid[2] = ic;\n"
  "      double cond;\n"
  "      sv[w * 32 + l] = dge_judge_part(&e, (int)kind, n, p, (long long)cand[3 * j], cand[3 * j + 1],\n"
  "                                      cand[3 * j + 2], (int)odt, atol, rtol, w, w, &cond);\n"
  "      sc[w * 32 + l] = cond;\n"
  "    }\n"
  "    __syncthreads();\n"
  "    if (w == 0 && j < m) {\n"
  "      int v[3] = { sv[l], sv[32 + l], sv[64 + l] };\n"
  "      double cs[3] = { sc[l], sc[32 + l], sc[64 + l] };\n"
  "      ok[j] = (unsigned char)dge_judge_join(v, cs, 3, cand[3 * j + 1], cand[3 * j + 2], (int)odt, atol, rtol);\n"
  "    }\n"
  "    __syncthreads();\n"
  "  }\n"
  "}\n"
  /* matmul (gpu_env_dev.h's dge_mm_*, dge_mm_judge's steps): C = 4 candidates a warp, LP = 8 lanes
     each (lane l: candidate l % C). The round32 pass, then, when it does not decide
     one of them, the three perturbed evaluations at once, in windows of W = 16 steps: a candidate's lanes
     compute its steps' terms (reads, perturbation, product, the add's draws; lane l steps l / C + LP r)
     into the warp's window, then one lane an evaluation runs the chain over it (lane c: round32 of
     candidate c; lane k C + c: evaluation k), the next window's raw values loaded before. Session 9's
     layout ran a candidate's whole evaluation in one thread: four splitmix64 hashes a step on its serial
     chain, one warp a scheduler. Lanes past the last candidate run the last one again, unwritten. */
  "__device__ void dge_wred(dge_st *l) {   /* the facts over a candidate's lanes (l, l ^ C, ...) */\n"
  "  for (int o = 4; o < 32; o <<= 1) {\n"
  "    for (int s = 0; s < 2; s++) l->maxin[s] = fmax(l->maxin[s], __shfl_xor_sync(0xffffffffu, l->maxin[s], o));\n"
  "    l->overflowed |= __shfl_xor_sync(0xffffffffu, l->overflowed, o);\n"
  "    l->order_overflow |= __shfl_xor_sync(0xffffffffu, l->order_overflow, o);\n"
  "    l->nan_input |= __shfl_xor_sync(0xffffffffu, l->nan_input, o);\n"
  "  }\n"
  "}\n"
  "__device__ void dge_mm_ld(const dge_st *b, const dge_mmg *g, long long k0, int sub, double *ra, double *rb) {\n"
  "  for (int r = 0; r < 2; r++) {\n"
  "    long long s = k0 + sub + 8 * r;\n"
  "    if (s < g->K) ra[r] = dge_ld(b->in[0], b->dt[0], g->ia + s * g->sa), rb[r] = dge_ld(b->in[1], b->dt[1], g->ib + s * g->sb);\n"
  "  }\n"
  "}\n"
  "/* NE evaluations of a candidate over its K steps in windows of 16: the\n"
  "   round32 pass (NE 1, b's k 0: lane c the chain, the add's draws 1 and 0)\n"
  "   or the three perturbed ones (NE 3: lane kC + c evaluation k's chain, the\n"
  "   draws from the window, t[3k + 1], t[3k + 2]); each lane notes its own\n"
  "   steps' facts in l[k], merged over the candidate's lanes; q[k] the results */\n"
  "template <int NE> __device__ void dge_mm_pass(double (*t)[4][16], dge_st *b, const dge_mmg *g, const double *p,\n"
  "                                             dge_res *q) {\n"
  "  int lane = threadIdx.x & 31, c = lane % 4, sub = lane / 4, kc = lane < 4 * NE ? lane / 4 : 0;\n"
  "  dge_st l[NE], ch;\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < NE; k++) {\n"
  "    b->k = k;\n"
  "    dge_fresh(&l[k], b);\n"
  "  }\n"
  "  b->k = kc;\n"
  "  dge_fresh(&ch, b);\n"
  "  long long K = g->K;\n"
  "  double ra[2], rb[2], acc = dge_c(&ch, 0), sacc = 0, f, d2;\n"
  "  dge_mm_ld(b, g, 0, sub, ra, rb);\n"
  "  for (long long k0 = 0; k0 < K; k0 += 16) {\n"
  "    for (int r = 0; r < 2; r++) {\n"
  "      int i = sub + 8 * r;\n"
  "      if (k0 + i < K)\n"
  "#pragma unroll\n"
  "        for (int k = 0; k < NE; k++)\n"
  "          t[3 * k][c][i] = dge_mm_term(&l[k], g, k0 + i, ra[r], rb[r], NE > 1 ? &t[3 * k + 1][c][i] : &f,\n"
  "                                       NE > 1 ? &t[3 * k + 2][c][i] : &d2);\n"
  "    }\n"
  "    dge_mm_ld(b, g, k0 + 16, sub, ra, rb);\n"
  "    __syncwarp();\n"
  "    if (lane < 4 * NE) {\n"
  "      int w = K - k0 < 16 ? (int)(K - k0) : 16;\n"
  "      for (int i = 0; i < w; i++)\n"
  "        acc = dge_mm_link(&ch, acc, &sacc, t[3 * kc][c][i], NE > 1 ? t[3 * kc + 1][c][i] : 1,\n"
  "                          NE > 1 ? t[3 * kc + 2][c][i] : 0);\n"
  "    }\n"
  "    __syncwarp();\n"
  "  }\n"
  "  if (lane < 4 * NE) {\n"
  "    acc = dge_mm_end(&ch, g, p, acc);\n"
  "#pragma unroll\n"
  "    for (int k = 0; k < NE; k++)\n"
  "      if (k == kc) dge_mm_merge(&l[k], &ch);\n"
  "  }\n"
  "#pragma unroll\n"
  "  for (int k = 0; k < NE; k++) {\n"
  "    dge_wred(&l[k]);\n"
  "    dge_mm_res(&q[k], &l[k], __shfl_sync(0xffffffffu, acc, 4 * k + c));\n"
  "  }\n"
  "}\n"
  "__device__ void dge_mm_warp(double (*t)[4][16], const dge_st *e0, const long long *n,\n"
  "    const double *p, long long flat, double got, double want, int odt, double atol, double rtol, int *out) {\n"
  "  dge_res q[4];\n"
  "  dge_mmg g;\n"
  "  dge_mm_geom(n, flat, &g);\n"
  "  dge_st e = *e0, b = *e0;\n"
  "  b.pre = 0, b.given = 0, b.absorb = 0, b.flat = flat, b.round32 = 1, b.perturb = 0, b.k = 0;\n"
  "  b.maxin[0] = b.maxin[1] = b.maxin[2] = 0;\n"
  "  dge_mm_pass<1>(t, &b, &g, p, q);\n"
  "  double cond;\n"
  "  e.pre = q;\n"
  "  int v = dge_judge_part(&e, 3, n, p, flat, got, want, odt, atol, rtol, 0, -1, &cond);\n"
  "  if (__any_sync(0xffffffffu, v == 2)) {\n"
  "    b.round32 = 0, b.perturb = 1;\n"
  "    for (int s = 0; s < 3; s++) b.scale[s] = q[0].maxin[s];\n"
  "    dge_mm_pass<3>(t, &b, &g, p, q + 1);\n"
  "    if (v == 2) {\n"
  "      v = dge_judge_part(&e, 3, n, p, flat, got, want, odt, atol, rtol, 0, 2, &cond);\n"
  "      if (v == 2) v = dge_judge_join(&v, &cond, 1, got, want, odt, atol, rtol);\n"
  "    }\n"
  "  }\n"
  "  *out = v;\n"
  "}\n"
  "/* dg_env_many for matmul (kind 3): 4 warps a block of 128 threads, 4 candidates a warp\n"
  "   (gpu_env_mm_grid) */\n"
  "extern \"C\" __global__ void DG_MM_BOUNDS dg_env_mm(unsigned char *ok, const double *cand,\n"
  "    const long long *work, long long kind, const void *a, long long ta, long long ia, const void *b, long long tb,\n"
  "    long long ib, const void *c, long long tc, long long ic, long long n0, long long n1, long long n2,\n"
  "    long long n3, double p0, double p1, double p2, long long odt, double atol, double rtol) {\n"
  "  __shared__ double s_t[4][9][4][16];\n"
  "  int w = threadIdx.x >> 5, lane = threadIdx.x & 31;\n"
  "  long long m = work[2] ? (long long)work[1] : 0;\n"
  "  long long n[4] = { n0, n1, n2, n3 };\n"
  "  double p[3] = { p0, p1, p2 };\n"
  "  dge_st e;\n"
  "  e.pre = 0, e.given = 0, e.absorb = 0;\n"
  "  e.in[0] = a, e.in[1] = b, e.in[2] = c;\n"
  "  e.dt[0] = (int)ta, e.dt[1] = (int)tb, e.dt[2] = (int)tc;\n"
  "  e.tid[0] = ia, e.tid[1] = ib, e.tid[2] = ic;\n"
  "  for (long long j0 = (blockIdx.x * 4ll + w) * 4; j0 < m; j0 += gridDim.x * 4ll * 4) {\n"
  "    long long j = j0 + lane % 4, jc = j < m ? j : m - 1;\n"
  "    long long flat = (long long)cand[3 * jc];\n"
  "    int v;\n"
  "    if (n2 > 0)\n"
  "      dge_mm_warp(s_t[w], &e, n, p, flat, cand[3 * jc + 1], cand[3 * jc + 2], (int)odt, atol, rtol, &v);\n"
  "    else {\n"
  "      dge_st x = e;\n"
  "      v = dge_judge(&x, 3, n, p, flat, cand[3 * jc + 1], cand[3 * jc + 2], (int)odt, atol, rtol);\n"
  "    }\n"
  "    if (lane < 4 && j < m) ok[j] = (unsigned char)v;\n"
  "  }\n"
  "}\n"
  "extern \"C\" __global__ void dg_env(unsigned char *ok, const double *cand, long long m, long long kind,\n"
  "    const void *a, long long ta, long long ia, const void *b, long long tb, long long ib,\n"
  "    const void *c, long long tc, long long ic, long long n0, long long n1, long long n2, long long n3,\n"
  "    double p0, double p1, double p2, long long odt, double atol, double rtol) {\n"
  "  __shared__ int s_v[96];\n"
  "  __shared__ double s_c[96];\n"
  "  dge_judge_parts(s_v, s_c, ok, cand, m, kind, a, ta, ia, b, tb, ib, c, tc, ic, n0, n1, n2, n3, p0, p1, p2, odt,\n"
  "                  atol, rtol);\n"
  "}\n"
  /* inside gpu_run_many's stream (gpu_env_pipe_*): work[0] the inputs' hash
     before the kernel under test, work[1] the candidates gathered, work[2] 1
     when they are exactly the summary's failing elements */
  "__device__ unsigned long long dge_hash_in(const void *p, long long nb, long long t, long long i0, long long step) {\n"
  "  const unsigned char *b = (const unsigned char *)p;\n"
  "  unsigned long long h = 0, salt = dge_mix(0x6a09e667f3bcc909ull + (unsigned long long)t);\n"
  "  long long nw = nb >> 2;\n"
  "  for (long long w = i0; w < nw; w += step)\n"
  "    h += dge_mix(dge_mix(salt ^ (unsigned long long)w) ^ ((const unsigned *)b)[w]);\n"
  "  if (i0 == 0) for (long long k = nw * 4; k < nb; k++) h += dge_mix(salt ^ ((unsigned long long)k << 8 | b[k]) ^ 1ull << 63);\n"
  "  return h;\n"
  "}\n"
  "extern \"C\" __global__ void dg_env_hash(unsigned long long *work, const void *a, long long na,\n"
  "    const void *b, long long nb, const void *c, long long nc) {\n"
  "  long long i0 = blockIdx.x * (long long)blockDim.x + threadIdx.x, step = (long long)gridDim.x * blockDim.x;\n"
  "  unsigned long long h = (a ? dge_hash_in(a, na, 0, i0, step) : 0) + (b ? dge_hash_in(b, nb, 1, i0, step) : 0) +\n"
  "                        (c ? dge_hash_in(c, nc, 2, i0, step) : 0);\n"
  "  for (int o = 16; o; o >>= 1) h += __shfl_down_sync(0xffffffffu, h, o);\n"
  "  if ((threadIdx.x & 31) == 0 && h) atomicAdd(&work[0], h);\n"
  "}\n"
  "/* the whole grid: the summary's failing elements (gpu_cmp.c's rule; none unwritten, at most cap), in\n"
  "   no particular order (each is judged alone, the fold wants them all); the last block to finish\n"
  "   (work[3] counts them) says whether they are exactly the summary's */\n"
  "extern \"C\" __global__ void dg_env_gather(unsigned long long *sum, unsigned long long *work, double *cand,\n"
  "    const void *got, const double *want, long long n, long long dt, double atol, double rtol,\n"
  "    unsigned long long ref_poison, long long cap) {\n"
  "  __shared__ int s_last;\n"
  "  int tid = threadIdx.x, lane = tid & 31;\n"
  "  unsigned long long nf = sum[1] > 0 && sum[1] <= (unsigned long long)cap && sum[2] == 0 ? sum[1] : 0;\n"
  "  long long from = sum[6] < (unsigned long long)n ? (long long)sum[6] : 0;\n"
  "  for (long long base = from + blockIdx.x * (long long)blockDim.x; nf && base < n;\n"
  "       base += (long long)gridDim.x * blockDim.x) {\n"
  "    long long i = base + tid;\n"
  "    int bad = 0;\n"
  "    double g = 0, wr = 0;\n"
  "    if (i < n) {\n"
  "      wr = want[i];\n"
  "      if ((unsigned long long)__double_as_longlong(wr) != ref_poison) {\n"
  "        g = dge_ld(got, (int)dt, i);\n"
  "        double w = dge_round_dt((int)dt, wr);\n"
  "        if (dge_isnan(w)) bad = !dge_isnan(g);\n"
  "        else if (dge_isinf(w)) bad = !(g == w);\n"
  "        else if (!dge_isfinite(g)) bad = 1;\n"
  "        else bad = !(fabs(g - w) <= atol + rtol * fabs(w));\n"
  "      }\n"
  "    }\n"
  "    unsigned m = __ballot_sync(0xffffffffu, bad);\n"
  "    unsigned long long off = 0;\n"
  "    if (lane == 0 && m) off = atomicAdd(&work[1], (unsigned long long)__popc(m));\n"
  "    off = __shfl_sync(0xffffffffu, off, 0) + __popc(m & ((1u << lane) - 1u));\n"
  "    if (bad && off < (unsigned long long)cap) {\n"
  "      cand[3 * off] = (double)i;\n"
  "      cand[3 * off + 1] = g;\n"
  "      cand[3 * off + 2] = wr;\n"
  "    }\n"
  "  }\n"
  "  __syncthreads();\n"
  "  if (tid == 0) {\n"
  "    __threadfence();\n"
  "    s_last = atomicAdd(&work[3], 1ull) == (unsigned long long)gridDim.x - 1;\n"
  "  }\n"
  "  __syncthreads();\n"
  "  if (s_last && tid == 0) {\n"
  "    __threadfence();\n"
  "    unsigned long long cnt = atomicAdd(&work[1], 0ull);\n"
  "    int go = nf > 0 && cnt == nf;\n"
  "    work[1] = go ? cnt : 0;\n"
  "    work[2] = (unsigned long long)go;\n"
  "    work[3] = 0;\n"
  "  }\n"
  "}\n"
  "/* dg_env over the gathered candidates (their count in work[1]) */\n"
  "extern \"C\" __global__ void dg_env_many(unsigned char *ok, const double *cand, const long long *work, long long kind,\n"
  "    const void *a, long long ta, long long ia, const void *b, long long tb, long long ib,\n"
  "    const void *c, long long tc, long long ic, long long n0, long long n1, long long n2, long long n3,\n"
  "    double p0, double p1, double p2, long long odt, double atol, double rtol) {\n"
  "  __shared__ int s_v[96];\n"
  "  __shared__ double s_c[96];\n"
  "  long long m = work[2] ? (long long)work[1] : 0;\n"
  "  dge_judge_parts(s_v, s_c, ok, cand, m, kind, a, ta, ia, b, tb, ib, c, tc, ic, n0, n1, n2, n3, p0, p1, p2, odt,\n"
  "                  atol, rtol);\n"
  "}\n"
  "/* every candidate inside the envelope and the inputs as before the kernel ran: the case passes\n"
  "   (sum[1] failing 0, sum[6] first none, sum[7] the elements the envelope explained). The whole grid\n"
  "   hashes the inputs again (work[4]); the last block to finish (work[5] counts them) decides; work zeroed */\n"
  "extern \"C\" __global__ void dg_env_fold(unsigned long long *sum, unsigned long long *work, const unsigned char *ok,\n"
  "    const void *a, long long na, const void *b, long long nb, const void *c, long long nc) {\n"
  "  __shared__ int s_bad, s_last;\n"
  "  int tid = threadIdx.x;\n"
  "  if (tid == 0) s_bad = 0;\n"
  "  __syncthreads();\n"
  "  long long m = work[2] ? (long long)work[1] : 0;\n"
  "  if (m > 0) {\n"
  "    for (long long j = tid; j < m; j += blockDim.x) if (!ok[j]) s_bad = 1;\n"
  "    __syncthreads();\n"
  "    if (!s_bad) {\n"
  "      long long i0 = blockIdx.x * (long long)blockDim.x + tid, step = (long long)gridDim.x * blockDim.x;\n"
  "      unsigned long long h = (a ? dge_hash_in(a, na, 0, i0, step) : 0) + (b ? dge_hash_in(b, nb, 1, i0, step) : 0) +\n"
  "                             (c ? dge_hash_in(c, nc, 2, i0, step) : 0);\n"
  "      for (int o = 16; o; o >>= 1) h += __shfl_down_sync(0xffffffffu, h, o);\n"
  "      if ((tid & 31) == 0 && h) atomicAdd(&work[4], h);\n"
  "    }\n"
  "  }\n"
  "  __syncthreads();\n"
  "  if (tid == 0) {\n"
  "    __threadfence();\n"
  "    s_last = atomicAdd(&work[5], 1ull) == (unsigned long long)gridDim.x - 1;\n"
  "  }\n"
  "  __syncthreads();\n"
  "  if (s_last && tid == 0) {\n"
  "    __threadfence();\n"
  "    if (m > 0 && !s_bad && atomicAdd(&work[4], 0ull) == work[0]) {\n"
  "      sum[7] = sum[1];\n"
  "      sum[1] = 0;\n"
  "      sum[6] = ~0ull;\n"
  "    }\n"
  "    work[0] = work[1] = work[2] = work[3] = work[4] = work[5] = 0;\n"
  "  }\n"
  "}\n";
#undef DG_ENV_EMIT

static const char *const env_names[] = { "dg_env", "dg_env_hash", "dg_env_gather", "dg_env_many", "dg_env_fold",
                                          "dg_env_mm" };
#define ENV_NK 6

const char *gpu_env_source(void) { return env_source; }
const char *gpu_env_kernel_name(void) { return env_names[0]; }
dg_gpu_dim3 gpu_env_grid(int64_t m)   /* 32 candidates a block, a grid-stride loop past GPU_ENV_GRID blocks */
{
  int64_t b = (m + 31) / 32;
  return (dg_gpu_dim3){ (uint32_t)(b < 1 ? 1 : b > GPU_ENV_GRID ? GPU_ENV_GRID : b), 1, 1 };
}
dg_gpu_dim3 gpu_env_block(void) { return (dg_gpu_dim3){ GPU_ENV_BLOCK, 1, 1 }; }
static dg_gpu_dim3 gpu_env_mm_grid(int64_t m)   /* dg_env_mm: 16 candidates a block, grid-stride past GPU_ENV_GRID */
{
  int64_t b = (m + 15) / 16;
  return (dg_gpu_dim3){ (uint32_t)(b < 1 ? 1 : b > GPU_ENV_GRID ? GPU_ENV_GRID : b), 1, 1 };
}

/* gpu_ref.c's dtype codes (dg_ld), -1 if none. */
static int dt_code(dg_dtype t)
{
  static const int code[DG_DT__COUNT] = {
    [DG_DT_F32] = 0, [DG_DT_F64] = 1, [DG_DT_F16] = 2, [DG_DT_BF16] = 3,
    [DG_DT_I32] = 4, [DG_DT_I64] = 5, [DG_DT_U8] = 6, [DG_DT_BOOL] = 6,
  };
  return (unsigned)t < DG_DT__COUNT ? code[t] : -1;
}

bool gpu_env_launch_for(const dg_problem *p, const int64_t *sizes, int t, dg_tol tol, gpu_env_launch *L)
{
  gpu_ref_plan pl;
  memset(L, 0, sizeof *L);
  if (!gpu_ref_plan_for(p, sizes, &pl) || pl.out != t) return false;
  L->kind = pl.kind;
  for (int i = 0; i < 4; i++) L->n[i] = pl.n[i];
  for (int i = 0; i < 3; i++) L->p[i] = pl.p[i];
  for (int i = 0; i < 3; i++) {
    L->in_t[i] = pl.in[i];
    L->in_dt[i] = pl.in[i] >= 0 ? dt_code(p->tensors.v[pl.in[i]].dtype) : -1;
    /* an index-valued input is read unperturbed by the host rule: not here */
    if (pl.in[i] >= 0 && (p->tensors.v[pl.in[i]].has_range || L->in_dt[i] < 0)) return false;
  }
  dg_dtype od = p->tensors.v[t].dtype;
  L->out_dt = dg_dtypes[od].is_float ? dt_code(od) : -1;
  if (dg_dtypes[od].is_float && (L->out_dt < 0 || L->out_dt > 3)) return false;
  L->atol = tol.atol;
  L->rtol = tol.rtol;
  return true;
}

static uint64_t bits_i(int64_t v) { return (uint64_t)v; }
static uint64_t bits_f(double v)
{
  uint64_t u;
  memcpy(&u, &v, 8);
  return u;
}
static uint64_t bits_p(const void *p) { return (uint64_t)(uintptr_t)p; }

void gpu_env_kernel_args(const gpu_env_launch *L, void *ok, const void *cand, int64_t m,
                         const void *const in_dev[3], uint64_t vals[GPU_ENV_NARGS], void *ptrs[GPU_ENV_NARGS])
{
  int k = 0;
  vals[k++] = bits_p(ok);
  vals[k++] = bits_p(cand);
  vals[k++] = bits_i(m);
  vals[k++] = bits_i(L->kind);
  for (int i = 0; i < 3; i++) {
    vals[k++] = bits_p(L->in_t[i] >= 0 ? in_dev[i] : NULL);
    vals[k++] = bits_i(L->in_dt[i] < 0 ? 0 : L->in_dt[i]);
    vals[k++] = bits_i(L->in_t[i]);
  }
  for (int i = 0; i < 4; i++) vals[k++] = bits_i(L->n[i]);
  for (int i = 0; i < 3; i++) vals[k++] = bits_f(L->p[i]);
  vals[k++] = bits_i(L->out_dt);
  vals[k++] = bits_f(L->atol);
  vals[k++] = bits_f(L->rtol);
  for (int i = 0; i < GPU_ENV_NARGS; i++) ptrs[i] = &vals[i];
}

/* The same through the session's batch: buffers instead of pointers. */
static int batch_args(const gpu_env_launch *L, dg_gpu_buf ok, dg_gpu_buf cand, int64_t m, const dg_gpu_buf *bufs,
                      dg_gpu_arg *a)
{
  int k = 0;
  a[k++] = dg_gpu_arg_buf(ok);
  a[k++] = dg_gpu_arg_buf(cand);
  a[k++] = dg_gpu_arg_i64(m);
  a[k++] = dg_gpu_arg_i64(L->kind);
  for (int i = 0; i < 3; i++) {
    a[k++] = L->in_t[i] >= 0 ? dg_gpu_arg_buf(bufs[L->in_t[i]]) : dg_gpu_arg_null();
    a[k++] = dg_gpu_arg_i64(L->in_dt[i] < 0 ? 0 : L->in_dt[i]);
    a[k++] = dg_gpu_arg_i64(L->in_t[i]);
  }
  for (int i = 0; i < 4; i++) a[k++] = dg_gpu_arg_i64(L->n[i]);
  for (int i = 0; i < 3; i++) a[k++] = dg_gpu_arg_f64(L->p[i]);
  a[k++] = dg_gpu_arg_i64(L->out_dt);
  a[k++] = dg_gpu_arg_f64(L->atol);
  a[k++] = dg_gpu_arg_f64(L->rtol);
  return k;
}

/* The source with DG_DEV spelled __device__: dg_gpu_compile keeps only the
 * functions whose head says so (host code is blanked, gpu_src.c). */
static char *device_text(size_t *len)
{
  /* DIRIGO_GPU_ENV_MM_MINB=N: dg_env_mm's blocks an SM for ptxas (its registers; measured on the H200) */
  char bounds[48] = "__launch_bounds__(128) ";
  const char *mb = getenv("DIRIGO_GPU_ENV_MM_MINB");
  if (mb && atoi(mb) > 0 && atoi(mb) <= 16) snprintf(bounds, sizeof bounds, "__launch_bounds__(128, %d) ", atoi(mb));
  const struct { const char *mark, *dev; } subst[] = {
    { "DG_DEV ", "__device__ " }, { "DG_DEVN ", "__device__ __noinline__ " }, { "DG_MM_BOUNDS ", bounds },
  };
  dg_buf b = {0};
  for (const char *s = env_source; *s;) {
    size_t k = 0;
    while (k < 3 && strncmp(s, subst[k].mark, strlen(subst[k].mark))) k++;
    if (k < 3) {
      dg_buf_puts(&b, subst[k].dev);
      s += strlen(subst[k].mark);
    } else {
      dg_buf_putc(&b, *s++);
    }
  }
  *len = b.n;
  return b.s;
}

dg_gpu_status gpu_env_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  size_t len;
  char *text = device_text(&len);
  return dg_gpu_compile_own("GPU envelope source", text, len, env_names, ENV_NK, arch, bin, d);
}

/* ---- the session side ------------------------------------------------------ */
struct gpu_env {
  int state;                   /* 0 not tried, 1 compiled, -1 off (why) */
  char *why;
  dg_gpu_binary bin;
  dg_gpu_kernel kern[ENV_NK];
  unsigned gen;                /* kern loaded in this child generation */
  dg_gpu_buf cand, ok;         /* valid in buf_gen */
  int64_t cap;                 /* candidates they hold */
  unsigned buf_gen;
  double *hcand;               /* host staging */
  int64_t hcap;
  dg_gpu_batch batch;
  gpu_env_stats st;
  dg_gpu_buf work;             /* the pipeline's words (gpu_env_pipe_*), valid in work_gen */
  unsigned work_gen;
};

static void env_off(struct gpu_env *E, char *why)
{
  E->state = -1;
  free(E->why);
  E->why = why;
  E->st.why = why;
}

static struct gpu_env *env_ready(gpu_kernels *gk)
{
  struct gpu_env *E = gk->env;
  if (E->state) return E->state > 0 ? E : NULL;
  if (gpu_run_switched_off("DIRIGO_GPU_ENVELOPE")) {
    env_off(E, dg_strdup("disabled by DIRIGO_GPU_ENVELOPE=0"));
    return NULL;
  }
  dg_diags d = {0};
  if (gpu_env_compile(dg_gpu_info_of(gk->g)->arch, &E->bin, &d) != DG_GPU_OK) {
    dg_buf b = {0};
    if (d.v.n) dg_diag_format(&b, NULL, &d.v.v[0]);
    env_off(E, dg_printf("the GPU envelope does not compile: %s", b.s ? b.s : "?"));
    dg_buf_free(&b);
  } else {
    E->state = 1;
  }
  dg_diags_free(&d);
  return E->state > 0 ? E : NULL;
}

void gpu_env_prepare(gpu_kernels *gk)
{
  if (!gk->g) return;
  if (!gk->env) gk->env = dg_calloc(1, sizeof *gk->env);
  env_ready(gk);
}

/* The kernel loaded and buffers for m candidates in the current child. */
static bool env_setup(gpu_kernels *gk, struct gpu_env *E, int64_t m)
{
  unsigned gen = dg_gpu_generation(gk->g);
  char *msg = NULL;
  if (E->gen != gen) {
    if (dg_gpu_load(gk->g, &E->bin, E->kern, &msg) != DG_GPU_OK) {
      env_off(E, dg_printf("loading the GPU envelope: %s", msg ? msg : "?"));
      free(msg);
      return false;
    }
    E->gen = gen;
  }
  if (E->buf_gen == gen && E->cap >= m) return true;
  if (E->buf_gen == gen) {
    dg_gpu_free(gk->g, E->cand, NULL);
    dg_gpu_free(gk->g, E->ok, NULL);
  }
  E->buf_gen = 0;
  int64_t cap = m < 1024 ? 1024 : m;
  if (dg_gpu_alloc(gk->g, (size_t)cap * 3 * sizeof(double), dg_gpu_poison_for("f64"), &E->cand, &msg) != DG_GPU_OK) {
    free(msg);
    return false;
  }
  if (dg_gpu_alloc(gk->g, (size_t)cap, dg_gpu_poison_for("u8"), &E->ok, &msg) != DG_GPU_OK) {
    free(msg);
    dg_gpu_free(gk->g, E->cand, NULL);
    return false;
  }
  if (gen != dg_gpu_generation(gk->g)) return false;
  E->cap = cap;
  E->buf_gen = gen;
  return true;
}

bool gpu_env_judge(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                   const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *ok)
{
  gpu_env_launch L;
  if (!gk->env) gk->env = dg_calloc(1, sizeof *gk->env);
  gk->env->st.calls++;
  gk->env->st.refused++;   /* until the verdicts are in */
  if (m <= 0 || !gk->g || gk->ref_out != t || gk->buf_gen != dg_gpu_generation(gk->g)) return false;
  if (!gpu_env_launch_for(p, sizes, t, tol, &L)) return false;
  struct gpu_env *E = env_ready(gk);
  if (!E || !env_setup(gk, E, m)) return false;
  if (m > E->hcap) {
    E->hcap = m;
    E->hcand = dg_realloc(E->hcand, (size_t)m * 3 * sizeof *E->hcand);
  }
  for (int64_t j = 0; j < m; j++) {
    E->hcand[3 * j] = (double)idx[j];
    E->hcand[3 * j + 1] = got[j];
    E->hcand[3 * j + 2] = want[j];
  }
  dg_gpu_batch *b = &E->batch;
  dg_gpu_batch_clear(b);
  /* the inputs as the case had them: the kernel under test may have written
   * into them (inputs drawn on the device get their bytes on the host first) */
  gpu_run_host_inputs(p, gk);
  for (int i = 0; i < 3; i++) {
    int64_t it = L.in_t[i];
    if (it < 0) continue;
    if (!gk->bufs[it] || !gk->buf_bytes[it] || !gk->raw[it]) return false;
    dg_gpu_batch_upload(b, gk->bufs[it], 0, gk->raw[it], gk->buf_bytes[it] - 1);
  }
  dg_gpu_batch_upload(b, E->cand, 0, E->hcand, (size_t)m * 3 * sizeof(double));
  dg_gpu_arg a[GPU_ENV_NARGS];
  int na = batch_args(&L, E->ok, E->cand, m, gk->bufs, a);
  dg_gpu_batch_launch_unguarded(b, E->kern[0], gpu_env_grid(m), gpu_env_block(), 0, a, na);
  dg_gpu_batch_download(b, E->ok, 0, ok, (size_t)m);
  dg_gpu_batch_result r;
  dg_gpu_status st = dg_gpu_batch_run(gk->g, b, &r);
  bool good = st == DG_GPU_OK && r.downloaded && r.nran == 1;
  if (good) {
    E->st.refused--;
    E->st.batches++;
    E->st.judged += m;
    E->st.ms += r.ms;
  } else {
    env_off(E, dg_printf("the GPU envelope failed: %s", r.msg ? r.msg : dg_gpu_status_help(st)));
  }
  dg_gpu_batch_result_free(&r);
  return good;
}

/* ---- inside gpu_run_many's stream ------------------------------------------ */
static const uint64_t zero_words[8];   /* work: hash, gathered, exact, blocks done, hash again, blocks done */

static bool input_bytes(const dg_problem *p, const int64_t *sizes, int64_t t, int64_t *nb)
{
  *nb = 0;
  if (t < 0) return true;
  const dg_tensor *ts = &p->tensors.v[t];
  if (ts->role != DG_TENSOR_INPUT || ts->accumulate) return false;   /* its bytes before the kernel are gone */
  int64_t n = dg_problem_numel(p, (int)t, sizes);
  if (n < 0) return false;
  *nb = n * dg_dtypes[ts->dtype].size;
  return true;
}

bool gpu_env_pipe_ready(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, int t, gpu_env_pipe *P)
{
  memset(P, 0, sizeof *P);
  dg_dtype od = p->tensors.v[t].dtype;
  dg_tol tol = dg_problem_tol(p, t);
  if (gpu_run_switched_off("DIRIGO_GPU_ENV_MANY") || !gk->g || !gk->cmp_have || !gpu_cmp_supported(od) ||
      gk->buf_gen != dg_gpu_generation(gk->g) || !gpu_env_launch_for(p, sizes, t, tol, &P->L))
    return false;
  int64_t nb[3];
  for (int i = 0; i < 3; i++)
    if (!input_bytes(p, sizes, P->L.in_t[i], &nb[i])) return false;
  if (!gk->env) gk->env = dg_calloc(1, sizeof *gk->env);
  struct gpu_env *E = env_ready(gk);
  if (!E || !env_setup(gk, E, FUZZ_ENVELOPE_JUDGED)) return false;
  unsigned gen = dg_gpu_generation(gk->g);
  if (E->work_gen != gen) {
    char *msg = NULL;
    if (dg_gpu_alloc(gk->g, sizeof zero_words, dg_gpu_poison_for("i64"), &E->work, &msg) != DG_GPU_OK) {
      free(msg);
      return false;
    }
    if (gen != dg_gpu_generation(gk->g)) return false;
    E->work_gen = gen;
  }
  P->hash = E->kern[1], P->gather = E->kern[2], P->judge = E->kern[3], P->fold = E->kern[4];
  P->judge_grid = gpu_env_grid(FUZZ_ENVELOPE_JUDGED), P->judge_block = gpu_env_block();
  if (P->L.kind == 3 && !gpu_run_switched_off("DIRIGO_GPU_ENV_MM")) {   /* matmul: a warp a candidate */
    P->judge = E->kern[5];
    P->judge_grid = gpu_env_mm_grid(FUZZ_ENVELOPE_JUDGED), P->judge_block = (dg_gpu_dim3){ 128, 1, 1 };
  }
  P->work = E->work;
  dg_gpu_arg *h = P->hash_args, *f = P->fold_args, *g = P->gather_args;
  h[0] = f[1] = dg_gpu_arg_buf(E->work);
  f[0] = dg_gpu_arg_buf(gk->cmp_buf);
  f[2] = dg_gpu_arg_buf(E->ok);
  for (int i = 0; i < 3; i++) {
    int64_t it = P->L.in_t[i];
    h[1 + 2 * i] = f[3 + 2 * i] = it >= 0 ? dg_gpu_arg_buf(gk->bufs[it]) : dg_gpu_arg_null();
    h[2 + 2 * i] = f[4 + 2 * i] = dg_gpu_arg_i64(nb[i]);
  }
  int k = 0;
  g[k++] = dg_gpu_arg_buf(gk->cmp_buf);
  g[k++] = dg_gpu_arg_buf(E->work);
  g[k++] = dg_gpu_arg_buf(E->cand);
  g[k++] = dg_gpu_arg_buf(gk->bufs[t]);
  g[k++] = dg_gpu_arg_buf(gk->ref_buf);
  g[k++] = dg_gpu_arg_i64(gk->want_n);
  g[k++] = dg_gpu_arg_i64(dt_code(od));
  g[k++] = dg_gpu_arg_f64(tol.atol);
  g[k++] = dg_gpu_arg_f64(tol.rtol);
  dg_gpu_pattern fp = dg_gpu_poison_for("f64");
  uint64_t rp;
  memcpy(&rp, fp.b, 8);
  g[k++] = dg_gpu_arg_i64((int64_t)rp);
  g[k++] = dg_gpu_arg_i64(FUZZ_ENVELOPE_JUDGED);
  int64_t gb = (gk->want_n + 255) / 256;   /* the gather's blocks (a grid-stride loop past 1024) */
  P->gather_grid = (dg_gpu_dim3){ (uint32_t)(gb < 1 ? 1 : gb > 1024 ? 1024 : gb), 1, 1 };
  batch_args(&P->L, E->ok, E->cand, 0, gk->bufs, P->env_args);
  P->env_args[2] = dg_gpu_arg_buf(E->work);   /* the count gathered, on the device */
  E->st.pipe_requests++;
  return true;
}

void gpu_env_pipe_start(const gpu_env_pipe *P, dg_gpu_batch *b)
{
  dg_gpu_batch_upload(b, P->work, 0, zero_words, sizeof zero_words);
}

void gpu_env_pipe_before(const gpu_env_pipe *P, dg_gpu_batch *b)
{
  dg_gpu_batch_launch_unguarded(b, P->hash, (dg_gpu_dim3){ 256, 1, 1 }, (dg_gpu_dim3){ 256, 1, 1 }, 0, P->hash_args, 7);
}

void gpu_env_pipe_after(const gpu_env_pipe *P, dg_gpu_batch *b)
{
  dg_gpu_dim3 many = { 256, 1, 1 }, wide = { 256, 1, 1 };
  dg_gpu_batch_launch_unguarded(b, P->gather, P->gather_grid, wide, 0, P->gather_args, 11);
  dg_gpu_batch_launch_unguarded(b, P->judge, P->judge_grid, P->judge_block, 0, P->env_args, GPU_ENV_NARGS);
  dg_gpu_batch_launch_unguarded(b, P->fold, many, wide, 0, P->fold_args, 9);
}

gpu_env_stats gpu_env_stats_of(const gpu_kernels *gk)
{
  return gk->env ? gk->env->st : (gpu_env_stats){ 0 };
}

void gpu_env_free(gpu_kernels *gk)
{
  struct gpu_env *E = gk->env;
  if (!E) return;
  dg_gpu_binary_free(&E->bin);
  dg_gpu_batch_free(&E->batch);
  free(E->hcand);
  free(E->why);
  free(E);
  gk->env = NULL;
}
