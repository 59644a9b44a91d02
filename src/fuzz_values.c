/* fuzz_values.c — the value distributions of fuzz inputs: their names, and
 * fuzz_fill, the host's way of drawing a tensor. Every distribution is the
 * counter-based definition of fuzz_ctr.c (fuzz.h): element i from its index
 * alone, so a case's inputs are the same bytes on the host, in a lazily
 * filled buffer and on the GPU (gpu_gen.c). */
#include "fuzz.h"
#include <string.h>

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

uint64_t fuzz_input_key(uint64_t case_seed, int t)
{
  dg_rng r;
  dg_rng_seed(&r, case_seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(t + 1)));
  return dg_rng_next(&r);
}

void fuzz_fill(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n)
{
  fuzz_ctr g = { .key = dg_rng_next(r), .dist = o->dist, .dtype = o->dtype, .has_range = o->has_range,
                 .lo = o->lo, .hi = o->hi, .row = o->row, .n = n };
  if (n > 0) fuzz_ctr_fill(&g, 0, n, out);
}
