/* gpu_child_graph.c — the GPU child's CUDA graphs (doc/gpu.md §3, "graphs";
 * session 8, issue #6): an asynchronous batch is captured into a graph the
 * first time its op stream is seen, and a later batch whose op stream is the
 * same but for its upload bodies (a campaign's next request of that shape:
 * only the draw tables and the picks differ, and they sit at the same
 * offsets of the pinned staging area) copies its bodies there and launches
 * the graph once, instead of queueing hundreds of launches, copies and
 * event records one by one. This file owns the cache (keys, entries,
 * statistics) and the order of a captured batch's streams: the legacy
 * stream cannot be captured, so serial ops go to a stream of their own
 * (`origin`) with explicit events to and from the lanes. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include "config.h"
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>

#ifdef DG_HAVE_CUDA
#include "gpu_child_int.h"

#define GRAPH_MAX 8   /* cached graphs (shapes) a child keeps */

static gch_graph cache[GRAPH_MAX];
static uint64_t tick;
static dg_buf key;
static struct { long captured, replayed, direct, failed, overlapped; double s[4]; } stats;

/* DIRIGO_GPU_GRAPH (read once): 0 no graphs; N >= 1 every asynchronous
 * batch is captured the Nth time its op stream is seen, and every later one
 * replays. Unset: the batches that run on lanes (several cases of a
 * realistic size) alone, captured at their second sight. Measured on the
 * H200 (doc/gpu.md §6, session 8): a capture and its instantiation cost
 * more than running the batch directly (~1.5 ms for a request of layernorm
 * 8192 x 768), a campaign's second requests (the envelope's, the sample's)
 * are seldom the same twice while its first requests of one shape are; and
 * at spec sizes (one lane) graphs were no faster (4 of 5 rows slower). */
static int graph_env = -2;

static void graph_env_read(void)
{
  if (graph_env == -2) {
    const char *v = getenv("DIRIGO_GPU_GRAPH");
    graph_env = v && *v ? atoi(v) : -1;
    if (graph_env < -1) graph_env = 0;
  }
}

int gch_graph_mode(void)
{
  graph_env_read();
  return graph_env < 0 ? 2 : graph_env;
}

bool gch_graph_wanted(bool laned)
{
  graph_env_read();
  return graph_env > 0 || (graph_env < 0 && laned && gch_st.nlanes > 1);
}

cudaError_t gch_event_record(cudaEvent_t e, cudaStream_t s)
{
  return gch_st.capturing ? cudaEventRecordWithFlags(e, s, cudaEventRecordExternal) : cudaEventRecord(e, s);
}

static void entry_drop(gch_graph *g)
{
  if (g->exec) cudaGraphExecDestroy(g->exec);
  dg_buf_free(&g->key);
  free(g->timed), free(g->guarded), free(g->lane), free(g->start);
  memset(g, 0, sizeof *g);
}

/* A hash of the key eight bytes a step (the memcmp after it decides); FNV-1a
 * a byte took 0.1 ms for a request of 32 cases, on every batch (H200). */
static uint64_t key_hash(const uint8_t *p, size_t n)
{
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h ^ (h >> 32);
}

/* The batch's key: its flags and its bytes with every upload's body left
 * out (an op's header, a launch's description and arguments as sent: a
 * launch that runs differently has other bytes there; the same bytes can
 * only run the same). False: malformed (the batch's own pass refuses it).
 * A put an op: one a launch argument, normalised, cost 0.1 ms a request. */
static bool key_build(const gp_req *rq, const uint8_t *pl, size_t n, int flight)
{
  key.n = 0;
  dg_buf_put(&key, (const char *)&flight, sizeof flight);   /* a flight's graph copies through its own areas */
  dg_buf_put(&key, (const char *)&rq->a, sizeof rq->a);
  dg_buf_put(&key, (const char *)&rq->b, sizeof rq->b);
  size_t at = 0;
  for (uint32_t i = 0; i < rq->a; i++) {
    gp_op op;
    if (n - at < sizeof op) return false;
    memcpy(&op, pl + at, sizeof op);
    uint32_t kind = GP_OP_KIND(op.kind);
    size_t body = kind == GP_OP_UPLOAD || kind == GP_OP_LAUNCH ? op.len : 0;
    if (n - at - sizeof op < body) return false;
    dg_buf_put(&key, (const char *)pl + at, sizeof op + (kind == GP_OP_LAUNCH ? body : 0));
    at += sizeof op + ((body + 7) & ~(size_t)7);
    if (at > n) at = n;
  }
  return true;
}

gch_graph *gch_graph_lookup(const gp_req *rq, const uint8_t *pl, size_t n, int flight)
{
  for (int i = 0; i < GRAPH_MAX; i++) {   /* a buffer, lane or pinned area changed: those graphs are stale */
    gch_graph *g = &cache[i];
    if (g->key.n && !g->busy && (g->epoch != gch_st.graph_epoch || g->fepoch != gch_st.flight_epoch[g->flight]))
      entry_drop(g);
  }
  if (!key_build(rq, pl, n, flight)) return NULL;
  uint64_t h = key_hash((const uint8_t *)key.s, key.n);
  gch_graph *lru = &cache[0];
  for (int i = 0; i < GRAPH_MAX; i++) {
    gch_graph *g = &cache[i];
    if (g->key.n == key.n && g->hash == h && !memcmp(g->key.s, key.s, key.n)) {
      g->used = ++tick;
      g->seen++;
      return g;
    }
    if (!g->busy && (lru->busy || g->used < lru->used)) lru = g;
  }
  if (lru->busy) return NULL;   /* (every entry busy: cannot happen with two flights and GRAPH_MAX > 2) */
  entry_drop(lru);
  dg_buf_put(&lru->key, key.s, key.n);
  lru->hash = h;
  lru->used = ++tick;
  lru->seen = 1;
  lru->flight = flight;
  lru->epoch = gch_st.graph_epoch, lru->fepoch = gch_st.flight_epoch[flight];
  return lru;
}

/* The capture's order (gch_graph_order): each lane's first op after a
 * serial op waits for the origin (one fork event a serial epoch), a serial
 * op waits for every lane used since the last one. */
static struct {
  uint64_t gen, fork_gen, forked[GP_LANES_MAX];
  bool used[GP_LANES_MAX];
  cudaEvent_t fork, join[GP_LANES_MAX];
  bool made;
} GO;

static cudaError_t join_lanes(void)
{
  cudaError_t e = cudaSuccess;
  for (uint32_t l = 0; l < gch_st.nlanes && l < GP_LANES_MAX && !e; l++) {
    if (!GO.used[l]) continue;
    GO.used[l] = false;
    if (!(e = cudaEventRecord(GO.join[l], gch_st.lane_stream[l]))) e = cudaStreamWaitEvent(gch_st.origin, GO.join[l], 0);
  }
  return e;
}

cudaError_t gch_graph_order(void)
{
  if (!gch_st.capturing) return cudaSuccess;
  int L = gch_st.cur_lane;
  if (L < 0) {
    GO.gen++;
    return join_lanes();
  }
  if (gch_st.nlanes <= 1) return cudaSuccess;   /* every op on the origin */
  cudaError_t e = cudaSuccess;
  if (GO.forked[L] != GO.gen) {
    if (GO.fork_gen != GO.gen && !(e = cudaEventRecord(GO.fork, gch_st.origin))) GO.fork_gen = GO.gen;
    if (!e) e = cudaStreamWaitEvent(gch_st.lane_stream[L], GO.fork, 0);
    GO.forked[L] = GO.gen;
  }
  GO.used[L] = true;
  return e;
}

cudaError_t gch_graph_join_all(void)
{
  cudaError_t e = gch_side_join_all();
  return e ? e : join_lanes();
}

cudaError_t gch_graph_begin(void)
{
  cudaError_t e = cudaSuccess;
  if (!gch_st.origin && (e = cudaStreamCreateWithFlags(&gch_st.origin, cudaStreamNonBlocking))) return e;
  for (int l = 0; l < GP_LANES_MAX && !GO.made && !e; l++)
    if (!(e = cudaEventCreateWithFlags(&GO.join[l], cudaEventDisableTiming)) && l == 0)
      e = cudaEventCreateWithFlags(&GO.fork, cudaEventDisableTiming);
  if (e) return e;
  GO.made = true;
  memset(GO.forked, 0, sizeof GO.forked);
  memset(GO.used, 0, sizeof GO.used);
  GO.gen = 1, GO.fork_gen = 0;
  if ((e = cudaStreamBeginCapture(gch_st.origin, cudaStreamCaptureModeGlobal))) return e;
  gch_st.capturing = true;
  return cudaSuccess;
}

cudaError_t gch_graph_end(gch_graph *g, bool keep)
{
  cudaGraph_t graph = NULL;
  cudaError_t e = cudaStreamEndCapture(gch_st.origin, &graph);
  gch_st.capturing = false;
  gch_side_reset();
  if (!e && keep) e = cudaGraphInstantiate(&g->exec, graph, 0);
  if (graph) cudaGraphDestroy(graph);
  if (e || !keep) {
    cudaGetLastError();   /* an invalidated capture is no launch error */
    if (g->exec) cudaGraphExecDestroy(g->exec);
    g->exec = NULL;
    g->fails++;
    stats.failed++;
    return e ? e : cudaErrorStreamCaptureInvalidated;
  }
  stats.captured++;
  return cudaSuccess;
}

cudaError_t gch_graph_launch(gch_graph *g, bool replay)
{
  stats.replayed += replay;
  return cudaGraphLaunch(g->exec, 0);
}

void gch_graph_direct(void) { stats.direct++; }

void gch_graph_overlapped(void) { stats.overlapped++; }

void gch_graph_time(int part, double s) { stats.s[part] += s; }

/* DIRIGO_GPU_GRAPH_STATS=FILE: after every asynchronous batch a line
 * "pid P captured C replayed R direct D failed F overlapped O; ms key K
 * queue Q wait W records R" appended (O: batches launched while the one
 * before them was in flight, gpu_child_batch.c), this child's counts and times so far (the tests' and
 * the bench's view into the child): the key and its lookup, queueing (or
 * the graph's launch), waiting for the device, the launches' records. */
void gch_graph_stats(void)
{
  static int fd = -2;
  if (fd == -2) {
    const char *p = getenv("DIRIGO_GPU_GRAPH_STATS");
    fd = p && *p ? open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
  }
  if (fd < 0) return;
  char line[256];
  int k = snprintf(line, sizeof line, "pid %ld captured %ld replayed %ld direct %ld failed %ld overlapped %ld; ms key %.3f "
                   "queue %.3f wait %.3f records %.3f\n", (long)getpid(), stats.captured, stats.replayed, stats.direct,
                   stats.failed, stats.overlapped,
                   stats.s[0] * 1e3, stats.s[1] * 1e3, stats.s[2] * 1e3, stats.s[3] * 1e3);
  if (write(fd, line, (size_t)k) != k) return;
}

#endif
