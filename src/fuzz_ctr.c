/* fuzz_ctr.c — counter-based input values (definition in fuzz.h): element i
 * of a tensor from (key, i) alone. Every fuzz input is drawn this way: on the
 * host (fuzz_fill, the lazily filled buffers of huge cases, references that
 * read single elements) and on the GPU (gpu_gen.c), which compiles the very
 * same text: the definition below is written once, in the subset of C that
 * CUDA C++ shares, and kept as a string (fuzz_ctr_source) by the macro that
 * compiles it here. The device prelude (gpu_gen.c) defines the few names the
 * two sides spell differently (CTR_FN, CTR_NAN, CTR_INF, ctr_f2u, ctr_u2f, the
 * integer types and the enum constants).
 *
 * Bit-identity needs every floating-point step to be exact or one correctly
 * rounded IEEE operation, with no contraction into fused multiply-adds: the
 * device side is compiled with --fmad=false, and this file turns contraction
 * off for compilers that would use FMA instructions on the host. */
#include "fuzz.h"
#include <math.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

typedef uint64_t ctr_u64;
typedef int64_t ctr_i64;
typedef uint32_t ctr_u32;
#define CTR_FN static inline
#define __device__      /* the text says __device__ for NVRTC (gpu_src keeps device functions only) */
#define CTR_NAN ((double)NAN)
#define CTR_INF ((double)INFINITY)
static inline ctr_u32 ctr_f2u(float f) { ctr_u32 u; memcpy(&u, &f, 4); return u; }
static inline float ctr_u2f(ctr_u32 u) { float f; memcpy(&f, &u, 4); return f; }

/* The code, and the same code as text for NVRTC. */
#define CTR_DEFINITION(...) __VA_ARGS__ static const char ctr_source[] = #__VA_ARGS__;

CTR_DEFINITION(
CTR_FN __device__ ctr_u64 ctr_sm(ctr_u64 x)
{
  ctr_u64 z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

CTR_FN __device__ double ctr_unit(ctr_u64 h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

CTR_FN __device__ int ctr_finite(double v) { return v - v == 0.0; }

/* Irwin-Hall: the four 16-bit fields of h summed, 34 bits of sm(h + 2) below
 * them (so the values fill the line instead of a 2^-15 grid), centred and
 * scaled to variance 1: range +-3.4642. */
CTR_FN __device__ double ctr_normal(ctr_u64 h)
{
  ctr_u64 s = (h & 0xffff) + (h >> 16 & 0xffff) + (h >> 32 & 0xffff) + (h >> 48);
  ctr_u64 t = s << 34 | ctr_sm(h + 2) >> 30;
  return ((double)t - 2251765453946880.0) * (1.7320508075688772 / 1125899906842624.0);
}

/* the largest finite value and the smallest normal one of a dtype */
CTR_FN __device__ double ctr_dmax(int dt)
{
  return dt == DG_DT_F32 ? 3.4028234663852886e38 : dt == DG_DT_F16 ? 65504.0
       : dt == DG_DT_BF16 ? 3.3895313892515355e38 : dt == DG_DT_F64 ? 1.7976931348623157e308
       : dt == DG_DT_I32 ? 2147483647.0 : dt == DG_DT_I64 ? 9.2e18 : dt == DG_DT_U8 ? 255.0 : 1.0;
}

CTR_FN __device__ double ctr_dmin(int dt)
{
  return dt == DG_DT_F32 || dt == DG_DT_BF16 ? 1.1754943508222875e-38 : dt == DG_DT_F16 ? 6.103515625e-05
       : dt == DG_DT_F64 ? 2.2250738585072014e-308 : 1.0;
}

/* index-valued: integers in [lo, hi]; huge the top 16, tiny the bottom 16 */
CTR_FN __device__ double ctr_index(ctr_u64 h, int dist, ctr_i64 lo, ctr_i64 hi)
{
  if (hi < lo) return (double)lo;
  ctr_u64 span = (ctr_u64)hi - (ctr_u64)lo + 1, w = span < 16 && span ? span : 16;   /* 0: all of i64 */
  if (dist == FUZZ_DIST_HUGE) return (double)(ctr_i64)((ctr_u64)hi - h % w);
  if (dist == FUZZ_DIST_TINY) return (double)(ctr_i64)((ctr_u64)lo + h % w);
  return (double)(ctr_i64)((ctr_u64)lo + (span ? h % span : h));
}

/* the distributions; r is the row length, j = i mod r the place in the row.
 * A switch, not a table of functions: the device compiles this same text,
 * and a uniform branch there costs nothing where an indirect call would. */
CTR_FN __device__ double ctr_float(ctr_u64 key, int dist, int dt, ctr_i64 row, ctr_i64 n, ctr_i64 i)
{
  ctr_u64 h = ctr_sm(key ^ (ctr_u64)i), h1 = 0;
  ctr_i64 r = row > 0 ? row : n > 0 ? n : 1, j = 0;
  double u = ctr_unit(h), sign = 1.0;
  if (dist == FUZZ_DIST_SORTED || dist == FUZZ_DIST_MAX_LAST) j = i % r;
  if (dist == FUZZ_DIST_HUGE || dist == FUZZ_DIST_TINY || dist == FUZZ_DIST_SPECIAL) {
    h1 = ctr_sm(h + 1);
    sign = (h1 & 1) ? -1.0 : 1.0;
  }
  switch (dist) {
  case FUZZ_DIST_UNIFORM: return (double)(h >> 11) * (1.0 / 4503599627370496.0) - 1.0;
  case FUZZ_DIST_POSITIVE: return (double)((h >> 11) + 1) * (1.0 / 9007199254740992.0);
  case FUZZ_DIST_NEGATIVE: return -1.0 - 4.0 * u;
  case FUZZ_DIST_HUGE: return sign * (ctr_dmax(dt) / 16.0 * (0.5 + u));
  case FUZZ_DIST_TINY: return sign * (ctr_dmin(dt) * ((u + 0.01) / (double)(1 << (int)(h1 >> 1 & 7))));
  case FUZZ_DIST_TIES: return (h & 3) == 3 ? 0.0 : (double)(h & 3) - 1.0;
  case FUZZ_DIST_SORTED: return -2.0 + 4.0 * ((double)j + u) / (double)r;
  case FUZZ_DIST_ALL_EQUAL: return ctr_normal(ctr_sm(key));
  case FUZZ_DIST_MAX_LAST: return j == r - 1 ? 4.0 + u : ctr_normal(h);
  case FUZZ_DIST_LARGE_OFFSET:   /* rows alternate +offset and -offset (a row alone: the case picks) */
    return (((ctr_u64)(i / r) + (key >> 17)) & 1 ? -1.0 : 1.0) * (dt == DG_DT_F16 ? 1000.0 : 10000.0) + ctr_normal(h);
  case FUZZ_DIST_SPECIAL:
    if ((h1 & 15) == 0 || (n > 0 && (ctr_u64)i == ctr_sm(key ^ 0x5bd1e9955bd1e995ull) % (ctr_u64)n)) {
      int s = (int)((h1 >> 4) % 3);
      return s == 0 ? CTR_NAN : s == 1 ? CTR_INF : -CTR_INF;
    }
    return ctr_normal(h);
  case FUZZ_DIST_NEAR_EQUAL: return ctr_normal(ctr_sm(key ^ ~(ctr_u64)(i / r))) + 0.001 * ctr_normal(h);
  default: return ctr_normal(h);
  }
}

/* dtype.c's dg_f32_to_f16 / dg_f16_to_f32 / dg_f32_to_bf16, operation for operation */
CTR_FN __device__ ctr_u32 ctr_f16_bits(float f)
{
  ctr_u32 x = ctr_f2u(f), sign = (x >> 16) & 0x8000, absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) return sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 | ((absx >> 13) & 0x3ff) : 0);
  if (absx >= 0x477ff000) return sign | 0x7c00;
  if (absx < 0x38800000) return sign | (ctr_u32)rintf(ctr_u2f(absx) * 16777216.0f);
  ctr_u32 mant = absx & 0x7fffff, e = (absx >> 23) - 112, hb = (e << 10) | (mant >> 13), rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (hb & 1))) hb++;
  return sign | hb;
}

CTR_FN __device__ float ctr_f16_float(ctr_u32 hb)
{
  ctr_u32 sign = (hb & 0x8000) << 16, e = (hb >> 10) & 0x1f, mant = hb & 0x3ff;
  if (e == 0) {
    float v = (float)mant * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (e == 31) return ctr_u2f(sign | 0x7f800000 | (mant << 13));
  return ctr_u2f(sign | ((e + 112) << 23) | (mant << 13));
}

CTR_FN __device__ ctr_u32 ctr_bf16_bits(float f)
{
  ctr_u32 x = ctr_f2u(f);
  if ((x & 0x7fffffff) > 0x7f800000) return (x >> 16) | 0x40;
  x += 0x7fff + ((x >> 16) & 1);
  return x >> 16;
}

/* dtype.c's dg_dtype_round (NaN kept as it is) */
CTR_FN __device__ double ctr_round(int dt, double v)
{
  if (v != v) return dt == DG_DT_BOOL ? 1.0 : dt == DG_DT_F32 || dt == DG_DT_F16 || dt == DG_DT_BF16 || dt == DG_DT_F64 ? v : 0.0;
  switch (dt) {
  case DG_DT_F32: return (double)(float)v;
  case DG_DT_F16: return (double)ctr_f16_float(ctr_f16_bits((float)v) & 0xffff);
  case DG_DT_BF16: return (double)ctr_u2f(ctr_bf16_bits((float)v) << 16);
  case DG_DT_I32: return ctr_finite(v) ? (double)(int)(ctr_u32)(ctr_i64)v : 0.0;
  case DG_DT_I64: return ctr_finite(v) ? (double)(ctr_i64)v : 0.0;
  case DG_DT_U8: return ctr_finite(v) ? (double)(unsigned char)(ctr_i64)v : 0.0;
  case DG_DT_BOOL: return v != 0.0 ? 1.0 : 0.0;
  default: return v;
  }
}

/* element i: the distribution (or the range), integers scaled by 8 and
 * rounded, the dtype's rounding, then fabs for positive-only tensors */
CTR_FN __device__ double ctr_value(ctr_u64 key, int dist, int dt, int flags, ctr_i64 row, ctr_i64 n,
                        ctr_i64 lo, ctr_i64 hi, ctr_i64 i)
{
  double v;
  if (flags & 1) v = ctr_index(ctr_sm(key ^ (ctr_u64)i), dist, lo, hi);
  else {
    v = ctr_float(key, dist, dt, row, n, i);
    if (!(dt == DG_DT_F32 || dt == DG_DT_F16 || dt == DG_DT_BF16 || dt == DG_DT_F64))
      v = ctr_finite(v) ? round(v * 8.0) : 0.0;
  }
  v = ctr_round(dt, v);
  return (flags & 2) ? fabs(v) : v;
}
)

#undef __device__

const char *fuzz_ctr_source(void) { return ctr_source; }

uint64_t fuzz_ctr_key(uint64_t seed, uint64_t tensor) { return ctr_sm(seed ^ ctr_sm(tensor + 1)); }
uint64_t fuzz_ctr_bits(uint64_t key, int64_t i) { return ctr_sm(key ^ (uint64_t)i); }
int fuzz_ctr_flags(const fuzz_ctr *g) { return (g->has_range ? 1 : 0) | (g->positive ? 2 : 0); }

double fuzz_ctr_value(const fuzz_ctr *g, int64_t i)
{
  return ctr_value(g->key, (int)g->dist, (int)g->dtype, fuzz_ctr_flags(g), g->row, g->n, g->lo, g->hi, i);
}

void fuzz_ctr_fill(const fuzz_ctr *g, int64_t first, int64_t n, double *out)
{
  int flags = fuzz_ctr_flags(g);
  for (int64_t i = 0; i < n; i++)
    out[i] = ctr_value(g->key, (int)g->dist, (int)g->dtype, flags, g->row, g->n, g->lo, g->hi, first + i);
}

int64_t fuzz_ctr_fill_until(const fuzz_ctr *g, int64_t n, double *out, double deadline)
{
  enum { CHUNK = 1 << 20 };          /* ~50 ms of values: 2^28 take ~15 s */
  for (int64_t at = 0; at < n; at += CHUNK) {
    if (deadline > 0 && at > 0 && dg_now() > deadline) return at;
    fuzz_ctr_fill(g, at, n - at < CHUNK ? n - at : CHUNK, out + at);
  }
  return n;
}
