/* gpu_child_lanes.c — the GPU child's lanes (gpu_proto.h GP_LANES; doc/gpu.md
 * §3, session 6): a CUDA stream per lane and a copy per lane of the buffers a
 * batch's lanes use, and which copy and stream an op of a lane means. Split
 * from gpu_child.c, whose buffers it copies. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include "config.h"
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef DG_HAVE_CUDA
#include "gpu_child_int.h"

cbuf *gch_lane_buf(uint32_t id, int lane)
{
  cbuf *b = gch_get_buf(id);
  if (!b || lane <= 0 || (uint32_t)lane > b->nrep) return b;
  cbuf *c = gch_get_buf(b->rep[lane - 1]);
  return c ? c : b;
}

void gch_set_lane(int lane)
{
  if (lane < 0 || gch_st.nlanes <= 1) {
    gch_st.cur = gch_serial_stream();
    gch_st.cur_lane = lane < 0 ? -1 : 0;
    return;
  }
  gch_st.cur_lane = lane % (int)gch_st.nlanes;
  gch_st.cur = gch_st.lane_stream[gch_st.cur_lane];
}

/* Buffer id's lane copies past the first keep, freed. */
void gch_drop_copies(uint32_t id, uint32_t keep)
{
  cbuf *b = &gch_st.bufs.v[id];
  for (; b->nrep > keep; b->nrep--) {
    cbuf *c = gch_get_buf(b->rep[b->nrep - 1]);
    if (!c) continue;
    cudaFree(c->base);
    c->live = false;
    gch_st.regions_dirty = true;
    gch_st.graph_epoch++;
  }
}

/* GP_LANES: the buffers named get a copy per lane (their bytes copied);
 * copies made before stay until their buffer is freed (a request without the
 * envelope and one with it name different sets: dropping and making them
 * again each time cost more than the lanes saved). As many lanes as fit in
 * a quarter of the free device memory (each lane its stream). Names of
 * buffers freed since are passed over. */
void gch_do_lanes(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (n % 4 || rq->a < 1) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed lanes"); return; }
  size_t nid = n / 4, bytes = 0;
  uint32_t want = rq->a > GP_LANES_MAX ? GP_LANES_MAX : rq->a, nb = (uint32_t)gch_st.bufs.n;   /* copies come after */
  uint8_t *named = dg_calloc(nb + 1, 1);
  for (size_t i = 0; i < nid; i++) {
    uint32_t id;
    memcpy(&id, pl + 4 * i, 4);
    cbuf *b = gch_get_buf(id);
    if (id >= nb || (b && b->of1)) {
      free(named);
      gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "lanes: no buffer %u", id);
      return;
    }
    if (!b) continue;
    if (!named[id]) bytes += b->size + 2 * gch_st.guard;
    named[id] = 1;
  }
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) cudaGetLastError(), fr = 0;
  while (want > 1 && want * bytes > fr / 4) want--;
  for (; gch_st.nlanes < want; gch_st.nlanes++)   /* streams are kept (nlanes only grows here) */
    if (!gch_st.lane_stream[gch_st.nlanes] && cudaStreamCreate(&gch_st.lane_stream[gch_st.nlanes]) != cudaSuccess) {
      cudaGetLastError();
      want = gch_st.nlanes ? gch_st.nlanes : 1;
      break;
    }
  cudaError_t e = cudaSuccess;
  const char *what = "";
  for (uint32_t id = 0; id < nb && !e; id++) {
    if (!named[id] || !gch_st.bufs.v[id].live) continue;
    while (!e && gch_st.bufs.v[id].nrep + 1 < want) {
      uint32_t c;
      cbuf o = gch_st.bufs.v[id];
      if (!(e = gch_new_buf(o.size, o.poison, &c, &what))) {
        gch_st.bufs.v[c].of1 = id + 1;
        gch_st.bufs.v[id].rep[gch_st.bufs.v[id].nrep++] = c;
        e = cudaMemcpy(gch_st.bufs.v[c].base + gch_st.guard, o.base + gch_st.guard, o.size, cudaMemcpyDeviceToDevice);
      }
    }
  }
  free(named);
  if (e) {   /* out of memory (say): no lanes */
    char *m = NULL, *w = dg_printf("lanes: %s", what);
    bool fatal = false;
    gch_cuda_status(e, w, &m, &fatal);
    free(w);
    if (fatal) {
      gch_reply(DG_GPU_FAULT, 0, NULL, 0, "%s", m);
      _exit(3);
    }
    free(m);
    want = 1;
    for (uint32_t id = 0; id < gch_st.bufs.n; id++)
      if (gch_st.bufs.v[id].live && !gch_st.bufs.v[id].of1) gch_drop_copies(id, 0);
  }
  gch_st.nlanes = want;
  gch_st.graph_epoch++;   /* copies and streams: the cached graphs name others */
  gch_reply(DG_GPU_OK, 0, &want, sizeof want, NULL);
}

/* The join of side stream i (1 + lane) into the stream cur. */
static cudaError_t side_join(int i, cudaStream_t cur)
{
  if (!gch_st.side_open[i]) return cudaSuccess;
  gch_st.side_open[i] = false;
  cudaError_t e = cudaEventRecord(gch_st.side_join[i], gch_st.side_stream[i]);
  return e ? e : cudaStreamWaitEvent(cur, gch_st.side_join[i], 0);
}

cudaError_t gch_side_before(uint32_t flags, cudaStream_t *back, bool *swapped)
{
  int i = gch_st.cur_lane + 1;
  *swapped = false;
  *back = gch_st.cur;
  if (i < 0 || i > GP_LANES_MAX) return cudaSuccess;
  cudaError_t e = flags & GP_LAUNCH_JOIN ? side_join(i, gch_st.cur) : cudaSuccess;
  if (e || !(flags & GP_LAUNCH_SIDE)) return e;
  if (!gch_st.side_stream[i]) {
    if (cudaStreamCreateWithFlags(&gch_st.side_stream[i], cudaStreamNonBlocking) != cudaSuccess) {
      cudaGetLastError();
      gch_st.side_stream[i] = 0;
      return cudaSuccess;
    }
    if (cudaEventCreateWithFlags(&gch_st.side_fork[i], cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&gch_st.side_join[i], cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError();
      cudaStreamDestroy(gch_st.side_stream[i]);
      gch_st.side_stream[i] = 0;
      return cudaSuccess;
    }
  }
  if (!gch_st.side_open[i]) {   /* forked once until the join: side launches in a row stay in order there */
    if ((e = cudaEventRecord(gch_st.side_fork[i], gch_st.cur)) ||
        (e = cudaStreamWaitEvent(gch_st.side_stream[i], gch_st.side_fork[i], 0)))
      return e;
    gch_st.side_open[i] = true;
  }
  gch_st.cur = gch_st.side_stream[i];
  *swapped = true;
  return cudaSuccess;
}

cudaError_t gch_side_join_all(void)
{
  cudaError_t e = cudaSuccess;
  for (int i = 0; i <= GP_LANES_MAX && !e; i++) {
    if (!gch_st.side_open[i]) continue;
    /* into the lane's stream (the serial op that follows is on the legacy
     * stream, which waits for every blocking lane stream but not for a
     * non-blocking side stream), or straight into the legacy stream */
    cudaStream_t to = i > 0 && (uint32_t)(i - 1) < gch_st.nlanes && gch_st.nlanes > 1 ? gch_st.lane_stream[i - 1]
                                                                                    : gch_serial_stream();
    e = side_join(i, to);
  }
  return e;
}

void gch_side_reset(void) { memset(gch_st.side_open, 0, sizeof gch_st.side_open); }

#endif
