/* dom_fp.c — type sizes and float formats shared by the value domains:
 * rounding a double to f16/bf16 (round to nearest, ties to even, directly
 * from the double so no double rounding happens) and their bit encodings. */
#include "dom.h"
#include <math.h>
#include <string.h>

static const int64_t scalar_size[DG_TY__COUNT] = {
  [DG_TY_VOID] = 1, [DG_TY_BOOL] = 1, [DG_TY_I8] = 1, [DG_TY_U8] = 1,
  [DG_TY_I16] = 2, [DG_TY_U16] = 2, [DG_TY_I32] = 4, [DG_TY_U32] = 4,
  [DG_TY_I64] = 8, [DG_TY_U64] = 8, [DG_TY_F16] = 2, [DG_TY_BF16] = 2,
  [DG_TY_F32] = 4, [DG_TY_F64] = 8, [DG_TY_PTR] = 8,
};

int64_t dom_tysize(const dg_type *t)
{
  if (t->kind == DG_TY_ARRAY || t->kind == DG_TY_VEC)
    return t->count < 0 ? 0 : t->count * dom_tysize(t->elem);
  if (t->kind == DG_TY_STRUCT) return t->size;
  return scalar_size[t->kind];
}

int dom_ncomp(const dg_type *t)
{
  return t->kind == DG_TY_VEC ? (int)t->count : t->kind == DG_TY_STRUCT ? t->nslots : 1;
}

const dg_type *dom_scalar(const dg_type *t) { return t->kind == DG_TY_VEC ? t->elem : t; }

const dg_type *dom_comp(const dg_type *t, int c)
{
  if (t->kind == DG_TY_VEC) return t->elem;
  if (t->kind == DG_TY_STRUCT) return c >= 0 && c < t->nslots ? t->slots[c].type : t;
  return t;
}

int64_t dom_comp_off(const dg_type *t, int c)
{
  if (t->kind == DG_TY_VEC) return c * dom_tysize(t->elem);
  if (t->kind == DG_TY_STRUCT) return c >= 0 && c < t->nslots ? t->slots[c].offset : 0;
  return 0;
}

bool dom_is_float(const dg_type *t)
{
  return t->kind == DG_TY_F16 || t->kind == DG_TY_BF16 || t->kind == DG_TY_F32 || t->kind == DG_TY_F64;
}

bool dom_is_signed(const dg_type *t)
{
  switch (t->kind) {
  case DG_TY_I8: case DG_TY_I16: case DG_TY_I32: case DG_TY_I64: return true;
  default: return dom_is_float(t);
  }
}

/* Round x to a binary format with `mant` significand bits (hidden bit
 * included), smallest normal exponent emin (value 2^emin) and largest
 * finite value maxv. The scaling by the quantum is exact, so nearbyint
 * (default mode: ties to even) does the single rounding. */
static double round_fmt(double x, int mant, int emin, double maxv)
{
  if (x != x || isinf(x) || x == 0) return x;
  int e;
  frexp(x, &e);                 /* |x| in [2^(e-1), 2^e) */
  int q = e - mant;             /* quantum exponent for a normal value */
  if (e - 1 < emin) q = emin - mant + 1;
  double r = ldexp(nearbyint(ldexp(x, -q)), q);
  if (fabs(r) > maxv) return copysign(INFINITY, x);
  return r;
}

double dom_round_f16(double x) { return round_fmt(x, 11, -14, 65504.0); }
double dom_round_bf16(double x) { return round_fmt(x, 8, -126, 0x1.fep127); }

uint16_t dom_f16_bits(double x)
{
  uint16_t s = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  if (x != x) return 0x7e00;
  if (isinf(a)) return s | 0x7c00;
  if (a == 0) return s;
  int e;
  frexp(a, &e);
  if (e - 1 < -14)                                  /* subnormal: a / 2^-24 */
    return s | (uint16_t)ldexp(a, 24);
  uint16_t mant = (uint16_t)(ldexp(a, 11 - e) - 1024);   /* 10 stored bits */
  return s | (uint16_t)((e - 1 + 15) << 10) | mant;
}

double dom_f16_from_bits(uint16_t b)
{
  int ex = (b >> 10) & 31, mant = b & 1023;
  double v;
  if (ex == 31) v = mant ? NAN : INFINITY;
  else if (ex == 0) v = ldexp(mant, -24);
  else v = ldexp(mant + 1024, ex - 25);
  return (b & 0x8000) ? -v : v;
}

uint16_t dom_bf16_bits(double x)
{
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, 4);
  if (f != f) return 0x7fc0;
  return (uint16_t)(u >> 16);
}

double dom_bf16_from_bits(uint16_t b)
{
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
