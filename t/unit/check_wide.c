/* check_wide.c — which kernels get --auto's instance past 2^32 elements
 * (check_wide_u32): those that index global memory with an unsigned 32-bit
 * product (`x + blockIdx.x * C`, C an int: the 64-bit cast dropped), not
 * those whose product is 64-bit or signed, nor shared-memory indices
 * (`smem[threadIdx.x * 2]`). Runs no case (valgrind cannot run lazy memory).
 * Also the budget's cuts that do not depend on the load: a block cut by work, and
 * the inputs' bounds past the deadline. */
#include "check_int.h"
#include "lua_spec.h"
#include "../tap.h"
#include <string.h>

static int wide_mode(const char *dir, const char *spec, bool total)
{
  char *path = dg_printf("%s/%s/%s", DG_DATADIR, dir, spec);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  int r = -1;
  emu_kernels k;
  memset(&k, 0, sizeof k);
  if (p && !d.nerrors && emu_kernels_load(&k, p, &d)) {
    r = total ? check_wide_total(&k) : check_wide_u32(&k);
    emu_kernels_free(&k);
  }
  dg_diags_free(&d);
  dg_problem_free(p);
  free(path);
  return r;
}

/* emu_opts.max_lane_ops (session 9): a run cut by work, not by the clock —
 * check_big.c measures a block's work and check_huge_heavy cuts the writer's
 * block with it, so that which instances --auto checks and whether a writer
 * block is "heavy" no longer depend on the machine's load. One block of
 * conv2d_k3 (16 pixels, C channels) with the cap and without. */
static void work_cap(void)
{
  char *path = dg_printf("%s/samples/conv/conv2d_k3.lua", DG_DATADIR);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  emu_kernels k;
  memset(&k, 0, sizeof k);
  bool loaded = p && !d.nerrors && emu_kernels_load(&k, p, &d);
  ok(loaded, "conv2d_k3 loads");
  if (loaded) {
    int64_t sz[16];
    dg_problem_default_sizes(p, sz);
    static const struct { const char *n; int64_t v; } set[] = { {"N", 1}, {"C", 200}, {"H", 4}, {"W", 4}, {"K", 1} };
    for (size_t i = 0; i < sizeof set / sizeof *set; i++) sz[dg_problem_size(p, set[i].n)] = set[i].v;
    uint64_t ops[3];
    simt_status st[3];
    const uint64_t cap = (uint64_t)1 << 18;
    for (int r = 0; r < 3; r++) {
      emu_io io;
      emu_result res = {0};
      int64_t b = 0;
      emu_opts eo = { .blocks = &b, .nblocks = 1, .max_lane_ops = r < 2 ? cap : 0 };
      st[r] = SIMT_BADARGS, ops[r] = 0;
      if (emu_io_init(&io, p, sz, &d)) {
        if (emu_run(p, &k, sz, &io, &eo, &res, &d)) st[r] = res.status, ops[r] = res.lane_ops;
        emu_result_free(&res);
        emu_io_free(&io);
      }
    }
    ok(st[2] == SIMT_OK && ops[2] > 2 * cap, "uncapped: the block runs to its end (%llu lane operations)",
       (unsigned long long)ops[2]);
    ok(st[0] == SIMT_STOPPED && ops[0] > cap && ops[0] < ops[2], "capped at %llu: stopped after %llu",
       (unsigned long long)cap, (unsigned long long)ops[0]);
    ok(ops[0] == ops[1] && st[1] == SIMT_STOPPED, "the same work twice (%llu, %llu): a cut no load moves",
       (unsigned long long)ops[0], (unsigned long long)ops[1]);
    emu_kernels_free(&k);
  }
  dg_diags_free(&d);
  dg_problem_free(p);
  free(path);
}

/* check_bounds (check.c) under the check's deadline (session 12): 900,000 inputs' bounds were
 * ~2 s of terms with no clock; it looks every 4096 variables and gives no bounds (TERM_NONE),
 * never a part of them, once the deadline passed; a few variables are never cut (a query
 * answered without Z3 past the deadline still answers). */
static void bounds_deadline(void)
{
  chk c = { .tc = term_ctx_new(TERM_MODEL_REAL) };
  for (int i = 0; i < 5000; i++) {
    term_varinfo vi = { TERM_VAR_INPUT, "x", i, DG_TY_F32, NULL };
    term_var(c.tc, TERM_S_REAL, &vi);
  }
  ok(check_bounds(&c, 0) != TERM_NONE, "5000 inputs' bounds with no deadline: a term");
  c.deadline = dg_now() + 600;
  ok(check_bounds(&c, 100) != TERM_NONE, "... with the deadline ahead: a term");
  c.deadline = dg_now() - 1;
  ok(check_bounds(&c, 0) == TERM_NONE, "... past the deadline: none (the caller says unknown)");
  term_ctx_free(c.tc);
  c.tc = term_ctx_new(TERM_MODEL_REAL);
  term_varinfo vi = { TERM_VAR_INPUT, "x", 0, DG_TY_F32, NULL };
  term_var(c.tc, TERM_S_REAL, &vi);
  ok(check_bounds(&c, 0) != TERM_NONE, "one input past the deadline: its bounds (too few to look at the clock)");
  term_ctx_free(c.tc);
}

static int wide(const char *dir, const char *spec) { return wide_mode(dir, spec, false); }
static int total(const char *dir, const char *spec) { return wide_mode(dir, spec, true); }

int main(void)
{
  static const char *const yes[] = { "cumsum_block_u32ld.lua", "cumsum_block_u32st.lua", "sum_rows_smem_u32.lua" };
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    ok(wide("t/data/hugewide", yes[i]) == 1, "%s: an unsigned 32-bit row offset", yes[i]);
  ok(wide("t/data/uoff", "rowsum_u32.lua") == 1, "rowsum_u32: x + blockIdx.x * C, and r += blockIdx.x * C");
  ok(wide("t/data/uoff", "rowsum_u32_step.lua") == 1, "rowsum_u32_step: r += blockIdx.x * C");
  ok(wide("t/data/hugewide", "attention_online_u32.lua") == 1, "attention_online: size_t base = blockIdx.y * T * D");
  ok(wide("t/data/uoff", "rowsum_i32.lua") == 0, "rowsum_i32: a signed product (the instance past 2^31 finds it)");
  /* the correct originals: (size_t)blockIdx.x * C is a 64-bit product; and kernels that only
   * index shared memory or use 32-bit thread ids as indices */
  static const char *const no[] = {
    "scan/cumsum_block.lua", "reduce/sum_rows_smem.lua", "softmax/softmax_block.lua", "norm/layernorm_block.lua",
    "reduce/l2norm_block.lua", "softmax/softmax_warp.lua", "matmul/matmul_tiled.lua", "attention/attention_online.lua",
    "reduce/reduce6.lua",
  };
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    ok(wide("samples", no[i]) == 0, "%s: no unsigned 32-bit product into global memory", no[i]);
  /* size_t total = N * C * HW with ints: wraps to a small count just past 2^32 */
  ok(total("t/data/hugewide", "batchnorm_infer_i32.lua") == 1, "batchnorm_infer: (size_t)(N * C * HW)");
  ok(total("samples", "norm/batchnorm_infer.lua") == 0, "the correct batchnorm_infer: (size_t)N * C * HW");
  ok(total("t/data/hugewide", "cumsum_block_u32ld.lua") == 0, "cumsum_block_u32ld: no signed product widened");
  const char *list = getenv("DG_WIDE_LIST");     /* diagnostics: a file of SPEC paths under the data dir */
  FILE *f = list ? fopen(list, "r") : NULL;
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (*line) printf("# %s: %d %d\n", line, wide(".", line), total(".", line));
  }
  if (f) fclose(f);
  work_cap();
  bounds_deadline();
  return tap_done();
}
