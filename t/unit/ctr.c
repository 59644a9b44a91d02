/* ctr.c — tests of the counter-based input values (fuzz_ctr, whose
 * definition in fuzz.h the GPU may reproduce bit for bit). */
#include "fuzz.h"
#include "../tap.h"
#include <math.h>

static void test_ctr(void)
{
  /* splitmix64's first output from 0 is 0xe220a8397b1dcdaf: the definition in fuzz.h */
  uint64_t k0 = fuzz_ctr_key(0, 0);
  ok(fuzz_ctr_bits(0x9e3779b97f4a7c15ull * 0, 0) == 0xe220a8397b1dcdafull, "h = splitmix64 (key 0, index 0)");
  ok(fuzz_ctr_key(1, 0) != k0 && fuzz_ctr_key(0, 1) != k0, "seed and tensor change the key");
  fuzz_ctr g = { .key = fuzz_ctr_key(42, 3), .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_F64 };
  double s = 0, s2 = 0, mx = 0;
  int n = 200000;
  for (int i = 0; i < n; i++) {
    double v = fuzz_ctr_value(&g, i);
    s += v, s2 += v * v;
    if (fabs(v) > mx) mx = fabs(v);
  }
  double mean = s / n, var = s2 / n - mean * mean;
  ok(fabs(mean) < 0.01 && fabs(var - 1) < 0.02, "normal: mean %.4f, variance %.4f", mean, var);
  ok(mx <= 2 * 1.7320508075688772 && mx > 3, "normal: Irwin-Hall range (max |v| %.3f)", mx);
  uint64_t h = fuzz_ctr_bits(g.key, 77);
  double want = ((double)((h & 0xffff) + (h >> 16 & 0xffff) + (h >> 32 & 0xffff) + (h >> 48)) - 131070.0) *
                (1.7320508075688772 / 65536.0);
  ok(fuzz_ctr_value(&g, 77) == want, "normal: exactly the documented mapping");
  double a[8];
  fuzz_ctr_fill(&g, (int64_t)1 << 33, 8, a);
  ok(a[3] == fuzz_ctr_value(&g, ((int64_t)1 << 33) + 3), "fill = value at each index past 2^32");
  g.dtype = DG_DT_F32;
  ok(fuzz_ctr_value(&g, 77) == (double)(float)want, "rounded to the dtype");

  g.dist = FUZZ_DIST_UNIFORM;
  int inr = 1, grid = 1;
  for (int i = 0; i < 10000; i++) {
    double v = fuzz_ctr_value(&g, i);
    inr &= v >= -1 && v < 1;
    grid &= v * 0x1p23 == floor(v * 0x1p23);
  }
  ok(inr && grid, "uniform: in [-1, 1) on the 2^-23 grid");
  g.dist = FUZZ_DIST_POSITIVE;
  int pos = 1;
  for (int i = 0; i < 10000; i++) pos &= fuzz_ctr_value(&g, i) > 0 && fuzz_ctr_value(&g, i) <= 1;
  ok(pos, "positive: in (0, 1]");
  g.dist = FUZZ_DIST_ALL_EQUAL;
  ok(fuzz_ctr_value(&g, 5) == fuzz_ctr_value(&g, 123456789), "all-equal: one value");
  g.dist = FUZZ_DIST_SPECIAL;
  int nan = 0, inf = 0;
  for (int i = 0; i < 20000; i++) {
    double v = fuzz_ctr_value(&g, i);
    nan += !!isnan(v), inf += !!isinf(v);
  }
  ok(nan > 20 && inf > 40 && nan + inf < 600, "special: about 1%% NaN and Inf (%d, %d)", nan, inf);

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
}

int main(void)
{
  test_ctr();
  return tap_done();
}
