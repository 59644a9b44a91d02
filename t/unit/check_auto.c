/* check_auto.c — the elements `check --auto` and the workbench's A check
 * (check_auto_locs): the corners, the block boundary, the last partial tile,
 * the middle and three random elements, per output, each once. The samples'
 * lists are pinned to what the command printed before the choice moved into
 * the engine (they must not change silently: journals and sweeps rely on them). */
#include "check.h"
#include "lua_spec.h"
#include "../tap.h"

static dg_problem *load(const char *spec)
{
  char *path = dg_printf("%s/samples/%s", DG_DATADIR, spec);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  bool ok = !d.nerrors;
  if (!ok) dg_diags_print(stdout, &p->sm, &d);
  dg_diags_free(&d);
  free(path);
  if (!ok) { dg_problem_free(p); return NULL; }
  return p;
}

static char *list(const dg_problem *p, uint64_t seed)
{
  check_loc *l;
  size_t n = check_auto_locs(p, seed, &l);
  dg_buf b = {0};
  dg_buf_puts(&b, "");
  for (size_t i = 0; i < n; i++) {
    if (i) dg_buf_putc(&b, ' ');
    check_format_elem(&b, p, l[i].tensor, l[i].idx, l[i].rank);
  }
  free(l);
  return dg_buf_take(&b);
}

static void pinned(const char *spec, const char *want)
{
  dg_problem *p = load(spec);
  if (!p) { ok(0, "%s loads", spec); return; }
  char *got = list(p, 1);
  is_str(got, want, "%s: --auto's elements as before", spec);
  free(got);
  dg_problem_free(p);
}

static void test_pinned(void)
{
  /* block 128 > C = 77: the partial tile starts at 0 */
  pinned("softmax/softmax_warp.lua", "y[0,0] y[6,76] y[6,0] y[6,38] y[3,62] y[4,76] y[1,76]");
  pinned("matmul/matmul_tiled.lua", "c[0,0] c[32,19] c[32,15] c[32,16] c[32,10] c[10,2] c[8,3] c[5,2]");
  /* block 256 < N = 1001: both sides of the boundary and the last tile */
  pinned("elementwise/gelu_tanh_float4.lua", "y[0] y[1000] y[255] y[256] y[768] y[500] y[87] y[216] y[613]");
}

static void test_seed(void)
{
  dg_problem *p = load("softmax/softmax_warp.lua");
  if (!p) { ok(0, "softmax_warp loads"); return; }
  char *a = list(p, 1), *b = list(p, 1), *c = list(p, 7);
  is_str(a, b, "the same seed gives the same elements");
  ok(strcmp(a, c) != 0, "another seed draws other random elements");
  ok(!strncmp(c, "y[0,0] y[6,76] y[6,0] y[6,38] ", 30), "but the fixed ones stay first (%s)", c);
  free(a), free(b), free(c);
  check_loc *l;
  size_t n = check_auto_locs(p, 7, &l);
  bool distinct = true, inside = true;
  for (size_t i = 0; i < n; i++) {
    inside &= l[i].tensor >= 0 && l[i].rank == 2 && l[i].idx[0] >= 0 && l[i].idx[0] < 7 && l[i].idx[1] >= 0 && l[i].idx[1] < 77;
    for (size_t j = 0; j < i; j++) distinct &= memcmp(l[i].idx, l[j].idx, sizeof l[i].idx) != 0;
  }
  ok(inside, "every element is inside y (7 x 77)");
  ok(distinct, "each element once");
  free(l);
  dg_problem_free(p);
}

int main(void)
{
  test_pinned();
  test_seed();
  return tap_done();
}
