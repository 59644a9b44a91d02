/* dom_concrete.c — the concrete value domain: C semantics on 64-bit slots.
 * Integers wrap at their type's width; every f32 operation is computed in
 * double and rounded to float (exact for + - * / sqrt, as on the GPU; f32
 * + - * / run as float arithmetic, which gives the same bits);
 * f16/bf16 round to nearest even after every operation. Math builtins live
 * in dom_math.c. Each operation picks its loop once, then runs it over the
 * lanes without a branch per lane where that is safe. */
/* The lane loops are the engine's hot path and vectorise well; -O2 of GCC 12
 * vectorises only loops without a remainder, so this file asks for more. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#include "dom.h"
#include <math.h>
#include <string.h>

bool dom_concrete_math(dom *d, dg_iclass c, const dg_type *rt, const dg_type *t, int nargs, int n,
                       const uint8_t *m, dom_val *dst, const dom_val *const *args);

/* LOOP ends a switch case; LOOP2 picks one of two loops; EACH is a plain loop. */
#define EACH(expr) do { for (int i = 0; i < n; i++) { expr; } } while (0)
#define LOOP(expr) EACH(expr); break
#define LOOP2(c, e1, e2) if (c) EACH(e1); else EACH(e2); break
/* EACHM skips inactive lanes: for code that branches on the value (their
 * slots may hold anything; valgrind would rightly complain). */
#define EACHM(expr) do { for (int i = 0; i < n; i++) if (m[i]) { expr; } } while (0)
#define LOOPM(expr) EACHM(expr); break

/* ---- integer canonical form ------------------------------------------------ */
static inline int64_t wrapk(dg_tykind k, uint64_t v)
{
  switch (k) {
  case DG_TY_BOOL: return v != 0;
  case DG_TY_I8: return (int8_t)v;
  case DG_TY_U8: return (uint8_t)v;
  case DG_TY_I16: return (int16_t)v;
  case DG_TY_U16: return (uint16_t)v;
  case DG_TY_I32: return (int32_t)v;
  case DG_TY_U32: return (uint32_t)v;
  default: return (int64_t)v;
  }
}

/* Wrap a vector of raw 64-bit results to the width of k, one loop per kind. */
static void wrap_vec(dg_tykind k, int n, dom_val *d)
{
  switch (k) {
  case DG_TY_I32: EACH(d[i] = (dom_val)(int64_t)(int32_t)d[i]); break;
  case DG_TY_U32: EACH(d[i] = (uint32_t)d[i]); break;
  case DG_TY_I64: case DG_TY_U64: case DG_TY_PTR: break;
  default: EACH(d[i] = (dom_val)wrapk(k, d[i])); break;
  }
}

static inline double fround(dg_tykind k, double x)
{
  switch (k) {
  case DG_TY_F32: return (double)(float)x;
  case DG_TY_F16: return dom_round_f16(x);
  case DG_TY_BF16: return dom_round_bf16(x);
  default: return x;
  }
}

/* Type facts by kind, inline (these run once per operation of every node). */
static inline bool isfl(const dg_type *t) { return t->kind >= DG_TY_F16 && t->kind <= DG_TY_F64; }
static inline bool issg(const dg_type *t)
{
  dg_tykind k = t->kind;
  return k == DG_TY_I8 || k == DG_TY_I16 || k == DG_TY_I32 || k == DG_TY_I64 || (k >= DG_TY_F16 && k <= DG_TY_F64);
}
static inline int width(dg_tykind k)
{
  static const int8_t w[DG_TY__COUNT] = {
    [DG_TY_VOID] = 8, [DG_TY_BOOL] = 8, [DG_TY_I8] = 8, [DG_TY_U8] = 8, [DG_TY_I16] = 16, [DG_TY_U16] = 16,
    [DG_TY_I32] = 32, [DG_TY_U32] = 32, [DG_TY_I64] = 64, [DG_TY_U64] = 64, [DG_TY_F16] = 16,
    [DG_TY_BF16] = 16, [DG_TY_F32] = 32, [DG_TY_F64] = 64, [DG_TY_PTR] = 64,
  };
  return k < DG_TY__COUNT && w[k] ? w[k] : (int)(dom_tysize(&(dg_type){ .kind = k }) * 8);
}

/* ---- constants ------------------------------------------------------------- */
static void c_const_int(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const int64_t *src)
{
  if (isfl(t)) {
    EACHM(dst[i] = dom_of_f(fround(t->kind, (double)src[i])));
  } else if (t->kind == DG_TY_PTR) {
    memcpy(dst, src, (size_t)n * 8);
  } else {
    memcpy(dst, src, (size_t)n * 8);
    wrap_vec(t->kind, n, dst);
  }
}

static void c_const_float(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, double f)
{
  dom_val v;
  if (isfl(t)) v = dom_of_f(fround(t->kind, f));
  else v = (dom_val)wrapk(t->kind, (uint64_t)(int64_t)f);
  for (int i = 0; i < n; i++) dst[i] = v;
}

/* ---- unary ----------------------------------------------------------------- */
static void c_unop(dom *d, dg_unop op, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const dom_val *a)
{
  dg_tykind k = t->kind;
  if (isfl(t)) {
    for (int i = 0; i < n; i++) {
      double x = dom_f(a[i]);
      dst[i] = op == DG_UN_NEG ? dom_of_f(-x) : op == DG_UN_NOT ? (dom_val)(x == 0) : a[i];
    }
    return;
  }
  for (int i = 0; i < n; i++) {
    uint64_t x = a[i];
    dst[i] = op == DG_UN_NEG ? (dom_val)wrapk(k, 0 - x) : op == DG_UN_NOT ? (dom_val)(x == 0)
           : (dom_val)wrapk(k, ~x);
  }
}

/* ---- binary ---------------------------------------------------------------- */


static void fbin(dg_binop op, dg_tykind k, int n, const uint8_t *m, dom_val *dst, const dom_val *a, const dom_val *b)
{
  if (k == DG_TY_F16 || k == DG_TY_BF16) {   /* rounding branches on the value */
    for (int i = 0; i < n; i++) {
      if (!m[i]) continue;
      fbin(op, DG_TY_F64, 1, m + i, dst + i, a + i, b + i);
      if (op < DG_BIN_EQ) dst[i] = dom_of_f(fround(k, dom_f(dst[i])));
    }
    return;
  }
#define FA dom_f(a[i])
#define FB dom_f(b[i])
  if (k == DG_TY_F32) {
    /* f32 operands are floats: float arithmetic rounds once, exactly as the
     * double result rounded to float (+ - * / are exact in double first) */
#define GA (float)dom_f(a[i])
#define GB (float)dom_f(b[i])
    switch (op) {
    case DG_BIN_ADD: EACH(dst[i] = dom_of_f((double)(GA + GB))); return;
    case DG_BIN_SUB: EACH(dst[i] = dom_of_f((double)(GA - GB))); return;
    case DG_BIN_MUL: EACH(dst[i] = dom_of_f((double)(GA * GB))); return;
    case DG_BIN_DIV: EACH(dst[i] = dom_of_f((double)(GA / GB))); return;
    default: break;
    }
#undef GA
#undef GB
  }
  switch (op) {
  case DG_BIN_ADD: LOOP(dst[i] = dom_of_f(fround(k, FA + FB)));
  case DG_BIN_SUB: LOOP(dst[i] = dom_of_f(fround(k, FA - FB)));
  case DG_BIN_MUL: LOOP(dst[i] = dom_of_f(fround(k, FA * FB)));
  case DG_BIN_DIV: LOOP(dst[i] = dom_of_f(fround(k, FA / FB)));
  case DG_BIN_MOD: LOOP(dst[i] = dom_of_f(fround(k, fmod(FA, FB))));
  case DG_BIN_EQ: LOOP(dst[i] = FA == FB);
  case DG_BIN_NE: LOOP(dst[i] = FA != FB);
  case DG_BIN_LT: LOOP(dst[i] = FA < FB);
  case DG_BIN_LE: LOOP(dst[i] = FA <= FB);
  case DG_BIN_GT: LOOP(dst[i] = FA > FB);
  case DG_BIN_GE: LOOP(dst[i] = FA >= FB);
  default: LOOP(dst[i] = 0);
  }
#undef FA
#undef FB
}

/* Shifts clamp as PTX does: a count >= the width gives 0 (or the sign). */
static inline int64_t shl(dg_tykind k, int w, int64_t x, int64_t s)
{
  return (uint64_t)s >= (uint64_t)w ? 0 : wrapk(k, (uint64_t)x << s);
}
static inline int64_t shr(int w, bool sg, int64_t x, int64_t s)
{
  if ((uint64_t)s >= (uint64_t)w) return sg && x < 0 ? -1 : 0;
  return sg ? x >> s : (int64_t)((uint64_t)x >> s);
}

static void ibin(dg_binop op, dg_tykind k, bool sg, int n, const uint8_t *m, dom_val *dst,
                 const dom_val *a, const dom_val *b)
{
  const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
  const uint64_t *ux = a, *uy = b;
  switch (op) {
#define I32(e) (dom_val)(int64_t)(int32_t)(e)
#define U32(e) (dom_val)(uint32_t)(e)
#define ARITH(o) \
    if (k == DG_TY_I32) { LOOP(dst[i] = I32(ux[i] o uy[i])); } \
    if (k == DG_TY_U32) { LOOP(dst[i] = U32(ux[i] o uy[i])); } \
    EACH(dst[i] = ux[i] o uy[i]); wrap_vec(k, n, dst); break
  case DG_BIN_ADD: ARITH(+);
  case DG_BIN_SUB: ARITH(-);
  case DG_BIN_MUL: ARITH(*);
#undef ARITH
#undef I32
#undef U32
  case DG_BIN_DIV:
    /* x/0 gives all ones as the GPU's div.u32 does; INT_MIN/-1 wraps */
    LOOP2(sg, dst[i] = !m[i] ? 0 : y[i] == 0 ? (dom_val)wrapk(k, ~0ull)
                 : y[i] == -1 ? (dom_val)wrapk(k, 0 - ux[i]) : (dom_val)wrapk(k, (uint64_t)(x[i] / y[i])),
          dst[i] = !m[i] || uy[i] == 0 ? (dom_val)wrapk(k, ~0ull) : (dom_val)wrapk(k, ux[i] / uy[i]));
  case DG_BIN_MOD:
    LOOP2(sg, dst[i] = !m[i] || y[i] == 0 || y[i] == -1 ? (y[i] == 0 ? a[i] : 0)
                 : (dom_val)wrapk(k, (uint64_t)(x[i] % y[i])),
          dst[i] = !m[i] || uy[i] == 0 ? a[i] : (dom_val)wrapk(k, ux[i] % uy[i]));
  case DG_BIN_SHL: { int w = width(k); LOOPM(dst[i] = (dom_val)shl(k, w, x[i], y[i])); }
  case DG_BIN_SHR: { int w = width(k); LOOPM(dst[i] = (dom_val)shr(w, sg, x[i], y[i])); }
  case DG_BIN_AND: LOOP(dst[i] = ux[i] & uy[i]);
  case DG_BIN_OR: LOOP(dst[i] = ux[i] | uy[i]);
  case DG_BIN_XOR: LOOP(dst[i] = ux[i] ^ uy[i]);
  case DG_BIN_EQ: LOOP(dst[i] = ux[i] == uy[i]);
  case DG_BIN_NE: LOOP(dst[i] = ux[i] != uy[i]);
  case DG_BIN_LT: LOOP2(sg, dst[i] = x[i] < y[i], dst[i] = ux[i] < uy[i]);
  case DG_BIN_LE: LOOP2(sg, dst[i] = x[i] <= y[i], dst[i] = ux[i] <= uy[i]);
  case DG_BIN_GT: LOOP2(sg, dst[i] = x[i] > y[i], dst[i] = ux[i] > uy[i]);
  case DG_BIN_GE: LOOP2(sg, dst[i] = x[i] >= y[i], dst[i] = ux[i] >= uy[i]);
  default: LOOP(dst[i] = 0);
  }
}

static void c_binop(dom *d, dg_binop op, const dg_type *t, int n, const uint8_t *m,
                    dom_val *dst, const dom_val *a, const dom_val *b)
{
  if (op == DG_BIN_PTRADD) {
    int64_t es = t->kind == DG_TY_PTR && t->elem ? dom_tysize(t->elem) : 1;
    for (int i = 0; i < n; i++)
      dst[i] = dom_ptr(dom_ptr_buf(a[i]), dom_ptr_off(a[i]) + (int64_t)b[i] * es);
    return;
  }
  if (op == DG_BIN_PTRDIFF) {
    int64_t es = t->kind == DG_TY_PTR && t->elem ? dom_tysize(t->elem) : 1;
    if (es <= 0) es = 1;
    for (int i = 0; i < n; i++) dst[i] = (dom_val)((dom_ptr_off(a[i]) - dom_ptr_off(b[i])) / es);
    return;
  }
  if (isfl(t)) fbin(op, t->kind, n, m, dst, a, b);
  else ibin(op, t->kind, t->kind != DG_TY_PTR && issg(t), n, m, dst, a, b);
}

/* ---- conversions ----------------------------------------------------------- */
/* float -> integer as cvt.rzi does: truncate, saturate, NaN -> 0 */
static int64_t f2i(dg_tykind k, double x)
{
  if (k == DG_TY_BOOL) return x != 0;
  if (x != x) return 0;
  x = trunc(x);
  switch (k) {
  case DG_TY_U64: return x <= 0 ? 0 : x >= 18446744073709551616.0 ? (int64_t)UINT64_MAX : (int64_t)(uint64_t)x;
  case DG_TY_I64: return x <= -9223372036854775808.0 ? INT64_MIN : x >= 9223372036854775808.0 ? INT64_MAX : (int64_t)x;
  default: {
    int w = width(k);
    bool sg = k == DG_TY_I8 || k == DG_TY_I16 || k == DG_TY_I32;
    double lo = sg ? -ldexp(1, w - 1) : 0, hi = sg ? ldexp(1, w - 1) - 1 : ldexp(1, w) - 1;
    return (int64_t)(x < lo ? lo : x > hi ? hi : x);
  }
  }
}

static dom_val bits_to(dg_tykind to, uint64_t u)
{
  if (to == DG_TY_F32) { uint32_t v = (uint32_t)u; float f; memcpy(&f, &v, 4); return dom_of_f(f); }
  if (to == DG_TY_F64) return u;
  if (to == DG_TY_F16) return dom_of_f(dom_f16_from_bits((uint16_t)u));
  if (to == DG_TY_BF16) return dom_of_f(dom_bf16_from_bits((uint16_t)u));
  return (dom_val)wrapk(to, u);
}

static uint64_t bits_of(dg_tykind from, dom_val v)
{
  if (from == DG_TY_F32) { float f = (float)dom_f(v); uint32_t u; memcpy(&u, &f, 4); return u; }
  if (from == DG_TY_F64) return v;
  if (from == DG_TY_F16) return dom_f16_bits(dom_f(v));
  if (from == DG_TY_BF16) return dom_bf16_bits(dom_f(v));
  return v;
}

static void c_cast(dom *d, dg_castkind ck, const dg_type *to, const dg_type *from, int n,
                   const uint8_t *m, dom_val *dst, const dom_val *a)
{
  dg_tykind tk = to->kind, fk = from->kind;
  if (ck == DG_CAST_PTR || ck == DG_CAST_PTR2INT || ck == DG_CAST_INT2PTR) {
    if (tk == DG_TY_BOOL) EACH(dst[i] = a[i] != 0);
    else if (tk != DG_TY_PTR && tk != DG_TY_U64 && tk != DG_TY_I64) EACH(dst[i] = (dom_val)wrapk(tk, a[i]));
    else memmove(dst, a, (size_t)n * 8);
    return;
  }
  if (ck == DG_CAST_BITCAST) {
    EACHM(dst[i] = bits_to(tk, bits_of(fk, a[i])));
    return;
  }
  bool ff = isfl(from), tf = isfl(to);
  if (ff && tf) {
    if (tk == DG_TY_F64 || (tk == fk)) memmove(dst, a, (size_t)n * 8);
    else EACHM(dst[i] = dom_of_f(fround(tk, dom_f(a[i]))));
  } else if (ff) {
    EACHM(dst[i] = (dom_val)f2i(tk, dom_f(a[i])));
  } else if (tf) {
    bool usg = fk == DG_TY_U64;
    switch (tk) {
    case DG_TY_F32: LOOP2(usg, dst[i] = dom_of_f((float)a[i]), dst[i] = dom_of_f((float)(int64_t)a[i]));
    case DG_TY_F64: LOOP2(usg, dst[i] = dom_of_f((double)a[i]), dst[i] = dom_of_f((double)(int64_t)a[i]));
    default: LOOPM(dst[i] = dom_of_f(fround(tk, usg ? (double)a[i] : (double)(int64_t)a[i])));
    }
  } else if (tk == fk) {
    memmove(dst, a, (size_t)n * 8);
  } else if (tk == DG_TY_I32) {
    EACH(dst[i] = (dom_val)(int64_t)(int32_t)a[i]);
  } else if (tk == DG_TY_U32) {
    EACH(dst[i] = (uint32_t)a[i]);
  } else {
    memmove(dst, a, (size_t)n * 8);
    wrap_vec(tk, n, dst);
  }
}

/* ---- select, branch, concrete --------------------------------------------- */
static void c_select(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst,
                     const dom_val *c, const dom_val *a, const dom_val *b)
{
  EACHM(dst[i] = c[i] ? a[i] : b[i]);
}

static void c_branch(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *c, uint8_t *out)
{
  if (isfl(t)) EACH(out[i] = dom_f(c[i]) != 0);
  else EACH(out[i] = c[i] != 0);
}

static int c_concrete(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src, int64_t *out)
{
  if (isfl(t)) EACHM(out[i] = (int64_t)dom_f(src[i]));
  else memcpy(out, src, (size_t)n * 8);
  return -1;
}

/* ---- memory ---------------------------------------------------------------- */
/* One loop per common kind; the generic path handles the rest. */
#define LD(T, conv) EACHM({ T v_; memcpy(&v_, mem[i]->bytes + off[i], sizeof v_); dst[i] = conv; })
#define ST(T, conv) EACHM({ T v_ = conv; memcpy(mem[i]->bytes + off[i], &v_, sizeof v_); })

static void c_load(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst,
                   dom_mem *const *mem, const int64_t *off)
{
  dg_tykind k = t->kind;
  switch (k) {
  case DG_TY_F32: LD(float, dom_of_f(v_)); return;
  case DG_TY_I32: LD(int32_t, (dom_val)(int64_t)v_); return;
  case DG_TY_U32: LD(uint32_t, (dom_val)v_); return;
  case DG_TY_F64: case DG_TY_I64: case DG_TY_U64: case DG_TY_PTR: LD(uint64_t, v_); return;
  default: break;
  }
  int sz = (int)dom_tysize(t);
  EACHM({
    uint64_t u = 0;
    memcpy(&u, mem[i]->bytes + off[i], (size_t)sz);   /* little-endian, as the GPU */
    dst[i] = bits_to(k, u);
  });
}

static void c_store(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src,
                    dom_mem *const *mem, const int64_t *off)
{
  dg_tykind k = t->kind;
  switch (k) {
  case DG_TY_F32: ST(float, (float)dom_f(src[i])); return;
  case DG_TY_I32: case DG_TY_U32: ST(uint32_t, (uint32_t)src[i]); return;
  case DG_TY_F64: case DG_TY_I64: case DG_TY_U64: case DG_TY_PTR: ST(uint64_t, src[i]); return;
  default: break;
  }
  int sz = (int)dom_tysize(t);
  EACHM({
    uint64_t u = bits_of(k, src[i]);
    memcpy(mem[i]->bytes + off[i], &u, (size_t)sz);
  });
}

static dom concrete = {
  .name = "concrete", .mem_bytes = true,
  .const_int = c_const_int, .const_float = c_const_float,
  .unop = c_unop, .binop = c_binop, .cast = c_cast, .math = dom_concrete_math,
  .select = c_select, .branch = c_branch, .concrete = c_concrete,
  .load = c_load, .store = c_store,
};

dom *dom_concrete(void) { return &concrete; }
