/* check_auto.c — which elements `check --auto` checks (and the workbench's A):
 * per output tensor at the spec's sizes, the corners and the places where
 * kernels go wrong along the last dimension (the block boundary, the start of
 * the last partial tile, the middle), then a few random elements. One list
 * for the command line and the screen, so both check the same elements. */
#include "check.h"
#include <string.h>

typedef DG_VEC(check_loc) locvec;

static void add(locvec *v, check_loc l)
{
  for (size_t i = 0; i < v->n; i++)
    if (v->v[i].tensor == l.tensor && !memcmp(v->v[i].idx, l.idx, sizeof l.idx)) return;
  dg_vec_push(v, l);
}

size_t check_auto_locs(const dg_problem *p, uint64_t seed, check_loc **locs)
{
  locvec out = {0};
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  int64_t grid[3], block[3] = {1, 1, 1}, sh;
  dg_diags d = {0};
  if (p->launches.n) dg_problem_launch_dims(p, (int)p->launches.n - 1, sizes, grid, block, &sh, &d);
  dg_rng rng;
  dg_rng_seed(&rng, seed);
  for (size_t t = 0; t < p->tensors.n; t++) {
    if (p->tensors.v[t].role != DG_TENSOR_OUTPUT) continue;
    int rank = (int)p->tensors.v[t].shape.n;
    int64_t dims[8];
    if (rank > 8 || !dg_problem_shape(p, (int)t, sizes, dims, &d)) continue;
    bool empty = false;
    for (int i = 0; i < rank; i++) empty |= dims[i] <= 0;
    if (empty) continue;
    check_loc first = { (int)t, rank, {0} }, last = first;
    for (int i = 0; i < rank; i++) last.idx[i] = dims[i] - 1;
    add(&out, first);
    add(&out, last);
    /* the last dimension: the block boundary and the start of the last (partial) tile */
    int64_t bs = block[0] > 0 ? block[0] : 1, D = rank ? dims[rank - 1] : 1;
    int64_t cand[] = { bs - 1, bs, (D - 1) / bs * bs, D / 2 };
    for (size_t c = 0; c < sizeof cand / sizeof *cand && rank; c++) {
      if (cand[c] < 0 || cand[c] >= D) continue;
      check_loc l = last;
      l.idx[rank - 1] = cand[c];
      add(&out, l);
    }
    for (int r = 0; r < 3; r++) {
      check_loc l = first;
      for (int i = 0; i < rank; i++) l.idx[i] = (int64_t)dg_rng_below(&rng, (uint64_t)dims[i]);
      add(&out, l);
    }
  }
  dg_diags_free(&d);
  free(sizes);
  *locs = out.v;
  return out.n;
}

/* ---- boundary instances ------------------------------------------------------ */
/* A kernel proved at N = 1000 may still drop the tail at N = 1001: the spec's
 * sizes are often multiples of everything. One size at a time (the last
 * declared first: the row length of most ops), the others at the spec's,
 * moved to spec + 1, then to 1, then to spec - 1; kept when the spec's
 * constraints admit it, no tensor grows past twice its spec size (plus a
 * little), every output has an element, and it is new. */
int check_boundary_sizes(const dg_problem *p, int64_t *out, int max)
{
  size_t ns = p->sizes.n;
  int n = 0;
  if (!ns || max <= 0) return 0;
  int64_t *spec = dg_malloc(sizeof *spec * ns), *sz = dg_malloc(sizeof *sz * ns);
  dg_problem_default_sizes(p, spec);
  for (int pass = 0; pass < 3 && n < max; pass++)
    for (size_t j = ns; j-- > 0 && n < max;) {
      memcpy(sz, spec, sizeof *sz * ns);
      int64_t v = pass == 0 ? spec[j] + 1 : pass == 1 ? 1 : spec[j] - 1;
      if (v < 1 || v == spec[j]) continue;
      sz[j] = v;
      dg_diags d = {0};
      bool good = dg_problem_check_sizes(p, sz, &d);
      for (size_t t = 0; good && t < p->tensors.n; t++) {
        int64_t ne = dg_problem_numel(p, (int)t, sz), ns0 = dg_problem_numel(p, (int)t, spec);
        good = ne >= 0 && ne <= 2 * ns0 + 4096 && (p->tensors.v[t].role != DG_TENSOR_OUTPUT || ne > 0);
      }
      dg_diags_free(&d);
      for (int k = 0; good && k < n; k++) good = memcmp(out + (size_t)k * ns, sz, sizeof *sz * ns) != 0;
      if (good) memcpy(out + (size_t)n++ * ns, sz, sizeof *sz * ns);
    }
  free(spec), free(sz);
  return n;
}

/* ---- the elements at other sizes --------------------------------------------- */
size_t check_tail_locs(const dg_problem *p, const int64_t *sizes, check_loc **locs)
{
  DG_VEC(check_loc) v = {0};
  dg_diags d = {0};
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int rank = (int)ts->shape.n;
    int64_t dims[8];
    if (ts->role != DG_TENSOR_OUTPUT || rank > 8 || !dg_problem_shape(p, (int)t, sizes, dims, &d)) continue;
    bool empty = false;
    for (int i = 0; i < rank; i++) empty |= dims[i] <= 0;
    if (empty) continue;
    /* the last element (the largest offsets), then the start of the last
     * outermost slice (the last tile's first row) */
    check_loc last = { (int)t, rank, {0} }, start = last;
    for (int i = 0; i < rank; i++) last.idx[i] = dims[i] - 1;
    if (rank) start.idx[0] = dims[0] - 1;
    dg_vec_push(&v, last);
    if (memcmp(start.idx, last.idx, sizeof last.idx)) dg_vec_push(&v, start);
  }
  dg_diags_free(&d);
  *locs = v.v;
  return v.n;
}
