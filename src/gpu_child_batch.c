/* gpu_child_batch.c — the GPU child's batches (gpu_proto.h GP_BATCH): a
 * fuzz case's uploads, poisons, launches and downloads in one request and one
 * reply, synchronous (each launch checked and timed on its own) or
 * asynchronous (GP_BATCH_ASYNC: one synchronisation for all, doc/gpu.md §3).
 * Split from gpu_child.c, whose launches and guard checks it uses. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include "config.h"
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <poll.h>
#include <sched.h>

#ifdef DG_HAVE_CUDA
#include "gpu_child_int.h"

/* A batch (gpu_proto.h GP_BATCH): the ops in order, one gch_reply. */
typedef struct {
  dg_gpu_status st;
  char *msg;
  uint32_t failed;     /* the failed launch, UINT32_MAX: none */
  bool stopped;        /* no more launches, uploads or poisons */
  bool fatal;
  bool no_downloads;   /* a download was refused: send none */
  bool laned;          /* an op ran on a lane's stream: the end waits for the device */
  uint8_t *pin;        /* pinned staging for this batch's copies (NULL: pageable, synchronous) */
  size_t up_at, down0, down_at;   /* uploads from 0, downloads from down0 (contiguous) */
} batch_state;

/* Pinned host memory for a batch's copies, kept and grown; one per flight
 * (apart from the guards': both can be in use at once). */
static pinned_buf arenas[2];

static uint8_t *pinned_arena(int flight, size_t n)
{
  return gch_pinned_grow(&arenas[flight], n, &gch_st.flight_epoch[flight]);
}

static void batch_fail(batch_state *bs, dg_gpu_status st, uint32_t launch, char *msg)
{
  bs->stopped = true;
  if (bs->st == DG_GPU_OK) {
    bs->st = st;
    bs->msg = msg;
    bs->failed = launch;
  } else {
    free(msg);
  }
}

/* Launch li's description and arguments (owned; NULL: malformed, and the
 * batch fails there). */
static gp_arg *launch_parse(batch_state *bs, uint32_t li, const uint8_t *body, size_t len, gp_launch *L)
{
  if (len < sizeof *L || (memcpy(L, body, sizeof *L), len != sizeof *L + L->nargs * sizeof(gp_arg))) {
    batch_fail(bs, DG_GPU_BAD_REQUEST, li, dg_strdup("malformed launch"));
    return NULL;
  }
  gp_arg *args = dg_calloc(L->nargs + 1, sizeof *args);
  memcpy(args, body + sizeof *L, L->nargs * sizeof *args);
  if (gp_progress) *gp_progress = li;
  return args;
}

/* The launch's side stream where its flags ask (gch_side_before): *sw set
 * when gch_st.cur moved there (*back restores it after the launch). */
static dg_gpu_status side_enter(batch_state *bs, uint32_t flags, cudaStream_t *back, bool *sw, char **msg)
{
  dg_gpu_status st = gch_cuda_status(gch_side_before(flags, back, sw), "a side stream", msg, &bs->fatal);
  bs->laned |= *sw;
  if (st == DG_GPU_OK) free(*msg), *msg = NULL;
  return st;
}

static void batch_launch(batch_state *bs, uint32_t li, const uint8_t *body, size_t len, dg_buf *recs)
{
  gp_launch L;
  float ms = 0;
  uint32_t nh = 0;
  guard_vec hits = {0};
  gp_arg *args = launch_parse(bs, li, body, len, &L);
  if (args) {
    char *msg = NULL;
    cudaStream_t back;
    bool sw;
    dg_gpu_status st = side_enter(bs, L.flags, &back, &sw, &msg);
    if (st == DG_GPU_OK) st = gch_run_launch(&L, args, &hits, &ms, &msg, &bs->fatal);
    if (sw) gch_st.cur = back;
    free(args);
    if (st != DG_GPU_OK) batch_fail(bs, st, li, msg);
    else free(msg);
    nh = (uint32_t)hits.n;
  }
  dg_buf_put(recs, (const char *)&ms, 4);
  dg_buf_put(recs, (const char *)&nh, 4);
  if (nh) dg_buf_put(recs, (const char *)hits.v, nh * sizeof *hits.v);
  dg_vec_free(&hits);
}

/* The asynchronous batch's launches: events around each, and which ran
 * guarded. One set per flight (two batches can be in flight: gch_do_batch);
 * `ab` is the set of the batch being begun or finished. */
typedef struct {
  cudaEvent_t *ev;
  size_t nev;
  uint8_t *guarded, *timed;
  int8_t *lane;         /* per launch: its lane (gch_st.cur_lane; -1 serial) */
  size_t nguarded;
  cudaEvent_t *start;   /* per launch: the event its time starts at (its own, or the last one's end) */
  cudaEvent_t last_end; /* the end event of the last op queued if it was a timed launch, else NULL */
  int last_lane;        /* the lane last_end was recorded in */
} ab_set;
static ab_set ab_sets[2];
static ab_set *ab = &ab_sets[0];

/* Which launches of an asynchronous batch are timed (DIRIGO_GPU_LAUNCH_EVENTS,
 * read once; unset: 1, or 0 for a batch sent untimed, GP_BATCH_UNTIMED): 1
 * the guarded ones only ("kernel": the kernels under test, whose time the
 * campaign reports; dirigo's own launches report 0 ms), 2 ("all") every
 * launch (the fuzz profile's split, for the bench), 0 none, 3 ("shared")
 * every launch with one event between two launches queued back to back (a
 * launch's time starts at the last one's end: the host's work between the
 * two records, a µs or so, counts to it). Event records are host work in
 * the launch gap: on the H200 timing every launch cost 15-40% of a
 * spec-size case (session 5, gpu6), and the two records around each kernel
 * most of a replayed graph's launch (session 12). */
static bool batch_untimed;   /* the batch being begun was sent GP_BATCH_UNTIMED */

static int timed_launches(void)
{
  static int mode = -1;
  if (mode < 0) {
    const char *v = getenv("DIRIGO_GPU_LAUNCH_EVENTS");
    mode = !v || !*v ? 4 : !strcmp(v, "0") ? 0 : !strcmp(v, "all") ? 2 : !strcmp(v, "shared") ? 3 : 1;
  }
  return mode == 4 ? !batch_untimed : mode;
}

/* The set has room for nlaunch launches (async_reserve would allocate nothing). */
static bool ab_fits(const ab_set *a, size_t nlaunch) { return 2 * nlaunch <= a->nev && nlaunch <= a->nguarded; }

static bool async_reserve(size_t nlaunch, size_t live)
{
  if (2 * nlaunch > ab->nev) {
    ab->ev = dg_realloc(ab->ev, 2 * nlaunch * sizeof *ab->ev);
    for (; ab->nev < 2 * nlaunch; ab->nev++)
      if (cudaEventCreate(&ab->ev[ab->nev]) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
  }
  if (nlaunch > ab->nguarded) {
    ab->guarded = dg_realloc(ab->guarded, nlaunch);
    ab->timed = dg_realloc(ab->timed, nlaunch);
    ab->lane = dg_realloc(ab->lane, nlaunch);
    ab->start = dg_realloc(ab->start, nlaunch * sizeof *ab->start);
    ab->nguarded = nlaunch;
  }
  ab->last_end = NULL;
  memset(ab->guarded, 0, nlaunch);
  memset(ab->timed, 0, nlaunch);
  if (live && gch_guard_reserve(live, nlaunch) != cudaSuccess) {   /* (the slots' initial copy is the ops' pass's) */
    cudaGetLastError();
    return false;
  }
  return true;
}

/* Launch li of an asynchronous batch: queued, its guard check queued behind it. */
static void batch_launch_async(batch_state *bs, uint32_t li, const uint8_t *body, size_t len, size_t live)
{
  gp_launch L;
  gp_arg *args = launch_parse(bs, li, body, len, &L);
  if (!args) return;
  char *msg = NULL;
  int tm = timed_launches();
  bool timed = tm >= 2 || (tm == 1 && !(L.flags & GP_LAUNCH_UNGUARDED));
  bool sided = L.flags & (GP_LAUNCH_SIDE | GP_LAUNCH_JOIN);
  bool reuse = timed && tm == 3 && ab->last_end && ab->last_lane == gch_st.cur_lane && !sided;
  ab->timed[li] = timed;
  ab->lane[li] = (int8_t)gch_st.cur_lane;
  ab->start[li] = reuse ? ab->last_end : ab->ev[2 * li];
  cudaStream_t back;
  bool sw;
  dg_gpu_status st = side_enter(bs, L.flags, &back, &sw, &msg);
  if (st == DG_GPU_OK)
    st = gch_launch_only(&L, args, timed && !reuse ? ab->ev[2 * li] : NULL, timed ? ab->ev[2 * li + 1] : NULL, &msg,
                         &bs->fatal);
  free(args);
  ab->last_end = st == DG_GPU_OK && timed && !sided ? ab->ev[2 * li + 1] : NULL;
  ab->last_lane = gch_st.cur_lane;
  if (st == DG_GPU_OK && live && !(L.flags & GP_LAUNCH_UNGUARDED)) {
    ab->guarded[li] = 1;
    ab->last_end = NULL;   /* the guard check runs between */
    st = gch_cuda_status(gch_guard_kernel(li), "queueing a guard check", &msg, &bs->fatal);
  }
  if (sw) gch_st.cur = back;   /* (a side launch's guard check ran behind it there) */
  if (st != DG_GPU_OK) batch_fail(bs, st, li, msg);
  else free(msg);
}

/* After the asynchronous batch's synchronisation: per launch that ran, its
 * time and the guard hits its check saw (the canary is restored). The batch
 * fails at the first launch whose check saw a hit in a buffer of its own
 * lane (or one every lane uses): with lanes, a launch's check can run after
 * another lane's kernel wrote into that lane's copy, and the write is that
 * kernel's, which its own check sees too (checks run before any restore).
 * No such launch (the writer had no check of its own: dirigo's kernels):
 * the first launch with hits, as without lanes. */
static void oob_fail(batch_state *bs, int64_t first_own, int64_t first_any, size_t n_own, size_t n_any)
{
  if (first_own >= 0 || first_any >= 0)
    batch_fail(bs, DG_GPU_OOB_WRITE, (uint32_t)(first_own >= 0 ? first_own : first_any),
               dg_printf("the kernel wrote outside %zu buffer guard region(s)", first_own >= 0 ? n_own : n_any));
}

static void async_records(batch_state *bs, uint32_t nran, dg_buf *recs)
{
  int64_t first_own = -1, first_any = -1;
  size_t n_own = 0, n_any = 0;
  for (uint32_t li = 0; li < nran; li++) {
    float ms = 0;
    guard_vec hits = {0};
    if (ab->timed[li] && cudaEventElapsedTime(&ms, ab->start[li], ab->ev[2 * li + 1]) != cudaSuccess) {
      ms = 0;            /* a launch refused before it ran */
      cudaGetLastError();
    }
    size_t own = 0;
    cudaError_t e = ab->guarded[li] ? gch_guard_collect(li, &hits, ab->lane[li], &own) : cudaSuccess;
    char *m = NULL;
    dg_gpu_status st = gch_cuda_status(e, "restoring guard regions", &m, &bs->fatal);
    if (st != DG_GPU_OK) oob_fail(bs, first_own, first_any, n_own, n_any), batch_fail(bs, st, li, m);
    if (own && first_own < 0) first_own = li, n_own = hits.n;
    if (hits.n && first_any < 0) first_any = li, n_any = hits.n;
    uint32_t nh = (uint32_t)hits.n;
    dg_buf_put(recs, (const char *)&ms, 4);
    dg_buf_put(recs, (const char *)&nh, 4);
    if (nh) dg_buf_put(recs, (const char *)hits.v, nh * sizeof *hits.v);
    dg_vec_free(&hits);
  }
  oob_fail(bs, first_own, first_any, n_own, n_any);
}

static void batch_copy(batch_state *bs, const gp_op *op, const uint8_t *body, dg_buf *downs)
{
  cbuf *b = gch_lane_buf(op->buf, gch_st.cur_lane), *b0 = b;
  bool down = op->kind == GP_OP_DOWNLOAD;
  if (!b || op->off > b->size || op->len > b->size - op->off) {
    char *m = b ? dg_printf("copy of %llu bytes at offset %llu outside a buffer of %zu",
                            (unsigned long long)op->len, (unsigned long long)op->off, b->size)
                : dg_printf("no buffer %u", op->buf);
    if (down) bs->no_downloads = true;
    batch_fail(bs, DG_GPU_BAD_REQUEST, UINT32_MAX, m);
    return;
  }
  /* a serial upload or poison reaches every lane's copy (GP_LANES) */
  uint32_t ncopy = !down && gch_st.cur_lane < 0 ? 1 + b->nrep : 1;
  char *m = NULL;
  cudaError_t e = cudaSuccess;
  if (!down && bs->pin && op->kind != GP_OP_POISON) memcpy(bs->pin + bs->up_at, body, op->len);
  for (uint32_t r = 0; r < ncopy && !e; r++) {
    b = r ? gch_lane_buf(op->buf, (int)r) : b0;
    uint8_t *d = b->base + gch_st.guard + op->off;
    if (op->kind == GP_OP_POISON) e = gch_fill(d, b->size, b->poison.b, b->poison.len);
    else if (!down && bs->pin)      /* through pinned memory, asynchronously */
      e = cudaMemcpyAsync(d, bs->pin + bs->up_at, op->len, cudaMemcpyHostToDevice, gch_st.cur);
    else if (down && bs->pin) {    /* collected at the end of the batch */
      e = cudaMemcpyAsync(bs->pin + bs->down_at, d, op->len, cudaMemcpyDeviceToHost, gch_st.cur);
      bs->down_at += op->len;
    } else if (!down) e = cudaMemcpy(d, body, op->len, cudaMemcpyHostToDevice);
    else {
      uint8_t *h = gch_stage(op->len ? op->len : 1);
      e = cudaMemcpy(h, d, op->len, cudaMemcpyDeviceToHost);
      if (!e) dg_buf_put(downs, (const char *)h, op->len);
    }
  }
  if (!down && bs->pin && op->kind != GP_OP_POISON) bs->up_at += op->len;
  dg_gpu_status st = gch_cuda_status(e, down ? "download" : op->kind == GP_OP_POISON ? "poison" : "upload",
                                 &m, &bs->fatal);
  if (st != DG_GPU_OK) {
    if (down) bs->no_downloads = true;
    batch_fail(bs, st, UINT32_MAX, m);
  }
}

/* The bytes a batch uploads and downloads (malformed ops end the count;
 * the main pass refuses them). */
static void batch_bytes(uint32_t nops, const uint8_t *pl, size_t n, size_t *up, size_t *down, size_t *nlaunch,
                        bool *laned)
{
  size_t at = 0;
  *up = *down = *nlaunch = 0;
  *laned = false;
  for (uint32_t i = 0; i < nops && n - at >= sizeof(gp_op); i++) {
    gp_op op;
    memcpy(&op, pl + at, sizeof op);
    at += sizeof op;
    *laned |= GP_OP_LANE(op.kind) >= 0;
    op.kind = GP_OP_KIND(op.kind);
    size_t body = op.kind == GP_OP_UPLOAD || op.kind == GP_OP_LAUNCH ? op.len : 0;
    if (n - at < body) break;
    at += (body + 7) & ~(size_t)7;
    if (at > n) at = n;
    if (op.kind == GP_OP_UPLOAD) *up += op.len;
    if (op.kind == GP_OP_LAUNCH) ++*nlaunch;
    if (op.kind == GP_OP_DOWNLOAD && op.len < ((size_t)1 << 40)) *down += op.len;
  }
}

/* A batch the child cannot read on (msg: owned): it fails, as a bad request,
 * and nothing of it is downloaded. */
static void batch_malformed(batch_state *bs, char *msg)
{
  batch_fail(bs, DG_GPU_BAD_REQUEST, UINT32_MAX, msg);
  bs->no_downloads = true;
}

/* The ops' pass: every op of the batch in order (queued into a capture
 * while gch_st.capturing); *nran: the launches that ran. */
static void batch_ops(batch_state *bs, const gp_req *rq, const uint8_t *pl, size_t n, bool async, size_t live,
                      dg_buf *recs, dg_buf *downs, uint32_t *nran)
{
  uint32_t nlaunch = 0;
  size_t at = 0;
  *nran = 0;
  for (uint32_t i = 0; i < rq->a && !bs->fatal; i++) {
    gp_op op;
    if (n - at < sizeof op) {
      batch_malformed(bs, dg_strdup("malformed batch"));
      break;
    }
    memcpy(&op, pl + at, sizeof op);
    at += sizeof op;
    gch_set_lane(GP_OP_LANE(op.kind));
    if (!bs->fatal) {   /* a serial point: after every side stream's work too; in a capture, the lanes' order */
      char *m = NULL;
      cudaError_t e = gch_st.cur_lane < 0 ? gch_side_join_all() : cudaSuccess;
      if (!e) e = gch_graph_order();
      dg_gpu_status st = gch_cuda_status(e, "a side stream", &m, &bs->fatal);
      if (st != DG_GPU_OK) batch_fail(bs, st, UINT32_MAX, m);
      else free(m);
    }
    bs->laned |= gch_st.cur != 0;
    op.kind = GP_OP_KIND(op.kind);
    size_t body = op.kind == GP_OP_UPLOAD || op.kind == GP_OP_LAUNCH ? op.len : 0;
    if (n - at < body) {
      batch_malformed(bs, dg_strdup("malformed batch"));
      break;
    }
    const uint8_t *bp = pl + at;
    at += (body + 7) & ~(size_t)7;
    if (at > n) at = n;
    if (op.kind == GP_OP_LAUNCH) {
      uint32_t li = nlaunch++;
      if (bs->stopped) continue;
      if (async) batch_launch_async(bs, li, bp, body, live);
      else batch_launch(bs, li, bp, body, recs);
      ++*nran;
    } else if (op.kind == GP_OP_DOWNLOAD) {
      ab->last_end = NULL;   /* a copy between two launches: no shared event */
      if (!bs->no_downloads) batch_copy(bs, &op, bp, downs);
    } else if (op.kind == GP_OP_UPLOAD || op.kind == GP_OP_POISON) {
      ab->last_end = NULL;
      if (!bs->stopped) batch_copy(bs, &op, bp, downs);
    } else {
      batch_malformed(bs, dg_printf("unknown batch op %u", op.kind));
    }
  }
  gch_set_lane(-1);
}

static void batch_reset(batch_state *bs, size_t nl)
{
  free(bs->msg);
  bs->st = DG_GPU_OK, bs->msg = NULL, bs->failed = UINT32_MAX;
  bs->stopped = bs->fatal = bs->no_downloads = bs->laned = false;
  bs->up_at = 0, bs->down_at = bs->down0;
  ab->last_end = NULL;
  memset(ab->guarded, 0, nl);
  memset(ab->timed, 0, nl);
}

/* A capture of the batch's ops into graph g, kept and launched when every
 * op went in (then true: the batch ran as that graph). False: nothing ran,
 * bs as before it (the caller runs the ops directly; an error a capture
 * met is met again there, and named as ever). */
static bool batch_capture(batch_state *bs, gch_graph *g, const gp_req *rq, const uint8_t *pl, size_t n, size_t nl,
                          size_t live, dg_buf *recs, dg_buf *downs, uint32_t *nran)
{
  cudaError_t e = gch_graph_begin();
  if (e) {   /* not even begun */
    cudaGetLastError();
    g->fails++;
    return false;
  }
  e = live ? gch_guard_slots_init(nl) : cudaSuccess;
  if (!e) batch_ops(bs, rq, pl, n, true, live, recs, downs, nran);
  if (!e) e = gch_graph_join_all();   /* (batch_ops ended on the serial stream: the origin) */
  if (!e && live) e = gch_guard_slots_back(*nran);
  bool keep = !e && bs->st == DG_GPU_OK && !bs->stopped && !bs->no_downloads && *nran == nl && recs->n == 4;
  if (gch_graph_end(g, keep) != cudaSuccess) {
    batch_reset(bs, nl);
    recs->n = 4, downs->n = 0;
    return false;
  }
  g->nl = (uint32_t)nl, g->up = bs->up_at, g->down_at = bs->down_at;
  g->timed = dg_realloc(g->timed, nl + 1), g->guarded = dg_realloc(g->guarded, nl + 1);
  g->lane = dg_realloc(g->lane, nl + 1), g->start = dg_realloc(g->start, (nl + 1) * sizeof *g->start);
  memcpy(g->timed, ab->timed, nl), memcpy(g->guarded, ab->guarded, nl), memcpy(g->lane, ab->lane, nl);
  memcpy(g->start, ab->start, nl * sizeof *g->start);
  char *m = NULL;
  dg_gpu_status st = gch_cuda_status(gch_graph_launch(g, false), "launching a graph", &m, &bs->fatal);
  if (st != DG_GPU_OK) batch_fail(bs, st, UINT32_MAX, m);
  bs->laned = true;
  return true;
}

/* The batch as graph g's replay: its upload bodies into the staging area
 * where the capture's copies read them, the launches' records as the
 * capture's, one launch. */
static void batch_replay(batch_state *bs, gch_graph *g, const gp_req *rq, const uint8_t *pl, size_t n)
{
  memcpy(ab->timed, g->timed, g->nl), memcpy(ab->guarded, g->guarded, g->nl), memcpy(ab->lane, g->lane, g->nl);
  memcpy(ab->start, g->start, g->nl * sizeof *ab->start);
  size_t at = 0;
  for (uint32_t i = 0; i < rq->a; i++) {   /* (the key said it is well formed) */
    gp_op op;
    memcpy(&op, pl + at, sizeof op);
    at += sizeof op;
    uint32_t kind = GP_OP_KIND(op.kind);
    size_t body = kind == GP_OP_UPLOAD || kind == GP_OP_LAUNCH ? op.len : 0;
    if (kind == GP_OP_UPLOAD) memcpy(bs->pin + bs->up_at, pl + at, op.len), bs->up_at += op.len;
    at += (body + 7) & ~(size_t)7;
  }
  bs->down_at = g->down_at;
  bs->laned = true;
  if (gp_progress && g->nl) *gp_progress = g->nl - 1;
  char *m = NULL;
  dg_gpu_status st = gch_cuda_status(gch_graph_launch(g, true), "launching a graph", &m, &bs->fatal);
  if (st != DG_GPU_OK) batch_fail(bs, st, UINT32_MAX, m);
}

/* A batch begun and not yet answered (doc/gpu.md §3, "two batches in
 * flight"): what batch_finish needs. Two at most, one per flight: while a
 * batch's graph runs, the next request is read, and a batch whose graph is
 * replayed with everything it needs allocated already is launched behind it
 * (the stream runs it after the first one's graph, without the host's gap
 * between the two); the answers go in order. */
typedef struct {
  bool used;
  int flight;
  batch_state bs;
  dg_buf recs, downs;
  uint32_t nran;
  size_t live;
  bool async, graphed;
  bool overlap;         /* a graph replayed: `done` after it, the next batch may begin before it ends */
  bool tainted;         /* the batch before it restored damaged guards while it ran: run again */
  gch_graph *g;
  cudaEvent_t done;
  double t0, t1, t2;
} flight;
static flight flights[2];

static void batch_finish(flight *f);

/* Begins the batch (rq, pl, n): queued, its graph launched. With a batch
 * pending (begun, not answered), the new one goes in the other flight and
 * the pending one is answered: after the new one's launch where the new
 * one is a graph replay that allocates nothing, else before it begins. */
static flight *batch_begin(const gp_req *rq, const uint8_t *pl, size_t n, flight *pending)
{
  int fl = pending ? !pending->flight : 0;
  flight *f = &flights[fl];
  f->used = true, f->flight = fl;
  f->bs = (batch_state){ DG_GPU_OK, NULL, UINT32_MAX, false, false, false, false, NULL, 0, 0, 0 };
  f->recs.n = f->downs.n = 0;
  f->nran = 0, f->graphed = f->overlap = f->tainted = false, f->g = NULL;
  f->t0 = f->t1 = f->t2 = 0;
  batch_state *bs = &f->bs;
  dg_buf_put(&f->recs, (const char *)&f->nran, 4);
  size_t up, down, nl;
  bool laned;
  batch_bytes(rq->a, pl, n, &up, &down, &nl, &laned);
  f->live = gch_guarded_live();
  bool want_async = (rq->b & GP_BATCH_ASYNC) && gch_st.guard_k >= 0;
  batch_untimed = rq->b & GP_BATCH_UNTIMED;
  gch_guard_use(fl);
  if (pending && !(want_async && arenas[fl].len >= up + down + 1 && ab_fits(&ab_sets[fl], nl) &&
                   (!f->live || gch_guard_fits(f->live, nl)))) {
    batch_finish(pending);   /* it would allocate: nothing may change under the pending graph */
    pending = NULL;
    gch_guard_use(fl);
  }
  ab = &ab_sets[fl];
  bs->pin = pinned_arena(fl, up + down + 1);
  f->async = want_async && bs->pin && async_reserve(nl, f->live);
  bs->down0 = bs->down_at = up;
  gch_side_reset();
  f->t0 = f->async ? dg_now() : 0, f->t1 = f->t0;
  /* a graph per op stream and flight (gpu_child_graph.c): replayed when captured before */
  gch_graph *g = f->async && nl && gch_graph_wanted(laned) ? gch_graph_lookup(rq, pl, n, fl) : NULL;
  if (f->async) f->t1 = dg_now();
  f->g = g;
  if (pending && !(g && g->exec)) {   /* no replay: the pending batch ends first */
    batch_finish(pending);
    pending = NULL;
    ab = &ab_sets[fl], gch_guard_use(fl);
  }
  f->graphed = g && g->exec;
  if (f->graphed) {
    batch_replay(bs, g, rq, pl, n), f->nran = g->nl;
    if (bs->st == DG_GPU_OK && !bs->fatal && (f->done || !cudaEventCreateWithFlags(&f->done, cudaEventDisableTiming)))
      f->overlap = cudaEventRecord(f->done, 0) == cudaSuccess;
    cudaGetLastError();   /* (no event: the end synchronises the device, as for a direct batch) */
  } else if (g && g->seen >= (uint32_t)gch_graph_mode() && g->fails < 2) {
    f->graphed = batch_capture(bs, g, rq, pl, n, nl, f->live, &f->recs, &f->downs, &f->nran);
  }
  if (!f->graphed) {
    if (f->async) gch_graph_direct();
    cudaError_t e = f->async && f->live ? gch_guard_slots_init(nl) : cudaSuccess;
    char *m = NULL;
    dg_gpu_status st = gch_cuda_status(e, "initialising guard slots", &m, &bs->fatal);
    if (st != DG_GPU_OK) batch_fail(bs, st, UINT32_MAX, m);
    else batch_ops(bs, rq, pl, n, f->async, f->live, &f->recs, &f->downs, &f->nran);
  }
  if (g) g->busy = true;   /* not evicted while it runs */
  if (pending) gch_graph_overlapped(), batch_finish(pending);
  return f;
}

/* Waits for the batch and answers it. */
static void batch_finish(flight *f)
{
  ab = &ab_sets[f->flight];
  gch_guard_use(f->flight);
  batch_state *bs = &f->bs;
  bool async = f->async;
  memcpy(f->recs.s, &f->nran, 4);
  double t2 = 0, t3 = 0;
  if (bs->pin && !bs->fatal) {   /* the asynchronous copies (and launches): done, and their errors */
    char *m = NULL;
    cudaError_t e = async && f->live && !f->graphed ? gch_guard_slots_back(f->nran) : cudaSuccess;   /* (a graph's is in it) */
    if (async) t2 = dg_now();
    if (!e) e = f->overlap ? cudaEventSynchronize(f->done) : bs->laned ? cudaDeviceSynchronize() : cudaStreamSynchronize(0);
    if (async) t3 = dg_now();
    if (async && !e) e = cudaGetLastError();
    if (async) gch_collect_output();
    dg_gpu_status st = gch_cuda_status(e, async ? "an asynchronous batch" : "copies", &m, &bs->fatal);
    if (st != DG_GPU_OK) {
      bs->no_downloads = true;
      batch_fail(bs, st, UINT32_MAX, m);
    } else if (async) {
      async_records(bs, f->nran, &f->recs);
      flight *o = &flights[!f->flight];
      if (bs->st == DG_GPU_OOB_WRITE && o->used) o->tainted = true;   /* it ran while the canary was restored */
    }
  }
  if (f->tainted && !bs->fatal) {   /* (over its own verdict: its guard checks may have seen the other's write) */
    free(bs->msg);
    bs->st = DG_GPU_OK, bs->msg = NULL;
    bs->no_downloads = true;
    batch_fail(bs, DG_GPU_OOB_WRITE, UINT32_MAX,
               dg_strdup("the batch before this one wrote outside a buffer while this one ran: run again"));
  }
  if (async && f->recs.n == 4) f->nran = 0, memcpy(f->recs.s, &f->nran, 4);   /* no records: none to report */
  if (async) {   /* (before the reply: a test reads them once it has it) */
    double t4 = dg_now();
    if (t2 == 0) t2 = t3 = t4;   /* (no wait: a fault) */
    gch_graph_time(0, f->t1 - f->t0), gch_graph_time(1, t2 - f->t1), gch_graph_time(2, t3 - t2),
      gch_graph_time(3, t4 - t3);
    gch_graph_stats();
  }
  if (f->g) f->g->busy = false;
  const uint8_t *dl = NULL;
  size_t dn = 0;
  if (!bs->no_downloads && !bs->fatal) {
    dl = bs->pin ? bs->pin + bs->down0 : (const uint8_t *)f->downs.s;
    dn = bs->pin ? bs->down_at - bs->down0 : f->downs.n;
  }
  gch_st.pad = bs->failed;
  if (bs->fatal) gch_reply(bs->st, 0, NULL, 0, "%s", bs->msg ? bs->msg : "the CUDA context is lost");
  else gch_reply_parts(bs->st, 0, f->recs.s, f->recs.n, dl, dn, bs->msg);
  gch_st.pad = 0;
  free(bs->msg);
  bs->msg = NULL;
  f->used = false;
  gch_guard_use(0);
  ab = &ab_sets[0];
  if (bs->fatal) _exit(3);
}

/* Until the batch's graph is done (true) or a request waits on the socket (false). */
static bool done_or_request(flight *f)
{
  for (unsigned spin = 0;; spin++) {
    cudaError_t e = cudaEventQuery(f->done);
    if (e != cudaErrorNotReady) return true;   /* done, or an error its end reports */
    if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
    struct pollfd p = { gch_st.fd, POLLIN, 0 };
    if (poll(&p, 1, 0) > 0) return false;
    if (spin >= 64) sched_yield();
  }
}

void gch_do_batch(const gp_req *rq, const uint8_t *pl, size_t n)
{
  static uint8_t *next;   /* the next request's payload, read while a graph runs */
  static size_t cap;
  flight *f = batch_begin(rq, pl, n, NULL);
  while (f->overlap && !done_or_request(f)) {
    gp_req nx;
    if (gp_read(gch_st.fd, &nx, sizeof nx, 0)) break;   /* the caller went: answered into the void below */
    if (nx.len + 1 > cap) {
      free(next);
      cap = nx.len + 1;
      next = dg_malloc(cap);
    }
    if (nx.len && gp_read(gch_st.fd, next, nx.len, 0)) break;
    next[nx.len] = 0;
    if (nx.op != GP_BATCH) {   /* anything else waits for the batch's answer */
      batch_finish(f);
      gch_dispatch(&nx, next, nx.len);
      return;
    }
    f = batch_begin(&nx, next, nx.len, f);
  }
  batch_finish(f);
}

#endif
