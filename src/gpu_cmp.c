/* gpu_cmp.c — the validator's comparison as a kernel: the output the
 * kernel under test wrote, against the fp64 GPU reference (gpu_ref.c), both
 * already on the device, reduced to a summary of 64 bytes. Only a case
 * with a failing element brings its output back to the host (gpu_run_fetch),
 * where fuzz_run.c judges it as before (envelope, first failing element,
 * message): a passing case's outcome is the summary alone.
 *
 * The rule is fuzz_validate.c's, element for element (fuzz_compare with the
 * reference's defined mask as `checked`): an element whose reference still
 * holds the f64 poison is not checked; one whose output still holds the
 * output's poison is unwritten (a failure); otherwise fuzz_elem_check, with
 * the reference rounded to the output dtype as dg_dtype_round does (f16 and
 * bf16 through float, with dtype.c's own conversions), NaN agreeing with
 * NaN, an infinity with the same infinity, and |got - want| <= atol + rtol
 * |want| evaluated in double without contraction (--fmad=false); max abs
 * and max ulp error (dg_dtype_ulps) over elements where both are finite.
 * p99_abs is not computed (a passing case's outcome never carried it).
 * Output dtypes f32, f64, f16, bf16; others compare on the host.
 * dg_cmp_pick copies the reference at a sample's elements into a buffer
 * poisoned elsewhere: dg_cmp over it judges the sample alone. */
#include "gpu_run.h"
#include <stdlib.h>
#include <string.h>

static const char cmp_source[] =
  "typedef unsigned long long u64;\n"
  "typedef unsigned int u32;\n"
  "#ifndef DG_CMP_GROUP\n"
  "#define DG_CMP_GROUP 4\n"
  "#endif\n"
  "/* dtype.c's conversions, verbatim in meaning */\n"
  "__device__ unsigned short f32_to_f16(float f) {\n"
  "  u32 x = __float_as_uint(f), sign = (x >> 16) & 0x8000, absx = x & 0x7fffffff;\n"
  "  if (absx >= 0x7f800000)\n"
  "    return (unsigned short)(sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 | ((absx >> 13) & 0x3ff) : 0));\n"
  "  if (absx >= 0x477ff000) return (unsigned short)(sign | 0x7c00);\n"
  "  if (absx < 0x38800000) {\n"
  "    float scaled = __uint_as_float(absx) * 16777216.0f;\n"
  "    return (unsigned short)(sign | (u32)__float2int_rn(scaled));\n"
  "  }\n"
  "  u32 mant = absx & 0x7fffff, e = (absx >> 23) - 112;\n"
  "  u32 h = (e << 10) | (mant >> 13), rest = mant & 0x1fff;\n"
  "  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;\n"
  "  return (unsigned short)(sign | h);\n"
  "}\n"
  "__device__ float f16_to_f32(unsigned short h) {\n"
  "  u32 sign = (u32)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, mant = h & 0x3ff;\n"
  "  if (e == 0) { float v = (float)mant * 5.9604644775390625e-8f; return sign ? -v : v; }\n"
  "  if (e == 31) return __uint_as_float(sign | 0x7f800000 | (mant << 13));\n"
  "  return __uint_as_float(sign | ((e + 112) << 23) | (mant << 13));\n"
  "}\n"
  "__device__ unsigned short f32_to_bf16(float f) {\n"
  "  u32 x = __float_as_uint(f);\n"
  "  if ((x & 0x7fffffff) > 0x7f800000) return (unsigned short)((x >> 16) | 0x40);\n"
  "  x += 0x7fff + ((x >> 16) & 1);\n"
  "  return (unsigned short)(x >> 16);\n"
  "}\n"
  "__device__ float bf16_to_f32(unsigned short b) { return __uint_as_float((u32)b << 16); }\n"
  "/* dt: 0 f32, 1 f64, 2 f16, 3 bf16 */\n"
  "__device__ double round_to(int dt, double v) {\n"
  "  if (dt == 0) return (double)(float)v;\n"
  "  if (dt == 2) return (double)f16_to_f32(f32_to_f16((float)v));\n"
  "  if (dt == 3) return (double)bf16_to_f32(f32_to_bf16((float)v));\n"
  "  return v;\n"
  "}\n"
  "__device__ double ulps(int dt, double a, double b) {   /* both finite */\n"
  "  if (a == b) return 0;\n"
  "  const int mant = dt == 0 ? 23 : dt == 1 ? 52 : dt == 2 ? 10 : 7;\n"
  "  const int min_exp = dt == 0 ? -126 : dt == 1 ? -1022 : dt == 2 ? -14 : -126;\n"
  "  double m = fmax(fabs(a), fabs(b));\n"
  "  if (isinf(m)) return __longlong_as_double(0x7ff0000000000000ll);\n"
  "#ifdef DG_CMP_FREXP\n"
  "  int e;\n"
  "  frexp(m, &e);\n"
  "  e -= 1;\n"
  "  if (e < min_exp) e = min_exp;\n"
  "#else\n"
  "  /* floor(log2 m) from the exponent bits (a subnormal's -1023 is clamped\n"
  "     below: min_exp >= -1022), and the division by 2^(e - mant) as the\n"
  "     multiply by 2^(mant - e) wherever that is a normal double: both are\n"
  "     the correctly rounded |a - b| 2^(mant - e), the same bits (gpu9's\n"
  "     patch, session 6; applied in session 7) */\n"
  "  int e = (int)((__double_as_longlong(m) >> 52) & 0x7ff) - 1023;\n"
  "  if (e < min_exp) e = min_exp;\n"
  "  if (mant - e <= 1023) return fabs(a - b) * __longlong_as_double((long long)(mant - e + 1023) << 52);\n"
  "#endif\n"
  "  return fabs(a - b) / ldexp(1.0, e - mant);\n"
  "}\n"
  "__device__ u64 warp_sum(u64 v) {\n"
  "  for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);\n"
  "  return v;\n"
  "}\n"
  "__device__ u64 warp_max(u64 v) {\n"
  "  for (int o = 16; o; o >>= 1) { u64 w = __shfl_down_sync(0xffffffffu, v, o); v = w > v ? w : v; }\n"
  "  return v;\n"
  "}\n"
  "__device__ u64 warp_min(u64 v) {\n"
  "  for (int o = 16; o; o >>= 1) { u64 w = __shfl_down_sync(0xffffffffu, v, o); v = w < v ? w : v; }\n"
  "  return v;\n"
  "}\n"
  "/* the rule's running values, a thread's (dg_cmp_one adds an element) */\n"
  "struct dg_cmp_acc { u64 checked, nfail, nunw, nagree, first; double mabs, mulp; };\n"
  "__device__ void dg_cmp_start(dg_cmp_acc *s) {\n"
  "  s->checked = s->nfail = s->nunw = s->nagree = 0; s->first = ~0ull; s->mabs = s->mulp = 0;\n"
  "}\n"
  "/* element i of got against the f64 reference value wr (gpu_fused.c's\n"
  "   dg_fused calls it with the value it has just computed) */\n"
  "/* element i of got's bits (dt: 0 f32, 1 f64, 2 f16, 3 bf16) */\n"
  "__device__ u64 dg_cmp_ld(const unsigned char *got, long long i, int dt) {\n"
  "  return dt == 0 ? (u64)((const u32 *)got)[i] : dt == 1 ? ((const u64 *)got)[i] : (u64)((const unsigned short *)got)[i];\n"
  "}\n"
  "/* dg_cmp_one with element i's bits already loaded (dg_cmp: the loads of several elements first) */\n"
  "__device__ void dg_cmp_bits(dg_cmp_acc *s, u64 bits, long long i, double wr, int dt, double atol, double rtol,\n"
  "                            u64 poison, u64 ref_poison) {\n"
  "  if ((u64)__double_as_longlong(wr) == ref_poison) return;\n"
  "  s->checked++;\n"
  "  double g = dt == 0 ? (double)__uint_as_float((u32)bits) : dt == 1 ? __longlong_as_double((long long)bits)\n"
  "           : (double)(dt == 2 ? f16_to_f32((unsigned short)bits) : bf16_to_f32((unsigned short)bits));\n"
  "  double w = round_to(dt, wr);\n"
  "  bool bad;\n"
  "  if (bits == poison) { bad = true; s->nunw++; }\n"
  "  else {\n"
  "    if (isnan(w)) bad = !isnan(g);\n"
  "    else if (isinf(w)) bad = !(g == w);\n"
  "    else if (!isfinite(g)) bad = true;\n"
  "    else bad = !(fabs(g - w) <= atol + rtol * fabs(w));\n"
  "    if (isfinite(g) && isfinite(w)) {\n"
  "      double e = fabs(g - w), u = ulps(dt, g, w);\n"
  "      if (e > s->mabs) s->mabs = e;\n"
  "      if (u > s->mulp) s->mulp = u;\n"
  "    } else if (!bad) s->nagree++;\n"
  "  }\n"
  "  if (bad) { s->nfail++; if ((u64)i < s->first) s->first = (u64)i; }\n"
  "}\n"
  "__device__ void dg_cmp_one(dg_cmp_acc *s, const unsigned char *got, long long i, double wr, int dt, double atol,\n"
  "                           double rtol, u64 poison, u64 ref_poison) {\n"
  "  if ((u64)__double_as_longlong(wr) == ref_poison) return;\n"
  "  dg_cmp_bits(s, dg_cmp_ld(got, i, dt), i, wr, dt, atol, rtol, poison, ref_poison);\n"
  "}\n"
  "/* the block's values into sum (every thread of the block calls it, last):\n"
  "   warp shuffles, the block's warps through shared memory, then one set of\n"
  "   atomics a block (one a warp contended on the 7 words: most of a 262k-\n"
  "   element comparison's time). h: subtracted from word 7 (dg_fused's hash\n"
  "   of the inputs it read; 0 for dg_cmp) */\n"
  "__device__ void dg_cmp_fold(dg_cmp_acc *s, u64 h, u64 *sum) {\n"
  "  u64 checked = warp_sum(s->checked), nfail = warp_sum(s->nfail), nunw = warp_sum(s->nunw);\n"
  "  u64 nagree = warp_sum(s->nagree);\n"
  "  u64 ma = warp_max((u64)__double_as_longlong(s->mabs)), mu = warp_max((u64)__double_as_longlong(s->mulp));\n"
  "  u64 first = warp_min(s->first);\n"
  "  h = warp_sum(h);\n"
  "  __shared__ u64 part[8][32];\n"
  "  int w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;\n"
  "  if ((threadIdx.x & 31) == 0) {\n"
  "    part[0][w] = checked; part[1][w] = nfail; part[2][w] = nunw; part[3][w] = nagree;\n"
  "    part[4][w] = ma; part[5][w] = mu; part[6][w] = first; part[7][w] = h;\n"
  "  }\n"
  "  __syncthreads();\n"
  "  if (w) return;\n"
  "  int l = threadIdx.x;\n"
  "  bool in = l < nw;\n"
  "  checked = warp_sum(in ? part[0][l] : 0); nfail = warp_sum(in ? part[1][l] : 0);\n"
  "  nunw = warp_sum(in ? part[2][l] : 0); nagree = warp_sum(in ? part[3][l] : 0);\n"
  "  ma = warp_max(in ? part[4][l] : 0); mu = warp_max(in ? part[5][l] : 0);\n"
  "  first = warp_min(in ? part[6][l] : ~0ull); h = warp_sum(in ? part[7][l] : 0);\n"
  "  if (l == 0) {\n"
  "    if (checked) atomicAdd(&sum[0], checked);\n"
  "    if (nfail) atomicAdd(&sum[1], nfail);\n"
  "    if (nunw) atomicAdd(&sum[2], nunw);\n"
  "    if (nagree) atomicAdd(&sum[3], nagree);\n"
  "    if (ma) atomicMax(&sum[4], ma);\n"
  "    if (mu) atomicMax(&sum[5], mu);\n"
  "    if (first != ~0ull) atomicMin(&sum[6], first);\n"
  "    if (h) atomicAdd(&sum[7], 0ull - h);\n"
  "  }\n"
  "}\n"
  "/* sum: checked, failing, unwritten, NaN/Inf agreeing, max abs (bits), max ulp (bits),\n"
  "   first failing index (~0: none), 0 (gpu_env_pipe: the elements the envelope explained);\n"
  "   the caller uploads 0 0 0 0 0 0 ~0 0 first */\n"
  "extern \"C\" __global__ void dg_cmp(const unsigned char *got, const double *want, long long n, int dt,\n"
  "                                   double atol, double rtol, u64 poison, u64 ref_poison, u64 *sum) {\n"
  "  dg_cmp_acc s;\n"
  "  dg_cmp_start(&s);\n"
  "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x, st = (long long)gridDim.x * blockDim.x;\n"
  "#ifndef DG_CMP_ONE\n"
  "  /* DG_CMP_GROUP elements a round: their loads in flight together (the reference's, then the output's\n"
  "     where the reference is not the poison), then the rule on each; every word of the summary is a\n"
  "     sum, a max or a min, so the order is free */\n"
  "  for (; i + (DG_CMP_GROUP - 1) * st < n; i += DG_CMP_GROUP * st) {\n"
  "    double wr[DG_CMP_GROUP];\n"
  "    u64 b[DG_CMP_GROUP];\n"
  "#pragma unroll\n"
  "    for (int k = 0; k < DG_CMP_GROUP; k++) wr[k] = want[i + k * st];\n"
  "#pragma unroll\n"
  "    for (int k = 0; k < DG_CMP_GROUP; k++)\n"
  "      b[k] = (u64)__double_as_longlong(wr[k]) == ref_poison ? 0 : dg_cmp_ld(got, i + k * st, dt);\n"
  "#pragma unroll\n"
  "    for (int k = 0; k < DG_CMP_GROUP; k++) dg_cmp_bits(&s, b[k], i + k * st, wr[k], dt, atol, rtol, poison, ref_poison);\n"
  "  }\n"
  "#endif\n"
  "  for (; i < n; i += st) dg_cmp_one(&s, got, i, want[i], dt, atol, rtol, poison, ref_poison);\n"
  "  dg_cmp_fold(&s, 0, sum);\n"
  "}\n"
  "/* a realistic case judged on the validator's sample (gpu_many.c): the\n"
  "   reference at idx[0..m-1] copied into dst, which holds the f64 poison\n"
  "   elsewhere, so dg_cmp over dst checks those elements alone */\n"
  "extern \"C\" __global__ void dg_cmp_pick(const double *ref, double *dst, const long long *idx, long long m) {\n"
  "  long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
  "  if (j < m) dst[idx[j]] = ref[idx[j]];\n"
  "}\n"
  "/* the inputs a reference reads, hashed into out[0] (gpu_many.c: before and\n"
  "   after the kernels under test when the reference runs beside them on a\n"
  "   side stream; any change of a byte changes the sum): 4-byte word w of\n"
  "   input t adds (word + t) (2w + 1), a tail byte k (byte + 1) (2k + 1) 2^40;\n"
  "   na, nb, nc in bytes, a NULL input none */\n"
  "extern \"C\" __global__ void dg_in_hash(u64 *out, const void *a, long long na, const void *b, long long nb,\n"
  "                                       const void *c, long long nc) {\n"
  "  const void *p[3] = { a, b, c };\n"
  "  long long n[3] = { na, nb, nc };\n"
  "  u64 h = 0;\n"
  "  long long i0 = blockIdx.x * (long long)blockDim.x + threadIdx.x, step = (long long)gridDim.x * blockDim.x;\n"
  "  for (int t = 0; t < 3; t++) {\n"
  "    if (!p[t]) continue;\n"
  "    long long nw = n[t] >> 2;\n"
  "    for (long long w = i0; w < nw; w += step) h += ((u64)((const u32 *)p[t])[w] + (u64)t) * (u64)(2 * w + 1);\n"
  "    if (i0 == 0)\n"
  "      for (long long k = nw * 4; k < n[t]; k++) h += ((u64)((const unsigned char *)p[t])[k] + 1) * (u64)(2 * k + 1) << 40;\n"
  "  }\n"
  "  h = warp_sum(h);\n"
  "  if ((threadIdx.x & 31) == 0 && h) atomicAdd(out, h);\n"
  "}\n";

const char *gpu_cmp_source(void) { return cmp_source; }

/* The kernel's dtype codes; -1: compared on the host. */
static const int cmp_code[DG_DT__COUNT] = {
  [DG_DT_F32] = 0, [DG_DT_F64] = 1, [DG_DT_F16] = 2, [DG_DT_BF16] = 3,
  [DG_DT_I32] = -1, [DG_DT_I64] = -1, [DG_DT_U8] = -1, [DG_DT_BOOL] = -1,
};

bool gpu_cmp_supported(dg_dtype dt)
{
  if ((int)dt < 0 || dt >= DG_DT__COUNT || cmp_code[dt] < 0) return false;
  dg_gpu_pattern pat = dg_gpu_poison_for(dg_dtypes[dt].name);
  return pat.len == dg_dtypes[dt].size;
}

static uint64_t pattern_bits(dg_gpu_pattern p)
{
  uint64_t v = 0;
  for (int i = 0; i < p.len && i < 8; i++) v |= (uint64_t)p.b[i] << (8 * i);
  return v;
}

int gpu_cmp_args(dg_dtype dt, dg_gpu_buf got, dg_gpu_buf want, int64_t n, dg_tol tol, dg_gpu_buf sum,
                 dg_gpu_arg *args)
{
  args[0] = dg_gpu_arg_buf(got);
  args[1] = dg_gpu_arg_buf(want);
  args[2] = dg_gpu_arg_i64(n);
  args[3] = dg_gpu_arg_i32(cmp_code[dt]);
  args[4] = dg_gpu_arg_f64(tol.atol);
  args[5] = dg_gpu_arg_f64(tol.rtol);
  args[6] = dg_gpu_arg_i64((int64_t)pattern_bits(dg_gpu_poison_for(dg_dtypes[dt].name)));
  args[7] = dg_gpu_arg_i64((int64_t)pattern_bits(dg_gpu_poison_for("f64")));
  args[8] = dg_gpu_arg_buf(sum);
  return 9;
}

/* Four elements a thread at least, 1056 blocks (eight an SM of an H200: every
 * thread slot, for the loads in flight) at most: the grid-stride loop reads
 * the rest. */
void gpu_cmp_dims(int64_t n, dg_gpu_dim3 *grid, dg_gpu_dim3 *block)
{
  int64_t g = (n + 1023) / 1024;
  *grid = (dg_gpu_dim3){ (uint32_t)(g < 1 ? 1 : g > 1056 ? 1056 : g), 1, 1 };
  *block = (dg_gpu_dim3){ 256, 1, 1 };
}

void gpu_cmp_init(uint64_t sum[GPU_CMP_WORDS])
{
  memset(sum, 0, GPU_CMP_WORDS * sizeof *sum);
  sum[6] = ~0ull;
}

void gpu_cmp_decode(const uint64_t sum[GPU_CMP_WORDS], int64_t n, fuzz_cmp *c)
{
  memset(c, 0, sizeof *c);
  c->n = n;
  c->checked = (int64_t)sum[0];
  c->nfail = (int64_t)sum[1];
  c->nunwritten = (int64_t)sum[2];
  c->nnan_agree = (int64_t)sum[3];
  memcpy(&c->max_abs, &sum[4], 8);
  memcpy(&c->max_ulp, &sum[5], 8);
  c->first_fail = sum[6] == ~0ull ? -1 : (int64_t)sum[6];
}

dg_gpu_status gpu_cmp_compile(const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  static const char *const names[] = { "dg_cmp", "dg_cmp_pick", "dg_in_hash" };
  /* DIRIGO_GPU_CMP_FREXP=1: the ulp through frexp and a division, as before
   * session 7 (the bench measures both in one device call) */
  const char *v = getenv("DIRIGO_GPU_CMP_FREXP");
  /* DIRIGO_GPU_CMP_GROUP=1: an element a round, its loads then its rule, as
   * before session 9; =2..8 that many a round (default 4) */
  const char *gv = getenv("DIRIGO_GPU_CMP_GROUP");
  int group = gv ? atoi(gv) : 4;
  char *text = dg_printf("%s%s#define DG_CMP_GROUP %d\n%s", v && !strcmp(v, "1") ? "#define DG_CMP_FREXP 1\n" : "",
                         group == 1 ? "#define DG_CMP_ONE 1\n" : "", group >= 2 && group <= 8 ? group : 4, cmp_source);
  return dg_gpu_compile_own("GPU comparison source", text, strlen(text), names, 3, arch, bin, d);
}
