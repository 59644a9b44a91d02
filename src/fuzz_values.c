/* fuzz_values.c — seeded value distributions for fuzz inputs. */
#include "fuzz.h"
#include <math.h>
#include <string.h>
#include <float.h>

const fuzz_dist_info fuzz_dists[FUZZ_DIST__COUNT] = {
#define FUZZ_DIST(id, name, help) [FUZZ_DIST_##id] = { name, help },
#include "fuzz_dists.def"
#undef FUZZ_DIST
};

int fuzz_dist_parse(const char *name)
{
  for (int i = 0; i < FUZZ_DIST__COUNT; i++)
    if (!strcmp(fuzz_dists[i].name, name)) return i;
  return -1;
}

static double dtype_max(dg_dtype t)
{
  static const double m[DG_DT__COUNT] = { [DG_DT_F32] = FLT_MAX, [DG_DT_F16] = 65504.0,
    [DG_DT_BF16] = 3.3895313892515355e38, [DG_DT_F64] = DBL_MAX, [DG_DT_I32] = 2147483647.0,
    [DG_DT_I64] = 9.2e18, [DG_DT_U8] = 255, [DG_DT_BOOL] = 1 };
  return m[t];
}

static double dtype_min_normal(dg_dtype t)
{
  static const double m[DG_DT__COUNT] = { [DG_DT_F32] = FLT_MIN, [DG_DT_F16] = 6.103515625e-05,
    [DG_DT_BF16] = FLT_MIN, [DG_DT_F64] = DBL_MIN, [DG_DT_I32] = 1, [DG_DT_I64] = 1,
    [DG_DT_U8] = 1, [DG_DT_BOOL] = 1 };
  return m[t];
}

typedef void (*fill_fn)(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n);

static void fill_normal(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  for (int64_t i = 0; i < n; i++) out[i] = dg_rng_normal(r);
}

static void fill_uniform(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  for (int64_t i = 0; i < n; i++) out[i] = 2 * dg_rng_unit(r) - 1;
}

static void fill_positive(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  for (int64_t i = 0; i < n; i++) out[i] = 1 - dg_rng_unit(r);
}

static void fill_negative(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  for (int64_t i = 0; i < n; i++) out[i] = -1 - 4 * dg_rng_unit(r);
}

static void fill_huge(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  /* within a factor 16 of overflow: sums of a few overflow, single values do not */
  double m = dtype_max(o->dtype);
  for (int64_t i = 0; i < n; i++) {
    double v = m / 16 * (0.5 + dg_rng_unit(r));
    out[i] = dg_rng_below(r, 2) ? v : -v;
  }
}

static void fill_tiny(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  double m = dtype_min_normal(o->dtype);
  for (int64_t i = 0; i < n; i++) {
    double v = m * ldexp(dg_rng_unit(r) + 0.01, -(int)dg_rng_below(r, 8));
    out[i] = dg_rng_below(r, 2) ? v : -v;
  }
}

static void fill_ties(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  for (int64_t i = 0; i < n; i++) out[i] = (double)dg_rng_below(r, 3) - 1;
}

static void fill_sorted(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  int64_t row = o->row > 0 ? o->row : n;
  for (int64_t i = 0; i < n; i++)
    out[i] = (i % row == 0 ? -2 : out[i - 1]) + 4.0 * dg_rng_unit(r) / (double)row;
}

static void fill_all_equal(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  double v = dg_rng_normal(r);
  for (int64_t i = 0; i < n; i++) out[i] = v;
}

static void fill_max_last(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  int64_t row = o->row > 0 ? o->row : n;
  fill_normal(r, o, out, n);
  for (int64_t s = 0; s < n; s += row) {
    int64_t e = s + row < n ? s + row : n, best = s;
    for (int64_t i = s; i < e; i++)
      if (out[i] > out[best]) best = i;
    double t = out[e - 1];
    out[e - 1] = out[best] + 1;      /* strictly the largest */
    out[best] = t;
  }
}

static void fill_large_offset(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  double off = o->dtype == DG_DT_F16 ? 1000 : 1e4;
  for (int64_t i = 0; i < n; i++) out[i] = off + dg_rng_normal(r);
}

static void fill_special(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  static const double specials[] = { NAN, INFINITY, -INFINITY };
  fill_normal(r, o, out, n);
  int64_t k = n / 16 + 1;
  for (int64_t j = 0; j < k; j++) out[dg_rng_below(r, (uint64_t)n)] = specials[dg_rng_below(r, 3)];
}

static void fill_near_equal(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  int64_t row = o->row > 0 ? o->row : n;
  double v = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i % row == 0) v = dg_rng_normal(r);
    out[i] = v + 1e-3 * dg_rng_normal(r);
  }
}

static const fill_fn fillers[FUZZ_DIST__COUNT] = {
  [FUZZ_DIST_NEAR_EQUAL] = fill_near_equal,
  [FUZZ_DIST_NORMAL] = fill_normal, [FUZZ_DIST_UNIFORM] = fill_uniform,
  [FUZZ_DIST_POSITIVE] = fill_positive, [FUZZ_DIST_NEGATIVE] = fill_negative,
  [FUZZ_DIST_HUGE] = fill_huge, [FUZZ_DIST_TINY] = fill_tiny, [FUZZ_DIST_TIES] = fill_ties,
  [FUZZ_DIST_SORTED] = fill_sorted, [FUZZ_DIST_ALL_EQUAL] = fill_all_equal,
  [FUZZ_DIST_MAX_LAST] = fill_max_last, [FUZZ_DIST_LARGE_OFFSET] = fill_large_offset,
  [FUZZ_DIST_SPECIAL] = fill_special,
};

void fuzz_fill(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  if (n <= 0) return;
  if (o->has_range) {               /* index-valued input: integers in [lo, hi] */
    uint64_t span = (uint64_t)(o->hi - o->lo) + 1;
    for (int64_t i = 0; i < n; i++) out[i] = (double)(o->lo + (int64_t)dg_rng_below(r, span));
    return;
  }
  fillers[o->dist](r, o, out, n);
  if (!dg_dtypes[o->dtype].is_float)
    for (int64_t i = 0; i < n; i++) out[i] = isfinite(out[i]) ? round(out[i] * 8) : 0;
  for (int64_t i = 0; i < n; i++) out[i] = dg_dtype_round(o->dtype, out[i]);
}
