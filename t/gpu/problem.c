/* problem.c — whole problems (samples with their specs) on the GPU through
 * gpu_run, against the emulator (emu_run) on the same random inputs: every
 * output element written by one is written by the other, and equal within the
 * problem's tolerance. Built twice: problem.t on the real GPU (skips without
 * one) and problem_mock.t on the mocked CUDA runtime (residual_add only). */
#include "gpu_run.h"
#include "lua_spec.h"
#include "../tap.h"
#include <math.h>

#ifdef DG_MOCK_CUDA
static const char *const samples[] = { "elementwise/residual_add" };
#else
static const char *const samples[] = {
  "elementwise/residual_add", "elementwise/leaky_relu_macro", "elementwise/gelu_tanh_float4",
  "elementwise/silu_half2", "elementwise/gelu_bf16x2", "elementwise/elu_template", "norm/rmsnorm_half",
  "softmax/softmax_warp", "softmax/softmax_block", "norm/layernorm_warp", "norm/rmsnorm_warp",
  "reduce/reduce6", "reduce/mean_rows", "matmul/matmul_tiled", "matmul/gemv_warp",
  "transpose/transpose_tiled", "scan/cumsum_block", "conv/conv2d_direct", "pool/avgpool2d",
};
#endif

static void fill_inputs(const dg_problem *p, emu_io *io, uint64_t seed)
{
  dg_rng r;
  dg_rng_seed(&r, seed);
  for (int t = 0; t < io->ntensors; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_INPUT && !ts->accumulate) continue;
    bool fl = dg_dtypes[ts->dtype].is_float;
    for (int64_t i = 0; i < io->numel[t]; i++)
      io->data[t][i] = fl ? dg_rng_unit(&r) * 2 - 1 : (double)dg_rng_below(&r, 8);
  }
}

static void one(const char *rel)
{
  const char *src = getenv("DG_SRCDIR");
  char *path = dg_printf("%s/samples/%s.lua", src ? src : "..", rel);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  if (!p || d.nerrors) {
    ok(false, "%s loads", rel);
    if (p) dg_diags_print(stdout, &p->sm, &d);
    dg_diags_free(&d);
    if (p) dg_problem_free(p);
    free(path);
    return;
  }
  emu_kernels ek;
  bool eok = emu_kernels_load(&ek, p, &d);
  gpu_kernels gk;
  bool gok = gpu_kernels_load(&gk, p, &(dg_gpu_opts){ .launch_timeout_s = 20 }, &d);
  if (!eok || !gok) dg_diags_print(stdout, &p->sm, &d);
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  emu_io ie, ig;
  bool io_ok = eok && gok && emu_io_init(&ie, p, sizes, &d) && emu_io_init(&ig, p, sizes, &d);
  int64_t allocs = -1;
  for (uint64_t seed = 7; io_ok && seed < 9; seed++) {   /* two cases of one shape */
    fill_inputs(p, &ie, seed);
    fill_inputs(p, &ig, seed);
    emu_result er;
    gpu_run_result gr;
    bool e_ran = emu_run(p, &ek, sizes, &ie, NULL, &er, &d);
    bool g_ran = gpu_run(p, &gk, sizes, &ig, &gr, &d);
    int64_t bad = 0, checked = 0, first_bad = -1;
    int bad_t = -1;
    for (int t = 0; t < ie.ntensors; t++) {
      if (p->tensors.v[t].role != DG_TENSOR_OUTPUT) continue;
      dg_tol tol = dg_problem_tol(p, t);
      for (int64_t i = 0; i < ie.numel[t]; i++) {
        double a = ie.data[t][i], b = ig.data[t][i];
        bool same = ie.written[t][i] == ig.written[t][i]
                    && (!ie.written[t][i] || (isnan(a) && isnan(b))
                        || fabs(a - b) <= tol.atol + tol.rtol * fabs(a) + 1e-6);
        checked++;
        if (!same && bad++ == 0) { first_bad = i; bad_t = t; }
      }
    }
    ok(e_ran && g_ran && gr.status == DG_GPU_OK && bad == 0 && checked > 0,
       "%s%s: GPU agrees with the emulator on %lld elements (%.3f ms on the GPU)%s%s", rel,
       seed > 7 ? " (second case, buffers kept)" : "", (long long)checked, gr.ms, gr.msg ? ": " : "",
       gr.msg ? gr.msg : "");
    if (seed > 7)
      is_int(gk.allocs, allocs, "%s: the second case of the shape allocates nothing", rel);
    allocs = gk.allocs;
    if (bad)
      printf("#   %lld differ; first %s[%lld]: emulator %g (written %d), GPU %g (written %d)\n",
             (long long)bad, p->tensors.v[bad_t].name, (long long)first_bad, ie.data[bad_t][first_bad],
             ie.written[bad_t][first_bad], ig.data[bad_t][first_bad], ig.written[bad_t][first_bad]);
    emu_result_free(&er);
    gpu_run_result_free(&gr);
  }
  if (io_ok) {
    emu_io_free(&ie);
    emu_io_free(&ig);
  } else {
    ok(false, "%s: kernels load on both backends", rel);
  }
  if (eok || ek.mod) emu_kernels_free(&ek);
  gpu_kernels_free(&gk);
  free(sizes);
  dg_diags_free(&d);
  dg_problem_free(p);
  free(path);
}

int main(void)
{
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("1..0 # SKIP no GPU: %s\n", why);
    free(why);
    return 0;
  }
  printf("# GPU: %s\n", why);
  free(why);
  /* a fresh cache for this run; under make check the build's shared one
   * (DG_CUBIN_SHARED, kept: see gt_cubin_cache in samples.h) */
  char tmpl[] = "/tmp/dg-cubin-XXXXXX";
  const char *shared = getenv("DG_CUBIN_SHARED");
  char *dir = shared && *shared ? NULL : mkdtemp(tmpl);
  if (dir || (shared && *shared)) setenv("DIRIGO_CUBIN_CACHE", dir ? dir : shared, 1);
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) one(samples[i]);
  if (dir) {
    char *cmd = dg_printf("rm -rf '%s'", dir);
    if (system(cmd)) printf("# could not remove %s\n", dir);
    free(cmd);
  }
  return tap_done();
}
