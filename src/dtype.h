/* dtype.h — tensor element types of problem specs ("f32", "f16", …), their
 * sizes, and exact conversions (f16/bf16 round-to-nearest-even) shared by the
 * emulator, the fuzzer, the validator and the GPU backend. */
#ifndef DG_DTYPE_H
#define DG_DTYPE_H
#include <stdint.h>
#include <stdbool.h>

typedef enum {
  DG_DT_F32, DG_DT_F16, DG_DT_BF16, DG_DT_F64,
  DG_DT_I32, DG_DT_I64, DG_DT_U8, DG_DT_BOOL,
  DG_DT__COUNT
} dg_dtype;

/* A tolerance: |got - want| <= atol + rtol * |want|. */
typedef struct { double atol, rtol; } dg_tol;

typedef struct {
  const char *name;       /* spec spelling: "f32" */
  const char *ctype;      /* CUDA spelling: "float", "__half" */
  int size;               /* bytes */
  bool is_float;
  double atol, rtol;      /* default validator tolerance for this output dtype */
} dg_dtype_info;

extern const dg_dtype_info dg_dtypes[DG_DT__COUNT];
int dg_dtype_parse(const char *name);            /* -1 if unknown */

/* Conversions between storage and double. Rounding as the GPU does it. */
uint16_t dg_f32_to_f16(float f);
float dg_f16_to_f32(uint16_t h);
uint16_t dg_f32_to_bf16(float f);
float dg_bf16_to_f32(uint16_t b);
/* Value rounded to what the dtype can hold (ints truncate toward zero and wrap). */
double dg_dtype_round(dg_dtype t, double v);
/* Read/write element i of raw storage of type t as a double. */
double dg_dtype_load(dg_dtype t, const void *base, int64_t i);
void dg_dtype_store(dg_dtype t, void *base, int64_t i, double v);
/* Distance in units in the last place of dtype t (floats); |a-b| for ints. */
double dg_dtype_ulps(dg_dtype t, double a, double b);

#endif
