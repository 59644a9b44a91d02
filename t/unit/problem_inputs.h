/* problem_inputs.h — random inputs for every readable tensor of a problem at
 * given sizes (ranged ones inside their range, "positive" ones > 0), shared
 * by the reference tests. */
#ifndef DG_T_PROBLEM_INPUTS_H
#define DG_T_PROBLEM_INPUTS_H
#include "problem.h"

typedef struct { double **data; size_t n; } inputs;
static void make_inputs(const dg_problem *p, const int64_t *sizes, inputs *in, dg_rng *rng)
{
  in->n = p->tensors.n;
  in->data = dg_calloc(in->n, sizeof *in->data);
  for (size_t t = 0; t < in->n; t++) {
    const dg_tensor *tt = &p->tensors.v[t];
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    in->data[t] = dg_calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    int64_t lo = 0, hi = 0;
    bool rng_int = dg_problem_range(p, (int)t, sizes, &lo, &hi, NULL);
    for (int64_t i = 0; i < n; i++) {
      if (rng_int) in->data[t][i] = (double)(lo + (int64_t)dg_rng_below(rng, (uint64_t)(hi - lo + 1)));
      else if (tt->positive) in->data[t][i] = 0.1 + dg_rng_unit(rng);
      else in->data[t][i] = dg_rng_normal(rng);
    }
  }
}

static void free_inputs(inputs *in)
{
  for (size_t t = 0; t < in->n; t++) free(in->data[t]);
  free(in->data);
}
#endif
