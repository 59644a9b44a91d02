/* ctr.c — tests of the counter-based input values (fuzz_ctr, whose
 * definition in fuzz.h the GPU reproduces bit for bit: t/gpu/gen.c). */
#include "fuzz.h"
#include "../tap.h"
#include <math.h>
#include <string.h>

static uint64_t sm(uint64_t x)
{
  uint64_t z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* the documented normal mapping, written again from fuzz.h */
static double doc_normal(uint64_t h)
{
  uint64_t s = (h & 0xffff) + (h >> 16 & 0xffff) + (h >> 32 & 0xffff) + (h >> 48);
  double t = (double)(s << 34 | sm(h + 2) >> 30);
  return (t - 131070.0 * 17179869184.0) * (1.7320508075688772 / 1125899906842624.0);
}

static void test_definition(void)
{
  /* splitmix64's first output from 0 is 0xe220a8397b1dcdaf: the definition in fuzz.h */
  uint64_t k0 = fuzz_ctr_key(0, 0);
  ok(fuzz_ctr_bits(0, 0) == 0xe220a8397b1dcdafull, "h = splitmix64 (key 0, index 0)");
  ok(fuzz_ctr_key(1, 0) != k0 && fuzz_ctr_key(0, 1) != k0, "seed and tensor change the key");
  fuzz_ctr g = { .key = fuzz_ctr_key(42, 3), .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_F64 };
  double s = 0, s2 = 0, s4 = 0, mx = 0;
  int n = 200000, distinct = 1;
  for (int i = 0; i < n; i++) {
    double v = fuzz_ctr_value(&g, i);
    s += v, s2 += v * v, s4 += v * v * v * v;
    if (fabs(v) > mx) mx = fabs(v);
    if (i && v == fuzz_ctr_value(&g, i - 1)) distinct = 0;
  }
  double mean = s / n, var = s2 / n - mean * mean, kurt = s4 / n / (var * var);
  ok(fabs(mean) < 0.01 && fabs(var - 1) < 0.02, "normal: mean %.4f, variance %.4f", mean, var);
  ok(kurt > 2.7 && kurt < 2.95, "normal: kurtosis %.3f (Irwin-Hall of 4: 2.7; a normal: 3)", kurt);
  ok(mx < 3.4643 && mx > 3, "normal: Irwin-Hall range (max |v| %.4f)", mx);
  ok(distinct, "normal: neighbours differ (dithered below the 16-bit grid)");
  uint64_t h = fuzz_ctr_bits(g.key, 77);
  double want = doc_normal(h);
  ok(fuzz_ctr_value(&g, 77) == want, "normal: exactly the documented mapping");
  double a[8];
  fuzz_ctr_fill(&g, (int64_t)1 << 33, 8, a);
  ok(a[3] == fuzz_ctr_value(&g, ((int64_t)1 << 33) + 3), "fill = value at each index past 2^32");
  g.dtype = DG_DT_F32;
  ok(fuzz_ctr_value(&g, 77) == (double)(float)want, "rounded to the dtype");

  g.dist = FUZZ_DIST_UNIFORM;
  int inr = 1, grid = 1, fine = 0;
  g.dtype = DG_DT_F64;
  for (int i = 0; i < 10000; i++) {
    double v = fuzz_ctr_value(&g, i);
    inr &= v >= -1 && v < 1;
    grid &= v * 0x1p52 == floor(v * 0x1p52);
    fine |= v * 0x1p30 != floor(v * 0x1p30);
  }
  ok(inr && grid && fine, "uniform: in [-1, 1) on the 2^-52 grid, finer than 2^-30");
  ok(fuzz_ctr_value(&g, 5) == (double)(fuzz_ctr_bits(g.key, 5) >> 11) * 0x1p-52 - 1.0, "uniform: the mapping");
  g.dist = FUZZ_DIST_POSITIVE;
  int pos = 1;
  for (int i = 0; i < 10000; i++) pos &= fuzz_ctr_value(&g, i) > 0 && fuzz_ctr_value(&g, i) <= 1;
  ok(pos, "positive: in (0, 1]");
  g.dist = FUZZ_DIST_NEGATIVE;
  int neg = 1;
  for (int i = 0; i < 10000; i++) neg &= fuzz_ctr_value(&g, i) > -5 && fuzz_ctr_value(&g, i) <= -1;
  ok(neg, "negative: in (-5, -1]");
  g.dist = FUZZ_DIST_ALL_EQUAL;
  ok(fuzz_ctr_value(&g, 5) == fuzz_ctr_value(&g, 123456789) && fuzz_ctr_value(&g, 0) == doc_normal(sm(g.key)),
     "all-equal: one value, element 0's normal");
  g.dist = FUZZ_DIST_TIES;
  int ties = 1;
  for (int i = 0; i < 1000; i++) ties &= fabs(fuzz_ctr_value(&g, i)) <= 1 && fuzz_ctr_value(&g, i) == round(fuzz_ctr_value(&g, i));
  ok(ties, "ties: -1, 0 or 1");
}

static void test_rows(void)
{
  fuzz_ctr g = { .key = 11, .dist = FUZZ_DIST_SORTED, .dtype = DG_DT_F32, .row = 37, .n = 37 * 50 + 5 };
  int up = 1, spread = 1;
  for (int64_t i = 1; i < g.n; i++)
    if (i % 37) up &= fuzz_ctr_value(&g, i) >= fuzz_ctr_value(&g, i - 1);
  for (int64_t r = 0; r < 50; r++) spread &= fuzz_ctr_value(&g, r * 37) < -1.8 && fuzz_ctr_value(&g, r * 37 + 36) > 1.8;
  ok(up && spread, "sorted: ascending in each row, from about -2 to 2");
  g.dtype = DG_DT_F64;
  int strict = 1;
  for (int64_t i = 1; i < 37; i++) strict &= fuzz_ctr_value(&g, i) > fuzz_ctr_value(&g, i - 1);
  ok(strict, "sorted: strictly ascending before rounding to a narrow dtype");
  g.dtype = DG_DT_F16;
  g.dist = FUZZ_DIST_MAX_LAST;
  int last = 1;
  for (int64_t r = 0; r < 50; r++)
    for (int j = 0; j < 36; j++) last &= fuzz_ctr_value(&g, r * 37 + j) < fuzz_ctr_value(&g, r * 37 + 36);
  ok(last, "max-last: each row's strict maximum is its last element (f16)");
  fuzz_ctr one = { .key = 3, .dist = FUZZ_DIST_MAX_LAST, .dtype = DG_DT_F32, .row = 1, .n = 4 };
  ok(fuzz_ctr_value(&one, 2) >= 4, "max-last: rows of one element");
  g.dist = FUZZ_DIST_NEAR_EQUAL;
  g.dtype = DG_DT_F32;
  int near = 1, differ = 0;
  for (int64_t r = 0; r < 50; r++) {
    double a = fuzz_ctr_value(&g, r * 37);
    for (int j = 1; j < 37; j++) near &= fabs(fuzz_ctr_value(&g, r * 37 + j) - a) < 0.01;
    differ |= fabs(fuzz_ctr_value(&g, r * 37 + 37) - a) > 0.01;
  }
  ok(near && differ, "near-equal: one value per row plus noise of 1e-3");
  g.dist = FUZZ_DIST_SPECIAL;
  g.n = 200000;
  g.row = 0;
  int nan = 0, inf = 0;
  for (int64_t i = 0; i < g.n; i++) {
    double v = fuzz_ctr_value(&g, i);
    nan += !!isnan(v), inf += !!isinf(v);
  }
  ok(nan > 3500 && nan < 4800 && inf > 7500 && inf < 9200, "special: 1/16 of the elements NaN or +-Inf (%d, %d)",
     nan, inf);
  int always = 1;
  for (uint64_t k = 0; k < 200; k++) {
    fuzz_ctr t = { .key = k, .dist = FUZZ_DIST_SPECIAL, .dtype = DG_DT_F32, .n = 3 };
    int any = 0;
    for (int i = 0; i < 3; i++) any |= !isfinite(fuzz_ctr_value(&t, i));
    always &= any;
  }
  ok(always, "special: even a 3-element tensor has one");
}

/* the dtype's rounding is dtype.c's, for every distribution that does not
 * depend on the dtype, and for the dtype-scaled ones computed from fuzz.h */
static void test_rounding(void)
{
  static const fuzz_dist same[] = { FUZZ_DIST_NORMAL, FUZZ_DIST_UNIFORM, FUZZ_DIST_POSITIVE, FUZZ_DIST_NEGATIVE,
                                    FUZZ_DIST_SORTED, FUZZ_DIST_MAX_LAST, FUZZ_DIST_SPECIAL, FUZZ_DIST_NEAR_EQUAL };
  static const dg_dtype fl[] = { DG_DT_F32, DG_DT_F16, DG_DT_BF16 };
  int bad = 0;
  for (size_t d = 0; d < sizeof same / sizeof same[0]; d++)
    for (size_t t = 0; t < 3; t++) {
      fuzz_ctr w = { .key = 5 + d, .dist = same[d], .dtype = DG_DT_F64, .row = 100, .n = 20000 };
      fuzz_ctr g = w;
      g.dtype = fl[t];
      for (int64_t i = 0; i < w.n; i++) {
        double a = fuzz_ctr_value(&g, i), b = dg_dtype_round(fl[t], fuzz_ctr_value(&w, i));
        if (memcmp(&a, &b, 8)) bad++;
      }
    }
  is_int(bad, 0, "f32/f16/bf16 values are dg_dtype_round of the f64 ones, bit for bit");
  int tbad = 0, sub = 0;
  for (size_t t = 0; t < 3; t++) {
    fuzz_ctr g = { .key = 17, .dist = FUZZ_DIST_TINY, .dtype = fl[t] };
    double m = fl[t] == DG_DT_F16 ? 6.103515625e-05 : 1.1754943508222875e-38;
    for (int64_t i = 0; i < 20000; i++) {
      uint64_t h = fuzz_ctr_bits(g.key, i), h1 = sm(h + 1);
      double u = (double)(h >> 11) * 0x1p-53, raw = (h1 & 1 ? -1.0 : 1.0) * (m * ((u + 0.01) / (double)(1 << (h1 >> 1 & 7))));
      double a = fuzz_ctr_value(&g, i), b = dg_dtype_round(fl[t], raw);
      if (memcmp(&a, &b, 8)) tbad++;
      sub += a != 0 && fabs(a) < m;
    }
  }
  ok(!tbad && sub > 20000, "tiny: the documented mapping, subnormals in every float dtype (%d)", sub);
  fuzz_ctr hg = { .key = 1, .dist = FUZZ_DIST_HUGE, .dtype = DG_DT_F16 };
  int big = 1;
  for (int i = 0; i < 1000; i++) big &= isfinite(fuzz_ctr_value(&hg, i)) && fabs(fuzz_ctr_value(&hg, i)) >= 2047;
  ok(big, "huge f16: within a factor 32 of 65504, finite");
  fuzz_ctr ig = { .key = 1, .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_I32 };
  int ints = 1, wide = 0;
  for (int i = 0; i < 1000; i++) {
    double v = fuzz_ctr_value(&ig, i);
    ints &= v == round(v) && fabs(v) <= 28;
    wide |= fabs(v) > 8;
  }
  ok(ints && wide, "integer dtypes: 8 x the value, rounded");
  ig.dtype = DG_DT_U8;
  ig.positive = true;
  int wrap = 0;
  for (int i = 0; i < 1000; i++) wrap |= fuzz_ctr_value(&ig, i) > 200;
  ok(wrap, "u8: negatives wrap before fabs, as fill_inputs' fabs after fuzz_fill");
}

static void test_index(void)
{
  fuzz_ctr ix = { .key = fuzz_ctr_key(7, 0), .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_I32,
                  .has_range = true, .lo = 0, .hi = 128255 };
  int inrange = 1, high = 0;
  for (int i = 0; i < 10000; i++) {
    double v = fuzz_ctr_value(&ix, i);
    inrange &= v >= 0 && v <= 128255 && v == floor(v);
    high |= v > 120000;
  }
  ok(inrange && high, "index: integers over the whole range");
  ix.dist = FUZZ_DIST_HUGE;
  int top = 1;
  for (int i = 0; i < 1000; i++) top &= fuzz_ctr_value(&ix, i) >= 128240;
  ok(top, "index, huge: the top 16 values of the range");
  ix.dist = FUZZ_DIST_TINY;
  int bottom = 1;
  for (int i = 0; i < 1000; i++) bottom &= fuzz_ctr_value(&ix, i) <= 15;
  ok(bottom, "index, tiny: the bottom 16 values");
  ix.lo = ix.hi = 5;
  ok(fuzz_ctr_value(&ix, 9) == 5, "a one-value range");
  ix = (fuzz_ctr){ .key = 3, .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_I64, .has_range = true,
                   .lo = INT64_MIN, .hi = INT64_MAX };
  int wide = 1;
  for (int d = 0; d < 3; d++) {
    ix.dist = d == 0 ? FUZZ_DIST_NORMAL : d == 1 ? FUZZ_DIST_HUGE : FUZZ_DIST_TINY;
    for (int i = 0; i < 100; i++) wide &= isfinite(fuzz_ctr_value(&ix, i));
  }
  ok(wide, "the whole int64 range (no overflow: t/unit/ctr.t runs under UBSan in CI)");
}

static void test_fill(void)
{
  dg_rng r;
  dg_rng_seed(&r, 1234 ^ (0x9e3779b97f4a7c15ull * 3));
  double a[64], b[64];
  fuzz_fill_opts o = { .dist = FUZZ_DIST_SPECIAL, .dtype = DG_DT_F32, .row = 8 };
  fuzz_fill(&r, &o, a, 64);
  fuzz_ctr g = { .key = fuzz_input_key(1234, 2), .dist = FUZZ_DIST_SPECIAL, .dtype = DG_DT_F32, .row = 8, .n = 64 };
  fuzz_ctr_fill(&g, 0, 64, b);
  ok(!memcmp(a, b, sizeof a), "fuzz_fill = the counter values keyed by fuzz_input_key (the campaign's seeding)");
  ok(strstr(fuzz_ctr_source(), "ctr_value") && strstr(fuzz_ctr_source(), "__device__"),
     "the definition's source text is there for the device");
}

int main(void)
{
  test_definition();
  test_rows();
  test_rounding();
  test_index();
  test_fill();
  return tap_done();
}
