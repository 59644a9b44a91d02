/* dom_math.c — the math, integer and rounding builtins of the concrete
 * domain, one table row per semantic class (builtins.def's dg_iclass).
 * f32 functions call the float libm routine (as close to the GPU's as a
 * CPU gets; GPU expf/tanhf are within 2 ulp of these); functions whose GPU
 * result is correctly rounded (sqrt, fma, division, rcp) are exact here. */
#include "dom.h"
#include <math.h>

bool dom_concrete_math(dom *d, dg_iclass c, const dg_type *rt, const dg_type *t, int nargs, int n,
                       const uint8_t *m, dom_val *dst, const dom_val *const *args);

typedef double (*f1)(double);
typedef float (*g1)(float);
typedef double (*f2)(double, double);
typedef float (*g2)(float, float);

static double rsqrt_d(double x) { return 1.0 / sqrt(x); }
static float rsqrt_f(float x) { return (float)(1.0 / sqrt((double)x)); }
static double rcp_d(double x) { return 1.0 / x; }
static float rcp_f(float x) { return 1.0f / x; }
static double sat_d(double x) { return x != x ? 0 : x < 0 ? 0 : x > 1 ? 1 : x; }
static float sat_f(float x) { return (float)sat_d(x); }
static double div_d(double a, double b) { return a / b; }
static float div_f(float a, float b) { return a / b; }
static double add_d(double a, double b) { return a + b; }
static float add_f(float a, float b) { return a + b; }
static double sub_d(double a, double b) { return a - b; }
static float sub_f(float a, float b) { return a - b; }
static double mul_d(double a, double b) { return a * b; }
static float mul_f(float a, float b) { return a * b; }

/* One row per unary/binary float class: the double routine (f64 and the
 * base of f16/bf16, rounded after) and the float one (f32). */
static const struct { f1 d1; g1 s1; f2 d2; g2 s2; } ftab[DG_IC__COUNT] = {
  [DG_IC_MATH_EXP] = { exp, expf }, [DG_IC_MATH_EXP2] = { exp2, exp2f },
  [DG_IC_MATH_LOG] = { log, logf }, [DG_IC_MATH_LOG2] = { log2, log2f },
  [DG_IC_MATH_LOG1P] = { log1p, log1pf }, [DG_IC_MATH_SQRT] = { sqrt, sqrtf },
  [DG_IC_MATH_RSQRT] = { rsqrt_d, rsqrt_f }, [DG_IC_MATH_TANH] = { tanh, tanhf },
  [DG_IC_MATH_ERF] = { erf, erff }, [DG_IC_MATH_SIN] = { sin, sinf },
  [DG_IC_MATH_COS] = { cos, cosf }, [DG_IC_MATH_ABS] = { fabs, fabsf },
  [DG_IC_MATH_FLOOR] = { floor, floorf }, [DG_IC_MATH_CEIL] = { ceil, ceilf },
  [DG_IC_MATH_ROUND] = { round, roundf }, [DG_IC_MATH_RCP] = { rcp_d, rcp_f },
  [DG_IC_MATH_SATURATE] = { sat_d, sat_f },
  [DG_IC_MATH_POW] = { .d2 = pow, .s2 = powf }, [DG_IC_MATH_MAX] = { .d2 = fmax, .s2 = fmaxf },
  [DG_IC_MATH_MIN] = { .d2 = fmin, .s2 = fminf }, [DG_IC_MATH_DIV] = { .d2 = div_d, .s2 = div_f },
  [DG_IC_MATH_ADD] = { .d2 = add_d, .s2 = add_f }, [DG_IC_MATH_SUB] = { .d2 = sub_d, .s2 = sub_f },
  [DG_IC_MATH_MUL] = { .d2 = mul_d, .s2 = mul_f },
};

static double round_to(dg_tykind k, double x)
{
  return k == DG_TY_F16 ? dom_round_f16(x) : k == DG_TY_BF16 ? dom_round_bf16(x)
       : k == DG_TY_F32 ? (double)(float)x : x;
}

static int64_t iwrap(const dg_type *t, int64_t v)
{
  switch (t->kind) {
  case DG_TY_I32: return (int32_t)v;
  case DG_TY_U32: return (uint32_t)v;
  case DG_TY_I16: return (int16_t)v;
  case DG_TY_U16: return (uint16_t)v;
  case DG_TY_I8: return (int8_t)v;
  case DG_TY_U8: return (uint8_t)v;
  default: return v;
  }
}

static bool int_math(dg_iclass c, const dg_type *rt, const dg_type *t, int nargs, int n,
                     const uint8_t *m, dom_val *dst, const dom_val *const *args)
{
  const dom_val *a = args[0], *b = nargs > 1 ? args[1] : NULL;
  bool sg = dom_is_signed(t);
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    int64_t x = (int64_t)a[i], y = b ? (int64_t)b[i] : 0, r;
    switch (c) {
    case DG_IC_MATH_MAX: r = sg ? (x > y ? x : y) : ((uint64_t)x > (uint64_t)y ? x : y); break;
    case DG_IC_MATH_MIN: r = sg ? (x < y ? x : y) : ((uint64_t)x < (uint64_t)y ? x : y); break;
    case DG_IC_MATH_ABS: r = iwrap(t, x < 0 ? (int64_t)(0 - (uint64_t)x) : x); break;
    case DG_IC_INT_POPC: r = __builtin_popcountll((uint64_t)x & (dom_tysize(t) == 8 ? ~0ull : 0xffffffffull)); break;
    case DG_IC_INT_CLZ: r = (uint32_t)x ? __builtin_clz((uint32_t)x) : 32; break;
    case DG_IC_INT_FFS: r = (uint32_t)x ? __builtin_ctz((uint32_t)x) + 1 : 0; break;
    case DG_IC_INT_MUL24:
      r = (int32_t)((uint64_t)((int64_t)(int32_t)((uint32_t)x << 8) >> 8) * (uint64_t)((int64_t)(int32_t)((uint32_t)y << 8) >> 8));
      break;
    case DG_IC_INT_MULHI: r = (int64_t)(((uint64_t)(uint32_t)x * (uint32_t)y) >> 32); break;
    case DG_IC_MATH_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
    case DG_IC_MATH_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
    case DG_IC_MATH_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
    default: return false;
    }
    dst[i] = (dom_val)iwrap(rt, r);
  }
  return true;
}

bool dom_concrete_math(dom *d, dg_iclass c, const dg_type *rt, const dg_type *t, int nargs, int n,
                       const uint8_t *m, dom_val *dst, const dom_val *const *args)
{
  if (!dom_is_float(t)) return int_math(c, rt, t, nargs, n, m, dst, args);
  dg_tykind k = t->kind;
  const dom_val *a = args[0], *b = nargs > 1 ? args[1] : NULL, *cc = nargs > 2 ? args[2] : NULL;
  switch (c) {
  case DG_IC_MATH_ISNAN: for (int i = 0; i < n; i++) if (m[i]) dst[i] = isnan(dom_f(a[i])); return true;
  case DG_IC_MATH_ISINF: for (int i = 0; i < n; i++) if (m[i]) dst[i] = isinf(dom_f(a[i])) != 0; return true;
  case DG_IC_MATH_FMA:
    if (k == DG_TY_F32) {
      for (int i = 0; i < n; i++) if (m[i]) dst[i] = dom_of_f(fmaf((float)dom_f(a[i]), (float)dom_f(b[i]), (float)dom_f(cc[i])));
    } else {
      for (int i = 0; i < n; i++) if (m[i]) dst[i] = dom_of_f(round_to(k, fma(dom_f(a[i]), dom_f(b[i]), dom_f(cc[i]))));
    }
    return true;
  case DG_IC_CVT_ROUND:       /* __float2int_rn: nearest even, saturating */
    for (int i = 0; i < n; i++) {
      if (!m[i]) continue;
      double x = nearbyint(dom_f(a[i]));
      dst[i] = (dom_val)(x != x ? 0 : x < -2147483648.0 ? INT32_MIN : x > 2147483647.0 ? INT32_MAX : (int32_t)x);
    }
    return true;
  default: break;
  }
  if (ftab[c].d1) {
    if (k == DG_TY_F32) { for (int i = 0; i < n; i++) if (m[i]) dst[i] = dom_of_f(ftab[c].s1((float)dom_f(a[i]))); }
    else for (int i = 0; i < n; i++) if (m[i]) dst[i] = dom_of_f(round_to(k, ftab[c].d1(dom_f(a[i]))));
    return true;
  }
  if (ftab[c].d2 && b) {
    if (k == DG_TY_F32) {
      for (int i = 0; i < n; i++) if (m[i]) dst[i] = dom_of_f(ftab[c].s2((float)dom_f(a[i]), (float)dom_f(b[i])));
    } else for (int i = 0; i < n; i++) if (m[i]) dst[i] = dom_of_f(round_to(k, ftab[c].d2(dom_f(a[i]), dom_f(b[i]))));
    return true;
  }
  return false;
}
