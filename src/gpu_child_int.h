/* gpu_child_int.h — what the GPU child's files share: gpu_child.c (the
 * requests, buffers, guards, launches), gpu_child_batch.c (batches, the
 * synchronous and the asynchronous) and gpu_child_lanes.c (lanes: streams and
 * buffer copies). CUDA builds only; nothing else includes it. */
#ifndef DG_GPU_CHILD_INT_H
#define DG_GPU_CHILD_INT_H
#include "gpu_proto.h"
#include <cuda_runtime_api.h>

#define CUERR(e) cudaGetErrorString(e), cudaGetErrorName(e)

typedef DG_VEC(gp_guard) guard_vec;

struct kparams;   /* a kernel's parameter sizes (gpu_child.c) */

typedef struct {
  uint8_t *base;      /* cudaMalloc'd: guard | bytes | guard */
  size_t size;
  dg_gpu_pattern poison;
  bool live;
  uint32_t of1;       /* a lane's copy (GP_LANES): 1 + the buffer it copies; 0: none */
  uint32_t nrep;      /* the copies of lanes 1..nrep (buffer indices in rep) */
  uint32_t rep[GP_LANES_MAX - 1];
} cbuf;

/* The child's state. */
struct gch_state {
  int fd;
  size_t guard;
  DG_VEC(cbuf) bufs;
  DG_VEC(cudaKernel_t) kernels;
  DG_VEC(struct kparams *) params;   /* per kernel: its parameter sizes, asked once */
  DG_VEC(uint8_t *) images;   /* loaded module images */
  cudaEvent_t ev0, ev1;
  uint8_t *stage;     /* host staging for fills and guard checks */
  size_t stage_len;
  bool capture;       /* fd 1 is a memfd holding what kernels printf'd */
  dg_buf out;         /* that output, sent with the next reply */
  uint32_t pad;       /* the next reply's pad (a batch's failed launch) */
  int guard_k;        /* the guard check kernel's index (GP_GUARD); -1: compare on the host */
  bool regions_dirty; /* buffers came or went: the kernel's region table is stale */
  uint32_t nlanes;    /* lanes granted (GP_LANES; 0 or 1: none) */
  cudaStream_t lane_stream[GP_LANES_MAX];
  cudaStream_t cur;   /* the stream fills, launches and guard checks queue on (0: legacy) */
  int cur_lane;       /* the lane whose buffer copies arguments resolve to (-1: serial) */
  /* side streams (GP_LAUNCH_SIDE, session 7): index 1 + lane (0: serial),
   * non-blocking, made on first use; open: forked and not joined yet */
  cudaStream_t side_stream[GP_LANES_MAX + 1];
  cudaEvent_t side_fork[GP_LANES_MAX + 1], side_join[GP_LANES_MAX + 1];
  bool side_open[GP_LANES_MAX + 1];
  /* CUDA graphs (gpu_child_graph.c, session 8): while a batch is captured,
   * serial ops go to `origin` (the legacy stream cannot be captured) with
   * explicit events to and from the lanes; graph_epoch changes whenever a
   * buffer, a lane, a pinned area or the guard table changes (every cached
   * graph is dropped then: its pointers may be stale) */
  bool capturing;
  cudaStream_t origin;
  uint64_t graph_epoch;
  uint64_t flight_epoch[2];   /* a flight's own areas changed (its pinned arena, its guard slots):
                                 that flight's graphs alone are stale */
};
extern struct gch_state gch_st;

/* Pinned host memory kept and grown: at least n bytes, or NULL (the caller
 * then copies pageable and synchronously). */
typedef struct { uint8_t *p; size_t len; } pinned_buf;

void gch_collect_output(void);
void gch_reply_parts(dg_gpu_status st, double ms, const void *d1, size_t n1, const void *d2, size_t n2,
                     const char *msg);
void gch_reply(dg_gpu_status st, double ms, const void *data, size_t n, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));
uint8_t *gch_stage(size_t n);
cudaError_t gch_fill(uint8_t *d, size_t n, const uint8_t *p, size_t len);
cbuf *gch_get_buf(uint32_t id);
/* Buffer id as lane sees it (its copy, GP_LANES); lane < 0: the buffer itself. */
cbuf *gch_lane_buf(uint32_t id, int lane);
/* The current op's lane (gch_st.cur, gch_st.cur_lane); lane < 0: serial. */
void gch_set_lane(int lane);
/* gpu_child_lanes.c: GP_LANES, and buffer id's lane copies past the first
 * keep freed (all of them when the buffer goes). */
void gch_do_lanes(const gp_req *rq, const uint8_t *pl, size_t n);
void gch_drop_copies(uint32_t id, uint32_t keep);
/* A buffer of size bytes (gpu_child.c): guards holding the canary, the bytes
 * the poison; *what names the step that failed. */
cudaError_t gch_new_buf(size_t size, dg_gpu_pattern pat, uint32_t *id, const char **what);
/* (epoch: the graph epoch a new area makes stale; NULL: every graph's) */
uint8_t *gch_pinned_grow(pinned_buf *b, size_t n, uint64_t *epoch);
/* The guard checks' result slots are per flight (two batches in flight,
 * gpu_child_batch.c): gch_guard_use picks the flight the calls below work
 * on; gch_guard_fits: room for nslots checks over `live` buffers there
 * without allocating or uploading anything. */
void gch_guard_use(int flight);
bool gch_guard_fits(size_t live, size_t nslots);
cudaError_t gch_guard_reserve(size_t live, size_t nslots);
cudaError_t gch_guard_kernel(size_t slot);
cudaError_t gch_guard_slots_init(size_t nslots);
cudaError_t gch_guard_slots_back(size_t nslots);
cudaError_t gch_guard_collect(size_t slot, guard_vec *hits, int lane, size_t *nown);
size_t gch_guarded_live(void);
dg_gpu_status gch_cuda_status(cudaError_t e, const char *what, char **msg, bool *fatal);
dg_gpu_status gch_launch_only(const gp_launch *L, const gp_arg *args, cudaEvent_t e0, cudaEvent_t e1,
                              char **msg, bool *fatal);
dg_gpu_status gch_run_launch(const gp_launch *L, const gp_arg *args, guard_vec *hits, float *ms,
                             char **msg, bool *fatal);
/* Side streams (gpu_child_lanes.c): before a launch with flags (GP_LAUNCH_*)
 * of the current lane, the join (JOIN) and the fork (SIDE: gch_st.cur becomes
 * the side stream and *swapped is set: restore *back after the launch);
 * gch_side_join_all before a serial op, gch_side_reset at a batch's start. A side stream that cannot
 * be made leaves the launch on the lane's stream (the same results, serial). */
cudaError_t gch_side_before(uint32_t flags, cudaStream_t *back, bool *swapped);
cudaError_t gch_side_join_all(void);
void gch_side_reset(void);
/* The stream a serial op queues on: the legacy stream, or the capture's
 * origin while a batch is captured. */
static inline cudaStream_t gch_serial_stream(void) { return gch_st.capturing ? gch_st.origin : 0; }
/* An event record that a capture keeps as a node of the graph (a timing
 * event); outside a capture a plain record. */
cudaError_t gch_event_record(cudaEvent_t e, cudaStream_t s);
/* gpu_child_graph.c (doc/gpu.md §3, "graphs"): inside a capture, the
 * current op's order against the lanes (call after gch_set_lane: a serial op
 * waits for every lane used since the last serial op, a lane's first op
 * after one waits for it), and the join of every lane and side stream into
 * the origin at the end. */
cudaError_t gch_graph_order(void);
cudaError_t gch_graph_join_all(void);
/* A cached graph: its batch's key (gch_graph_lookup), the times it was
 * seen, and what the batch's host side needs to replay it without its ops'
 * pass (gpu_child_batch.c fills it at the capture): per launch whether it is
 * timed and guarded, its lane and start event; the staging offsets. */
typedef struct {
  dg_buf key;
  uint64_t hash, used;
  uint32_t seen, fails;
  int flight;
  uint64_t epoch, fepoch;       /* gch_st's graph epoch and the flight's when the entry was made */
  bool busy;                    /* launched, its batch not answered yet: not evicted */
  cudaGraphExec_t exec;         /* NULL: not captured (yet) */
  uint32_t nl;                  /* launches (all of them ran) */
  uint8_t *timed, *guarded;
  int8_t *lane;
  cudaEvent_t *start;
  size_t up, down_at;           /* upload bytes; the downloads' end in the staging area */
} gch_graph;
/* DIRIGO_GPU_GRAPH: the sight at which a batch is captured (0: never), and
 * whether an asynchronous batch (laned: an op of it on a lane) is one for a
 * graph at all (unset: those on lanes alone). */
int gch_graph_mode(void);
bool gch_graph_wanted(bool laned);
/* The entry of this batch's op stream in this flight (seen counted), made
 * on first sight; NULL when the batch is malformed. */
gch_graph *gch_graph_lookup(const gp_req *rq, const uint8_t *pl, size_t n, int flight);
/* A capture on the origin: ops queue into it until gch_graph_end, which
 * instantiates it into g->exec when keep (else, or on an error: no graph,
 * g->fails counted). */
cudaError_t gch_graph_begin(void);
cudaError_t gch_graph_end(gch_graph *g, bool keep);
cudaError_t gch_graph_launch(gch_graph *g, bool replay);
void gch_graph_direct(void);
void gch_graph_overlapped(void);
/* Seconds of an asynchronous batch's part (0 key, 1 queueing, 2 waiting, 3
 * records and reply) for the statistics line; gch_graph_stats writes it. */
void gch_graph_time(int part, double s);
void gch_graph_stats(void);
/* GP_BATCH (gpu_child_batch.c): the batch, and while its graph runs the
 * requests after it (a batch begun behind it, anything else answered after
 * it through gch_dispatch). */
void gch_do_batch(const gp_req *rq, const uint8_t *pl, size_t n);
/* One request to its handler (gpu_child.c). */
void gch_dispatch(const gp_req *rq, const uint8_t *pl, size_t n);

#endif
