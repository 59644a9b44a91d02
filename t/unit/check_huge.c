/* check_huge.c — --auto's huge instances (check_huge_sizes, check_tail_locs):
 * one input past 1.25 * 2^31 elements, every other tensor at most 2^22, the
 * grid inside CUDA's limits, index ranges inside their dtype, and a row
 * walked inside one block kept short (embedding: the vocabulary grows, not
 * the row); the elements are the last one and the start of the last
 * outermost slice. No case runs here (valgrind cannot run lazy memory). */
#include "check.h"
#include "lua_spec.h"
#include "../tap.h"

static dg_problem *load(const char *spec)
{
  char *path = dg_printf("%s/samples/%s", DG_DATADIR, spec);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  bool good = !d.nerrors;
  dg_diags_free(&d);
  free(path);
  if (!good) { dg_problem_free(p); return NULL; }
  return p;
}

static int64_t sz(const dg_problem *p, const int64_t *s, const char *name) { return s[dg_problem_size(p, name)]; }

static void test_embedding(void)
{
  dg_problem *p = load("embedding/embedding_int32.lua");
  if (!p) { ok(0, "embedding_int32 loads"); return; }
  int64_t s[4 * 16];
  int n = check_huge_sizes(p, NULL, s, 4, 0);
  ok(n >= 1, "embedding: a huge instance (%d)", n);
  if (n >= 1) {
    int64_t N = sz(p, s, "N"), V = sz(p, s, "V"), D = sz(p, s, "D");
    ok((V - 1) * D >= ((int64_t)5 << 29), "the last row's offset (V-1)*D = %lld passes 1.25 * 2^31",
       (long long)((V - 1) * D));
    ok(V - 1 < ((int64_t)1 << 31), "the largest id V-1 = %lld fits the i32 ids", (long long)(V - 1));
    ok(D >= 40 && D <= 64, "the row (one block walks it) stays short: D = %lld", (long long)D);
    ok(N * D <= ((int64_t)1 << 22), "the output is small (%lld elements)", (long long)(N * D));
    check_loc *l;
    size_t nl = check_tail_locs(p, s, &l);
    ok(nl >= 1 && l[0].rank == 2 && l[0].idx[0] == N - 1 && l[0].idx[1] == D - 1, "the first element is the last one");
    if (nl >= 2) ok(l[1].idx[0] == N - 1 && l[1].idx[1] == 0, "then the start of the last row");
    else ok(N == 1 && D == 1, "one element only when the output has one");
    free(l);
  }
  dg_problem_free(p);
}

static void test_bmm(void)
{
  dg_problem *p = load("matmul/bmm_int32.lua");
  if (!p) { ok(0, "bmm_int32 loads"); return; }
  int64_t s[4 * 16];
  int n = check_huge_sizes(p, NULL, s, 4, 0);
  ok(n >= 1, "bmm: huge instances (%d)", n);
  for (int k = 0; k < n; k++) {
    int64_t *v = s + k * (int)p->sizes.n;
    int64_t B = sz(p, v, "B"), M = sz(p, v, "M"), N = sz(p, v, "N"), K = sz(p, v, "K");
    bool a = (B - 1) * M * K >= ((int64_t)5 << 29), b = (B - 1) * K * N >= ((int64_t)5 << 29);
    ok(a != b, "instance %d: exactly one of a, b past 1.25 * 2^31 (B=%lld M=%lld N=%lld K=%lld)", k,
       (long long)B, (long long)M, (long long)N, (long long)K);
    ok(B * M * N <= ((int64_t)1 << 22) && B <= 65535, "instance %d: c small, the grid inside its limits", k);
    for (int j = 0; j < k; j++)
      ok(memcmp(v, s + j * (int)p->sizes.n, sizeof *v * p->sizes.n), "instance %d differs from %d", k, j);
  }
  /* choosing runs blocks (with kernels) and honours the check's deadline:
   * past it, the budget is spent and nothing is chosen (session 10: the
   * chooser ran 8 s past a sweep child's budget on matmul_tn_naive) */
  int64_t s2[4 * 16];
  is_int(check_huge_sizes(p, NULL, s2, 4, dg_now() - 1), 0, "bmm: a deadline already past: no instance chosen");
  is_int(check_huge_sizes(p, NULL, s2, 4, dg_now() + 3600), n, "a deadline far ahead: the same %d", n);
  if (n >= 1) {
    check_loc *l;
    size_t nl = check_tail_locs(p, s, &l);
    ok(nl == 2 && l[0].idx[0] == sz(p, s, "B") - 1 && l[0].idx[1] == sz(p, s, "M") - 1 &&
       l[1].idx[0] == sz(p, s, "B") - 1 && l[1].idx[1] == 0, "the last element and the last batch's first");
    free(l);
  }
  dg_problem_free(p);
}

/* No instance the check cannot run: a huge index-valued input (its values
 * are held), or more threads than the writer search runs. */
static void test_none(void)
{
  static const char *specs[] = { "atomics/histogram_smem.lua", "atomics/scatter_add.lua" };
  for (size_t i = 0; i < 2; i++) {
    dg_problem *p = load(specs[i]);
    if (!p) { ok(0, "%s loads", specs[i]); continue; }
    int64_t s[4 * 16];
    is_int(check_huge_sizes(p, NULL, s, 4, 0), 0, "%s: no huge instance", specs[i]);
    dg_problem_free(p);
  }
}

/* --auto's boundary instances (check_auto.c): one size at a time at spec + 1,
 * 1, spec - 1, the last declared first, only what the constraints admit */
static void test_boundary(void)
{
  dg_problem *p = load("embedding/embedding_vec4.lua");   /* N=5 V=13 D=24, D % 4 == 0 */
  if (!p) { ok(0, "embedding_vec4 loads"); return; }
  int64_t s[6 * 16];
  int n = check_boundary_sizes(p, s, 6);
  bool admitted = true, one_moved = true, d_only_spec = true;
  for (int k = 0; k < n; k++) {
    int64_t *v = s + k * (int)p->sizes.n;
    int64_t N = sz(p, v, "N"), V = sz(p, v, "V"), D = sz(p, v, "D");
    admitted &= D % 4 == 0;
    one_moved &= (N != 5) + (V != 13) + (D != 24) == 1;
    d_only_spec &= D == 24;
  }
  is_int(n, 6, "embedding_vec4: six boundary instances (N and V at +1, 1, -1)");
  ok(admitted && d_only_spec, "none breaks D %% 4 == 0 (D stays 24: 25, 1 and 23 are refused)");
  ok(one_moved, "each moves one size");
  ok(n >= 1 && sz(p, s, "V") == 14, "the first: the last declared size that may move, at spec + 1 (V=14)");
  is_int(check_boundary_sizes(p, s, 2), 2, "max caps them");
  dg_problem_free(p);
}

int main(void)
{
  test_boundary();
  test_embedding();
  test_bmm();
  test_none();
  return tap_done();
}
