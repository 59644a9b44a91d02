/* dtype.c — the dtype table and exact f16/bf16 conversions. */
#include "dtype.h"
#include <math.h>
#include <string.h>

const dg_dtype_info dg_dtypes[DG_DT__COUNT] = {
  [DG_DT_F32]  = { "f32",  "float",          4, true,  1e-5, 1e-4 },
  [DG_DT_F16]  = { "f16",  "__half",         2, true,  1e-3, 1e-2 },
  [DG_DT_BF16] = { "bf16", "__nv_bfloat16",  2, true,  1e-2, 2e-2 },
  [DG_DT_F64]  = { "f64",  "double",         8, true,  1e-10, 1e-9 },
  [DG_DT_I32]  = { "i32",  "int",            4, false, 0, 0 },
  [DG_DT_I64]  = { "i64",  "long long",      8, false, 0, 0 },
  [DG_DT_U8]   = { "u8",   "unsigned char",  1, false, 0, 0 },
  [DG_DT_BOOL] = { "bool", "bool",           1, false, 0, 0 },
};

int dg_dtype_parse(const char *name)
{
  for (int i = 0; i < DG_DT__COUNT; i++)
    if (!strcmp(dg_dtypes[i].name, name)) return i;
  return -1;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

uint16_t dg_f32_to_f16(float f)
{
  uint32_t x = f2u(f), sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000)                       /* inf or nan */
    return (uint16_t)(sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 | ((absx >> 13) & 0x3ff) : 0));
  if (absx >= 0x477ff000) return (uint16_t)(sign | 0x7c00);   /* rounds to inf */
  if (absx < 0x38800000) {                       /* subnormal half (or zero) */
    /* value = absx as float; half subnormal unit is 2^-24 */
    float a = u2f(absx);
    float scaled = a * 16777216.0f;              /* exact: multiply by 2^24 */
    uint32_t m = (uint32_t)lrintf(scaled);       /* current rounding: nearest-even */
    return (uint16_t)(sign | m);
  }
  uint32_t mant = absx & 0x7fffff, exp = (absx >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

float dg_f16_to_f32(uint16_t h)
{
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {
    float v = (float)mant * 5.9604644775390625e-8f;  /* 2^-24 */
    return sign ? -v : v;
  }
  if (exp == 31) return u2f(sign | 0x7f800000 | (mant << 13));
  return u2f(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t dg_f32_to_bf16(float f)
{
  uint32_t x = f2u(f);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);  /* quiet nan */
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return (uint16_t)(x >> 16);
}

float dg_bf16_to_f32(uint16_t b) { return u2f((uint32_t)b << 16); }

double dg_dtype_round(dg_dtype t, double v)
{
  switch (t) {   /* a handful of storage formats: a switch reads clearest here */
  case DG_DT_F32: return (float)v;
  case DG_DT_F16: return dg_f16_to_f32(dg_f32_to_f16((float)v));
  case DG_DT_BF16: return dg_bf16_to_f32(dg_f32_to_bf16((float)v));
  case DG_DT_F64: return v;
  case DG_DT_I32: return isfinite(v) ? (double)(int32_t)(uint32_t)(int64_t)v : 0;
  case DG_DT_I64: return isfinite(v) ? (double)(int64_t)v : 0;
  case DG_DT_U8: return isfinite(v) ? (double)(uint8_t)(int64_t)v : 0;
  case DG_DT_BOOL: return v != 0;
  default: return v;
  }
}

double dg_dtype_load(dg_dtype t, const void *base, int64_t i)
{
  const unsigned char *p = (const unsigned char *)base + i * dg_dtypes[t].size;
  switch (t) {
  case DG_DT_F32: { float f; memcpy(&f, p, 4); return f; }
  case DG_DT_F16: { uint16_t h; memcpy(&h, p, 2); return dg_f16_to_f32(h); }
  case DG_DT_BF16: { uint16_t h; memcpy(&h, p, 2); return dg_bf16_to_f32(h); }
  case DG_DT_F64: { double d; memcpy(&d, p, 8); return d; }
  case DG_DT_I32: { int32_t x; memcpy(&x, p, 4); return x; }
  case DG_DT_I64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
  case DG_DT_U8: return *p;
  case DG_DT_BOOL: return *p != 0;
  default: return 0;
  }
}

void dg_dtype_store(dg_dtype t, void *base, int64_t i, double v)
{
  unsigned char *p = (unsigned char *)base + i * dg_dtypes[t].size;
  switch (t) {
  case DG_DT_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
  case DG_DT_F16: { uint16_t h = dg_f32_to_f16((float)v); memcpy(p, &h, 2); break; }
  case DG_DT_BF16: { uint16_t h = dg_f32_to_bf16((float)v); memcpy(p, &h, 2); break; }
  case DG_DT_F64: memcpy(p, &v, 8); break;
  case DG_DT_I32: { int32_t x = (int32_t)dg_dtype_round(t, v); memcpy(p, &x, 4); break; }
  case DG_DT_I64: { int64_t x = (int64_t)dg_dtype_round(t, v); memcpy(p, &x, 8); break; }
  case DG_DT_U8: *p = (uint8_t)dg_dtype_round(t, v); break;
  case DG_DT_BOOL: *p = v != 0; break;
  default: break;
  }
}

double dg_dtype_ulps(dg_dtype t, double a, double b)
{
  if (!dg_dtypes[t].is_float) return fabs(a - b);
  if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : INFINITY;
  if (a == b) return 0;
  /* ulp of the larger magnitude, in the dtype's precision */
  static const int mant_bits[DG_DT__COUNT] = { [DG_DT_F32] = 23, [DG_DT_F16] = 10,
                                               [DG_DT_BF16] = 7, [DG_DT_F64] = 52 };
  static const int min_exp[DG_DT__COUNT] = { [DG_DT_F32] = -126, [DG_DT_F16] = -14,
                                             [DG_DT_BF16] = -126, [DG_DT_F64] = -1022 };
  double m = fmax(fabs(a), fabs(b));
  if (isinf(m)) return INFINITY;
  int e;
  frexp(m, &e);
  e -= 1;
  if (e < min_exp[t]) e = min_exp[t];
  return fabs(a - b) / ldexp(1.0, e - mant_bits[t]);
}
