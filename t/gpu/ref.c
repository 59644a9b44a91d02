/* ref.c — the GPU references (gpu_ref.c). Built three ways:
 *  ref.t without a GPU: the reference source compiles with NVRTC (no GPU
 *    needed) and the samples that get a GPU reference are the expected ones;
 *  ref.t on a GPU: every sample with a GPU reference, the GPU's fp64 values
 *    against the Lua reference on the same random inputs, and fuzz campaigns
 *    judged by it (a correct sample passes, a buggy one fails);
 *  ref_mock.t (DG_MOCK_CUDA): the same on the mocked runtime, whose only
 *    reference kernel is residual_add's: the plumbing (reference launch first
 *    in the batch, its download, the fuzz backend's hook) without a GPU. */
#include "fuzz_gpu.h"
#include "lua_spec.h"
#include "../tap.h"
#include "samples.h"
#include "../unit/problem_inputs.h"
#include <dirent.h>
#include <math.h>



#ifndef DG_MOCK_CUDA
static void compiles(void)
{
  dg_gpu_binary bin;
  dg_diags d = {0};
  dg_gpu_status st = gpu_ref_compile("sm_90", &bin, &d);
  if (st == DG_GPU_NO_DEVICE) {   /* built without CUDA */
    ok(true, "# SKIP no NVRTC: %s", d.v.n ? d.v.v[0].msg : "?");
    dg_diags_free(&d);
    return;
  }
  dg_buf b = {0};
  if (d.v.n) dg_diag_format(&b, NULL, &d.v.v[0]);
  is_int(st, DG_GPU_OK, "the reference kernels compile with NVRTC for sm_90%s%s", b.s ? ": " : "",
         b.s ? b.s : "");
  dg_buf_free(&b);
  const char *const *names;
  int n = gpu_ref_kernel_names(&names);
  bool same = st == DG_GPU_OK && bin.nnames == n;
  for (int i = 0; same && i < n; i++) same = !strcmp(bin.lowered[i], names[i]);
  ok(same, "%d kernels, unmangled (extern \"C\")", n);
  ok(st == DG_GPU_OK && bin.image_len > 4 && !memcmp(bin.image, "\177ELF", 4), "a CUBIN came back");
  if (st == DG_GPU_OK) dg_gpu_binary_free(&bin);
  dg_diags_free(&d);
}

/* Which samples get a GPU reference, at their spec sizes. */
static void coverage(gt_names *samples)
{
  static const char *const want[] = {
    "softmax/softmax_block", "softmax/log_softmax_warp", "norm/layernorm_block", "norm/rmsnorm_half",
    "reduce/col_sum", "reduce/mean_rows", "reduce/max_rows_pairs", "reduce/l2norm_block",
    "matmul/matmul_tiled", "matmul/bmm_tiled", "matmul/gemv_warp", "elementwise/residual_add",
    "elementwise/gelu_erf_vec", "elementwise/silu_half2", "elementwise/elu_template",
    "conv/conv2d_direct", "conv/conv2d_k3", "conv/conv2d_nostride",
  };
  static const char *const not_want[] = { "scan/cumsum_block", "optim/adamw" };
  int with = 0;
  for (size_t i = 0; i < samples->n; i++) {
    dg_problem *p = gt_load(samples->v[i]);
    if (!p) continue;
    int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
    dg_problem_default_sizes(p, sizes);
    gpu_ref_plan pl;
    bool has = gpu_ref_plan_for(p, sizes, &pl);
    with += has;
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
      if (!strcmp(want[k], samples->v[i])) ok(has, "%s (op %s) has a GPU reference", samples->v[i], p->op_name);
    for (size_t k = 0; k < sizeof not_want / sizeof *not_want; k++)
      if (!strcmp(not_want[k], samples->v[i])) ok(!has, "%s (op %s) has none", samples->v[i], p->op_name);
    free(sizes);
    dg_problem_free(p);
  }
  ok(with >= 40, "%d of %zu samples have a GPU reference", with, samples->n);
}
#endif

/* The GPU reference against the Lua one on random inputs at the spec sizes. */
static void agrees(const char *rel, uint64_t seed)
{
  dg_problem *p = gt_load(rel);
  if (!p) return;   /* not a problem spec (scripts/) */
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  gpu_ref_plan pl;
  if (!gpu_ref_plan_for(p, sizes, &pl)) {
    free(sizes);
    dg_problem_free(p);
    return;
  }
  dg_diags d = {0};
  gpu_kernels gk;
  emu_io io;
  bool up = gpu_kernels_load(&gk, p, NULL, &d) && emu_io_init(&io, p, sizes, &d);
  if (!up) {
    dg_diags_print(stdout, &p->sm, &d);
    ok(false, "%s: loads on the GPU", rel);
    gpu_kernels_free(&gk);
    goto out;
  }
  gk.use_ref = true;
  dg_rng rng;
  dg_rng_seed(&rng, seed);
  inputs in;
  make_inputs(p, sizes, &in, &rng);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_INPUT && !ts->accumulate) continue;
    for (int64_t i = 0; i < io.numel[t]; i++)   /* what the device holds */
      in.data[t][i] = io.data[t][i] = dg_dtype_round(ts->dtype, in.data[t][i]);
  }
  gpu_run_result r;
  gpu_run(p, &gk, sizes, &io, &r, &d);
  int64_t n = io.numel[pl.out];
  double *lua = dg_calloc((size_t)n + 1, sizeof *lua);
  uint8_t *def = dg_calloc((size_t)n + 1, 1);
  char *err = NULL;
  dg_ref_env env = { .sizes = sizes, .data = (const double *const *)in.data };
  dg_ref_status rs = dg_problem_ref_eval_all(p, &env, pl.out, lua, def, &err);
  int64_t bad = 0, first = -1, undefined = 0;
  double worst = 0;
  for (int64_t i = 0; gk.ref_out == pl.out && i < n; i++) {
    double a = lua[i], b = gk.want[i];
    dg_gpu_pattern pat = dg_gpu_poison_for("f64");
    if (!def[i]) continue;
    if (!memcmp(&gk.want[i], pat.b, 8)) {
      undefined++;
      continue;
    }
    if ((isnan(a) && isnan(b)) || a == b) continue;
    double rel = fabs(a - b) / fmax(fabs(a), fabs(b));
    if (rel > worst) worst = rel;
    if (!(fabs(a - b) <= 1e-10 * fmax(fabs(a), fabs(b)) + 1e-13) && bad++ == 0) first = i;
  }
  /* the reference ran first: what the kernel did after (a buggy sample's
     out-of-bounds write) does not matter here */
  ok(!r.ref_failed && gk.ref_out == pl.out && rs == DG_REF_OK && bad == 0 && undefined == 0,
     "%s (%s, %s): GPU fp64 reference = Lua reference on %lld elements (worst rel %.2g; %.3f ms)%s%s",
     rel, p->op_name, dg_dtypes[p->tensors.v[pl.in[0]].dtype].name, (long long)n, worst, gk.ref_ms,
     r.msg ? ": " : "", r.msg ? r.msg : "");
  if (bad) printf("#   %lld differ; first [%lld]: Lua %.17g, GPU %.17g\n", (long long)bad, (long long)first,
                  lua[first], gk.want[first]);
  if (undefined) printf("#   %lld elements the GPU reference left unwritten\n", (long long)undefined);
  free(err);
  free(lua);
  free(def);
  free_inputs(&in);
  gpu_run_result_free(&r);
  emu_io_free(&io);
  gpu_kernels_free(&gk);
out:
  dg_diags_free(&d);
  free(sizes);
  dg_problem_free(p);
}

/* The reference at a sample (dg_ref_at) against the whole reference of the
 * same run's inputs: bit for bit at every pick, the f64 poison elsewhere.
 * max_check below the output's size forces the sample at any size. */
static void sampled_agrees(const char *rel, bool realistic, int64_t max_check)
{
  dg_problem *p = gt_load(rel);
  if (!p) return;
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  for (size_t i = 0; realistic && i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) sizes[i] = p->sizes.v[i].realistic;
  dg_diags d = {0};
  gpu_kernels gk;
  memset(&gk, 0, sizeof gk);
  emu_io io;
  gpu_ref_plan pl;
  bool up = gpu_ref_plan_for(p, sizes, &pl) && gpu_kernels_load(&gk, p, NULL, &d) && emu_io_init(&io, p, sizes, &d);
  if (!up) {
    dg_diags_print(stdout, &p->sm, &d);
    ok(false, "%s: loads on the GPU", rel);
    goto out;
  }
  gk.use_ref = true;
  setenv("DIRIGO_GPU_REF_SAMPLED", "1", 1);
  dg_rng rng;
  dg_rng_seed(&rng, 9);
  inputs in;
  make_inputs(p, sizes, &in, &rng);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_INPUT && !ts->accumulate) continue;
    for (int64_t i = 0; i < io.numel[t]; i++) io.data[t][i] = dg_dtype_round(ts->dtype, in.data[t][i]);
  }
  int64_t n = io.numel[pl.out];
  gpu_run_result r;
  gpu_run(p, &gk, sizes, &io, &r, &d);
  double *whole = dg_malloc(sizeof *whole * (size_t)n);
  bool have = gk.ref_out == pl.out && !gk.ref_sampled;
  if (have) memcpy(whole, gk.want, sizeof *whole * (size_t)n);
  double ms_whole = gk.ref_ms;
  gpu_run_result_free(&r);
  bool promised = gpu_run_sample_next(&gk, p, sizes, 77, max_check);
  gpu_run(p, &gk, sizes, &io, &r, &d);
  int64_t *idx = dg_malloc(sizeof *idx * (size_t)max_check);
  int64_t m = fuzz_sample_indices(p, pl.out, sizes, n, max_check, 77, idx);
  uint8_t *in_s = dg_calloc((size_t)n, 1);
  for (int64_t j = 0; j < m; j++) in_s[idx[j]] = 1;
  dg_gpu_pattern pat = dg_gpu_poison_for("f64");
  int64_t same = 0, poisoned = 0, bad = -1;
  for (int64_t i = 0; have && gk.ref_out == pl.out && i < n; i++) {
    bool ok_;
    if (in_s[i]) ok_ = !memcmp(&gk.want[i], &whole[i], 8), same += ok_;
    else ok_ = !memcmp(&gk.want[i], pat.b, 8), poisoned += ok_;
    if (!ok_ && bad < 0) bad = i;
  }
  ok(promised && gk.ref_sampled && !r.ref_failed && same == m && poisoned == n - m && m > 0,
     "%s%s: the reference at a sample of %lld of %lld elements is the whole reference's bit for bit (%lld), "
     "undefined elsewhere (%lld); %.3f ms against %.3f ms", rel, realistic ? " (realistic)" : "", (long long)m,
     (long long)n, (long long)same, (long long)poisoned, gk.ref_ms, ms_whole);
  if (bad >= 0) printf("#   first difference at %lld: %.17g / whole %.17g\n", (long long)bad, gk.want[bad], whole[bad]);
  unsetenv("DIRIGO_GPU_REF_SAMPLED");
  free(idx), free(in_s), free(whole);
  free_inputs(&in);
  gpu_run_result_free(&r);
  emu_io_free(&io);
out:
  gpu_kernels_free(&gk);
  dg_diags_free(&d);
  free(sizes);
  dg_problem_free(p);
}

#ifndef DG_MOCK_CUDA
/* dg_ref_rows of softmax and log_softmax as the plan launches it (1024
 * threads a row past 256 columns, the exponentials in shared memory, session
 * 11) against 256 threads and no shared memory (the kernel as it was: the
 * same threads compute and sum the exponentials, kept in y): the same bits,
 * element for element, at softmax's realistic size (16 x 16384). */
static void rows_blocks(const char *rel)
{
  dg_problem *p = gt_load(rel);
  if (!p) return;
  for (size_t i = 0; i < p->sizes.n; i++)
    if (!strcmp(p->sizes.v[i].name, "N") || !strcmp(p->sizes.v[i].name, "C"))
      p->sizes.v[i].value = p->sizes.v[i].name[0] == 'N' ? 16 : 16384;
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  gpu_ref_plan pl;
  dg_gpu *g = dg_gpu_open(NULL, NULL);
  dg_gpu_binary bin = {0};
  dg_diags d = {0};
  dg_gpu_kernel k[GPU_REF_NKERNELS] = {0};
  char *msg = NULL;
  bool up = gpu_ref_plan_for(p, sizes, &pl) && pl.block.x == 1024 && pl.shmem == 16384 * 8 && g &&
            gpu_ref_compile(dg_gpu_info_of(g)->arch, &bin, &d) == DG_GPU_OK && dg_gpu_load(g, &bin, k, &msg) == DG_GPU_OK;
  int64_t nx = up ? dg_problem_numel(p, pl.in[0], sizes) : 0, ny = up ? dg_problem_numel(p, pl.out, sizes) : 0;
  float *x = dg_malloc(sizeof *x * (size_t)(nx + 1));
  double *y[2] = { dg_malloc(sizeof(double) * (size_t)(ny + 1)), dg_malloc(sizeof(double) * (size_t)(ny + 1)) };
  dg_rng r;
  dg_rng_seed(&r, 11);
  for (int64_t i = 0; i < nx; i++) x[i] = (float)((dg_rng_unit(&r) - 0.5) * 40);
  dg_gpu_buf *bufs = dg_calloc(p->tensors.n, sizeof *bufs), out[2] = {0};
  dg_gpu_status st = up ? dg_gpu_alloc(g, (size_t)nx * 4, dg_gpu_poison_for("f32"), &bufs[pl.in[0]], &msg) : DG_GPU_BAD_REQUEST;
  for (int j = 0; j < 2 && st == DG_GPU_OK; j++) st = dg_gpu_alloc(g, (size_t)ny * 8, dg_gpu_poison_for("f64"), &out[j], &msg);
  dg_gpu_batch b = {0};
  dg_gpu_batch_result res = {0};
  if (st == DG_GPU_OK) {
    dg_gpu_batch_upload(&b, bufs[pl.in[0]], 0, x, (size_t)nx * 4);
    dg_gpu_arg a[2][17];
    for (int j = 0; j < 2; j++) {
      int na = gpu_ref_args(p, &pl, out[j], bufs, a[j]);
      dg_gpu_dim3 blk = { j ? 1024 : 256, 1, 1 };
      dg_gpu_batch_launch_unguarded(&b, k[pl.kind], pl.grid, blk, j ? pl.shmem : 0, a[j], na);
      dg_gpu_batch_download(&b, out[j], 0, y[j], (size_t)ny * 8);
    }
    st = dg_gpu_batch_run(g, &b, &res);
  }
  int64_t same = 0;
  for (int64_t i = 0; st == DG_GPU_OK && i < ny; i++) same += !memcmp(&y[0][i], &y[1][i], 8);
  ok(st == DG_GPU_OK && ny > 0 && same == ny,
     "%s (16 x 16384): dg_ref_rows with 1024 threads a row and the row in shared memory = with 256 and none, bit for "
     "bit (%lld/%lld; %.3f / %.3f ms)%s%s",
     rel, (long long)same, (long long)ny, res.launch_ms.n > 1 ? res.launch_ms.v[1] : 0,
     res.launch_ms.n > 0 ? res.launch_ms.v[0] : 0, msg || res.msg ? ": " : "", msg ? msg : res.msg ? res.msg : "");
  dg_gpu_batch_result_free(&res);
  dg_gpu_batch_free(&b);
  free(msg);
  free(x), free(y[0]), free(y[1]), free(bufs);
  dg_diags_free(&d);
  dg_gpu_binary_free(&bin);
  dg_gpu_close(g);
  free(sizes);
  dg_problem_free(p);
}
#endif

/* A campaign with the GPU backend: its cases are judged by the GPU reference. */
static void campaign(const char *rel, bool expect_pass)
{
  dg_problem *p = gt_load(rel);
  dg_diags d = {0};
  gpu_kernels gk;
  if (!p || !gpu_kernels_load(&gk, p, NULL, &d)) {
    ok(false, "%s loads on the GPU", rel);
    if (p) gpu_kernels_free(&gk), dg_problem_free(p);
    dg_diags_free(&d);
    return;
  }
  fuzz_gpu_timed t = { .gk = &gk };
  fuzz_backend be = fuzz_backend_gpu_timed(&t);
  fuzz_opts o = { .strategy = fuzz_strategy_find("adversarial"), .backend = &be, .ncases = 12, .seed = 3,
                  .keep_going = true };
  fuzz_summary s;
  bool ran = fuzz_campaign(p, NULL, &o, &s, &d);
  ok(ran && t.ref_runs == s.ncases - s.nskip && s.ncases > 0,
     "%s: %lld of %lld cases judged by the GPU reference", rel, (long long)t.ref_runs, (long long)s.ncases);
  if (expect_pass)
    ok(ran && s.npass == s.ncases - s.nskip, "%s: they pass (%lld/%lld)", rel, (long long)s.npass, (long long)s.ncases);
  else
    ok(ran && s.nfail > 0, "%s: the bug is found (%s)", rel, s.nfail ? s.first.msg : "no failure");
  gpu_kernels_free(&gk);
  dg_diags_free(&d);
  dg_problem_free(p);
}

/* A backend's reference of every element, past max_check: judged whole,
 * unless more elements are off than the envelope re-judges (8192); then the
 * sample the CPU path judges. A fake backend (no GPU): y = x + r computed
 * here, its "reference" off by 1 at the first `off` elements. */
static int64_t fake_off;
static emu_io *fake_io;
static bool fake_run(void *self, const dg_problem *p, const int64_t *sizes, emu_io *io, double deadline,
                     fuzz_outcome *out)
{
  (void)self, (void)p, (void)sizes, (void)deadline, (void)out;
  for (int64_t i = 0; i < io->numel[2]; i++) {
    io->data[2][i] = (double)(float)(io->data[0][i] + io->data[1][i]);
    io->written[2][i] = 1;
  }
  fake_io = io;
  return true;
}

static bool fake_ref(void *self, const dg_problem *p, int t, double *want, uint8_t *defined, int64_t n)
{
  (void)self, (void)p;
  for (int64_t i = 0; i < n; i++) {
    want[i] = fake_io->data[t][i] + (i < fake_off ? 1 : 0);
    defined[i] = 1;
  }
  return true;
}

/* A backend whose reference is the validator's sample alone (its sample
 * hook says so: the GPU's sampled reference): the case is judged on that
 * sample, flagged sampled, whatever the count of elements off. */
static uint64_t fake_seed;
static int64_t fake_max;
static bool fake_sample(void *self, const dg_problem *p, const int64_t *sizes, uint64_t seed, int64_t max_check)
{
  (void)self, (void)p, (void)sizes;
  fake_seed = seed, fake_max = max_check;
  return true;
}

static bool fake_ref_at(void *self, const dg_problem *p, int t, double *want, uint8_t *defined, int64_t n)
{
  (void)self;
  int64_t *idx = dg_malloc(sizeof *idx * (size_t)fake_max), sizes[1] = { n };
  int64_t m = fuzz_sample_indices(p, t, sizes, n, fake_max, fake_seed, idx);
  memset(defined, 0, (size_t)n);
  for (int64_t j = 0; j < m; j++) {
    want[idx[j]] = fake_io->data[t][idx[j]] + (idx[j] < fake_off ? 1 : 0);
    defined[idx[j]] = 1;
  }
  free(idx);
  return true;
}

/* One adversarial case of p at a realistic size through the fake backend be. */
static bool fake_campaign(const dg_problem *p, const fuzz_backend *be, fuzz_summary *s)
{
  fuzz_opts o = { .strategy = fuzz_strategy_find("adversarial"), .backend = be, .ncases = 1, .seed = 1,
                  .max_elems = 1 << 20, .max_check = 4096, .keep_going = true };
  dg_diags d = {0};
  bool ran = fuzz_campaign(p, NULL, &o, s, &d);
  dg_diags_free(&d);
  return ran;
}

static void sampled_hook(void)
{
  dg_problem *p = gt_load("elementwise/residual_add");
  if (!p) {
    ok(false, "residual_add loads");
    return;
  }
  p->sizes.v[0].value = 20000;
  fuzz_backend be = { .name = "fake", .run = fake_run, .ref = fake_ref_at, .sample = fake_sample };
  for (int k = 0; k < 2; k++) {
    fake_off = k ? 20000 : 0;
    fuzz_summary s;
    bool ran = fake_campaign(p, &be, &s);
    int64_t *idx = dg_malloc(sizeof *idx * 4096), sizes[1] = { 20000 };
    int64_t m = fuzz_sample_indices(p, 2, sizes, 20000, 4096, s.first.c.seed, idx);
    free(idx);
    if (!k)
      ok(ran && s.npass == 1 && s.nfail == 0, "a sampled backend reference: the case passes");
    else
      ok(ran && s.nfail == 1 && s.first.sampled && s.first.cmp.checked == m && s.first.cmp.nfail > 0,
         "a sampled backend reference: judged on the sample alone, flagged sampled (%lld of %lld checked; %s)",
         (long long)s.first.cmp.checked, (long long)m, s.first.msg);
  }
  dg_problem_free(p);
}

static void sampled_fallback(void)
{
  dg_problem *p = gt_load("elementwise/residual_add");
  if (!p) {
    ok(false, "residual_add loads");
    return;
  }
  p->sizes.v[0].value = 20000;
  fuzz_backend be = { .name = "fake", .run = fake_run, .ref = fake_ref };
  for (int k = 0; k < 2; k++) {
    fake_off = k ? 20000 : 100;
    fuzz_summary s;
    bool ran = fake_campaign(p, &be, &s);
    if (!k)
      ok(ran && s.nfail == 1 && !s.first.sampled && s.first.cmp.nfail >= 1 && s.first.cmp.checked == 20000,
         "100 elements off: every element judged (%s)", s.first.msg);
    else
      ok(ran && s.nfail == 1 && s.first.sampled && s.first.cmp.checked <= 4096 && s.first.cmp.checked > 1000,
         "all off: more than the envelope re-judges, the sample judged instead (%s)", s.first.msg);
  }
  dg_problem_free(p);
}

/* gpu_ref_at_order: matmul's picks a permutation of the drawn ones, by
 * column, in drawn order within a column; transB's and elementwise picks
 * untouched. No GPU needed. */
static void at_order(void)
{
  dg_problem *p = gt_load("matmul/matmul_tiled");
  if (!p) return;
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  for (size_t i = 0; i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) sizes[i] = p->sizes.v[i].realistic;
  gpu_ref_plan pl;
  bool has = gpu_ref_plan_for(p, sizes, &pl);
  int64_t n = has ? pl.n[0] * pl.n[1] : 0, N = has ? pl.n[1] : 1, m = 4096;
  int64_t *idx = dg_malloc((size_t)m * sizeof *idx), *drawn = dg_malloc((size_t)m * sizeof *idx);
  int64_t *tmp = dg_malloc((size_t)m * sizeof *idx);
  m = has ? fuzz_sample_picks(p, pl.out, sizes, n, m, 77, drawn) : 0;
  memcpy(idx, drawn, (size_t)m * sizeof *idx);
  gpu_ref_at_order(&pl, idx, m, tmp);
  bool sorted = m > 0, perm = true, stable = true, moved = false;
  for (int64_t j = 1; j < m; j++) sorted &= idx[j - 1] % N <= idx[j] % N;
  for (int64_t j = 0; j < m; j++) moved |= idx[j] != drawn[j];
  /* stable: within a column, the drawn order (each drawn pick's first
     occurrence found in order); a permutation: the same multiset */
  int64_t *cnt = dg_calloc((size_t)n + 1, sizeof *cnt);
  for (int64_t j = 0; j < m; j++) cnt[drawn[j]]++;
  for (int64_t j = 0; j < m; j++) perm &= cnt[idx[j]]-- > 0;
  for (int64_t c = 0, at = 0; stable && c < N; c++)
    for (int64_t j = 0; j < m; j++)
      if (drawn[j] % N == c) stable &= idx[at++] == drawn[j];
  ok(has && sorted && perm && stable && moved, "matmul 1024^3: the sampled reference's %lld picks ordered by column, "
     "a stable permutation of the drawn ones", (long long)m);
  pl.n[3] |= 2;   /* transB: B read along a row, left as drawn */
  memcpy(idx, drawn, (size_t)m * sizeof *idx);
  gpu_ref_at_order(&pl, idx, m, tmp);
  ok(m > 0 && !memcmp(idx, drawn, (size_t)m * sizeof *idx), "matmul transB: the picks left in the drawn order");
  free(cnt), free(idx), free(drawn), free(tmp), free(sizes);
  dg_problem_free(p);
}

int main(void)
{
  gt_names samples = {0};
  gt_all_samples(&samples);
#ifndef DG_MOCK_CUDA
  compiles();
  coverage(&samples);
#endif
  sampled_fallback();
  sampled_hook();
  at_order();
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("# no GPU (%s): the agreement on the device is not run here\n", why);
  } else {
    printf("# GPU: %s\n", why);
    char tmpl[] = "/tmp/dg-cubin-XXXXXX";
    char *dir = gt_cubin_cache(tmpl);
#ifdef DG_MOCK_CUDA
    agrees("elementwise/residual_add", 1);
    sampled_agrees("elementwise/residual_add", false, 300);
#else
    sampled_agrees("elementwise/residual_add", false, 300);
    sampled_agrees("matmul/matmul_tiled", false, 200);
    sampled_agrees("matmul/bmm_tiled", false, 200);
    sampled_agrees("matmul/gemv_warp", false, 8);
    sampled_agrees("matmul/matmul_tn_naive", false, 200);
    sampled_agrees("matmul/matmul_tiled", true, 4096);
    sampled_agrees("conv/conv2d_direct", false, 20);
    sampled_agrees("conv/conv2d_k3", false, 40);
    sampled_agrees("conv/conv2d_k3", true, 4096);
    rows_blocks("softmax/softmax_block");
    rows_blocks("softmax/log_softmax_warp");
    /* DG_GPU_TEST_QUICK=1 (a short device call): the softmax, matmul and conv samples alone */
    bool quick = getenv("DG_GPU_TEST_QUICK") != NULL;
    for (size_t i = 0; i < samples.n; i++)
      if (!quick || !strncmp(samples.v[i], "softmax/", 8) || !strncmp(samples.v[i], "matmul/", 7) ||
          !strncmp(samples.v[i], "conv/", 5))
        agrees(samples.v[i], 1);
    agrees("softmax/softmax_block", 2);
    agrees("matmul/matmul_tiled", 2);
#endif
    campaign("elementwise/residual_add", true);
    campaign("elementwise/residual_add_gridfloor", false);
#ifndef DG_MOCK_CUDA
    campaign("softmax/softmax_block", true);
    campaign("softmax/softmax_halfwarp_offset", false);
    campaign("norm/layernorm_block", true);
    campaign("matmul/matmul_tiled", true);
    campaign("conv/conv2d_direct", true);
    campaign("conv/conv2d_k3", true);
    campaign("conv/conv2d_nostride", false);
#endif
    gt_cubin_cache_drop(dir);
  }
  free(why);
  for (size_t i = 0; i < samples.n; i++) free(samples.v[i]);
  dg_vec_free(&samples);
  return tap_done();
}
