/* mutate.c — the mutation operators (src/mutate.c): where each one plants
 * its bug, what it writes, and which functions it leaves alone. */
#include "mutate.h"
#include "../tap.h"

static const char src[] =
  "#include <cuda_runtime.h>\n"                                               /* 1 */
  "template <int B> __device__ float warp_max(float v) {\n"                   /* 2 */
  "  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));\n"
  "  return v;\n"                                                             /* 4 */
  "}\n"                                                                       /* 5 */
  "__global__ void k(float* y, const float* x, int N, int C) {\n"             /* 6 */
  "  __shared__ float sh[32];\n"                                              /* 7 */
  "  int row = blockIdx.x; float m = -INFINITY, s = 0.0f;\n"                  /* 8 */
  "  for (int c = threadIdx.x; c < C; c += 32) m = fmaxf(m, x[(size_t)row * C + c]);\n"
  "  m = warp_max<32>(m);\n"                                                  /* 10 */
  "  sh[threadIdx.x] = m; __syncthreads();\n"                                 /* 11 */
  "  s += sh[0];\n"                                                           /* 12 */
  "  if (threadIdx.x == 0) y[row] = s;\n"                                     /* 13 */
  "}\n"                                                                       /* 14 */
  "__global__ void unused(float* y) { if (threadIdx.x < 3) y[0] += 1.0f; }\n";/* 15 */

/* The mutant at line:col of operator op, or NULL. */
static const dg_mutant *at(const dg_mutants *v, dg_mutop op, unsigned line, unsigned col)
{
  for (size_t i = 0; i < v->n; i++)
    if (v->v[i].op == op && v->v[i].line == line && v->v[i].col == col) return &v->v[i];
  return NULL;
}

static void applied(const dg_mutant *m, const char *want_line, const char *name)
{
  char *t = m ? dg_mutant_apply(src, sizeof src - 1, m) : NULL;
  has_str(t, want_line, "%s", name);
  free(t);
}

int main(void)
{
  const char *roots[] = { "k" };
  dg_mutants v = {0};
  dg_mutate(src, sizeof src - 1, roots, 1, ~0u, &v);
  const dg_mutant *m;

  m = at(&v, DG_MUT_REL, 9, 31);
  ok(m, "rel: the loop bound `c < C` at 9:31");
  is_str(m ? m->desc : NULL, "`<` -> `<=`", "rel: described");
  applied(m, "c <= C; c += 32", "rel: applied in place");
  ok(at(&v, DG_MUT_REL, 3, 22), "rel: inside the device function the kernel calls (`o > 0`)");
  ok(!at(&v, DG_MUT_REL, 2, 10), "rel: not the template's `<`");

  m = at(&v, DG_MUT_ACC, 12, 5);
  ok(m, "acc: `s += sh[0]` at 12:5");
  applied(m, "  s = sh[0];\n", "acc: `+=` -> `=`");

  m = at(&v, DG_MUT_SYNC, 11, 24);
  ok(m, "sync: the barrier statement at 11:24");
  applied(m, "sh[threadIdx.x] = m; ;\n", "sync: removed, an empty statement left");
  is_str(m ? m->desc : NULL, "`__syncthreads();` removed", "sync: described");

  m = at(&v, DG_MUT_PAD, 8, 35);
  ok(m, "pad: `-INFINITY` at 8:35");
  applied(m, "float m = 0.0f, s = 0.0f;", "pad: -> 0.0f");

  m = at(&v, DG_MUT_CAST, 9, 60);
  ok(m, "cast: `(size_t)row` at 9:60");
  applied(m, "x[(row) * C + c]", "cast: dropped, the operand kept");
  is_str(m ? m->desc : NULL, "cast to `size_t` dropped", "cast: described");

  ok(at(&v, DG_MUT_INIT, 8, 46), "init: `s = 0.0f` at 8:46");
  applied(at(&v, DG_MUT_INIT, 8, 46), "float m = -INFINITY, s;", "init: the initialiser dropped");
  ok(!at(&v, DG_MUT_INIT, 8, 31), "init: not `m = -INFINITY` (no number)");
  ok(!at(&v, DG_MUT_INIT, 3, 12), "init: not a loop counter's (`for (int o = 16; ...`)");
  ok(!at(&v, DG_MUT_ACC, 9, 38), "acc: not a loop's step (`c += 32`)");

  m = at(&v, DG_MUT_MASK, 3, 65);
  ok(m, "mask: the full mask of __shfl_xor_sync at 3:65");
  applied(m, "__shfl_xor_sync(0x7fffffffu, v, o)", "mask: lane 31 left out");

  m = at(&v, DG_MUT_SHFL, 3, 49);
  ok(m, "shfl: __shfl_xor_sync at 3:49");
  applied(m, "__shfl_down_sync(0xffffffff", "shfl: -> __shfl_down_sync");

  m = at(&v, DG_MUT_MINMAX, 3, 40);
  ok(m, "minmax: fmaxf at 3:40");
  applied(m, "v = fminf(v, ", "minmax: -> fminf");

  for (size_t i = 0; i < v.n; i++)
    if (v.v[i].line == 15) ok(0, "the kernel nobody launches is not mutated (%s at 15:%u)", v.v[i].desc, v.v[i].col);
  int sorted = 1;
  for (size_t i = 1; i < v.n; i++) sorted &= v.v[i - 1].start <= v.v[i].start;
  ok(sorted, "mutants in source order (%zu of them)", v.n);
  dg_mutants_free(&v);

  /* one operator alone; a qualified root; the unused kernel when named */
  const char *roots2[] = { "ns::unused" };
  dg_mutate(src, sizeof src - 1, roots2, 1, 1u << DG_MUT_ACC, &v);
  is_int(v.n, 1, "--ops acc on `unused` (named ns::unused): one mutant");
  ok(v.n == 1 && v.v[0].line == 15, "the `+=` of line 15");
  dg_mutants_free(&v);

  /* atomic: a statement's atomic done as a plain update; an atomic whose value is used is left */
  static const char asrc[] =
    "__global__ void a(float* acc, int* m, int* cnt, const float* x, unsigned* u) {\n"  /* 1 */
    "  int r = blockIdx.x;\n"                                                      /* 2 */
    "  if (threadIdx.x == 0) atomicAdd(&acc[r], x[r]);\n"                          /* 3 */
    "  atomicMax(m + r, (int)x[r]); atomicMin(&m[0], 3);\n"                        /* 4 */
    "  int t = atomicAdd(cnt, 1); atomicSub(u, 1u);\n"                             /* 5 */
    "  if (t == 0) acc[0] = 1.0f;\n"                                               /* 6 */
    "}\n";
  const char *aroots[] = { "a" };
  dg_mutate(asrc, sizeof asrc - 1, aroots, 1, 1u << DG_MUT_ATOMIC, &v);
  is_int(v.n, 4, "atomic: four statements' atomics, not the one whose value is used (%zu)", v.n);
  static const char *const want[][2] = {
    { "atomicAdd(&acc[r], x[r]);", "acc[r] += x[r];" }, { "atomicMax(m + r, (int)x[r]);", "*(m + r) = max(*(m + r), (int)x[r]);" },
    { "atomicMin(&m[0], 3);", "m[0] = min(m[0], 3);" }, { "atomicSub(u, 1u);", "*(u) -= 1u;" } };
  static const unsigned wl[] = { 3, 4, 4, 5 }, wc[] = { 25, 3, 32, 30 };
  for (size_t i = 0; i < 4 && i < v.n; i++) {
    char *t = dg_mutant_apply(asrc, sizeof asrc - 1, &v.v[i]);
    ok(t && strstr(t, want[i][1]) && !strstr(t, want[i][0]), "atomic %zu: `%s` -> `%s`", i, want[i][0], want[i][1]);
    ok(v.v[i].line == wl[i] && v.v[i].col == wc[i], "atomic %zu at %u:%u (%u:%u)", i, wl[i], wc[i], v.v[i].line, v.v[i].col);
    free(t);
  }
  is_str(v.n ? v.v[0].desc : NULL, "`atomicAdd` -> `acc[r] += x[r]`", "atomic: described");
  is_int(dg_mutop_lookup("atomic"), DG_MUT_ATOMIC, "atomic: looked up by name");
  dg_mutants_free(&v);

  is_int(dg_mutop_lookup("sync"), DG_MUT_SYNC, "lookup by name");
  is_int(dg_mutop_lookup("nope"), -1, "an unknown name");
  dg_mutate("", 0, roots, 1, ~0u, &v);
  is_int(v.n, 0, "an empty source: no mutant");
  return tap_done();
}
