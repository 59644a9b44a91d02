/* graph.h — the GPU child's CUDA graphs (doc/gpu.md §3, "graphs"): an
 * asynchronous batch captured once and replayed for later batches of the
 * same ops with other upload bytes, after lanes.h, on the real GPU
 * (t/gpu/run.c) and the mocked runtime (t/gpu/mock.c, which captures the
 * streams' queues and replays them). The child's counts come back through
 * DIRIGO_GPU_GRAPH_STATS (a line a batch, gpu_child_graph.c). */
#ifndef DG_T_GPU_GRAPH_H
#define DG_T_GPU_GRAPH_H
#include "lanes.h"
#include <unistd.h>

/* The child's counts after its last asynchronous batch (the stats file's
 * last line); false when there is none. */
static bool graph_counts(const char *path, long *captured, long *replayed, long *direct)
{
  FILE *f = fopen(path, "r");
  char line[256], last[256] = "";
  while (f && fgets(line, sizeof line, f)) memcpy(last, line, sizeof last);
  if (f) fclose(f);
  long pid, failed;
  return sscanf(last, "pid %ld captured %ld replayed %ld direct %ld failed %ld", &pid, captured, replayed, direct,
                &failed) == 5;
}

/* A request of LANES cases on LANES lanes: per lane x uploaded (xs[l]), y
 * poisoned, stray(y, x, n) (y = 3 x; x[0] -1 writes y[n], -2 faults), y
 * downloaded. */
static dg_gpu_status graph_batch(dg_gpu *g, const dg_gpu_kernel *k, dg_gpu_buf y, dg_gpu_buf x, int n,
                                 float (*xs)[N], float (*ys)[N], dg_gpu_batch_result *r)
{
  dg_gpu_arg a[3] = { dg_gpu_arg_buf(y), dg_gpu_arg_buf(x), dg_gpu_arg_i32(n) };
  dg_gpu_batch b = {0};
  b.async = true;
  for (int l = 0; l < LANES; l++) {
    dg_gpu_batch_lane(&b, l);
    dg_gpu_batch_upload(&b, x, 0, xs[l], sizeof xs[l]);
    dg_gpu_batch_poison(&b, y);
    dg_gpu_batch_launch(&b, k[K_STRAY], d3(4), d3(256), 0, a, 3);
    dg_gpu_batch_download(&b, y, 0, ys[l], sizeof ys[l]);
  }
  dg_gpu_batch_lane(&b, -1);
  memset(ys, 0, sizeof(float) * N * LANES);
  dg_gpu_status st = dg_gpu_batch_run(g, &b, r);
  dg_gpu_batch_free(&b);
  return st;
}

/* Elements of the lanes' y that are not 3 x below n and the f32 poison from n on. */
static int graph_wrong(float (*xs)[N], float (*ys)[N], int n)
{
  uint32_t poison = 0x7fc0dead;
  int bad = 0;
  for (int l = 0; l < LANES; l++)
    for (int i = 0; i < N; i++) {
      uint32_t bits;
      memcpy(&bits, &ys[l][i], 4);
      bad += i < n ? ys[l][i] != 3.0f * xs[l][i] : bits != poison;
    }
  return bad;
}

static void graph_fill(float (*xs)[N], int salt)
{
  for (int l = 0; l < LANES; l++)
    for (int i = 0; i < N; i++) xs[l][i] = (float)(i + 1000 * l + 7 * salt);
}

/* One session's requests, graphs on or off (DIRIGO_GPU_GRAPH=0): each
 * request's status, failed launch, first hit and y bytes into out[]. */
typedef struct { dg_gpu_status st; int failed, nhits; dg_gpu_guard_hit hit; float ys[LANES][N]; } graph_outcome;
enum { NREQ = 7 };

static void graph_scenario(const dg_gpu_opts *o, const dg_gpu_binary *bin)
{
  char stats[] = "/tmp/dg-graph-XXXXXX";
  int fd = mkstemp(stats);
  if (fd >= 0) close(fd);
  setenv("DIRIGO_GPU_GRAPH_STATS", stats, 1);
  static float xs[LANES][N];
  static graph_outcome on[NREQ], off[NREQ];
  for (int pass = 0; pass < 2; pass++) {   /* graphs on, then off */
    graph_outcome *out = pass ? off : on;
    const char *how = pass ? "graphs off" : "graphs";
    if (pass) setenv("DIRIGO_GPU_GRAPH", "0", 1);
    dg_gpu *g = dg_gpu_open(o, NULL);
    dg_gpu_kernel k[K_N];
    dg_gpu_buf y, x;
    ok(g && setup(g, bin, k, &y, &x), "%s: kernels loaded, buffers allocated", how);
    if (!g) continue;
    dg_gpu_batch_result r;
    long cap = -1, rep = -1, dir = -1;
    /* seven requests: two of shape A (other bytes), one of shape B (n
     * halved: another launch argument), A again, A with an out-of-bounds
     * write in lane 2's case, A again, B again. DIRIGO_GPU_GRAPH's default:
     * captured at the second sight, replayed after */
    static const int n_of[NREQ] = { N, N, N / 2, N, N, N, N / 2 };
    for (int q = 0; q < NREQ; q++) {
      graph_fill(xs, q);
      if (q == 4) xs[2][0] = -1.0f;
      graph_outcome *w = &out[q];
      w->st = graph_batch(g, k, y, x, n_of[q], xs, w->ys, &r);
      w->failed = r.failed_launch, w->nhits = (int)r.guards.n;
      if (r.guards.n) w->hit = r.guards.v[0].hit;
      bool timed = r.launch_ms.n == LANES;
      for (size_t l = 0; timed && l < r.launch_ms.n; l++) timed = r.launch_ms.v[l] > 0;
      if (q == 4) {
        is_int(w->st, DG_GPU_OOB_WRITE, "%s: request %d, out of bounds in lane 2's case: found (%s)", how, q + 1,
               r.msg ? r.msg : "");
        ok(w->failed == 2 && w->nhits >= 1 && w->hit.buf == y && w->hit.after && w->hit.first_off == N * 4,
           "%s: named at launch %d (lane 2's), the hit right after y", how, w->failed);
      } else {
        is_int(w->st, DG_GPU_OK, "%s: request %d (n %d) runs (%s)", how, q + 1, n_of[q], r.msg ? r.msg : "");
        int bad = graph_wrong(xs, w->ys, n_of[q]);
        ok(bad == 0 && !r.guards.n && timed, "%s: request %d: every lane's y = 3 x of its own bytes below n, "
           "poison above (%d wrong), no guard hit, every launch timed", how, q + 1, bad);
      }
      dg_gpu_batch_result_free(&r);
      bool have = graph_counts(stats, &cap, &rep, &dir);
      if (pass) {
        ok(have && cap == 0 && rep == 0 && dir == q + 1, "%s: request %d ran directly (%ld captured, %ld replayed, "
           "%ld direct)", how, q + 1, cap, rep, dir);
        continue;
      }
      static const long want_cap[NREQ] = { 0, 1, 1, 1, 1, 1, 2 }, want_rep[NREQ] = { 0, 0, 0, 1, 2, 3, 3 };
      ok(have && cap == want_cap[q] && rep == want_rep[q] && dir == q + 1 - cap - rep,
         "%s: request %d: %ld captured (want %ld), %ld replayed (want %ld), %ld direct", how, q + 1, cap,
         want_cap[q], rep, want_rep[q], dir);
    }
    if (!pass) {   /* a fault inside a replayed graph: the child goes, a fresh one after it */
      unsigned gen = dg_gpu_generation(g);
      graph_fill(xs, 9);
      xs[1][0] = -2.0f;
      static float ys[LANES][N];
      is_int(graph_batch(g, k, y, x, N, xs, ys, &r), DG_GPU_FAULT, "%s: a fault in lane 1's case of a replay", how);
      ok(!r.downloaded, "%s: nothing downloaded from the faulted replay", how);
      dg_gpu_batch_result_free(&r);
      bool have = graph_counts(stats, &cap, &rep, &dir);
      ok(have && rep == 4, "%s: the faulting request was a replay (%ld replayed)", how, rep);
      ok(setup(g, bin, k, &y, &x) && dg_gpu_generation(g) == gen + 1, "%s: a fresh child after the fault", how);
      int bad = 0;
      for (int q = 0; q < 3; q++) {   /* seen, captured, replayed there anew */
        graph_fill(xs, 10 + q);
        bad += graph_batch(g, k, y, x, N, xs, ys, &r) != DG_GPU_OK || graph_wrong(xs, ys, N);
        dg_gpu_batch_result_free(&r);
      }
      have = graph_counts(stats, &cap, &rep, &dir);
      ok(bad == 0 && have && cap == 1 && rep == 1 && dir == 1,
         "%s: the fresh child runs the requests right (%d wrong), captured and replayed there anew (%ld captured, "
         "%ld replayed, %ld direct)", how, bad, cap, rep, dir);
      /* a hang inside a replay: the watchdog, a fresh child (the campaign
       * runs such a request's cases again alone, which names the case) */
      gen = dg_gpu_generation(g);
      graph_fill(xs, 20);
      xs[3][0] = -3.0f;
      is_int(graph_batch(g, k, y, x, N, xs, ys, &r), DG_GPU_TIMEOUT, "%s: a hang in lane 3's case of a replay (%s)",
             how, r.msg ? r.msg : "");
      ok(!r.downloaded, "%s: nothing downloaded from the hung replay", how);
      dg_gpu_batch_result_free(&r);
      graph_fill(xs, 21);
      ok(setup(g, bin, k, &y, &x) && dg_gpu_generation(g) == gen + 1 &&
         graph_batch(g, k, y, x, N, xs, ys, &r) == DG_GPU_OK && graph_wrong(xs, ys, N) == 0,
         "%s: a fresh child after the hang runs the request right", how);
      dg_gpu_batch_result_free(&r);
    }
    dg_gpu_close(g);
  }
  int same = 0;
  for (int q = 0; q < NREQ; q++)
    same += on[q].st == off[q].st && on[q].failed == off[q].failed && on[q].nhits == off[q].nhits &&
            on[q].hit.after == off[q].hit.after && on[q].hit.first_off == off[q].hit.first_off &&
            on[q].hit.nbytes == off[q].hit.nbytes && !memcmp(on[q].ys, off[q].ys, sizeof on[q].ys);
  is_int(same, NREQ, "graphs on and off: the same status, failed launch, hits and y bytes, request for request");
  unsetenv("DIRIGO_GPU_GRAPH");
  unsetenv("DIRIGO_GPU_GRAPH_STATS");
  unlink(stats);
}
#endif
