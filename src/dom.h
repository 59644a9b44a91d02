/* dom.h — the value domain of the SIMT engine.
 *
 * The engine (simt.h) walks the kernel IR; every operation on VALUES goes
 * through a dom vtable, so the same interpreter runs on concrete numbers
 * (dom_concrete, the emulator) and on symbolic terms (the checker's domain,
 * plugged in by src/check*). A value is one 64-bit slot (dom_val):
 *   concrete: integers as int64 sign/zero-extended from their type's width
 *             (bool 0/1), floating values (f16 bf16 f32 f64) as the bits of a
 *             double holding the exactly representable value, pointers as
 *             dom_ptr(buffer id, byte offset);
 *   symbolic: whatever the domain chooses (a term id).
 *
 * Every operation is a VECTOR operation: n lanes, a mask m (m[i] != 0: lane
 * i active), dst/src arrays of n slots. The engine passes slices (m + lo,
 * dst + lo, ...) so n is the width of the active range, not the block size.
 * Lanes with m[i] == 0 may be left untouched or filled with anything:
 * nothing reads them. A vector type (float4, half2) is `count` component
 * vectors, a struct its scalar slots (dom_comp); domains only see scalar and
 * pointer types.
 *
 * Control flow and addresses must be concrete: the engine asks `branch` and
 * `concrete`. A domain that cannot decide (a symbolic value) answers
 * DOM_BOTH from branch (the engine then runs both sides and merges register
 * and memory writes with `select` under the guard), or fails `concrete`
 * (the engine reports a data-dependent address and stops the launch).
 *
 * Memory: buffers are bytes owned by the engine (dom_mem.bytes, with an
 * initialised-shadow the engine keeps). A domain whose values are not bytes
 * (mem_bytes == false) keeps its own cells in dom_mem.cells and frees them in
 * mem_free. All pointers passed to the vtable are borrowed for the call.
 *
 * Slot value 0 must mean something in every type: the engine fills fresh
 * registers (a local declared without initialiser, a function's return value
 * before any return) with it, and evaluation after a fatal event yields it.
 * For the concrete domain it is the zero of the type. */
#ifndef DG_DOM_H
#define DG_DOM_H
#include "ir.h"

typedef uint64_t dom_val;

/* Pointers: buffer id in the top 24 bits, signed byte offset in the low 40. */
#define DOM_PTR_OFFBITS 40
static inline dom_val dom_ptr(uint32_t buf, int64_t off)
{
  return ((uint64_t)buf << DOM_PTR_OFFBITS) | ((uint64_t)off & ((1ull << DOM_PTR_OFFBITS) - 1));
}
static inline uint32_t dom_ptr_buf(dom_val p) { return (uint32_t)(p >> DOM_PTR_OFFBITS); }
static inline int64_t dom_ptr_off(dom_val p)
{
  return (int64_t)(p << (64 - DOM_PTR_OFFBITS)) >> (64 - DOM_PTR_OFFBITS);
}

/* Concrete slot <-> C value. */
static inline double dom_f(dom_val v) { double d; __builtin_memcpy(&d, &v, 8); return d; }
static inline dom_val dom_of_f(double d) { dom_val v; __builtin_memcpy(&v, &d, 8); return v; }

/* Branch answers, one per lane (dom.branch). */
enum { DOM_FALSE = 0, DOM_TRUE = 1, DOM_BOTH = 2 };

typedef struct dom_mem {
  uint8_t *bytes;         /* size bytes; owned by the engine */
  int64_t size;
  void *cells;            /* domain-owned per-buffer state (NULL for byte domains) */
  int id;                 /* buffer id (for domain bookkeeping) */
} dom_mem;

typedef struct dom dom;
struct dom {
  const char *name;
  bool mem_bytes;         /* loads/stores are the bytes of dom_mem (concrete) */
  /* constants, per lane (src[i] integers or pointer encodings; f: one value) */
  void (*const_int)(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const int64_t *src);
  void (*const_float)(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, double f);
  /* arithmetic; t is the OPERAND type (a's type: comparisons yield bool 0/1;
   * PTRADD: t is the pointer type, b an integer count; PTRDIFF: i64 result) */
  void (*unop)(dom *d, dg_unop op, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const dom_val *a);
  void (*binop)(dom *d, dg_binop op, const dg_type *t, int n, const uint8_t *m,
                dom_val *dst, const dom_val *a, const dom_val *b);
  void (*cast)(dom *d, dg_castkind k, const dg_type *to, const dg_type *from, int n,
               const uint8_t *m, dom_val *dst, const dom_val *a);
  /* builtin math/int/convert classes (MATH_*, INT_*, CVT_ROUND); t is the type
   * of the first argument, rt the result type. Returns false if unsupported. */
  bool (*math)(dom *d, dg_iclass c, const dg_type *rt, const dg_type *t, int nargs, int n,
               const uint8_t *m, dom_val *dst, const dom_val *const *args);
  /* dst = c ? a : b (c a bool value); the merge of both-way branches */
  void (*select)(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst,
                 const dom_val *c, const dom_val *a, const dom_val *b);
  /* truth of a scalar of type t: out[i] = DOM_FALSE/TRUE/BOTH */
  void (*branch)(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *c, uint8_t *out);
  /* integer / pointer value as a concrete int64 (pointers: the encoding).
   * Returns the index of the first active lane that is not concrete, or -1. */
  int (*concrete)(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src, int64_t *out);
  /* memory: scalar t at mem[i]->bytes + off[i] (bounds already checked) */
  void (*load)(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst,
               dom_mem *const *mem, const int64_t *off);
  void (*store)(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src,
                dom_mem *const *mem, const int64_t *off);
  void (*mem_free)(dom *d, dom_mem *mem);   /* may be NULL */
  void (*free)(dom *d);                     /* frees d itself; may be NULL (static) */
};

/* The concrete domain: a static object, never freed. */
dom *dom_concrete(void);

/* Type facts shared by the engine and the domains (sizes as on the GPU). */
int64_t dom_tysize(const dg_type *t);
int dom_ncomp(const dg_type *t);              /* VEC: count, STRUCT: nslots, else 1 */
const dg_type *dom_scalar(const dg_type *t);  /* VEC: elem, else t */
/* Component c of a value of type t, and its byte offset in memory: a
 * vector's lane type, a struct's slot c (always a scalar or pointer; the
 * domains only ever see those), else t itself at 0. */
const dg_type *dom_comp(const dg_type *t, int c);
int64_t dom_comp_off(const dg_type *t, int c);
bool dom_is_float(const dg_type *t);
bool dom_is_signed(const dg_type *t);

/* Float formats: round a double to the nearest f16/bf16/f32 (ties to even),
 * and the bit encodings memory uses. */
double dom_round_f16(double x);
double dom_round_bf16(double x);
static inline double dom_round_f32(double x) { return (double)(float)x; }
uint16_t dom_f16_bits(double x);             /* x must be an f16 value */
double dom_f16_from_bits(uint16_t b);
uint16_t dom_bf16_bits(double x);            /* x must be a bf16 value */
double dom_bf16_from_bits(uint16_t b);

#endif
