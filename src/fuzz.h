/* fuzz.h — the fuzzer's building blocks that know nothing of kernels:
 * value distributions (seeded, so every case replays) and the NaN-aware
 * validator. The campaign driver (fuzz_run.c) combines them with problems,
 * strategies and a backend. */
#ifndef DG_FUZZ_H
#define DG_FUZZ_H
#include "util.h"
#include "dtype.h"

/* ---- value distributions ------------------------------------------------- */
typedef enum {
#define FUZZ_DIST(id, name, help) FUZZ_DIST_##id,
#include "fuzz_dists.def"
#undef FUZZ_DIST
  FUZZ_DIST__COUNT
} fuzz_dist;

typedef struct { const char *name; const char *help; } fuzz_dist_info;
extern const fuzz_dist_info fuzz_dists[FUZZ_DIST__COUNT];
int fuzz_dist_parse(const char *name);   /* -1 if unknown */

/* Fills out[0..n) with values of distribution d, rounded to dtype dt.
 * row is the length of the innermost dimension (for row-shaped patterns such
 * as "the row maximum is the last element"); lo..hi bound index-valued
 * inputs (has_range), which are drawn uniformly as integers. */
typedef struct {
  fuzz_dist dist;
  dg_dtype dtype;
  int64_t row;
  bool has_range;
  int64_t lo, hi;
} fuzz_fill_opts;
void fuzz_fill(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n);

/* ---- validation ----------------------------------------------------------- */
typedef struct { double atol, rtol; } dg_tol;

typedef enum {
  FUZZ_ELEM_OK, FUZZ_ELEM_MISMATCH, FUZZ_ELEM_NAN,     /* NaN/Inf where the reference is finite */
  FUZZ_ELEM_MISSING_NAN,                               /* reference NaN/Inf, kernel finite */
  FUZZ_ELEM_UNWRITTEN,
} fuzz_elem;

typedef struct {
  int64_t n, checked, nfail, nunwritten, nnan_agree;
  int64_t first_fail;        /* -1 if none */
  fuzz_elem first_kind;
  double first_got, first_want;
  double max_abs, p99_abs, max_ulp;
} fuzz_cmp;

/* One element: the reference is first rounded to the output dtype, so an fp64
 * reference that overflows float compares as the GPU would see it. NaN where
 * the reference is NaN, and Inf of the same sign, agree. */
fuzz_elem fuzz_elem_check(dg_dtype dt, double got, double want, dg_tol tol);
/* All elements. checked[i] == 0 skips i (a reference that returned nil);
 * written[i] == 0 marks i as never written by the kernel. Either may be NULL. */
void fuzz_compare(dg_dtype dt, const double *got, const double *want,
                  const uint8_t *checked, const uint8_t *written, int64_t n,
                  dg_tol tol, fuzz_cmp *res);
const char *fuzz_elem_name(fuzz_elem k);

#endif
