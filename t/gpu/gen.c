/* gen.c — fuzz inputs drawn on the device (gpu_gen.c) against the host.
 *  Without a GPU: the generator's source compiles with NVRTC, and the
 *    descriptor gpu_gen_desc_of builds for a case's tensor gives exactly what
 *    the campaign's fill (fuzz_fill seeded per tensor, fabs for positive
 *    inputs) gives, on samples with f32/f16 inputs, index-valued inputs and
 *    positive-only inputs.
 *  gen_mock.t (DG_MOCK_CUDA): the device half on the mocked runtime, whose
 *    dg_gen_fill is the host definition: the launch's arguments, the
 *    buffers and the batch plumbing, at smaller sizes.
 *  On a GPU: every distribution x every dtype (and the index-valued and
 *    positive variants) generated on the device, byte for byte equal to the
 *    host's dg_dtype_store(fuzz_ctr_value), over rows with a tail; a part of
 *    a buffer (first > 0); and the time of 16.7 M f32 normals. */
#include "gpu_gen.h"
#include "lua_spec.h"
#include "../tap.h"
#include "samples.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}


#ifndef DG_MOCK_CUDA
static bool compiles(void)
{
  dg_gpu_binary bin;
  dg_diags d = {0};
  dg_gpu_status st = gpu_gen_compile("sm_90", &bin, &d);
  if (st == DG_GPU_NO_DEVICE) {   /* built without CUDA */
    ok(true, "# SKIP no NVRTC: %s", d.v.n ? d.v.v[0].msg : "?");
    dg_diags_free(&d);
    return false;
  }
  is_int(st, DG_GPU_OK, "the generator compiles with NVRTC for sm_90%s%s", d.v.n ? ": " : "",
         d.v.n ? d.v.v[0].msg : "");
  for (size_t i = 0; i < d.v.n; i++) printf("# %s\n", d.v.v[i].msg);
  if (st == DG_GPU_OK) {
    ok(bin.lowered && bin.lowered[0] && !strcmp(bin.lowered[0], GPU_GEN_KERNEL) && bin.lowered[1] &&
       !strcmp(bin.lowered[1], GPU_GEN_MANY_KERNEL),
       "two kernels, " GPU_GEN_KERNEL " and " GPU_GEN_MANY_KERNEL ", unmangled");
    dg_gpu_binary_free(&bin);
  }
  dg_diags_free(&d);
  return st == DG_GPU_OK;
}
#endif

/* What fuzz_run.c's fill_inputs does for tensor t, against the descriptor. */
static void same_as_fill(const char *rel)
{
  dg_problem *p = gt_load(rel);
  if (!p) {
    ok(false, "%s loads", rel);
    return;
  }
  int64_t sizes[32];
  dg_problem_default_sizes(p, sizes);
  int checked = 0, bad = 0;
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_INPUT && !ts->accumulate) continue;
    for (int d = 0; d < FUZZ_DIST__COUNT; d++) {
      uint64_t seed = 0x1234567ull * (uint64_t)(d + 1);
      fuzz_ctr g;
      char msg[128];
      if (!gpu_gen_desc_of(p, (int)t, (fuzz_dist)d, seed, sizes, &g, msg, sizeof msg)) {
        ok(false, "%s %s: %s", rel, ts->name, msg);
        continue;
      }
      fuzz_fill_opts fo = { .dist = (fuzz_dist)d, .dtype = ts->dtype, .row = g.row,
                            .has_range = g.has_range, .lo = g.lo, .hi = g.hi };
      double *a = malloc(sizeof(double) * (size_t)g.n), *b = malloc(sizeof(double) * (size_t)g.n);
      dg_rng r;
      dg_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(t + 1)));
      fuzz_fill(&r, &fo, a, g.n);
      if (ts->positive)
        for (int64_t i = 0; i < g.n; i++) a[i] = fabs(a[i]);
      fuzz_ctr_fill(&g, 0, g.n, b);
      if (memcmp(a, b, sizeof(double) * (size_t)g.n)) bad++;
      checked++;
      free(a);
      free(b);
    }
  }
  ok(checked > 0 && !bad, "%s: the descriptor of each input and distribution gives the campaign's values "
     "(%d of %d differ)", rel, bad, checked);
  dg_problem_free(p);
}

/* ---- on the device ----------------------------------------------------- */

#ifdef DG_MOCK_CUDA
#define BIG ((int64_t)1 << 16)   /* the mock's kernel runs on the host */
#define BIG_NAME "65536"
#else
#define BIG ((int64_t)1 << 24)
#define BIG_NAME "16.7 M"
#endif

static const dg_dtype dtypes[] = { DG_DT_F32, DG_DT_F16, DG_DT_BF16, DG_DT_F64, DG_DT_I32, DG_DT_I64,
                                   DG_DT_U8, DG_DT_BOOL };

typedef struct {
  dg_gpu *g;
  dg_gpu_kernel k, kk[GPU_GEN_NKERNELS];   /* k: dg_gen_fill; kk[1]: dg_gen_many */
  dg_gpu_buf buf;
  size_t cap;
  uint8_t *got, *want;
} dev;

/* Elements [first, first + count) of g on the device vs the host. */
static int64_t device_diff(dev *v, const fuzz_ctr *g, int64_t first, int64_t count, double *ms)
{
  size_t es = dg_dtypes[g->dtype].size, bytes = (size_t)g->n * es;
  char *msg = NULL;
  if (bytes > v->cap) {
    if (v->cap) dg_gpu_free(v->g, v->buf, &msg);
    free(msg);
    msg = NULL;
    if (dg_gpu_alloc(v->g, bytes, dg_gpu_poison_for("u8"), &v->buf, &msg) != DG_GPU_OK) {
      printf("# alloc: %s\n", msg ? msg : "?");
      free(msg);
      v->cap = 0;
      return -2;
    }
    v->cap = bytes;
    v->got = realloc(v->got, bytes);
    v->want = realloc(v->want, bytes);
  }
  dg_gpu_batch b = {0};
  dg_gpu_batch_poison(&b, v->buf);
  gpu_gen_launch l;
  gpu_gen_launch_of(g, v->buf, first, count, &l);
  dg_gpu_batch_launch(&b, v->k, l.grid, l.block, 0, l.args, GPU_GEN_NARGS);
  dg_gpu_batch_download(&b, v->buf, (size_t)first * es, v->got, (size_t)count * es);
  dg_gpu_batch_result res = {0};
  dg_gpu_status st = dg_gpu_batch_run(v->g, &b, &res);
  if (ms) *ms = res.launch_ms.n ? res.launch_ms.v[0] : res.ms;
  dg_gpu_batch_free(&b);
  if (st != DG_GPU_OK) printf("# batch: %s\n", res.msg ? res.msg : "?");
  dg_gpu_batch_result_free(&res);
  if (st != DG_GPU_OK) return -2;
  for (int64_t i = 0; i < count; i++) dg_dtype_store(g->dtype, v->want, i, fuzz_ctr_value(g, first + i));
  for (int64_t i = 0; i < count; i++)
    if (memcmp(v->got + i * es, v->want + i * es, es)) return first + i;
  return -1;
}

/* dg_gen_many (gpu_gen_many_*): per dtype, one launch drawing two inputs
 * (normal, and index-valued or positive) and poisoning a third buffer over
 * an odd number of bytes; every byte against the host's values (the poison:
 * the pattern repeated, and the bytes past it untouched). */
static void many_on_device(dev *v)
{
  int64_t n = 100003, nb = 30011;
  for (int64_t cap = 0; cap <= 7; cap += 7)   /* the grid as wide as the tasks, then 7 blocks (a request's lanes) */
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    dg_dtype dt = dtypes[k];
    size_t es = dg_dtypes[dt].size, bytes = (size_t)n * es;
    dg_gpu_buf b[3];
    char *msg = NULL;
    int nalloc = 0;
    for (; nalloc < 3; nalloc++)
      if (dg_gpu_alloc(v->g, nalloc == 2 ? (size_t)nb + 16 : bytes, dg_gpu_poison_for("u8"), &b[nalloc], &msg) !=
          DG_GPU_OK)
        break;
    dg_gpu_buf tab;
    bool have_tab = nalloc == 3 &&
                    dg_gpu_alloc(v->g, sizeof(uint64_t) * GPU_GEN_MANY_TASKS * GPU_GEN_TASK_WORDS,
                                 dg_gpu_poison_for("u8"), &tab, &msg) == DG_GPU_OK;
    bool good = have_tab;
    fuzz_ctr g1 = { .key = fuzz_input_key(0x5eed, (int)k), .dist = FUZZ_DIST_NORMAL, .dtype = dt, .row = 1000, .n = n };
    fuzz_ctr g2 = { .key = fuzz_input_key(0x5eed + 1, (int)k), .dist = FUZZ_DIST_SPECIAL, .dtype = dt,
                    .row = 1000, .n = n, .positive = true };
    dg_gpu_pattern pat = dg_gpu_poison_for(dt == DG_DT_BOOL ? "u8" : dg_dtypes[dt].name);
    gpu_gen_many m = {0};
    good = good && gpu_gen_many_draw(&m, gpu_gen_many_slot(&m, b[0]), &g1) &&
           gpu_gen_many_poison(&m, gpu_gen_many_slot(&m, b[2]), pat, nb) &&
           gpu_gen_many_draw(&m, gpu_gen_many_slot(&m, b[1]), &g2);
    uint8_t *got[3] = { malloc(bytes), malloc(bytes), malloc((size_t)nb + 16) };
    dg_gpu_batch bt = {0};
    dg_gpu_batch_result res = {0};
    if (good) {
      dg_gpu_batch_upload(&bt, tab, 0, m.tab, sizeof m.tab);
      gpu_gen_many_batch(&bt, v->kk[1], tab, 0, &m, cap);
      for (int i = 0; i < 3; i++) dg_gpu_batch_download(&bt, b[i], 0, got[i], i == 2 ? (size_t)nb + 16 : bytes);
      good = dg_gpu_batch_run(v->g, &bt, &res) == DG_GPU_OK;
      if (!good) printf("# batch: %s\n", res.msg ? res.msg : "?");
    }
    int64_t bad = -1;
    const char *where = "";
    uint8_t *want = malloc(bytes);
    for (int i = 0; good && i < 2 && bad < 0; i++) {
      const fuzz_ctr *g = i ? &g2 : &g1;
      for (int64_t e = 0; e < n; e++) dg_dtype_store(dt, want, e, fuzz_ctr_value(g, e));
      for (int64_t e = 0; e < n && bad < 0; e++)
        if (memcmp(got[i] + e * (int64_t)es, want + e * (int64_t)es, es)) bad = e, where = i ? "second input" : "first input";
    }
    for (int64_t e = 0; good && e < nb + 16 && bad < 0; e++)
      if (got[2][e] != (e < nb ? pat.b[e % pat.len] : dg_gpu_poison_for("u8").b[0])) bad = e, where = "poison";
    ok(good && bad < 0, "%s: dg_gen_many draws two inputs and poisons %lld bytes in one launch%s, byte for byte as "
       "the host%s%s", dg_dtypes[dt].name, (long long)nb, cap ? " of 7 blocks a task" : "",
       bad >= 0 ? "; first difference in the " : "", where);
    dg_gpu_batch_result_free(&res);
    dg_gpu_batch_free(&bt);
    free(want);
    for (int i = 0; i < 3; i++) free(got[i]);
    for (int i = 0; i < nalloc; i++) dg_gpu_free(v->g, b[i], NULL);
    if (have_tab) dg_gpu_free(v->g, tab, NULL);
    free(msg);
  }
}

/* DIRIGO_GPU_LAUNCH_EVENTS (gpu_child_batch.c): in an asynchronous batch,
 * unset or "kernel" times the guarded launches alone (dirigo's own report 0
 * ms), "all" and "shared" every launch, "0" none. A child reads it when it
 * starts. */
static void launch_events(void)
{
  static const char *const modes[] = { NULL, "kernel", "0", "shared", "all" };
  static const int want[5][3] = { { 0, 0, 1 }, { 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 }, { 1, 1, 1 } };   /* unguarded x2, guarded */
  for (int m = 0; m < 5; m++) {
    if (modes[m]) setenv("DIRIGO_GPU_LAUNCH_EVENTS", modes[m], 1);
    char *why = NULL, *msg = NULL;
    dg_gpu *g = dg_gpu_open(NULL, &why);
    dg_gpu_binary bin;
    memset(&bin, 0, sizeof bin);
    dg_diags d = {0};
    dg_gpu_kernel k[GPU_GEN_NKERNELS];
    dg_gpu_buf buf;
    bool good = g && gpu_gen_compile(dg_gpu_info_of(g)->arch, &bin, &d) == DG_GPU_OK &&
                dg_gpu_load(g, &bin, k, &msg) == DG_GPU_OK &&
                dg_gpu_alloc(g, 4096, dg_gpu_poison_for("u8"), &buf, &msg) == DG_GPU_OK;
    dg_gpu_binary_free(&bin);
    dg_diags_free(&d);
    int timed[3] = { -1, -1, -1 };
    if (good) {
      fuzz_ctr c = { .key = 5, .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_F32, .row = 10, .n = 1000 };
      gpu_gen_launch l;
      gpu_gen_launch_of(&c, buf, 0, c.n, &l);
      dg_gpu_batch b = {0};
      b.async = true;
      dg_gpu_batch_launch_unguarded(&b, k[0], l.grid, l.block, 0, l.args, GPU_GEN_NARGS);
      dg_gpu_batch_launch_unguarded(&b, k[0], l.grid, l.block, 0, l.args, GPU_GEN_NARGS);
      dg_gpu_batch_launch(&b, k[0], l.grid, l.block, 0, l.args, GPU_GEN_NARGS);
      dg_gpu_batch_result r = {0};
      good = dg_gpu_batch_run(g, &b, &r) == DG_GPU_OK && r.launch_ms.n == 3;
      for (int i = 0; good && i < 3; i++) timed[i] = r.launch_ms.v[i] > 0;
      dg_gpu_batch_result_free(&r);
      dg_gpu_batch_free(&b);
    }
    ok(good && timed[0] == want[m][0] && timed[1] == want[m][1] && timed[2] == want[m][2],
       "DIRIGO_GPU_LAUNCH_EVENTS=%s: two unguarded launches timed %d %d, a guarded one %d (want %d %d %d)%s%s",
       modes[m] ? modes[m] : "(unset)", timed[0], timed[1], timed[2], want[m][0], want[m][1], want[m][2],
       msg ? ": " : "", msg ? msg : "");
    free(msg), free(why);
    if (g) dg_gpu_close(g);
  }
  unsetenv("DIRIGO_GPU_LAUNCH_EVENTS");
}

static void on_device(void)
{
  char *why = NULL;
  dev v = {0};
  v.g = dg_gpu_open(NULL, &why);
  if (!v.g) {
    ok(true, "# SKIP no GPU: %s", why ? why : "?");
    free(why);
    return;
  }
  dg_gpu_binary bin;
  dg_diags d = {0};
  char *msg = NULL;
  if (gpu_gen_compile(dg_gpu_info_of(v.g)->arch, &bin, &d) != DG_GPU_OK ||
      dg_gpu_load(v.g, &bin, v.kk, &msg) != DG_GPU_OK) {
    ok(false, "the generator loads on %s: %s", dg_gpu_info_of(v.g)->name, msg ? msg : "compile error");
    free(msg);
    dg_diags_free(&d);
    dg_gpu_close(v.g);
    return;
  }
  dg_gpu_binary_free(&bin);
  dg_diags_free(&d);
  v.k = v.kk[0];
  printf("# GPU: %s (%s)\n", dg_gpu_info_of(v.g)->name, dg_gpu_info_of(v.g)->arch);
  int64_t n = 100003;   /* rows of 1000 and a tail of 3 */
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++)
    for (int dist = 0; dist < FUZZ_DIST__COUNT; dist++)
      for (int variant = 0; variant < 3; variant++) {
        if (variant == 2 && dist > FUZZ_DIST_TINY) continue;   /* ranges: normal, ..., huge, tiny */
        fuzz_ctr g = { .key = fuzz_input_key(0xabcdef + (uint64_t)dist, (int)k), .dist = (fuzz_dist)dist,
                       .dtype = dtypes[k], .row = 1000, .n = n, .positive = variant == 1 };
        if (variant == 2) g.has_range = true, g.lo = -5, g.hi = dtypes[k] == DG_DT_U8 ? 200 : 128255;
        if (variant == 2 && dtypes[k] == DG_DT_BOOL) g.lo = 0, g.hi = 1;
        int64_t at = device_diff(&v, &g, 0, n, NULL);
        ok(at == -1, "%s %s%s: device = host byte for byte over %lld elements%s", dg_dtypes[dtypes[k]].name,
           fuzz_dists[dist].name, variant == 1 ? " positive" : variant == 2 ? " index-valued" : "",
           (long long)n, at >= 0 ? " (first difference below)" : "");
        if (at >= 0) {
          size_t es = dg_dtypes[g.dtype].size;
          printf("#   element %lld: device %02x%02x.. host %02x%02x.. (host value %.17g)\n", (long long)at,
                 v.got[at * es], es > 1 ? v.got[at * es + 1] : 0, v.want[at * es], es > 1 ? v.want[at * es + 1] : 0,
                 fuzz_ctr_value(&g, at));
        }
      }
  fuzz_ctr g = { .key = 99, .dist = FUZZ_DIST_MAX_LAST, .dtype = DG_DT_F16, .row = 77, .n = 5000 };
  ok(device_diff(&v, &g, 1234, 2000, NULL) == -1, "a part of a buffer (elements 1234..3233)");
  many_on_device(&v);
  g = (fuzz_ctr){ .key = 7, .dist = FUZZ_DIST_NORMAL, .dtype = DG_DT_F32, .row = 16384, .n = BIG };
  double ms = 0;
  ok(device_diff(&v, &g, 0, g.n, NULL) == -1, BIG_NAME " f32 normals: device = host");
  g.dist = FUZZ_DIST_SORTED;
  ok(device_diff(&v, &g, 0, g.n, &ms) == -1, BIG_NAME " f32 sorted: device = host (%.3f ms on the device)", ms);
  /* what drawing on the device saves: a case's 64 MiB input drawn there, or
   * drawn on the host and uploaded (best of 3 round trips each) */
  double gen_s = 1e9, up_s = 1e9, host_s;
  for (int rep = 0; rep < 3; rep++) {
    dg_gpu_batch b = {0};
    dg_gpu_batch_result res = {0};
    gpu_gen_batch(&b, v.k, v.buf, &g);
    double t0 = now();
    dg_gpu_status st = dg_gpu_batch_run(v.g, &b, &res);
    double t1 = now();
    if (st == DG_GPU_OK && t1 - t0 < gen_s) gen_s = t1 - t0;
    dg_gpu_batch_result_free(&res);
    dg_gpu_batch_clear(&b);
    dg_gpu_batch_upload(&b, v.buf, 0, v.want, (size_t)g.n * 4);
    t0 = now();
    st = dg_gpu_batch_run(v.g, &b, &res);
    t1 = now();
    if (st == DG_GPU_OK && t1 - t0 < up_s) up_s = t1 - t0;
    dg_gpu_batch_result_free(&res);
    dg_gpu_batch_free(&b);
  }
  /* the kernel's time by distribution (16.7 M f32; best of 3), for the record */
  printf("# kernel ms for " BIG_NAME " f32 (best of 3):");
  for (int dist = 0; dist < FUZZ_DIST__COUNT; dist++) {
    fuzz_ctr gd = g;
    gd.dist = (fuzz_dist)dist;
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
      dg_gpu_batch b = {0};
      dg_gpu_batch_result res = {0};
      gpu_gen_launch l;
      gpu_gen_launch_of(&gd, v.buf, 0, gd.n, &l);
      dg_gpu_batch_launch(&b, v.k, l.grid, l.block, 0, l.args, GPU_GEN_NARGS);
      if (dg_gpu_batch_run(v.g, &b, &res) == DG_GPU_OK && res.launch_ms.n && res.launch_ms.v[0] > 0 &&
          res.launch_ms.v[0] < best)
        best = res.launch_ms.v[0];
      dg_gpu_batch_result_free(&res);
      dg_gpu_batch_free(&b);
    }
    printf(" %s %.3f", fuzz_dists[dist].name, best);
  }
  printf("\n");
  double *vals = malloc(sizeof(double) * (size_t)g.n), t0 = now();
  fuzz_ctr_fill(&g, 0, g.n, vals);
  for (int64_t i = 0; i < g.n; i++) dg_dtype_store(g.dtype, v.want, i, vals[i]);
  host_s = now() - t0;
  free(vals);
  printf("# " BIG_NAME " f32 sorted, one request each: drawn on the device %.3f ms; drawn on the host %.1f ms "
         "and uploaded %.3f ms\n", gen_s * 1e3, host_s * 1e3, up_s * 1e3);
  free(v.got);
  free(v.want);
  dg_gpu_close(v.g);
}

int main(void)
{
#ifndef DG_MOCK_CUDA
  compiles();
#endif
  same_as_fill("softmax/softmax_block");
  same_as_fill("norm/rmsnorm_half");
  same_as_fill("embedding/embedding_gather");
  same_as_fill("norm/batchnorm_infer");
  if (dg_gpu_available(NULL)) {
    char tmpl[] = "/tmp/dg-cubin-XXXXXX";
    char *dir = gt_cubin_cache(tmpl);
    on_device();
    launch_events();
    gt_cubin_cache_drop(dir);
  } else {
    char *why = NULL;
    dg_gpu_available(&why);
    ok(true, "# SKIP no GPU: %s", why ? why : "?");
    free(why);
  }
  return tap_done();
}
