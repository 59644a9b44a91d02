/* huge.c — the sizes of huge fuzz cases (fuzz_huge.c), chosen from the op's
 * schema: one input's last outermost slice starts past 1.25 * 2^31 elements,
 * every other tensor stays under 2^22 elements, the spec's constraints and
 * the grid limits hold, and the values put index inputs at the top of their
 * range. No case runs here (that needs 10 GiB reservations: t/cli/huge.sh),
 * so this test also runs under valgrind. */
#include "fuzz_run.h"
#include "lua_spec.h"
#include "../tap.h"

static dg_problem *load(const char *spec)
{
  char *path = dg_printf("%s/samples/%s", DG_DATADIR, spec);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  bool good = !d.nerrors;
  if (!good) dg_diags_print(stdout, &p->sm, &d);
  dg_diags_free(&d);
  free(path);
  if (!good) { dg_problem_free(p); return NULL; }
  return p;
}

static int tensor(const dg_problem *p, const char *name)
{
  for (size_t t = 0; t < p->tensors.n; t++) if (!strcmp(p->tensors.v[t].name, name)) return (int)t;
  return -1;
}

/* Case k of spec: the target tensor `big` is huge, the rest small. */
static void sizes_ok(const char *spec, int64_t k, const char *big)
{
  dg_problem *p = load(spec);
  if (!p) { ok(0, "%s loads", spec); return; }
  fuzz_space s;
  fuzz_space_ctx ctx;
  fuzz_space_init(&s, &ctx, p, 0);
  fuzz_case c = {0}, c2 = {0};
  bool got = s.huge && s.huge(s.ud, &s, k, &c);
  ok(got && c.huge == 1, "%s: huge case %lld exists", spec, (long long)k);
  if (!got) { dg_problem_free(p); return; }
  s.huge(s.ud, &s, k, &c2);
  ok(!memcmp(c.sizes, c2.sizes, sizeof c.sizes), "%s: the same sizes every time", spec);
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  fuzz_case_sizes(&ctx, &c, sizes);
  dg_diags d = {0};
  ok(dg_problem_check_sizes(p, sizes, &d), "%s: the constraints hold", spec);
  int b = tensor(p, big);
  int64_t dims[8], off = 0;
  if (b >= 0 && dg_problem_shape(p, b, sizes, dims, &d)) {
    off = dims[0] - 1;
    for (size_t i = 1; i < p->tensors.v[b].shape.n; i++) off *= dims[i];
  }
  ok(off >= ((int64_t)5 << 29) && off < ((int64_t)1 << 34),
     "%s: %s's last outermost slice starts at %lld, past 1.25 * 2^31", spec, big, (long long)off);
  int64_t most = 0;
  for (size_t t = 0; t < p->tensors.n; t++) {
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    if ((int)t != b && n > most) most = n;
  }
  ok(most >= 1 && most <= ((int64_t)1 << 22), "%s: every other tensor at most 2^22 elements (%lld)", spec,
     (long long)most);
  int64_t g[3] = {0}, bl[3], sh;
  bool dims_ok = dg_problem_launch_dims(p, 0, sizes, g, bl, &sh, &d);
  ok(dims_ok && g[1] <= 65535 && g[2] <= 65535,
     "%s: the grid fits CUDA's limits (%lld x %lld x %lld)", spec, (long long)g[0], (long long)g[1],
     (long long)g[2]);
  dg_diags_free(&d);
  free(sizes);
  dg_problem_free(p);
}

int main(void)
{
  sizes_ok("embedding/embedding_int32.lua", 0, "w");
  sizes_ok("matmul/bmm_int32.lua", 0, "a");
  sizes_ok("matmul/bmm_tiled.lua", 1, "b");
  sizes_ok("matmul/matmul_tiled.lua", 0, "a");
  sizes_ok("matmul/gemv_warp.lua", 0, "a");
  sizes_ok("conv/conv2d_direct.lua", 1, "w");
  sizes_ok("embedding/embedding_vec4.lua", 0, "w");

  dg_problem *p = load("embedding/embedding_int32.lua");
  if (p) {
    fuzz_space s;
    fuzz_space_ctx ctx;
    fuzz_space_init(&s, &ctx, p, 0);
    fuzz_case c0 = {0}, c1 = {0}, c2 = {0};
    int ids = s.input_has_range[0] ? 0 : 1, w = 1 - ids;
    ok(s.huge(s.ud, &s, 0, &c0) && c0.dist[ids] == FUZZ_DIST_HUGE && c0.dist[w] == FUZZ_DIST_NORMAL,
       "case 0: ids at the top of their range, normal table values");
    ok(s.huge(s.ud, &s, 1, &c1) && c1.dist[ids] == FUZZ_DIST_NORMAL && c1.dist[w] == FUZZ_DIST_UNIFORM,
       "case 1: ids uniform, uniform values");
    ok(!s.huge(s.ud, &s, 2, &c2), "no case 2: one target, two value modes");
    fuzz_case_label(&s, &c0);
    has_str(c0.label, " huge normal", "the label says huge and the values' distribution");
    char *wit = fuzz_witness(&s, "huge", 1, 0, &c0, false);
    has_str(wit, "fuzz:huge:1:0@N=", "a huge case's witness carries its sizes");
    free(wit);
    dg_problem_free(p);
  }
  p = load("softmax/softmax_warp.lua");
  if (p) {
    fuzz_space s;
    fuzz_space_ctx ctx;
    fuzz_space_init(&s, &ctx, p, 0);
    fuzz_case c = {0};
    ok(!s.huge(s.ud, &s, 0, &c), "softmax: no huge case (the output is as large as the input)");
    const fuzz_strategy *st = fuzz_strategy_find("huge");
    dg_rng r;
    dg_rng_seed(&r, 1);
    ok(st && fuzz_strategy_gen(st, &s, 0, &r, &c) && c.huge == 2, "the strategy still gives case 0, to say why");
    ok(!fuzz_strategy_gen(st, &s, 1, &r, &c), "and nothing after it");
    dg_problem_free(p);
  }
  return tap_done();
}
