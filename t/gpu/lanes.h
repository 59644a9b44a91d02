/* lanes.h — batches on several lanes (gpu.h dg_gpu_batch_lane: a CUDA
 * stream and a copy of the buffers each), after scenario.h, on the real GPU
 * (t/gpu/run.c) and the mocked runtime (t/gpu/mock.c, which runs the lanes'
 * queues interleaved: lanes sharing a buffer would read each other's x). */
#ifndef DG_T_GPU_LANES_H
#define DG_T_GPU_LANES_H
#include "scenario.h"

enum { LANES = 4 };

/* Lane l's ys[l] of a batch of LANES cases: x = xs[l] (serial: xs[0] once
 * for every lane), y poisoned, y = 3 x, y downloaded. */
static dg_gpu_status lanes_batch(dg_gpu *g, const dg_gpu_kernel *k, dg_gpu_buf y, dg_gpu_buf x, bool async,
                                 bool serial_x, float (*xs)[N], float (*ys)[N], dg_gpu_batch_result *r)
{
  dg_gpu_arg a[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_buf(x), dg_gpu_arg_i32(N) };
  dg_gpu_batch b = {0};
  b.async = async;
  if (serial_x) dg_gpu_batch_upload(&b, x, 0, xs[0], sizeof xs[0]);
  for (int l = 0; l < LANES; l++) {
    dg_gpu_batch_lane(&b, l);
    if (!serial_x) dg_gpu_batch_upload(&b, x, 0, xs[l], sizeof xs[l]);
    dg_gpu_batch_poison(&b, y);
    dg_gpu_batch_launch(&b, k[K_SCALE3], d3(4), d3(256), 0, a, 3);
    dg_gpu_batch_download(&b, y, 0, ys[l], sizeof ys[l]);
  }
  dg_gpu_batch_lane(&b, -1);
  dg_gpu_status st = dg_gpu_batch_run(g, &b, r);
  dg_gpu_batch_free(&b);
  return st;
}

/* Elements of lane l's y that are not 3 x (x of lane l, or xs[0] when serial). */
static int lanes_wrong(float (*xs)[N], float (*ys)[N], bool serial_x)
{
  int bad = 0;
  for (int l = 0; l < LANES; l++)
    for (int i = 0; i < N; i++) bad += ys[l][i] != 3.0f * xs[serial_x ? 0 : l][i];
  return bad;
}

static void lanes_scenario(const dg_gpu_opts *o, const dg_gpu_binary *bin)
{
  dg_gpu *g = dg_gpu_open(o, NULL);
  ok(g != NULL, "lanes: session opens");
  if (!g) return;
  dg_gpu_kernel k[K_N];
  dg_gpu_buf y, x;
  ok(setup(g, bin, k, &y, &x), "lanes: kernels loaded, buffers allocated");
  static float xs[LANES][N], ys[LANES][N];
  for (int l = 0; l < LANES; l++)
    for (int i = 0; i < N; i++) xs[l][i] = (float)(i + 1000 * l);
  dg_gpu_batch_result r;
  for (int async = 1; async >= 0; async--) {
    const char *how = async ? "async" : "synchronous";
    memset(ys, 0, sizeof ys);
    is_int(lanes_batch(g, k, y, x, async, false, xs, ys, &r), DG_GPU_OK, "lanes, %s: %d cases on %d lanes (%s)",
           how, LANES, LANES, r.msg ? r.msg : "");
    ok(dg_gpu_lanes_granted(g) == LANES && r.nran == LANES && r.launch_ms.n == LANES && !r.guards.n && r.downloaded,
       "lanes, %s: %d granted, %d launches timed, no guard hit", how, dg_gpu_lanes_granted(g), (int)r.launch_ms.n);
    int bad = lanes_wrong(xs, ys, false);
    ok(bad == 0, "lanes, %s: each lane's y = 3 x of its own x (%d elements otherwise; y[7] %g %g %g %g)", how, bad,
       ys[0][7], ys[1][7], ys[2][7], ys[3][7]);
    dg_gpu_batch_result_free(&r);
  }
  /* an upload at a serial point reaches every lane's copy of x */
  memset(ys, 0, sizeof ys);
  is_int(lanes_batch(g, k, y, x, true, true, xs, ys, &r), DG_GPU_OK, "lanes: x uploaded once, serially");
  ok(lanes_wrong(xs, ys, true) == 0, "lanes: every lane computed from it (y[7] %g %g)", ys[0][7], ys[3][7]);
  dg_gpu_batch_result_free(&r);

  /* out of bounds in lane 2's case: the guard check of an earlier launch
   * may run after it on another stream and see it first, but the batch
   * fails at the launch whose own lane's copy was hit, lane 2's; the hit
   * names y itself, not the copy */
  dg_gpu_arg a2[2] = { dg_gpu_arg_buf(y), dg_gpu_arg_i32(N) };
  dg_gpu_batch b = {0};
  b.async = true;
  for (int l = 0; l < LANES; l++) {
    dg_gpu_batch_lane(&b, l);
    dg_gpu_batch_poison(&b, y);
    dg_gpu_batch_launch(&b, k[l == 2 ? K_OOB : K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
    dg_gpu_batch_download(&b, y, 0, ys[l], sizeof ys[l]);
  }
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_OOB_WRITE, "lanes: out of bounds in lane 2 found (%s)",
         r.msg ? r.msg : "");
  ok(r.failed_launch == 2 && r.guards.n >= 1 && r.guards.v[0].hit.buf == y &&
     r.guards.v[0].hit.after && r.guards.v[0].hit.first_off == N * 4,
     "lanes: failed at launch %d (lane 2's), the hit right after y", r.failed_launch);
  dg_gpu_batch_result_free(&r);
  memset(ys, 0, sizeof ys);
  is_int(lanes_batch(g, k, y, x, true, false, xs, ys, &r), DG_GPU_OK, "lanes: the guards restored afterwards (%s)",
         r.msg ? r.msg : "");
  ok(lanes_wrong(xs, ys, false) == 0 && !r.guards.n, "lanes: and every lane right again");
  dg_gpu_batch_result_free(&r);

  /* a fault in a lane: the child goes, nothing downloaded, a fresh one next */
  unsigned gen = dg_gpu_generation(g);
  dg_gpu_batch_clear(&b);
  b.async = true;
  for (int l = 0; l < LANES; l++) {
    dg_gpu_batch_lane(&b, l);
    dg_gpu_batch_launch(&b, k[l == 1 ? K_BAD_ADDRESS : K_FILL_EVEN], d3(4), d3(256), 0, a2, 2);
    dg_gpu_batch_download(&b, y, 0, ys[l], sizeof ys[l]);
  }
  is_int(dg_gpu_batch_run(g, &b, &r), DG_GPU_FAULT, "lanes: a fault in lane 1");
  ok(!r.downloaded && r.failed_launch <= 1, "lanes: nothing downloaded (failed %d)", r.failed_launch);
  dg_gpu_batch_result_free(&r);
  ok(setup(g, bin, k, &y, &x) && dg_gpu_generation(g) == gen + 1, "lanes: a fresh child after it");
  memset(ys, 0, sizeof ys);
  is_int(lanes_batch(g, k, y, x, true, false, xs, ys, &r), DG_GPU_OK, "lanes: in the fresh child (%s)",
         r.msg ? r.msg : "");
  ok(lanes_wrong(xs, ys, false) == 0 && dg_gpu_lanes_granted(g) == LANES, "lanes: copies made again there");
  dg_gpu_batch_result_free(&r);
  dg_gpu_batch_free(&b);
  dg_gpu_close(g);
}
#endif
