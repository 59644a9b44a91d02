/* scenario.h — one GPU session scenario, run on the real GPU (t/gpu/run.c,
 * kernels of fixtures/kernels.cu through NVRTC) and on a mocked CUDA runtime
 * (t/gpu/mock.c, the same kernels written in C), so the protocol, watchdog,
 * guards and restarts are tested on machines without a GPU too. */
#ifndef DG_T_GPU_SCENARIO_H
#define DG_T_GPU_SCENARIO_H
#include "gpu.h"
#include "../tap.h"

enum { K_FILL_EVEN, K_SCALE3, K_OOB, K_OOB_BEFORE, K_BAD_ADDRESS, K_SPIN, K_SAY, K_STRAY, K_N };
static const char *const kernel_names[K_N] = {
  "fill_even", "scale_k<float, 3>", "oob_write", "oob_before", "bad_address", "spin", "say", "stray",
};

#define N 1000

static dg_gpu_dim3 d3(uint32_t x) { return (dg_gpu_dim3){ x, 1, 1 }; }

static dg_gpu_status launch(dg_gpu *g, dg_gpu_kernel k, dg_gpu_buf y, dg_gpu_buf x,
                            uint32_t block, dg_gpu_result *r)
{
  dg_gpu_arg a[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_buf(x), dg_gpu_arg_i32(N) };
  bool two = x == 0;   /* kernels of (y, n): no x (handles are never 0) */
  if (two) a[1] = dg_gpu_arg_i32(N);
  return dg_gpu_launch(g, k, d3((N + block - 1) / block), d3(block), 0, a, two ? 2 : 3, r);
}

/* Loads the kernels and allocates y, x (x[i] = i); false on failure. */
static bool setup(dg_gpu *g, const dg_gpu_binary *bin, dg_gpu_kernel *k, dg_gpu_buf *y,
                  dg_gpu_buf *x)
{
  char *m = NULL;
  dg_gpu_pattern f32 = dg_gpu_poison_for("f32");
  dg_gpu_status st = dg_gpu_load(g, bin, k, &m);
  if (st == DG_GPU_OK) st = dg_gpu_alloc(g, N * 4, f32, y, &m);
  if (st == DG_GPU_OK) st = dg_gpu_alloc(g, N * 4, f32, x, &m);
  float h[N];
  for (int i = 0; i < N; i++) h[i] = (float)i;
  if (st == DG_GPU_OK) st = dg_gpu_upload(g, *x, 0, h, sizeof h, &m);
  if (st != DG_GPU_OK) printf("# setup: %s: %s\n", dg_gpu_status_name(st), m ? m : "");
  free(m);
  return st == DG_GPU_OK;
}

static void scenario(const dg_gpu_opts *o, const dg_gpu_binary *bin)
{
  char *why = NULL;
  dg_gpu *g = dg_gpu_open(o, &why);
  ok(g != NULL, "session opens (%s)", why ? why : "ok");
  free(why);
  if (!g) return;
  const dg_gpu_info *info = dg_gpu_info_of(g);
  ok(!strncmp(info->arch, "sm_", 3) && info->cc_major > 0, "device %s, %s", info->name, info->arch);
  dg_gpu_kernel k[K_N];
  dg_gpu_buf y, x;
  ok(setup(g, bin, k, &y, &x), "kernels loaded, buffers allocated and uploaded");
  unsigned gen = dg_gpu_generation(g);
  dg_gpu_pattern f32 = dg_gpu_poison_for("f32");
  float h[N];
  size_t first;
  dg_gpu_result r;
  char *m = NULL;

  /* a plain launch; the unwritten helper sees the odd elements still poisoned */
  is_int(launch(g, k[K_FILL_EVEN], y, 0, 256, &r), DG_GPU_OK, "fill_even runs (%s)", r.msg ? r.msg : "");
  dg_gpu_result_free(&r);
  is_int(dg_gpu_download(g, y, 0, h, sizeof h, &m), DG_GPU_OK, "download y");
  free(m);
  ok(h[4] == 4.0f && h[998] == 998.0f, "even elements written");
  is_int(dg_gpu_unwritten(h, N, f32, &first), N / 2, "odd elements still poisoned");
  is_int(first, 1, "the first unwritten is y[1]");

  /* a template instance */
  is_int(launch(g, k[K_SCALE3], y, x, 128, &r), DG_GPU_OK, "scale_k<float, 3> runs");
  dg_gpu_result_free(&r);
  dg_gpu_download(g, y, 0, h, sizeof h, NULL);
  ok(h[999] == 2997.0f && h[1] == 3.0f, "y = 3 x");
  is_int(dg_gpu_unwritten(h, N, f32, NULL), 0, "all written");
  dg_gpu_poison(g, y, NULL);
  dg_gpu_download(g, y, 0, h, sizeof h, NULL);
  is_int(dg_gpu_unwritten(h, N, f32, NULL), N, "poison refills y");

  /* device printf comes back with the result, not on the caller's stdout */
  is_int(launch(g, k[K_SAY], y, 0, 256, &r), DG_GPU_OK, "say runs");
  is_str(r.output, "kernel says 1000\n", "its printf is in the result");
  dg_gpu_result_free(&r);
  launch(g, k[K_FILL_EVEN], y, 0, 256, &r);
  ok(r.output == NULL, "a quiet kernel has no output");
  dg_gpu_result_free(&r);

  /* out-of-bounds writes land in the guards */
  is_int(launch(g, k[K_OOB], y, 0, 256, &r), DG_GPU_OOB_WRITE, "oob_write is caught (%s)", r.msg ? r.msg : "");
  ok(r.guards.n == 1 && r.guards.v[0].buf == y && r.guards.v[0].after
     && r.guards.v[0].first_off == N * 4 && r.guards.v[0].nbytes == 4,
     "one hit: 4 bytes right after y, at byte %lld", r.guards.n ? (long long)r.guards.v[0].first_off : -1);
  dg_gpu_result_free(&r);
  is_int(launch(g, k[K_OOB_BEFORE], y, 0, 256, &r), DG_GPU_OOB_WRITE, "oob_before is caught");
  ok(r.guards.n == 1 && !r.guards.v[0].after && r.guards.v[0].first_off == -4,
     "hit 4 bytes before y");
  dg_gpu_result_free(&r);
  is_int(launch(g, k[K_FILL_EVEN], y, 0, 256, &r), DG_GPU_OK, "canaries restored: the next launch is clean");
  dg_gpu_result_free(&r);

  /* requests the caller got wrong */
  static const char bytes100[100];
  dg_gpu_arg big = dg_gpu_arg_bytes(bytes100, sizeof bytes100);
  is_int(dg_gpu_launch(g, k[K_FILL_EVEN], d3(1), d3(1), 0, &big, 1, &r), DG_GPU_BAD_REQUEST,
         "a 100-byte argument is refused (%s)", r.msg ? r.msg : "");
  dg_gpu_result_free(&r);
  dg_gpu_arg three[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_i32(N), dg_gpu_arg_i32(0) };
  is_int(dg_gpu_launch(g, k[K_FILL_EVEN], d3(1), d3(32), 0, three, 3, &r), DG_GPU_BAD_REQUEST,
         "three arguments for two parameters refused");
  has_str(r.msg, "takes 2 argument(s), 3 given", "named with the counts");
  dg_gpu_result_free(&r);
  is_int(dg_gpu_launch(g, k[K_FILL_EVEN], d3(1), d3(32), 0, three, 1, &r), DG_GPU_BAD_REQUEST,
         "one argument for two parameters refused");
  dg_gpu_result_free(&r);
  three[1] = dg_gpu_arg_i64(N);
  is_int(dg_gpu_launch(g, k[K_FILL_EVEN], d3(1), d3(32), 0, three, 2, &r), DG_GPU_BAD_REQUEST,
         "an 8-byte value for an int refused");
  has_str(r.msg, "argument 2: 8 bytes given for a parameter of 4 bytes", "named with the sizes");
  dg_gpu_result_free(&r);
  is_int(dg_gpu_upload(g, y, N * 4 - 2, h, 4, &m), DG_GPU_BAD_REQUEST, "upload past the end refused");
  has_str(m, "outside a buffer", "and says so");
  free(m);
  is_int(launch(g, k[K_FILL_EVEN], y, 0, 2048, &r), DG_GPU_LAUNCH, "2048 threads a block: launch error");
  has_str(r.msg, "invalid", "named by CUDA");
  dg_gpu_result_free(&r);
  is_int(launch(g, k[K_FILL_EVEN], y, 0, 256, &r), DG_GPU_OK, "the context survives a launch error");
  dg_gpu_result_free(&r);
  is_int(dg_gpu_generation(g), gen, "same child so far");

  /* an illegal address: reported, the caller lives, a fresh child takes over */
  is_int(launch(g, k[K_BAD_ADDRESS], y, 0, 32, &r), DG_GPU_FAULT, "bad_address faults");
  has_str(r.msg, "illegal", "an illegal address");
  dg_gpu_result_free(&r);
  is_int(dg_gpu_download(g, y, 0, h, sizeof h, &m), DG_GPU_BAD_REQUEST, "old buffers are gone");
  has_str(m, "earlier GPU child", "and the message says why");
  free(m);
  ok(setup(g, bin, k, &y, &x), "reload and reallocate in a fresh child");
  ok(dg_gpu_generation(g) == gen + 1, "generation %u", dg_gpu_generation(g));
  is_int(launch(g, k[K_SCALE3], y, x, 256, &r), DG_GPU_OK, "launches work again");
  dg_gpu_result_free(&r);

  /* a kernel that never ends: the watchdog */
  dg_gpu_buf flag;
  dg_gpu_alloc(g, 4, dg_gpu_poison_for("i32"), &flag, NULL);
  int zero = 0;
  dg_gpu_upload(g, flag, 0, &zero, 4, NULL);
  dg_gpu_arg fa = dg_gpu_arg_buf(flag);
  double t0 = dg_now();
  is_int(dg_gpu_launch(g, k[K_SPIN], d3(1), d3(1), 0, &fa, 1, &r), DG_GPU_TIMEOUT, "spin is stopped by the watchdog");
  double took = dg_now() - t0;
  ok(took >= o->launch_timeout_s * 0.9 && took < o->launch_timeout_s + 10, "after %.1f s", took);
  has_str(r.msg, "watchdog", "message names the watchdog");
  dg_gpu_result_free(&r);
  ok(setup(g, bin, k, &y, &x), "a fresh child after the timeout");
  is_int(launch(g, k[K_FILL_EVEN], y, 0, 256, &r), DG_GPU_OK, "and it runs kernels");
  dg_gpu_result_free(&r);
  dg_gpu_close(g);
}

/* The batch: a case's uploads, poisons, launches and downloads in one
 * request, with the single calls' guarantees. */
static void batch_args(dg_gpu_arg *a, dg_gpu_buf y, dg_gpu_buf x)
{
  a[0] = dg_gpu_arg_buf(y), a[1] = dg_gpu_arg_buf(x), a[2] = dg_gpu_arg_i32(N);
}

static void batch_scenario(const dg_gpu_opts *o, const dg_gpu_binary *bin)
{
  dg_gpu *g = dg_gpu_open(o, NULL);
  ok(g != NULL, "batch: session opens");
  if (!g) return;
  dg_gpu_kernel k[K_N];
  dg_gpu_buf y, x;
  ok(setup(g, bin, k, &y, &x), "batch: kernels loaded, buffers allocated");
  dg_gpu_pattern f32 = dg_gpu_poison_for("f32");
  float xs[N], ys[N], y2[N];
  for (int i = 0; i < N; i++) xs[i] = (float)(2 * i);
  dg_gpu_arg a[3], a2[2] = { dg_gpu_arg_buf(y), dg_gpu_arg_i32(N) };
  batch_args(a, y, x);
  dg_gpu_batch b = {0};
  dg_gpu_batch_result r;

  /* upload x, y = 3x, then poison y and fill only its even elements */
  dg_gpu_batch_upload(&b, x, 0, xs, sizeof xs);
  dg_gpu_batch_launch(&b, k[K_SCALE3], d3(4), d3(256), 0, a, 3);
  dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
  dg_gpu_batch_poison(&b, y);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_download(&b, y, 0, y2, sizeof y2);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OK, "a batch of 6 ops runs (%s)", r.msg ? r.msg : "");
  ok(r.downloaded && r.nran == 2 && r.failed_launch == -1, "both launches ran, downloads written");
  ok(ys[999] == 5994.0f && ys[1] == 6.0f, "the first download: y = 3 x of the uploaded x");
  is_int(dg_gpu_unwritten(y2, N, f32, NULL), N / 2, "poisoned on the device: the odd elements stay poison");
  ok(y2[998] == 998.0f, "and the even ones written");
  dg_gpu_batch_result_free(&r);

  /* device-side poison over more than one pattern block (64 KiB) */
  enum { BIG = 300001 };
  dg_gpu_buf big;
  float *bh = calloc(BIG, sizeof *bh);
  dg_gpu_alloc(g, BIG * sizeof *bh, f32, &big, NULL);
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_upload(&b, big, 0, bh, BIG * sizeof *bh);
  dg_gpu_batch_poison(&b, big);
  dg_gpu_batch_download(&b, big, 0, bh, BIG * sizeof *bh);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OK, "a 1.2 MB buffer poisoned");
  is_int(dg_gpu_unwritten(bh, BIG, f32, NULL), BIG, "every element of it, the last included");
  dg_gpu_batch_result_free(&r);
  dg_gpu_free(g, big, NULL);
  free(bh);

  /* out of bounds in the second launch: named, later launches skipped, downloads still come */
  for (int i = 0; i < N; i++) ys[i] = -1;
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_poison(&b, y);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_OOB], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_SCALE3], d3(4), d3(256), 0, a, 3);
  dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OOB_WRITE, "out of bounds in a batch (%s)", r.msg ? r.msg : "");
  ok(r.failed_launch == 1 && r.nran == 2, "in launch 2 of 3 (failed %d, ran %d)", r.failed_launch, r.nran);
  ok(r.guards.n == 1 && r.guards.v[0].launch == 1 && r.guards.v[0].hit.buf == y && r.guards.v[0].hit.after
     && r.guards.v[0].hit.first_off == N * 4, "the hit: right after y, by launch 2");
  ok(r.downloaded && ys[4] == 1.0f && ys[999] == 1.0f, "y downloaded as the bad launch left it (scale3 skipped)");
  dg_gpu_batch_result_free(&r);

  /* a stale handle is refused before anything runs */
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_poison(&b, y ^ 0x01000000u);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_BAD_REQUEST, "a batch with a stale handle is refused");
  dg_gpu_batch_result_free(&r);
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_download(&b, y, 8, ys, sizeof ys);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_BAD_REQUEST, "a download past the end is refused");
  has_str(r.msg, "outside a buffer", "and says so");
  ok(!r.downloaded, "nothing downloaded");
  dg_gpu_batch_result_free(&r);

  /* asynchronous batches: three cases of upload/launch/download, one
   * synchronisation; the same values as one by one */
  float ya[3][N], xa[3][N];
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < N; i++) xa[c][i] = (float)(i + 1000 * c);
  dg_gpu_batch_clear(&b);
  b.async = true;
  for (int c = 0; c < 3; c++) {
    dg_gpu_batch_upload(&b, x, 0, xa[c], sizeof xa[c]);
    dg_gpu_batch_poison(&b, y);
    dg_gpu_batch_launch(&b, k[K_SCALE3], d3(4), d3(256), 0, a, 3);
    dg_gpu_batch_download(&b, y, 0, ya[c], sizeof ya[c]);
  }
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OK, "async: three cases in one batch (%s)", r.msg ? r.msg : "");
  ok(r.downloaded && r.nran == 3 && r.launch_ms.n == 3 && !r.guards.n, "async: 3 launches ran, no guard hit");
  ok(ya[0][7] == 21.0f && ya[1][7] == 3021.0f && ya[2][999] == 8997.0f,
     "async: each case's y = 3 x of its own x (%g %g %g)", ya[0][7], ya[1][7], ya[2][999]);
  dg_gpu_batch_result_free(&r);
  /* out of bounds in case 2: the batch says OOB at that launch; the canary
   * is restored, so the next (synchronous) launch sees no hit */
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_OOB], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_SCALE3], d3(4), d3(256), 0, a, 3);
  dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OOB_WRITE, "async: out of bounds found (%s)", r.msg ? r.msg : "");
  ok(r.failed_launch == 1 && r.guards.n >= 1 && r.guards.v[0].launch == 1 && r.guards.v[0].hit.buf == y &&
     r.guards.v[0].hit.after, "async: first seen after launch 2, past y (failed %d)", r.failed_launch);
  dg_gpu_batch_result_free(&r);
  b.async = false;
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OK, "async: the guard restored afterwards (%s)", r.msg ? r.msg : "");
  dg_gpu_batch_result_free(&r);

  /* a fault in a batch: the launch named, a fresh child next */
  unsigned gen = dg_gpu_generation(g);
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_BAD_ADDRESS], d3(1), d3(32), 0, a2, 2);
  dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_FAULT, "a fault in a batch");
  ok(r.failed_launch == 1 && !r.downloaded, "in launch 2, nothing downloaded (failed %d)", r.failed_launch);
  has_str(r.msg, "illegal", "an illegal address");
  dg_gpu_batch_result_free(&r);
  ok(setup(g, bin, k, &y, &x) && dg_gpu_generation(g) == gen + 1, "a fresh child after it");

  /* a fault in an asynchronous batch: a fault (its launch named where it was
   * seen at the launch, -1 where at the end), nothing downloaded, a fresh child */
  gen = dg_gpu_generation(g);
  a2[0] = dg_gpu_arg_buf(y);
  dg_gpu_batch_clear(&b);
  b.async = true;
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_BAD_ADDRESS], d3(1), d3(32), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_FAULT, "async: a fault in the batch");
  ok(!r.downloaded && r.failed_launch != 0, "async: nothing downloaded (failed %d)", r.failed_launch);
  has_str(r.msg, "illegal", "async: an illegal address");
  dg_gpu_batch_result_free(&r);
  b.async = false;
  ok(setup(g, bin, k, &y, &x) && dg_gpu_generation(g) == gen + 1, "async: a fresh child after it");

  /* a hang in a batch: the watchdog names the launch */
  dg_gpu_buf flag;
  int zero = 0;
  dg_gpu_alloc(g, 4, dg_gpu_poison_for("i32"), &flag, NULL);
  dg_gpu_upload(g, flag, 0, &zero, 4, NULL);   /* spin waits for a non-zero flag */
  dg_gpu_arg fa = dg_gpu_arg_buf(flag);
  a2[0] = dg_gpu_arg_buf(y);
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_launch(&b, k[K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
  dg_gpu_batch_launch(&b, k[K_SPIN], d3(1), d3(1), 0, &fa, 1);
  double t0 = dg_now();
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_TIMEOUT, "a hang in a batch is stopped");
  double took = dg_now() - t0;
  ok(r.failed_launch == 1, "in launch 2 (failed %d)", r.failed_launch);
  ok(took < 2 * o->launch_timeout_s + 10, "after %.1f s (two launches' limits at most)", took);
  dg_gpu_batch_result_free(&r);
  ok(setup(g, bin, k, &y, &x), "a fresh child after the timeout");
  batch_args(a, y, x);
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_launch(&b, k[K_SCALE3], d3(4), d3(256), 0, a, 3);
  dg_gpu_batch_download(&b, y, 0, ys, sizeof ys);
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OK, "and it runs batches");
  ok(ys[999] == 2997.0f, "y = 3 x again");
  dg_gpu_batch_result_free(&r);
  dg_gpu_batch_free(&b);
  dg_gpu_close(g);
}

#endif
