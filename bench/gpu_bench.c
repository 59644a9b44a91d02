/* gpu_bench.c — what the GPU backend costs: NVRTC cold vs cached (needs no
 * GPU): a test fixture, what a fuzz campaign compiles before its first case
 * (the problem's kernels, and dirigo's own modules), and with a GPU the
 * child's start-up, a launch round trip through the child (launch + sync +
 * guard check), and copies through the socket.
 * Prints a table; the GPU rows say "skipped" without a GPU.
 *   gpu_bench [--own | --no-own]
 * dirigo's own modules (their cold compile is minutes of NVRTC's CPU on a
 * small machine, seconds on the GPU machine) are timed where a GPU is, or
 * with --own; --no-own leaves them out. */
#include "gpu_env.h"
#include "gpu_fused.h"
#include "gpu_gen.h"
#include "gpu_run.h"
#include "lua_spec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void row(const char *what, int n, double total_s, const char *unit_note)
{
  printf("%-40s %6d %12.3f ms %12.3f ms  %s\n", what, n, total_s * 1e3, total_s * 1e3 / (n ? n : 1),
         unit_note ? unit_note : "");
}

static dg_gpu_status compile(const char *path, const char *arch, const char *def, bool no_cache,
                             dg_gpu_binary *b)
{
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  uint32_t f = dg_srcmgr_load(&sm, path);
  const char *names[] = { "fill_even", "scale_k<float, 3>" };
  const char *defs[] = { def };
  dg_gpu_copts o = { .names = names, .nnames = 2, .arch = arch, .defines = defs,
                     .ndefines = def ? 1 : 0, .no_cache = no_cache };
  dg_diags d = {0};
  dg_gpu_status st = f ? dg_gpu_compile(&sm, f, &o, b, &d) : DG_GPU_BAD_REQUEST;
  if (st != DG_GPU_OK) dg_diags_print(stderr, &sm, &d);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  return st;
}

/* A fuzz case's request (gpu_run's batch) and its parts, at 1000 floats:
 * what a case of a small problem costs on the GPU side. */
static void batches(dg_gpu *g, dg_gpu_kernel k)
{
  enum { n = 1000, REPS = 500 };
  dg_gpu_pattern p = dg_gpu_poison_for("f32");
  dg_gpu_buf y, x;
  if (dg_gpu_alloc(g, n * 4, p, &y, NULL) || dg_gpu_alloc(g, n * 4, p, &x, NULL)) return;
  float xs[n], ys[n];
  memset(xs, 0, sizeof xs);
  dg_gpu_arg a[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_buf(x), dg_gpu_arg_i32(n) };
  dg_gpu_dim3 grid = { (n + 255) / 256, 1, 1 }, block = { 256, 1, 1 };
  static const char *const what[] = {
    "batch: empty (the round trip)", "batch: 1 launch (+sync+guards), 1000 floats",
    "batch: 1 launch without guard check", "batch: upload, poison, launch, download",
    "batch: the same with a 2nd, unguarded launch",
  };
  for (int v = 0; v < 5; v++) {
    dg_gpu_batch b = {0};
    if (v >= 3) {
      dg_gpu_batch_upload(&b, x, 0, xs, sizeof xs);
      dg_gpu_batch_poison(&b, y);
    }
    if (v == 4) dg_gpu_batch_launch_unguarded(&b, k, grid, block, 0, a, 3);
    if (v == 2) dg_gpu_batch_launch_unguarded(&b, k, grid, block, 0, a, 3);
    else if (v) dg_gpu_batch_launch(&b, k, grid, block, 0, a, 3);
    if (v >= 3) dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
    int good = 0;
    double t = dg_now();
    for (int i = 0; i < REPS; i++) {
      dg_gpu_batch_result r;
      good += dg_gpu_batch_run(g, &b, &r) == DG_GPU_OK;
      dg_gpu_batch_result_free(&r);
    }
    row(what[v], good, dg_now() - t, NULL);
    dg_gpu_batch_free(&b);
  }
  dg_gpu_free(g, y, NULL);
  dg_gpu_free(g, x, NULL);
}

/* A fresh cubin cache directory (DIRIGO_CUBIN_CACHE): a compile there is cold. */
static char *fresh_cache(void)
{
  char tmpl[] = "/tmp/dg-bench-cubin-XXXXXX";
  char *dir = mkdtemp(tmpl);
  if (!dir) return NULL;
  setenv("DIRIGO_CUBIN_CACHE", dir, 1);
  return dg_strdup(dir);
}

static void rm_dir(char *dir)
{
  if (!dir) return;
  char *cmd = dg_printf("rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  free(cmd);
  free(dir);
}

/* A campaign's compiles (fuzz_gpu: gpu_kernels_load, then each module at its
 * first use): each problem's kernels, cold (an empty cache: a kernel source
 * seen for the first time) then cached (the same source again, as a second
 * campaign or `dirigo replay --backend gpu` finds it); dirigo's own modules
 * are keyed by their source alone, so they compile once per dirigo build and
 * GPU architecture, then every campaign finds them cached. */
static const char *const campaign_problems[] = {
  "softmax/softmax_block", "matmul/matmul_tiled", "norm/layernorm_block", "elementwise/residual_add",
  "conv/conv2d_k3",
};
typedef dg_gpu_status (*own_compile_fn)(const char *arch, dg_gpu_binary *bin, dg_diags *d);
static const struct { const char *what; own_compile_fn compile; } own_modules[] = {
  { "the fp64 references (gpu_ref)", gpu_ref_compile },
  { "the comparison (gpu_cmp)", gpu_cmp_compile },
  { "the input generator (gpu_gen)", gpu_gen_compile },
  { "the envelope (gpu_env)", gpu_env_compile },
  { "the fused pass (gpu_fused)", gpu_fused_compile },
};

static bool problem_compile(const char *path, const char *arch, double *secs, bool *hit)
{
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  bool ok = p && !d.nerrors;
  if (ok) {
    char **names = dg_calloc(p->launches.n + 1, sizeof *names);
    int *name_of = dg_calloc(p->launches.n + 1, sizeof *name_of);
    int nnames = 0;
    dg_gpu_binary b;
    double t = dg_now();
    ok = gpu_problem_compile(p, arch, names, &nnames, name_of, &b, &d);
    *secs = dg_now() - t;
    *hit = b.cache_hit;
    if (!ok) dg_diags_print(stderr, &p->sm, &d);
    dg_gpu_binary_free(&b);
    for (int i = 0; i < nnames; i++) free(names[i]);
    free(names);
    free(name_of);
  } else if (p) {
    dg_diags_print(stderr, &p->sm, &d);
  } else {
    fprintf(stderr, "%s: cannot load\n", path);
  }
  dg_diags_free(&d);
  if (p) dg_problem_free(p);
  return ok;
}

static void campaign_compiles(const char *src, const char *arch, bool own)
{
  enum { WARM = 20 };
  char *dir = fresh_cache();
  for (size_t i = 0; i < sizeof campaign_problems / sizeof *campaign_problems; i++) {
    char *path = dg_printf("%s/samples/%s.lua", src, campaign_problems[i]);
    double cold = 0, warm = 0, s;
    bool hit = false;
    int ok_warm = 0;
    bool ok_cold = problem_compile(path, arch, &cold, &hit) && !hit;
    for (int k = 0; ok_cold && k < WARM; k++) {
      ok_warm += problem_compile(path, arch, &s, &hit) && hit;
      warm += s;
    }
    char label[80];
    snprintf(label, sizeof label, "  %s, cold", strchr(campaign_problems[i], '/') + 1);
    if (!ok_cold) {
      printf("%-40s failed (see above)\n", label);
    } else {
      row(label, 1, cold, arch);
      snprintf(label, sizeof label, "  %s, cached", strchr(campaign_problems[i], '/') + 1);
      row(label, ok_warm, warm, ok_warm == WARM ? "cache hit" : "MISSED");
    }
    free(path);
  }
  for (size_t i = 0; own && i < sizeof own_modules / sizeof *own_modules; i++) {
    dg_gpu_binary b;
    dg_diags d = {0};
    char label[80];
    snprintf(label, sizeof label, "  %s, cold", own_modules[i].what);
    double t = dg_now();
    dg_gpu_status st = own_modules[i].compile(arch, &b, &d);
    double cold = dg_now() - t;
    bool hit = b.cache_hit;
    dg_gpu_binary_free(&b);
    if (st != DG_GPU_OK || hit) {
      printf("%-40s %s\n", label, st != DG_GPU_OK ? dg_gpu_status_name(st) : "a cache hit in an empty cache?");
      dg_diags_print(stderr, NULL, &d);
      dg_diags_free(&d);
      continue;
    }
    row(label, 1, cold, arch);
    int ok_warm = 0;
    double warm = 0;
    for (int k = 0; k < WARM; k++) {
      t = dg_now();
      ok_warm += own_modules[i].compile(arch, &b, &d) == DG_GPU_OK && b.cache_hit;
      warm += dg_now() - t;
      dg_gpu_binary_free(&b);
    }
    snprintf(label, sizeof label, "  %s, cached", own_modules[i].what);
    row(label, ok_warm, warm, ok_warm == WARM ? "cache hit" : "MISSED");
    dg_diags_free(&d);
  }
  rm_dir(dir);
}

int main(int argc, char **argv)
{
  const char *own_arg = argc > 1 ? argv[1] : "";
  const char *src = getenv("DG_SRCDIR");
  char *path = dg_printf("%s/t/gpu/fixtures/kernels.cu", src ? src : DG_DATADIR);
  char *dir = fresh_cache();
  char *why = NULL;
  bool gpu = dg_gpu_available(&why);
  bool own = !strcmp(own_arg, "--own") || (gpu && strcmp(own_arg, "--no-own"));
  printf("GPU backend benchmark — NVRTC %s; GPU: %s%s\n", dg_gpu_nvrtc_version(),
         gpu ? "" : "none: ", why);
  printf("%-40s %6s %15s %15s\n", "what", "n", "total", "each");

  char arch[16] = "sm_90";
  dg_gpu *g = NULL;
  double t;
  if (gpu) {
    t = dg_now();
    g = dg_gpu_open(NULL, NULL);
    row("start the GPU child (fork + CUDA init)", 1, dg_now() - t, NULL);
    if (g) memcpy(arch, dg_gpu_info_of(g)->arch, sizeof arch);
  }

  enum { COLD = 3, WARM = 50 };
  dg_gpu_binary b = {0};
  double cold = 0, warm = 0;
  int ok_cold = 0, ok_warm = 0;
  bool nvrtc = strcmp(dg_gpu_nvrtc_version(), "none") != 0;   /* built with CUDA */
  for (int i = 0; nvrtc && i < COLD; i++) {
    char def[32];
    snprintf(def, sizeof def, "BENCH_VARIANT=%d", i);   /* a new key each time: a miss */
    t = dg_now();
    if (compile(path, arch, def, false, &b) == DG_GPU_OK) ok_cold++;
    cold += dg_now() - t;
    dg_gpu_binary_free(&b);
  }
  for (int i = 0; nvrtc && i < WARM; i++) {
    t = dg_now();
    if (compile(path, arch, "BENCH_VARIANT=0", false, &b) == DG_GPU_OK && b.cache_hit) ok_warm++;
    warm += dg_now() - t;
    if (i < WARM - 1) dg_gpu_binary_free(&b);
  }
  if (ok_cold == 0) {
    printf("%-40s skipped: NVRTC unavailable (%s)\n", "compile kernels.cu", dg_gpu_nvrtc_version());
  } else {
    row("compile kernels.cu, cold (NVRTC worker)", ok_cold, cold, arch);
    row("compile kernels.cu, cached", ok_warm, warm, ok_warm ? "cache hit" : "MISSED");
    printf("a fuzz campaign's compiles (cold: an empty cache)%s\n",
           own ? "" : "; dirigo's own modules left out (no GPU: --own times them)");
    campaign_compiles(src ? src : DG_DATADIR, arch, own);
    if (dir) setenv("DIRIGO_CUBIN_CACHE", dir, 1);   /* back to this run's cache */
  }

  if (!g) {
    printf("%-40s skipped: no GPU\n", "launch round trip / copies");
  } else {
    dg_gpu_kernel k[2];
    dg_gpu_buf y, x;
    enum { N = 1 << 20, LAUNCHES = 200, COPIES = 20 };
    dg_gpu_pattern p = dg_gpu_poison_for("f32");
    char *m = NULL;
    if (dg_gpu_load(g, &b, k, &m) || dg_gpu_alloc(g, N * 4, p, &y, &m) || dg_gpu_alloc(g, N * 4, p, &x, &m)) {
      printf("setup failed: %s\n", m ? m : "?");
    } else {
      float *h = calloc(N, 4);
      t = dg_now();
      for (int i = 0; i < COPIES; i++) dg_gpu_upload(g, x, 0, h, (size_t)N * 4, NULL);
      double up = dg_now() - t;
      row("upload 4 MiB through the child", COPIES, up, NULL);
      printf("%-40s %.2f GB/s\n", "  upload bandwidth", COPIES * 4.0 * N / up / 1e9);
      t = dg_now();
      for (int i = 0; i < COPIES; i++) dg_gpu_download(g, y, 0, h, (size_t)N * 4, NULL);
      row("download 4 MiB through the child", COPIES, dg_now() - t, NULL);
      dg_gpu_arg a[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_buf(x), dg_gpu_arg_i32(N) };
      dg_gpu_result r;
      double kms = 0;
      /* one launch first: the child's first launch loads the guard kernel (gpu_guard.c) */
      dg_gpu_launch(g, k[1], (dg_gpu_dim3){ N / 256, 1, 1 }, (dg_gpu_dim3){ 256, 1, 1 }, 0, a, 3, &r);
      dg_gpu_result_free(&r);
      t = dg_now();
      int good = 0;
      for (int i = 0; i < LAUNCHES; i++) {
        good += dg_gpu_launch(g, k[1], (dg_gpu_dim3){ N / 256, 1, 1 }, (dg_gpu_dim3){ 256, 1, 1 },
                              0, a, 3, &r) == DG_GPU_OK;
        kms += r.ms;
        dg_gpu_result_free(&r);
      }
      double all = dg_now() - t;
      row("launch+sync+guards, 1M floats, 2 bufs", good, all, NULL);
      printf("%-40s %12.3f ms each (kernel alone, events)\n", "  of which kernel time", kms / (good ? good : 1));
      batches(g, k[1]);
      free(h);
    }
    free(m);
    dg_gpu_close(g);
  }
  dg_gpu_binary_free(&b);
  free(why);
  free(path);
  rm_dir(dir);
  return 0;
}
