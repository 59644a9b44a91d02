/* simt_lanes.c — the concrete domain's most common operations as direct lane
 * loops: i32, u32 and f32 operands of one kind, and the common conversions
 * between integers and to floats, computed with the bits of
 * dom_concrete.c's ibin/fbin loops (f32 + - * / as float arithmetic, which
 * rounds as the double result rounded to float does), without the vtable
 * and its per-call type dispatch. Either operand may be one value for every
 * lane (a uniform operand: no vector of copies is made for it). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")   /* these loops should vectorise (see simt_mem.c) */
#endif
#include "simt_int.h"

/* One function per operand form: A and B are the operands of lane i.
 * i32 and u32 slots hold their value sign- or zero-extended, so comparing
 * the low 32 bits gives ibin's 64-bit comparison (and vectorises). */
#define FAST_BIN(name, A, B) \
SIMT_LANES static bool name(int op, dg_tykind kd, int lo, int hi, dom_val *restrict r, \
                 const dom_val *restrict a, const dom_val *restrict b) \
{ \
  const dom_val a0 = a[0], b0 = b[0]; \
  (void)a0, (void)b0; \
  if (kd == DG_TY_U32) { \
    switch (op) { \
    case DG_BIN_ADD: LOOP((dom_val)(uint32_t)((A) + (B))); return true; \
    case DG_BIN_SUB: LOOP((dom_val)(uint32_t)((A) - (B))); return true; \
    case DG_BIN_MUL: LOOP((dom_val)(uint32_t)((A) * (B))); return true; \
    case DG_BIN_LT: LOOP((dom_val)((uint32_t)(A) < (uint32_t)(B))); return true; \
    case DG_BIN_LE: LOOP((dom_val)((uint32_t)(A) <= (uint32_t)(B))); return true; \
    case DG_BIN_GT: LOOP((dom_val)((uint32_t)(A) > (uint32_t)(B))); return true; \
    case DG_BIN_GE: LOOP((dom_val)((uint32_t)(A) >= (uint32_t)(B))); return true; \
    case DG_BIN_EQ: LOOP((dom_val)((uint32_t)(A) == (uint32_t)(B))); return true; \
    case DG_BIN_NE: LOOP((dom_val)((uint32_t)(A) != (uint32_t)(B))); return true; \
    default: return false; \
    } \
  } \
  if (kd == DG_TY_I32) { \
    switch (op) { \
    case DG_BIN_ADD: LOOP((dom_val)(int64_t)(int32_t)((A) + (B))); return true; \
    case DG_BIN_SUB: LOOP((dom_val)(int64_t)(int32_t)((A) - (B))); return true; \
    case DG_BIN_MUL: LOOP((dom_val)(int64_t)(int32_t)((A) * (B))); return true; \
    case DG_BIN_LT: LOOP((dom_val)((int32_t)(A) < (int32_t)(B))); return true; \
    case DG_BIN_LE: LOOP((dom_val)((int32_t)(A) <= (int32_t)(B))); return true; \
    case DG_BIN_GT: LOOP((dom_val)((int32_t)(A) > (int32_t)(B))); return true; \
    case DG_BIN_GE: LOOP((dom_val)((int32_t)(A) >= (int32_t)(B))); return true; \
    case DG_BIN_EQ: LOOP((dom_val)((int32_t)(A) == (int32_t)(B))); return true; \
    case DG_BIN_NE: LOOP((dom_val)((int32_t)(A) != (int32_t)(B))); return true; \
    default: return false; \
    } \
  } \
  switch (op) { \
  case DG_BIN_ADD: LOOP(dom_of_f((double)(F32(A) + F32(B)))); return true; \
  case DG_BIN_SUB: LOOP(dom_of_f((double)(F32(A) - F32(B)))); return true; \
  case DG_BIN_MUL: LOOP(dom_of_f((double)(F32(A) * F32(B)))); return true; \
  case DG_BIN_DIV: LOOP(dom_of_f((double)(F32(A) / F32(B)))); return true; \
  default: return false; \
  } \
}
#define LOOP(expr) do { for (int i = lo; i < hi; i++) r[i] = (expr); } while (0)
#define F32(v) ((float)dom_f(v))
/* sv and vs: the one value was read from its vector's first active lane
 * (passed as a + l, b + l), hence a[0] / b[0] */
FAST_BIN(bin_vv, a[i], b[i])
FAST_BIN(bin_sv, a0, b[i])
FAST_BIN(bin_vs, a[i], b0)
#undef LOOP
#undef F32

bool simt_fast_bin(int op, dg_tykind kd, int lo, int hi, dom_val *r, const dom_val *a, const dom_val *b, int form)
{
  if (kd != DG_TY_I32 && kd != DG_TY_U32 && kd != DG_TY_F32) return false;
  switch (form) {
  case SIMT_SV: return bin_sv(op, kd, lo, hi, r, a, b);
  case SIMT_VS: return bin_vs(op, kd, lo, hi, r, a, b);
  default: return bin_vv(op, kd, lo, hi, r, a, b);
  }
}

/* Conversions (dom_concrete.c's c_cast, the same bits). */
static inline bool is_int(dg_tykind k) { return k >= DG_TY_BOOL && k <= DG_TY_U64; }

bool simt_cast_same(dg_tykind to, dg_tykind from)
{
  /* integers are kept sign- or zero-extended to 64 bits: widening to 64 bits
   * copies them; f32 values are doubles already */
  return ((to == DG_TY_I64 || to == DG_TY_U64) && is_int(from)) || (to == DG_TY_F64 && from == DG_TY_F32);
}

SIMT_LANES bool simt_fast_cast(dg_tykind to, dg_tykind from, int lo, int hi, dom_val *restrict r, const dom_val *restrict a)
{
#define LOOP(expr) do { for (int i = lo; i < hi; i++) r[i] = (expr); } while (0)
  if (is_int(from) && from != DG_TY_U64) {   /* a signed 64-bit value: every such integer fits */
    switch (to) {
    case DG_TY_I32: LOOP((dom_val)(int64_t)(int32_t)a[i]); return true;
    case DG_TY_U32: LOOP((dom_val)(uint32_t)a[i]); return true;
    case DG_TY_F32: LOOP(dom_of_f((double)(float)(int64_t)a[i])); return true;
    case DG_TY_F64: LOOP(dom_of_f((double)(int64_t)a[i])); return true;
    default: return false;
    }
  }
  if (from == DG_TY_U64 && (to == DG_TY_I32 || to == DG_TY_U32)) {
    if (to == DG_TY_I32) LOOP((dom_val)(int64_t)(int32_t)a[i]);
    else LOOP((dom_val)(uint32_t)a[i]);
    return true;
  }
  if (from == DG_TY_F64 && to == DG_TY_F32) { LOOP(dom_of_f((double)(float)dom_f(a[i]))); return true; }
#undef LOOP
  return false;
}
