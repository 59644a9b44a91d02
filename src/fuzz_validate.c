/* fuzz_validate.c — the NaN-aware comparison of kernel output with the
 * reference. The literature's adversarial strategy reached 94% false
 * positives because its check fired on NaN that the reference has too; here
 * NaN/Inf agree when the reference (rounded to the output dtype) has them. */
#include "fuzz.h"
#include <math.h>
#include <stdlib.h>

static const char *const elem_names[] = {
  [FUZZ_ELEM_OK] = "ok", [FUZZ_ELEM_MISMATCH] = "mismatch",
  [FUZZ_ELEM_NAN] = "nan-or-inf where the reference is finite",
  [FUZZ_ELEM_MISSING_NAN] = "finite where the reference is nan-or-inf",
  [FUZZ_ELEM_UNWRITTEN] = "never written",
};

const char *fuzz_elem_name(fuzz_elem k) { return elem_names[k]; }

fuzz_elem fuzz_elem_check(dg_dtype dt, double got, double want, dg_tol tol)
{
  want = dg_dtype_round(dt, want);
  if (isnan(want)) return isnan(got) ? FUZZ_ELEM_OK : FUZZ_ELEM_MISSING_NAN;
  if (isinf(want)) {
    if (got == want) return FUZZ_ELEM_OK;
    return isfinite(got) ? FUZZ_ELEM_MISSING_NAN : FUZZ_ELEM_MISMATCH;
  }
  if (!isfinite(got)) return FUZZ_ELEM_NAN;
  return fabs(got - want) <= tol.atol + tol.rtol * fabs(want) ? FUZZ_ELEM_OK : FUZZ_ELEM_MISMATCH;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void fuzz_compare(dg_dtype dt, const double *got, const double *want,
                  const uint8_t *checked, const uint8_t *written, int64_t n,
                  dg_tol tol, fuzz_cmp *res)
{
  *res = (fuzz_cmp){ .n = n, .first_fail = -1 };
  double *errs = dg_malloc(sizeof *errs * (size_t)(n > 0 ? n : 1));
  int64_t nerr = 0;
  for (int64_t i = 0; i < n; i++) {
    if (checked && !checked[i]) continue;
    res->checked++;
    fuzz_elem k;
    double w = dg_dtype_round(dt, want[i]);
    if (written && !written[i]) {
      k = FUZZ_ELEM_UNWRITTEN;
      res->nunwritten++;
    } else {
      k = fuzz_elem_check(dt, got[i], want[i], tol);
      if (isfinite(got[i]) && isfinite(w)) {
        double e = fabs(got[i] - w);
        errs[nerr++] = e;
        if (e > res->max_abs) res->max_abs = e;
        double u = dg_dtype_ulps(dt, got[i], w);
        if (u > res->max_ulp) res->max_ulp = u;
      } else if (k == FUZZ_ELEM_OK) {
        res->nnan_agree++;
      }
    }
    if (k != FUZZ_ELEM_OK) {
      if (res->first_fail < 0) {
        res->first_fail = i;
        res->first_kind = k;
        res->first_got = got[i];
        res->first_want = w;
      }
      res->nfail++;
    }
  }
  if (nerr > 0) {
    qsort(errs, (size_t)nerr, sizeof *errs, cmp_double);
    int64_t k = (int64_t)ceil(0.99 * (double)nerr) - 1;
    res->p99_abs = errs[k < 0 ? 0 : k];
  }
  free(errs);
}
