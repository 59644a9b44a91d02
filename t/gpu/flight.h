/* flight.h — two batches in flight (doc/gpu.md §3, session 12): the
 * caller sends a batch (dg_gpu_batch_send) and the next one before it
 * receives the first; the child launches the second's graph behind the
 * first's before it answers the first. On the real GPU (t/gpu/run.c) and
 * on the mocked runtime (t/gpu/mock.c, where MOCK_EVENT_LAG_MS keeps a
 * graph "running" until the next request is read). After graph.h. */
#ifndef DG_T_GPU_FLIGHT_H
#define DG_T_GPU_FLIGHT_H
#include "graph.h"

/* The "overlapped" count of the stats file's last line (-1: none). */
static long flight_overlapped(const char *path)
{
  FILE *f = fopen(path, "r");
  char line[256], last[256] = "";
  while (f && fgets(line, sizeof line, f)) memcpy(last, line, sizeof last);
  if (f) fclose(f);
  const char *at = strstr(last, " overlapped ");
  return at ? atol(at + 12) : -1;
}

/* graph.h's request (per lane: x uploaded, y poisoned, stray, y downloaded), built into b. */
static void flight_build(dg_gpu_batch *b, const dg_gpu_kernel *k, dg_gpu_buf y, dg_gpu_buf x, float (*xs)[N],
                         float (*ys)[N])
{
  dg_gpu_arg a[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_buf(x), dg_gpu_arg_i32(N) };
  dg_gpu_batch_clear(b);
  b->async = true;
  for (int l = 0; l < LANES; l++) {
    dg_gpu_batch_lane(b, l);
    dg_gpu_batch_upload(b, x, 0, xs[l], sizeof xs[l]);
    dg_gpu_batch_poison(b, y);
    dg_gpu_batch_launch(b, k[K_STRAY], d3(4), d3(256), 0, a, 3);
    dg_gpu_batch_download(b, y, 0, ys[l], sizeof ys[l]);
  }
  dg_gpu_batch_lane(b, -1);
  memset(ys, 0, sizeof(float) * N * LANES);
}

/* A pair: a and b sent, a synchronous download of y written behind them
 * (the answers owed are read first and kept), then both received. x0 and
 * x1 set lane 0's and a chosen lane's first x of the first batch (-4: a
 * slow case, ~30 ms on the GPU, so the second arrives while it runs). */
typedef struct { dg_gpu_status st[2], sync; bool down[2]; int wrong[2]; char msg[2][160]; bool probe_ok; } flight_pair;

static flight_pair flight_run(dg_gpu *g, const dg_gpu_kernel *k, dg_gpu_buf y, dg_gpu_buf x, int salt, int lane,
                              float first)
{
  static float xs[2][LANES][N], ys[2][LANES][N];
  static dg_gpu_batch b[2];
  flight_pair p;
  memset(&p, 0, sizeof p);
  for (int i = 0; i < 2; i++) graph_fill(xs[i], salt + i);
  xs[0][0][0] = -4.0f;
  xs[0][lane][0] = first;
  for (int i = 0; i < 2; i++) flight_build(&b[i], k, y, x, xs[i], ys[i]);
  dg_gpu_batch_send(g, &b[0]);
  dg_gpu_batch_send(g, &b[1]);
  float probe[N];
  char *m = NULL;
  p.sync = dg_gpu_download(g, y, 0, probe, sizeof probe, &m);
  free(m);
  p.probe_ok = true;   /* lane 0's y of the second batch: the download ran after it */
  for (int i = 0; i < N; i++) p.probe_ok &= probe[i] == 3.0f * xs[1][0][i];
  for (int i = 0; i < 2; i++) {
    dg_gpu_batch_result r;
    p.st[i] = dg_gpu_batch_recv(g, &b[i], &r);
    p.down[i] = r.downloaded;
    p.wrong[i] = r.downloaded ? graph_wrong(xs[i], ys[i], N) : -1;
    snprintf(p.msg[i], sizeof p.msg[i], "%s", r.msg ? r.msg : "");
    dg_gpu_batch_result_free(&r);
  }
  return p;
}

static void flight_scenario(const dg_gpu_opts *o, const dg_gpu_binary *bin)
{
  char stats[] = "/tmp/dg-flight-XXXXXX";
  int fd = mkstemp(stats);
  if (fd >= 0) close(fd);
  setenv("DIRIGO_GPU_GRAPH_STATS", stats, 1);
  setenv("MOCK_EVENT_LAG_MS", "5000", 1);   /* (the mock's child reads it; a real runtime does not) */
  dg_gpu *g = dg_gpu_open(o, NULL);
  unsetenv("MOCK_EVENT_LAG_MS");
  dg_gpu_kernel k[K_N];
  dg_gpu_buf y, x;
  ok(g && setup(g, bin, k, &y, &x), "flight: kernels loaded, buffers allocated");
  if (!g) return;
  /* five pairs: each flight's graph is captured at its second sight
     (flight 0: pair 1's second batch; flight 1: pair 3's), so pairs 4 and 5
     are the two that overlap */
  int bad = 0;
  for (int q = 0; q < 5; q++) {
    flight_pair p = flight_run(g, k, y, x, 10 * q, 0, -4.0f);
    bool good = p.st[0] == DG_GPU_OK && p.st[1] == DG_GPU_OK && p.sync == DG_GPU_OK && !p.wrong[0] && !p.wrong[1] &&
                p.probe_ok;
    if (!good)
      printf("# flight: pair %d: %s %s, download %s, wrong %d %d, probe %d (%s / %s)", q + 1,
           dg_gpu_status_name(p.st[0]), dg_gpu_status_name(p.st[1]), dg_gpu_status_name(p.sync), p.wrong[0], p.wrong[1],
           p.probe_ok, p.msg[0], p.msg[1]);
    if (!good) printf("\n");
    bad += !good;
  }
  is_int(bad, 0, "flight: five pairs sent two at a time, a download written behind each: every y = 3 x, in order");
  long ov = flight_overlapped(stats);
  if (ov != 2) {   /* the child's lines, for the reader */
    FILE *f = fopen(stats, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) printf("# %s", line);
    if (f) fclose(f);
  }
  is_int(ov, 2, "flight: the child launched the second batch of pairs 4 and 5 before it answered the first");
  /* an out-of-bounds write in the first batch (lane 2's case): the second
     ran while its canary was restored, so it runs again, named as such */
  flight_pair p = flight_run(g, k, y, x, 60, 2, -1.0f);
  is_int(p.st[0], DG_GPU_OOB_WRITE, "flight: the first batch's out-of-bounds write found (%s)", p.msg[0]);
  ok(p.st[1] != DG_GPU_OK && !p.down[1] && strstr(p.msg[1], "run again"),
     "flight: the second batch, in flight over the restore, is to run again (%s: %s)", dg_gpu_status_name(p.st[1]),
     p.msg[1]);
  is_int(flight_overlapped(stats), 3, "flight: that pair overlapped too");
  p = flight_run(g, k, y, x, 70, 0, -4.0f);
  ok(p.st[0] == DG_GPU_OK && p.st[1] == DG_GPU_OK && !p.wrong[0] && !p.wrong[1],
     "flight: the pair after it runs right (the canary restored)");
  /* a fault in the first batch: it is named; the second's answer never
     comes (the child went); a fresh child after it */
  unsigned gen = dg_gpu_generation(g);
  p = flight_run(g, k, y, x, 80, 1, -2.0f);
  is_int(p.st[0], DG_GPU_FAULT, "flight: a fault in the first batch (%s)", p.msg[0]);
  ok(p.st[1] != DG_GPU_OK && !p.down[1], "flight: the second batch did not run to an answer (%s: %s)",
     dg_gpu_status_name(p.st[1]), p.msg[1]);
  ok(setup(g, bin, k, &y, &x) && dg_gpu_generation(g) > gen, "flight: a fresh child after the fault");
  p = flight_run(g, k, y, x, 90, 0, -4.0f);
  ok(p.st[0] == DG_GPU_OK && p.st[1] == DG_GPU_OK && !p.wrong[0] && !p.wrong[1] && p.probe_ok,
     "flight: the fresh child runs a pair right");
  /* the API's edges: a third send with two owed is refused; a receive of a batch never sent */
  static dg_gpu_batch e[3];
  static float xs[LANES][N], ys[3][LANES][N];
  graph_fill(xs, 100);
  for (int i = 0; i < 3; i++) flight_build(&e[i], k, y, x, xs, ys[i]);
  dg_gpu_batch_send(g, &e[0]);
  dg_gpu_batch_send(g, &e[1]);
  is_int(dg_gpu_batch_send(g, &e[2]), DG_GPU_BAD_REQUEST, "flight: a third batch in flight is refused");
  char *m = NULL;
  float probe[N];
  is_int(dg_gpu_download(g, y, 0, probe, sizeof probe, &m), DG_GPU_OK, "flight: a download behind the two");
  free(m);
  dg_gpu_batch_result r;
  is_int(dg_gpu_batch_recv(g, &e[2], &r), DG_GPU_BAD_REQUEST, "flight: receiving a batch not in flight: %s",
         r.msg ? r.msg : "");
  dg_gpu_batch_result_free(&r);
  int okn = 0;
  for (int i = 1; i >= 0; i--) {   /* received out of order: the answers were kept */
    okn += dg_gpu_batch_recv(g, &e[i], &r) == DG_GPU_OK && graph_wrong(xs, ys[i], N) == 0;
    dg_gpu_batch_result_free(&r);
  }
  is_int(okn, 2, "flight: two batches received in the other order, both right");
  /* a batch sent untimed: no launch timed (the event records left out), the same results */
  int timed[2] = {0}, right = 0;
  for (int u = 0; u < 2; u++) {
    flight_build(&e[u], k, y, x, xs, ys[u]);
    e[u].untimed = u == 1;
    right += dg_gpu_batch_run(g, &e[u], &r) == DG_GPU_OK && graph_wrong(xs, ys[u], N) == 0;
    for (size_t l = 0; l < r.launch_ms.n; l++) timed[u] += r.launch_ms.v[l] > 0;
    dg_gpu_batch_result_free(&r);
  }
  ok(right == 2 && timed[0] == LANES && timed[1] == 0, "flight: untimed, no launch timed (%d; timed: %d of %d), "
     "both right", timed[1], timed[0], LANES);
  for (int i = 0; i < 3; i++) dg_gpu_batch_free(&e[i]);
  dg_gpu_close(g);
  unsetenv("DIRIGO_GPU_GRAPH_STATS");
  unlink(stats);
}
#endif
