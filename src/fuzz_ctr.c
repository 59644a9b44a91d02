/* fuzz_ctr.c — counter-based input values (definition in fuzz.h): element i
 * of a tensor from (seed, tensor, i) alone, for buffers filled lazily and for
 * references that read single elements of inputs too large to hold. */
#include "fuzz.h"
#include <math.h>

static uint64_t sm(uint64_t x)
{
  uint64_t z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t fuzz_ctr_key(uint64_t seed, uint64_t tensor) { return sm(seed ^ sm(tensor + 1)); }
uint64_t fuzz_ctr_bits(uint64_t key, int64_t i) { return sm(key ^ (uint64_t)i); }

static double ctr_normal(uint64_t h)
{
  uint64_t s = (h & 0xffff) + (h >> 16 & 0xffff) + (h >> 32 & 0xffff) + (h >> 48);
  return ((double)s - 131070.0) * (1.7320508075688772 / 65536.0);
}

static double ctr_float(const fuzz_ctr *g, uint64_t h)
{
  uint64_t u24 = h >> 40;
  switch (g->dist) {   /* one case per distribution of the definition in fuzz.h */
  case FUZZ_DIST_UNIFORM: return (double)u24 * 0x1p-23 - 1.0;
  case FUZZ_DIST_POSITIVE: return (double)(u24 + 1) * 0x1p-24;
  case FUZZ_DIST_NEGATIVE: return -((double)(u24 + 1) * 0x1p-24);
  case FUZZ_DIST_ALL_EQUAL: return ctr_normal(fuzz_ctr_bits(g->key, 0));
  case FUZZ_DIST_SPECIAL:
    if ((h & 255) < 3) return (h & 255) == 0 ? NAN : (h & 255) == 1 ? INFINITY : -INFINITY;
    return ctr_normal(h);
  default: return ctr_normal(h);
  }
}

static double ctr_index(const fuzz_ctr *g, uint64_t h)
{
  uint64_t span = (uint64_t)(g->hi - g->lo) + 1, w = span < 16 ? span : 16;
  if (g->hi < g->lo) return (double)g->lo;
  if (g->dist == FUZZ_DIST_HUGE) return (double)(g->hi - (int64_t)(h % w));
  if (g->dist == FUZZ_DIST_TINY) return (double)(g->lo + (int64_t)(h % w));
  return (double)(g->lo + (int64_t)(h % span));
}

double fuzz_ctr_value(const fuzz_ctr *g, int64_t i)
{
  uint64_t h = fuzz_ctr_bits(g->key, i);
  double v = g->has_range ? ctr_index(g, h) : ctr_float(g, h);
  if (g->positive) v = fabs(v);
  return dg_dtype_round(g->dtype, v);
}

void fuzz_ctr_fill(const fuzz_ctr *g, int64_t first, int64_t n, double *out)
{
  for (int64_t i = 0; i < n; i++) out[i] = fuzz_ctr_value(g, first + i);
}
