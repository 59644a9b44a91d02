/* check_inst.c — the instances `check --auto` and the workbench's A go on to
 * when the spec's sizes show nothing (check_inst.h): boundary ones first,
 * then huge ones, their tail elements each once, the problem's sizes set
 * and restored, and the words and command line both clients print. */
#include "check_inst.h"
#include "lua_spec.h"
#include "../tap.h"
#include <string.h>

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

static bool at_spec(const dg_problem *p, const int64_t *spec)
{
  for (size_t i = 0; i < p->sizes.n; i++)
    if (p->sizes.v[i].value != spec[i]) return false;
  return true;
}

static void test_stages(void)
{
  dg_problem *p = load("softmax/softmax_warp.lua");      /* N = 7, C = 77 */
  if (!p) { ok(0, "softmax_warp loads"); return; }
  int64_t spec[2] = { p->sizes.v[0].value, p->sizes.v[1].value };
  check_insts in = {0};
  check_iloc *l;
  size_t n = check_insts_next(p, NULL, &in, &l);
  ok(n > 0 && l, "the first stage has elements (%zu)", n);
  is_int(in.stage, 1, "the first stage is the boundary one");
  ok(in.n > 0 && in.n <= CHECK_INST_BOUNDARY, "boundary instances: %d", in.n);
  bool inrange = true, distinct = true, moved = true;
  for (size_t i = 0; i < n; i++) {
    inrange &= l[i].inst >= 1 && l[i].inst <= in.n && !in.huge[l[i].inst - 1];
    for (size_t j = 0; j < i; j++)
      distinct &= !(l[i].inst == l[j].inst && l[i].at.tensor == l[j].at.tensor &&
                    !memcmp(l[i].at.idx, l[j].at.idx, sizeof l[i].at.idx));
  }
  for (int k = 1; k <= in.n; k++) {
    const int64_t *sz = check_insts_sizes(&in, k);
    int diff = 0;
    for (size_t i = 0; i < p->sizes.n; i++) diff += sz[i] != spec[i];
    moved &= diff == 1;
  }
  ok(inrange, "each element names a boundary instance of this stage");
  ok(distinct, "each element once per instance");
  ok(moved, "each boundary instance moves exactly one size");
  ok(at_spec(p, spec), "the problem is at the spec's sizes after a stage is chosen");
  ok(check_insts_sizes(&in, 0) && !memcmp(check_insts_sizes(&in, 0), spec, sizeof spec), "instance 0 is the spec");

  /* the last declared size first: C = 78 */
  dg_buf b = {0};
  check_insts_describe(&b, p, &in, 1);
  is_str(b.s, "a boundary instance (C=78 for 77)", "the first instance described, with the size it moved");
  b.n = 0;
  check_insts_format_sizes(&b, p, &in, 1);
  is_str(b.s, "N=7, C=78", "its sizes");
  check_insts_use(p, &in, 1);
  is_int(p->sizes.v[1].value, 78, "use sets the problem's sizes to the instance");
  b.n = 0;
  check_iloc one = l[0];
  check_insts_command(&b, p, "sm.lua", &in, &one);
  char *want = dg_printf("dirigo check sm.lua --size N=%lld --size C=%lld --at %lld,%lld",
                         (long long)check_insts_sizes(&in, one.inst)[0], (long long)check_insts_sizes(&in, one.inst)[1],
                         (long long)one.at.idx[0], (long long)one.at.idx[1]);
  is_str(b.s, want, "the command line that checks the element alone");
  free(want);
  check_insts_use(p, &in, 0);
  ok(at_spec(p, spec), "use 0 sets the spec's sizes back");
  b.n = 0;
  check_insts_describe(&b, p, &in, 0);
  is_int(b.n, 0, "instance 0 is not described");
  free(l);

  check_insts_use(p, &in, 2);          /* the next stage is chosen from the spec's sizes anyway */
  int before = in.n;
  n = check_insts_next(p, NULL, &in, &l);
  is_int(in.stage, 2, "the second stage is the huge one");
  ok(at_spec(p, spec), "the problem is at the spec's sizes again");
  bool huge = true;
  for (size_t i = 0; i < n; i++) huge &= l[i].inst > before && in.huge[l[i].inst - 1];
  ok(huge, "its %zu elements are at huge instances", n);
  free(l);
  n = check_insts_next(p, NULL, &in, &l);
  ok(n == 0 && !l, "then nothing is left");
  dg_buf_free(&b);
  check_insts_free(&in);
  dg_problem_free(p);
}

/* embedding_int32: a huge instance (the table past 2^31 elements) */
static void test_huge(void)
{
  dg_problem *p = load("embedding/embedding_int32.lua");
  if (!p) { ok(0, "embedding_int32 loads"); return; }
  check_insts in = {0};
  check_iloc *l;
  size_t n = check_insts_next(p, NULL, &in, &l);
  free(l);
  int before = in.n;
  n = check_insts_next(p, NULL, &in, &l);
  ok(n > 0 && in.n > before, "embedding_int32: huge elements (%zu) after the boundary ones", n);
  if (n) {
    ok(in.huge[l[0].inst - 1], "at a huge instance");
    dg_buf b = {0};
    check_insts_describe(&b, p, &in, l[0].inst);
    is_str(b.s, "a huge instance (an input past 2^31 elements)", "described as one");
    int64_t numel = 0;
    check_insts_use(p, &in, l[0].inst);
    int64_t *sz = dg_malloc(sizeof *sz * (p->sizes.n + 1));
    dg_problem_default_sizes(p, sz);
    for (size_t t = 0; t < p->tensors.n; t++)
      if (dg_problem_numel(p, (int)t, sz) > numel) numel = dg_problem_numel(p, (int)t, sz);
    ok(numel > ((int64_t)1 << 31), "an input past 2^31 elements (%lld)", (long long)numel);
    free(sz);
    dg_buf_free(&b);
  }
  free(l);
  check_insts_free(&in);
  dg_problem_free(p);
}

/* the tensor is named when it is not the first output */
static void test_command_tensor(void)
{
  dg_problem *p = load("softmax/softmax_warp.lua");
  if (!p) { ok(0, "softmax_warp loads"); return; }
  check_insts in = {0};
  check_iloc *l;
  size_t n = check_insts_next(p, NULL, &in, &l);
  int in_t = dg_problem_tensor(p, "x");
  if (n && in_t >= 0) {
    check_iloc o = l[0];
    o.at.tensor = in_t;
    dg_buf b = {0};
    check_insts_command(&b, p, "P", &in, &o);
    has_str(b.s, " --at x:", "another tensor than the first output is named (NAME:i,j)");
    dg_buf_free(&b);
  } else ok(0, "softmax_warp has boundary elements and an input x");
  free(l);
  check_insts_free(&in);
  dg_problem_free(p);
}

int main(void)
{
  test_stages();
  test_huge();
  test_command_tensor();
  return tap_done();
}
