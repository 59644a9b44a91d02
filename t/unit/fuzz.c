/* fuzz.c — tests of the value distributions and the NaN-aware validator. */
#include "fuzz.h"
#include "../tap.h"
#include <math.h>

static int replay_same(fuzz_dist d)
{
  double a[64], b[64];
  dg_rng r1, r2;
  dg_rng_seed(&r1, 99);
  dg_rng_seed(&r2, 99);
  fuzz_fill_opts o = { .dist = d, .dtype = DG_DT_F32, .row = 16 };
  fuzz_fill(&r1, &o, a, 64);
  fuzz_fill(&r2, &o, b, 64);
  for (int i = 0; i < 64; i++)
    if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])))) return 0;
  return 1;
}

int main(void)
{
  for (int d = 0; d < FUZZ_DIST__COUNT; d++)
    ok(replay_same(d), "%s replays by seed", fuzz_dists[d].name);
  is_int(fuzz_dist_parse("max-last"), FUZZ_DIST_MAX_LAST, "parse distribution name");
  is_int(fuzz_dist_parse("nope"), -1, "unknown distribution");

  dg_rng r;
  dg_rng_seed(&r, 1);
  double v[40];
  fuzz_fill_opts o = { .dist = FUZZ_DIST_MAX_LAST, .dtype = DG_DT_F32, .row = 10 };
  fuzz_fill(&r, &o, v, 40);
  int last_is_max = 1;
  for (int row = 0; row < 4; row++)
    for (int j = 0; j < 9; j++) last_is_max &= v[row * 10 + j] < v[row * 10 + 9];
  ok(last_is_max, "max-last puts each row's strict maximum last");

  o = (fuzz_fill_opts){ .dist = FUZZ_DIST_NEGATIVE, .dtype = DG_DT_F16 };
  fuzz_fill(&r, &o, v, 40);
  int neg = 1, rounded = 1;
  for (int i = 0; i < 40; i++) {
    neg &= v[i] < 0;
    rounded &= v[i] == dg_dtype_round(DG_DT_F16, v[i]);
  }
  ok(neg, "negative draws negatives");
  ok(rounded, "values are rounded to the input dtype");

  o = (fuzz_fill_opts){ .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_I32, .has_range = true, .lo = 0, .hi = 6 };
  fuzz_fill(&r, &o, v, 40);
  int inrange = 1;
  for (int i = 0; i < 40; i++) inrange &= v[i] >= 0 && v[i] <= 6 && v[i] == floor(v[i]);
  ok(inrange, "index-valued inputs stay inside their range");

  o = (fuzz_fill_opts){ .dist = FUZZ_DIST_HUGE, .dtype = DG_DT_F16 };
  fuzz_fill(&r, &o, v, 40);
  int finite = 1;
  for (int i = 0; i < 40; i++) finite &= isfinite(v[i]) && fabs(v[i]) > 1000;
  ok(finite, "huge f16 values are large and finite");

  dg_tol tol = { 1e-5, 1e-4 };
  is_int(fuzz_elem_check(DG_DT_F32, NAN, NAN, tol), FUZZ_ELEM_OK, "NaN where the reference is NaN passes");
  is_int(fuzz_elem_check(DG_DT_F32, INFINITY, INFINITY, tol), FUZZ_ELEM_OK, "Inf agrees");
  is_int(fuzz_elem_check(DG_DT_F32, NAN, 1.0, tol), FUZZ_ELEM_NAN, "NaN where the reference is finite fails");
  is_int(fuzz_elem_check(DG_DT_F32, 1.0, NAN, tol), FUZZ_ELEM_MISSING_NAN, "finite where the reference is NaN fails");
  is_int(fuzz_elem_check(DG_DT_F32, -INFINITY, INFINITY, tol), FUZZ_ELEM_MISMATCH, "Inf of the other sign fails");
  is_int(fuzz_elem_check(DG_DT_F32, INFINITY, 1e300, tol), FUZZ_ELEM_OK,
         "a reference beyond float range is compared as float (Inf)");
  is_int(fuzz_elem_check(DG_DT_F32, 1.00001, 1.0, tol), FUZZ_ELEM_OK, "inside rtol");
  is_int(fuzz_elem_check(DG_DT_F32, 1.001, 1.0, tol), FUZZ_ELEM_MISMATCH, "outside rtol");

  double got[5] = { 1, 2, NAN, 4, 5 }, want[5] = { 1, 2, NAN, 4.5, 5 };
  uint8_t written[5] = { 1, 1, 1, 1, 0 };
  fuzz_cmp c;
  fuzz_compare(DG_DT_F32, got, want, NULL, written, 5, tol, &c);
  is_int(c.nfail, 2, "two failures: a mismatch and an unwritten element");
  is_int(c.first_fail, 3, "first failure index");
  is_int(c.first_kind, FUZZ_ELEM_MISMATCH, "first failure kind");
  is_int(c.nunwritten, 1, "unwritten counted");
  is_int(c.nnan_agree, 1, "agreeing NaN counted");
  ok(fabs(c.max_abs - 0.5) < 1e-12, "max abs error");
  uint8_t checked[5] = { 1, 1, 1, 0, 0 };
  fuzz_compare(DG_DT_F32, got, want, checked, written, 5, tol, &c);
  is_int(c.nfail, 0, "unchecked elements (reference nil) are skipped");
  /* strategies */
  static const int64_t ccands[] = { 1, 3, 31, 32, 33, 1000 };
  fuzz_space sp = { .nsyms = 2, .syms = { "N", "C" }, .defaults = { 4, 64 },
                    .cands = { NULL, ccands }, .ncands = { 0, 6 }, .block = { 128 }, .nblock = 1,
                    .ninputs = 1 };
  const fuzz_strategy *bs = fuzz_strategy_find("boundary");
  ok(bs != NULL, "boundary strategy exists");
  ok(fuzz_strategy_find("nope") == NULL, "unknown strategy");
  int non_divisible = 0, ones = 0, replay = 1;
  for (int k = 0; k < 200; k++) {
    fuzz_case c1 = {0}, c2 = {0};
    dg_rng r1, r2;
    dg_rng_seed(&r1, fuzz_case_seed(5, k));
    dg_rng_seed(&r2, fuzz_case_seed(5, k));
    bs->gen(&sp, k, &r1, &c1);
    bs->gen(&sp, k, &r2, &c2);
    replay &= !memcmp(c1.sizes, c2.sizes, sizeof c1.sizes);
    non_divisible += c1.sizes[1] % 128 != 0 && c1.sizes[1] > 128;
    ones += c1.sizes[0] == 1 || c1.sizes[1] == 1;
  }
  ok(replay, "boundary cases replay from (seed, k)");
  ok(non_divisible > 5, "boundary draws sizes past a block with a tail (%d)", non_divisible);
  ok(ones > 5, "boundary draws size 1 (%d)", ones);
  const fuzz_strategy *adv = fuzz_strategy_find("adversarial");
  int saw_max_last = 0, same_shape = 1;
  for (int k = 0; k < 12; k++) {
    fuzz_case c = {0};
    dg_rng_seed(&r, fuzz_case_seed(1, k));
    adv->gen(&sp, k, &r, &c);
    saw_max_last |= c.dist[0] == FUZZ_DIST_MAX_LAST;
    same_shape &= c.sizes[0] == 4 && c.sizes[1] == 64;
  }
  ok(saw_max_last && same_shape, "adversarial keeps the spec's shape and tries max-last");
  fuzz_case lc = { .sizes = { 4, 33 }, .dist = { FUZZ_DIST_TIES } };
  fuzz_case_label(&sp, &lc);
  is_str(lc.label, "N=4 C=33 ties", "case label");
  return tap_done();
}
