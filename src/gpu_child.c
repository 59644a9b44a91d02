/* gpu_child.c — the GPU child: the only process that calls the CUDA runtime.
 *
 * It serves gpu_proto.h requests on a socket until EOF. Buffers carry guard
 * regions filled with a canary before and after; after every launch the
 * guards are read back, damage reported and the canary restored. An error
 * that leaves the context unusable (illegal address, trap, assert) is
 * answered as DG_GPU_FAULT, and the child exits: the parent starts another. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include "config.h"
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#ifndef DG_HAVE_CUDA
void gch_dispatch(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (rq->op < sizeof handlers / sizeof *handlers && handlers[rq->op])
    handlers[rq->op](rq, pl, n);
  else
    gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "unknown request %u", rq->op);
}

_Noreturn void gp_child_main(int fd)
{
  static const char msg[] = "built without CUDA";
  gp_req rq;
  if (!gp_read(fd, &rq, sizeof rq, 0)) {
    gp_rep rep = { DG_GPU_NO_DEVICE, sizeof msg - 1, 0, 0 };
    gp_write(fd, &rep, sizeof rep);
    gp_write(fd, msg, sizeof msg - 1);
  }
  _exit(0);
}
#else
#include "gpu_child_int.h"

static const uint8_t canary[8] = { 0xca, 0xfe, 0xf0, 0x0d, 0x5a, 0xfe, 0x6a, 0x4d };


/* A kernel's parameter sizes as cudaFuncGetParamInfo gives them, asked once
 * (asking on every launch cost a driver call per argument: 24 for the
 * envelope's kernel). n < 0: this driver cannot say. */
struct kparams { int32_t n; size_t size[]; };

struct gch_state gch_st = { .guard_k = -1, .cur_lane = -1 };



#define OUTPUT_MAX (64 * 1024)

/* Moves what kernels printed since the last call (device printf lands on the
 * child's stdout at synchronisation) into gch_st.out, and empties the memfd. */
void gch_collect_output(void)
{
  if (!gch_st.capture) return;
  fflush(stdout);
  off_t end = lseek(1, 0, SEEK_END);
  if (end > 0) {
    size_t n = end > OUTPUT_MAX ? OUTPUT_MAX : (size_t)end;
    char *b = dg_malloc(n);
    ssize_t got = pread(1, b, n, 0);
    if (got > 0) dg_buf_put(&gch_st.out, b, (size_t)got);
    if (end > OUTPUT_MAX) dg_buf_printf(&gch_st.out, "\n[%lld more bytes dropped]\n", (long long)(end - OUTPUT_MAX));
    free(b);
  }
  if (ftruncate(1, 0) == 0) lseek(1, 0, SEEK_SET);
}

/* Reply: status, message, what kernels printed, then data (two parts, sent
 * one after the other: a batch's launch records and its downloads). */
void gch_reply_parts(dg_gpu_status st, double ms, const void *d1, size_t n1, const void *d2, size_t n2,
                        const char *msg)
{
  gp_rep rep = { st, msg ? (uint32_t)strlen(msg) : 0, (uint32_t)gch_st.out.n, gch_st.pad, ms, n1 + n2 };
  if (gp_write(gch_st.fd, &rep, sizeof rep) || (msg && gp_write(gch_st.fd, msg, rep.msg_len))
      || (gch_st.out.n && gp_write(gch_st.fd, gch_st.out.s, gch_st.out.n)) || (n1 && gp_write(gch_st.fd, d1, n1))
      || (n2 && gp_write(gch_st.fd, d2, n2)))
    _exit(2);
  gch_st.out.n = 0;
}

void gch_reply(dg_gpu_status st, double ms, const void *data, size_t n, const char *fmt, ...)
{
  char *msg = NULL;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    msg = dg_vprintf(fmt, ap);
    va_end(ap);
  }
  gch_reply_parts(st, ms, data, n, NULL, 0, msg);
  free(msg);
}


/* After an error, is the context still usable? Sticky errors repeat on every call. */
static bool context_poisoned(void)
{
  cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

static bool fail(cudaError_t e, const char *what)
{
  if (e == cudaSuccess) return false;
  if (context_poisoned()) {
    gch_reply(DG_GPU_FAULT, 0, NULL, 0, "%s: %s (%s); the CUDA context is lost", what, CUERR(e));
    _exit(3);
  }
  gch_reply(DG_GPU_CUDA, 0, NULL, 0, "%s: %s (%s)", what, CUERR(e));
  return true;
}

uint8_t *gch_stage(size_t n)
{
  if (n > gch_st.stage_len) {
    free(gch_st.stage);
    gch_st.stage = dg_malloc(n);
    gch_st.stage_len = n;
  }
  return gch_st.stage;
}

/* Device blocks of 64 KiB holding a pattern (poisons, the canary), made
 * once each: filling a buffer is then device-to-device copies alone. */
#define PATTERN_BLOCK ((size_t)64 * 1024)   /* a multiple of every pattern length */
static struct { uint8_t p[8]; size_t len; uint8_t *dev; } pblocks[16];

static const uint8_t *pattern_block(const uint8_t *p, size_t len)
{
  size_t i = 0;
  for (; i < sizeof pblocks / sizeof *pblocks && pblocks[i].dev; i++)
    if (pblocks[i].len == len && !memcmp(pblocks[i].p, p, len)) return pblocks[i].dev;
  if (i == sizeof pblocks / sizeof *pblocks) return NULL;
  uint8_t *h = gch_stage(PATTERN_BLOCK), *dev = NULL;
  for (size_t k = 0; k < PATTERN_BLOCK; k++) h[k] = p[k % len];
  if (cudaMalloc((void **)&dev, PATTERN_BLOCK) || cudaMemcpy(dev, h, PATTERN_BLOCK, cudaMemcpyHostToDevice)) {
    if (dev) cudaFree(dev);
    cudaGetLastError();
    return NULL;
  }
  memcpy(pblocks[i].p, p, len);
  pblocks[i].len = len;
  pblocks[i].dev = dev;
  return dev;
}

/* Fills n device bytes at d with the repeated pattern p (len bytes): a copy
 * of the pattern's block, then device-to-device copies doubling what is
 * filled; asynchronous on the launch stream, nothing crosses the bus. */
cudaError_t gch_fill(uint8_t *d, size_t n, const uint8_t *p, size_t len)
{
  size_t m = n < PATTERN_BLOCK ? n : PATTERN_BLOCK;
  const uint8_t *blk = m ? pattern_block(p, len) : NULL;
  cudaError_t e = cudaSuccess;
  if (blk) {
    e = cudaMemcpyAsync(d, blk, m, cudaMemcpyDeviceToDevice, gch_st.cur);
  } else if (m) {                  /* no block (out of memory): from the host */
    uint8_t *h = gch_stage(m);
    for (size_t i = 0; i < m; i++) h[i] = p[i % len];
    e = cudaMemcpy(d, h, m, cudaMemcpyHostToDevice);
  }
  for (size_t have = m; have < n && !e;) {
    size_t k = n - have < have ? n - have : have;
    e = cudaMemcpyAsync(d + have, d, k, cudaMemcpyDeviceToDevice, gch_st.cur);
    have += k;
  }
  return e;
}

cbuf *gch_get_buf(uint32_t id)
{
  return id < gch_st.bufs.n && gch_st.bufs.v[id].live ? &gch_st.bufs.v[id] : NULL;
}

static void do_hello(const gp_req *rq, const uint8_t *pl, size_t len)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
    if (e == cudaErrorInsufficientDriver)
      gch_reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "no CUDA driver (none loaded, or older than CUDA runtime %d.%d): %s",
            CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, cudaGetErrorString(e));
    else
      gch_reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "no GPU device");
    _exit(0);
  }
  if (e) {
    gch_reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "CUDA initialisation failed: %s (%s)", CUERR(e));
    _exit(0);
  }
  struct cudaDeviceProp p;
  if ((e = cudaSetDevice(0)) || (e = cudaFree(0)) || (e = cudaGetDeviceProperties(&p, 0))
      || (e = cudaEventCreate(&gch_st.ev0)) || (e = cudaEventCreate(&gch_st.ev1))) {
    gch_reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "GPU 0 unusable: %s (%s)", CUERR(e));
    _exit(0);
  }
  gch_st.guard = rq->b;
  dg_gpu_info info = {0};
  snprintf(info.name, sizeof info.name, "%.127s", p.name);
  snprintf(info.arch, sizeof info.arch, "sm_%d%d", p.major, p.minor);
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.sm_count = p.multiProcessorCount;
  info.mem_total = p.totalGlobalMem;
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  gch_reply(DG_GPU_OK, 0, &info, sizeof info, NULL);
}

static void do_load(const gp_req *rq, const uint8_t *pl, size_t n)
{
  /* payload: u8 is_ptx, u32 nnames, names (u32 len + bytes), u64 len + image */
  const uint8_t *p = pl, *end = pl + n;
  uint32_t k = 0, len;
  if (end - p < 5) goto bad;
  p++;
  memcpy(&k, p, 4);
  p += 4;
  char **names = dg_calloc(k + 1, sizeof *names);
  for (uint32_t i = 0; i < k; i++) {
    if (end - p < 4) { k = i; goto bad_names; }
    memcpy(&len, p, 4);
    p += 4;
    if ((size_t)(end - p) < len) { k = i; goto bad_names; }
    names[i] = dg_strndup((const char *)p, len);
    p += len;
  }
  uint64_t ilen;
  if (end - p < 8) goto bad_names;
  memcpy(&ilen, p, 8);
  p += 8;
  if ((uint64_t)(end - p) < ilen || !ilen) goto bad_names;
  /* an aligned copy, NUL-terminated as PTX must be */
  uint8_t *image = dg_malloc(ilen + 1);
  memcpy(image, p, ilen);
  image[ilen] = 0;
  cudaLibrary_t lib;
  cudaError_t e = cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
  /* kept while the child lives: with lazy loading the driver may read it later */
  dg_vec_push(&gch_st.images, image);
  if (e) {
    for (uint32_t i = 0; i < k; i++) free(names[i]);
    free(names);
    fail(e, "loading the module");
    return;
  }
  uint32_t *ids = dg_calloc(k + 1, sizeof *ids);
  for (uint32_t i = 0; i < k; i++) {
    cudaKernel_t kern;
    if ((e = cudaLibraryGetKernel(&kern, lib, names[i]))) {
      char *nm = names[i];
      names[i] = NULL;
      for (uint32_t q = 0; q < k; q++) free(names[q]);
      free(names);
      free(ids);
      gch_reply(DG_GPU_CUDA, 0, NULL, 0, "kernel %s not in the module: %s (%s)", nm, CUERR(e));
      free(nm);
      return;
    }
    ids[i] = (uint32_t)gch_st.kernels.n;
    dg_vec_push(&gch_st.kernels, kern);
  }
  gch_reply(DG_GPU_OK, 0, ids, k * sizeof *ids, NULL);
  for (uint32_t i = 0; i < k; i++) free(names[i]);
  free(names);
  free(ids);
  return;
bad_names:
  for (uint32_t i = 0; i < k; i++) free(names[i]);
  free(names);
bad:
  gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed module");
}

cudaError_t gch_new_buf(size_t size, dg_gpu_pattern pat, uint32_t *id, const char **what)
{
  cbuf b = { NULL, size, pat, true, 0, 0, {0} };
  *what = "cudaMalloc";
  cudaError_t e = cudaMalloc((void **)&b.base, size + 2 * gch_st.guard);
  if (e) return e;
  *what = "filling a new buffer";
  if ((e = gch_fill(b.base, gch_st.guard, canary, 8)) || (e = gch_fill(b.base + gch_st.guard + b.size, gch_st.guard, canary, 8))
      || (e = gch_fill(b.base + gch_st.guard, b.size, pat.b, pat.len))) {
    cudaFree(b.base);
    return e;
  }
  *id = (uint32_t)gch_st.bufs.n;
  dg_vec_push(&gch_st.bufs, b);
  gch_st.regions_dirty = true;
  gch_st.graph_epoch++;
  return cudaSuccess;
}

static void do_alloc(const gp_req *rq, const uint8_t *pl, size_t n)
{
  dg_gpu_pattern pat;
  if (n != sizeof pat) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed alloc"); return; }
  memcpy(&pat, pl, sizeof pat);
  if (!pat.len || pat.len > 8 || (pat.len & (pat.len - 1))) {
    gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "poison pattern of %d bytes (1, 2, 4 or 8)", pat.len);
    return;
  }
  uint32_t id;
  const char *what;
  cudaError_t e = gch_new_buf(rq->b, pat, &id, &what);
  if (fail(e, what)) return;
  gch_reply(DG_GPU_OK, 0, &id, sizeof id, NULL);
}

static void do_copy(const gp_req *rq, const uint8_t *pl, size_t n)
{
  cbuf *b = gch_get_buf(rq->a);
  bool up = rq->op == GP_UPLOAD;
  size_t len = up ? n : rq->c;
  if (!b) {
    gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no buffer %u", rq->a);
    return;
  }
  if (rq->b > b->size || len > b->size - rq->b) {
    gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "copy of %zu bytes at offset %llu outside a buffer of %zu",
          len, (unsigned long long)rq->b, b->size);
    return;
  }
  uint8_t *d = b->base + gch_st.guard + rq->b;
  if (up) {   /* every lane's copy too (GP_LANES) */
    cudaError_t e = cudaMemcpy(d, pl, n, cudaMemcpyHostToDevice);
    for (uint32_t r = 0; r < b->nrep && !e; r++)
      e = cudaMemcpy(gch_lane_buf(rq->a, (int)r + 1)->base + gch_st.guard + rq->b, pl, n, cudaMemcpyHostToDevice);
    if (!fail(e, "upload"))
      gch_reply(DG_GPU_OK, 0, NULL, 0, NULL);
  } else {
    uint8_t *h = gch_stage(len ? len : 1);
    if (!fail(cudaMemcpy(h, d, len, cudaMemcpyDeviceToHost), "download"))
      gch_reply(DG_GPU_OK, 0, h, len, NULL);
  }
}

static void do_poison_free(const gp_req *rq, const uint8_t *pl, size_t n)
{
  cbuf *b = gch_get_buf(rq->a);
  if (!b) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no buffer %u", rq->a); return; }
  if (rq->op == GP_POISON) {
    cudaError_t e = cudaSuccess;
    for (uint32_t r = 0; r <= b->nrep && !e; r++) {   /* every lane's copy too (GP_LANES) */
      cbuf *c = gch_lane_buf(rq->a, (int)r);
      e = gch_fill(c->base + gch_st.guard, c->size, c->poison.b, c->poison.len);
    }
    if (!fail(e, "poison"))
      gch_reply(DG_GPU_OK, 0, NULL, 0, NULL);
    return;
  }
  if (b->of1) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no buffer %u", rq->a); return; }
  gch_drop_copies(rq->a, 0);
  cudaFree(b->base);
  b->live = false;
  gch_st.regions_dirty = true;
  gch_st.graph_epoch++;
  gch_reply(DG_GPU_OK, 0, NULL, 0, NULL);
}


uint8_t *gch_pinned_grow(pinned_buf *b, size_t n, uint64_t *epoch)
{
  if (n <= b->len) return b->p;
  ++*(epoch ? epoch : &gch_st.graph_epoch);   /* cached graphs copy to and from the old area */
  if (b->p) cudaFreeHost(b->p);
  b->p = NULL;
  b->len = 0;
  if (cudaMallocHost((void **)&b->p, n) != cudaSuccess) {
    cudaGetLastError();
    b->p = NULL;
    return NULL;
  }
  b->len = n;
  return b->p;
}

/* Pinned host memory for the guards of all live buffers: one asynchronous
 * copy per guard and one synchronisation, instead of a blocking pageable copy
 * each (the launch round trip is mostly this read-back). */
static uint8_t *guard_stage(size_t n)
{
  static pinned_buf guards;
  return gch_pinned_grow(&guards, n, NULL);
}

/* The guard check on the device (gpu_guard.c): one launch over every guard
 * region, 16 bytes a region back. Same hits as the host comparison. In
 * halves, so that a launch's own synchronisation covers the check too:
 * guard_enqueue queues it behind the launch (no wait) into a result slot,
 * gch_guard_collect reads a slot once the stream is synchronised. An
 * asynchronous batch (GP_BATCH_ASYNC) gives each launch its own slot. */
static struct {
  uint8_t **tab;                   /* device: the regions' addresses */
  size_t cap_tab, nreg, n;
  struct {                         /* per flight (gch_guard_use): two batches can be in flight */
    unsigned long long *res, *hres;  /* device: per check counts then firsts; pinned host: the
                                        initial values (2n), then per check the results */
    unsigned long long *hinit;       /* pinned host: the initial values of every check */
    size_t cap_n, cap_slots;
  } s[2];
  int cur;                         /* the flight in use */
} GD;
#define GS (GD.s[GD.cur])

void gch_guard_use(int flight) { GD.cur = flight & 1; }

bool gch_guard_fits(size_t live, size_t nslots)
{
  size_t n = 2 * live;
  return !gch_st.regions_dirty && n <= GD.cap_tab && n <= GS.cap_n && nslots <= GS.cap_slots;
}

/* Room for nslots checks over `live` buffers, and the region table. */
cudaError_t gch_guard_reserve(size_t live, size_t nslots)
{
  size_t n = 2 * live;
  cudaError_t e = cudaSuccess;
  if (n > GD.cap_tab) {
    if (GD.tab) cudaFree(GD.tab);
    GD.tab = NULL, GD.cap_tab = 0;
    if ((e = cudaMalloc((void **)&GD.tab, n * sizeof *GD.tab))) return e;
    GD.cap_tab = n;
    gch_st.regions_dirty = true;
    gch_st.graph_epoch++;
  }
  if (n > GS.cap_n || nslots > GS.cap_slots) {
    size_t cn = n > GS.cap_n ? n : GS.cap_n, cs = nslots > GS.cap_slots ? nslots : GS.cap_slots;
    if (GS.res) cudaFree(GS.res), cudaFreeHost(GS.hres), cudaFreeHost(GS.hinit);
    GS.res = GS.hres = GS.hinit = NULL, GS.cap_n = GS.cap_slots = 0;
    if ((e = cudaMalloc((void **)&GS.res, 2 * cn * cs * sizeof *GS.res)) ||
        (e = cudaMallocHost((void **)&GS.hres, 2 * cn * (cs + 1) * sizeof *GS.hres)) ||
        (e = cudaMallocHost((void **)&GS.hinit, 2 * cn * cs * sizeof *GS.hinit)))
      return e;
    GS.cap_n = cn, GS.cap_slots = cs;
    gch_st.flight_epoch[GD.cur]++;
  }
  if (gch_st.regions_dirty) {
    uint8_t **h = (uint8_t **)gch_stage(n * sizeof *h);
    GD.nreg = 0;
    for (size_t i = 0; i < gch_st.bufs.n; i++)
      if (gch_st.bufs.v[i].live) {
        h[GD.nreg++] = gch_st.bufs.v[i].base;
        h[GD.nreg++] = gch_st.bufs.v[i].base + gch_st.guard + gch_st.bufs.v[i].size;
      }
    if ((e = cudaMemcpy(GD.tab, h, n * sizeof *h, cudaMemcpyHostToDevice))) return e;
    gch_st.regions_dirty = false;
  }
  GD.n = n;
  for (size_t r = 0; r < n; r++) GS.hres[r] = 0, GS.hres[n + r] = ~0ull;   /* counts 0, firsts ~0 */
  return cudaSuccess;
}

/* The check kernel alone, into slot's results (initialised beforehand). */
cudaError_t gch_guard_kernel(size_t slot)
{
  size_t n = GD.n;
  unsigned long long *res = GS.res + 2 * n * slot;
  unsigned long long len = gch_st.guard, nn = n;
  void *args[] = { &GD.tab, &len, &nn, &res };
  dim3 grid = { 4, (unsigned)n, 1 }, block = { 256, 1, 1 };   /* (8 words a thread of a 64 KiB region) */
  return cudaLaunchKernel((const void *)gch_st.kernels.v[gch_st.guard_k], grid, block, args, 0, gch_st.cur);
}

static cudaError_t guard_enqueue(size_t slot)
{
  size_t n = GD.n;
  unsigned long long *res = GS.res + 2 * n * slot, *out = GS.hres + 2 * n * (slot + 1);
  cudaError_t e;
  if ((e = cudaMemcpyAsync(res, GS.hres, 2 * n * sizeof *res, cudaMemcpyHostToDevice, 0))
      || (e = gch_guard_kernel(slot))
      || (e = cudaMemcpyAsync(out, res, 2 * n * sizeof *res, cudaMemcpyDeviceToHost, 0)))
    return e;
  return cudaSuccess;
}

/* An asynchronous batch's slots 0..nslots-1 in two copies instead of two a
 * check: every slot initialised before the batch's first launch
 * (gch_guard_slots_init), every slot's results read back after its last
 * (gch_guard_slots_back); in between each guarded launch queues gch_guard_kernel. */
cudaError_t gch_guard_slots_init(size_t nslots)
{
  size_t n = GD.n;
  for (size_t s = 0; s < nslots; s++) memcpy(GS.hinit + 2 * n * s, GS.hres, 2 * n * sizeof *GS.hinit);
  return nslots ? cudaMemcpyAsync(GS.res, GS.hinit, 2 * n * nslots * sizeof *GS.res, cudaMemcpyHostToDevice,
                                  gch_serial_stream())
                : cudaSuccess;
}

cudaError_t gch_guard_slots_back(size_t nslots)
{
  size_t n = GD.n;
  return nslots ? cudaMemcpyAsync(GS.hres + 2 * n, GS.res, 2 * n * nslots * sizeof *GS.res, cudaMemcpyDeviceToHost,
                                  gch_serial_stream())
                : cudaSuccess;
}

/* The lane whose ops use buffer i (GP_LANES): a copy's lane, 0 for a buffer
 * with copies, -1 for one without (every lane's). */
static int buf_lane(size_t i)
{
  const cbuf *b = &gch_st.bufs.v[i];
  if (!b->of1) return b->nrep ? 0 : -1;
  const cbuf *o = &gch_st.bufs.v[b->of1 - 1];
  for (uint32_t r = 0; r < o->nrep; r++)
    if (o->rep[r] == i) return (int)r + 1;
  return -1;
}

/* Slot's hits (appended to hits, when not NULL); the canary restored where
 * the slot saw damage. *nown (when not NULL) counts the hits in buffers lane
 * uses (buf_lane; lane < 0: all of them). */
cudaError_t gch_guard_collect(size_t slot, guard_vec *hits, int lane, size_t *nown)
{
  size_t n = GD.n;
  const unsigned long long *cnt = GS.hres + 2 * n * (slot + 1), *first = cnt + n;
  size_t r = 0;
  cudaError_t e = cudaSuccess;
  for (size_t i = 0; i < gch_st.bufs.n && !e; i++) {
    cbuf *b = &gch_st.bufs.v[i];
    if (!b->live) continue;
    for (int after = 0; after < 2 && !e; after++, r++) {
      if (!cnt[r]) continue;
      int64_t k = (int64_t)first[r];
      gp_guard hit = { b->of1 ? b->of1 - 1 : (uint32_t)i, (uint32_t)after,   /* a lane's copy: as its buffer */
                       after ? (int64_t)b->size + k : k - (int64_t)gch_st.guard, cnt[r] };
      if (hits) dg_vec_push(hits, hit);
      int bl = nown && lane >= 0 ? buf_lane(i) : -1;
      if (nown && (bl < 0 || bl == lane)) ++*nown;
      e = gch_fill(after ? b->base + gch_st.guard + b->size : b->base, gch_st.guard, canary, 8);
    }
  }
  return e;
}

static cudaError_t check_guards_device(size_t live, guard_vec *hits)
{
  cudaError_t e = gch_guard_reserve(live, 1);
  if (!e) e = guard_enqueue(0);
  if (!e) e = cudaStreamSynchronize(0);
  return e ? e : gch_guard_collect(0, hits, -1, NULL);
}

/* Live buffers with guards to check (0: none). */
size_t gch_guarded_live(void)
{
  size_t live = 0;
  for (size_t i = 0; i < gch_st.bufs.n; i++) live += gch_st.bufs.v[i].live;
  return gch_st.guard ? live : 0;
}

/* Reads every live buffer's guards; appends hits and restores the canary. */
static cudaError_t check_guards(guard_vec *hits)
{
  size_t live = gch_guarded_live();
  if (!live) return cudaSuccess;
  if (gch_st.guard_k >= 0) return check_guards_device(live, hits);
  uint8_t *h = guard_stage(2 * live * gch_st.guard);
  if (!h) return cudaErrorMemoryAllocation;
  cudaError_t e = cudaSuccess;
  size_t slot = 0;
  for (size_t i = 0; i < gch_st.bufs.n && !e; i++) {
    cbuf *b = &gch_st.bufs.v[i];
    if (!b->live) continue;
    for (int after = 0; after < 2 && !e; after++, slot++) {
      uint8_t *g = after ? b->base + gch_st.guard + b->size : b->base;
      e = cudaMemcpyAsync(h + slot * gch_st.guard, g, gch_st.guard, cudaMemcpyDeviceToHost, 0);
    }
  }
  if (!e) e = cudaStreamSynchronize(0);
  slot = 0;
  for (size_t i = 0; i < gch_st.bufs.n && !e; i++) {
    cbuf *b = &gch_st.bufs.v[i];
    if (!b->live) continue;
    for (int after = 0; after < 2 && !e; after++, slot++) {
      const uint8_t *gh = h + slot * gch_st.guard;
      if (!memcmp(gh, canary, 8) && !memcmp(gh, gh + 8, gch_st.guard - 8)) continue;  /* intact */
      gp_guard hit = { b->of1 ? b->of1 - 1 : (uint32_t)i, (uint32_t)after, 0, 0 };
      bool first = true;
      for (size_t k = 0; k < gch_st.guard; k++)
        if (gh[k] != canary[k % 8]) {
          if (first) hit.first_off = after ? (int64_t)(b->size + k) : (int64_t)k - (int64_t)gch_st.guard;
          first = false;
          hit.nbytes++;
        }
      dg_vec_push(hits, hit);
      e = gch_fill(after ? b->base + gch_st.guard + b->size : b->base, gch_st.guard, canary, 8);
    }
  }
  return e;
}

/* The kernel's own parameter list against the arguments: a count or size
 * that differs would make CUDA read past an argument (or crash the child).
 * NULL when they agree, or when this driver cannot say. The sizes are asked
 * once a kernel (struct kparams); the verdicts are those of asking each time. */
static const struct kparams *kernel_params(uint32_t k)
{
  while (gch_st.params.n < gch_st.kernels.n) dg_vec_push(&gch_st.params, (struct kparams *)NULL);
  if (gch_st.params.v[k]) return gch_st.params.v[k];
  const void *fn = (const void *)gch_st.kernels.v[k];
  size_t off, size, cap = 16;
  struct kparams *kp = dg_malloc(sizeof *kp + cap * sizeof(size_t));
  kp->n = 0;
  for (;;) {
    cudaError_t e = cudaFuncGetParamInfo(fn, (size_t)kp->n, &off, &size);
    if (e == cudaErrorInvalidValue) break;
    if (e || kp->n >= 256) {       /* not supported here: launched unchecked */
      if (e) kp->n = -1;
      break;
    }
    if ((size_t)kp->n == cap) kp = dg_realloc(kp, sizeof *kp + (cap *= 2) * sizeof(size_t));
    kp->size[kp->n++] = size;
  }
  cudaGetLastError();              /* the probe past the end is no launch error */
  return gch_st.params.v[k] = kp;
}

static char *check_params(uint32_t k, const gp_arg *args, uint32_t nargs)
{
  const struct kparams *kp = kernel_params(k);
  if (kp->n < 0) return NULL;
  uint32_t n = (uint32_t)kp->n;
  for (uint32_t i = 0; i < nargs && i < n; i++)
    if (args[i].size != kp->size[i])
      return dg_printf("argument %u: %llu bytes given for a parameter of %zu bytes", i + 1,
                       (unsigned long long)args[i].size, kp->size[i]);
  return n != nargs ? dg_printf("the kernel takes %u argument(s), %u given", n, nargs) : NULL;
}

/* What a CUDA error means: OK, CUDA (the context lives on) or FAULT (*fatal:
 * the child must exit after its gch_reply). *msg gets the sentence. */
dg_gpu_status gch_cuda_status(cudaError_t e, const char *what, char **msg, bool *fatal)
{
  if (e == cudaSuccess) return DG_GPU_OK;
  if ((*fatal = !gch_st.capturing && context_poisoned())) {   /* (a capture's error is the capture's: run again) */
    *msg = dg_printf("%s: %s (%s); the CUDA context is lost", what, CUERR(e));
    return DG_GPU_FAULT;
  }
  *msg = dg_printf("%s: %s (%s)", what, CUERR(e));
  return DG_GPU_CUDA;
}
/* Whether a launch's dynamic shared memory, with the kernel's static part,
 * is past the 48 KiB a kernel gets without asking: then it needs the
 * attribute for its dynamic part, as a host program would set it. */
static bool past_default_smem(const void *fn, uint32_t dyn)
{
  if (dyn > 48 * 1024) return true;
  struct cudaFuncAttributes fa;
  if (!dyn) return false;
  if (cudaFuncGetAttributes(&fa, fn) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return dyn + fa.sharedSizeBytes > 48 * 1024;
}


/* A launch without waiting for it: arguments against the kernel's
 * parameters, dynamic shared memory, the launch between events e0 and e1.
 * *msg (owned) on failure; *fatal when the context is lost. */
dg_gpu_status gch_launch_only(const gp_launch *L, const gp_arg *args, cudaEvent_t e0, cudaEvent_t e1,
                                 char **msg, bool *fatal)
{
  *msg = NULL;
  if (L->kernel >= gch_st.kernels.n) {
    *msg = dg_printf("no kernel %u", L->kernel);
    return DG_GPU_BAD_REQUEST;
  }
  void **argv = dg_calloc(L->nargs + 1, sizeof *argv);
  void **ptrs = dg_calloc(L->nargs + 1, sizeof *ptrs);
  dg_gpu_status st = DG_GPU_OK;
  for (uint32_t i = 0; i < L->nargs && st == DG_GPU_OK; i++) {
    if (args[i].kind == DG_GPU_ARG_BUF) {
      cbuf *b = gch_lane_buf(args[i].buf, gch_st.cur_lane);
      if (!b || args[i].off > b->size) {
        *msg = dg_printf("argument %u: no buffer %u", i + 1, args[i].buf);
        st = DG_GPU_BAD_REQUEST;
        break;
      }
      ptrs[i] = b->base + gch_st.guard + args[i].off;
      argv[i] = &ptrs[i];
    } else if (args[i].size > sizeof args[i].value) {
      *msg = dg_printf("argument %u: a value of %llu bytes (64 at most)", i + 1,
                       (unsigned long long)args[i].size);
      st = DG_GPU_BAD_REQUEST;
    } else {
      argv[i] = (void *)args[i].value;
    }
  }
  const void *fn = (const void *)gch_st.kernels.v[L->kernel];
  if (st == DG_GPU_OK && (*msg = check_params(L->kernel, args, L->nargs))) st = DG_GPU_BAD_REQUEST;
  cudaError_t e;
  if (st == DG_GPU_OK && past_default_smem(fn, L->shmem)
      && (e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L->shmem))) {
    cudaGetLastError();
    *msg = dg_printf("%u bytes of dynamic shared memory: %s (%s)", L->shmem, CUERR(e));
    st = DG_GPU_LAUNCH;
  }
  if (st == DG_GPU_OK) {
    dim3 grid = { L->grid.x, L->grid.y, L->grid.z }, block = { L->block.x, L->block.y, L->block.z };
    if (e0) gch_event_record(e0, gch_st.cur);   /* NULL: an untimed launch (gpu_child_batch.c) */
    e = cudaLaunchKernel(fn, grid, block, argv, L->shmem, gch_st.cur);
    if (e && (*fatal = !gch_st.capturing && context_poisoned())) {
      *msg = dg_printf("launch: %s (%s); the CUDA context is lost", CUERR(e));
      st = DG_GPU_FAULT;
    } else if (e) {
      *msg = dg_printf("launch <<<(%u,%u,%u), (%u,%u,%u), %u>>>: %s (%s)", grid.x, grid.y, grid.z,
                       block.x, block.y, block.z, L->shmem, CUERR(e));
      st = DG_GPU_LAUNCH;
    } else if (e1) {
      gch_event_record(e1, gch_st.cur);
    }
  }
  free(argv);
  free(ptrs);
  return st;
}

/* One launch: arguments against the kernel's parameters, launch, sync, the
 * guards of every live buffer. *msg (owned) on failure; *fatal when the
 * context is lost. */
dg_gpu_status gch_run_launch(const gp_launch *L, const gp_arg *args, guard_vec *hits, float *ms,
                                char **msg, bool *fatal)
{
  *ms = 0;
  dg_gpu_status st = gch_launch_only(L, args, gch_st.ev0, gch_st.ev1, msg, fatal);
  cudaError_t e;
  /* the guard check on the device is queued behind the launch: one
   * synchronisation covers both (a fault is still this launch's) */
  bool guarded = !(L->flags & GP_LAUNCH_UNGUARDED);
  size_t live = guarded && gch_st.guard_k >= 0 ? gch_guarded_live() : 0;
  cudaError_t ge = cudaSuccess;
  if (st == DG_GPU_OK) {
    if (live && !(ge = gch_guard_reserve(live, 1))) ge = guard_enqueue(0);
    e = cudaDeviceSynchronize();
    if (!e) e = cudaGetLastError();
    gch_collect_output();
    if (e && (*fatal = context_poisoned())) {
      *msg = dg_printf("%s (%s)", CUERR(e));
      st = DG_GPU_FAULT;
    } else if (e) {
      *msg = dg_printf("%s (%s)", CUERR(e));
      st = DG_GPU_LAUNCH;
    }
  }
  if (st == DG_GPU_OK) {
    cudaEventElapsedTime(ms, gch_st.ev0, gch_st.ev1);
    if (live)
      st = gch_cuda_status(ge ? ge : gch_guard_collect(0, hits, -1, NULL), "reading guard regions", msg, fatal);
    else if (guarded)
      st = gch_cuda_status(check_guards(hits), "reading guard regions", msg, fatal);
    if (st == DG_GPU_OK && hits->n) {
      *msg = dg_printf("the kernel wrote outside %zu buffer guard region(s)", hits->n);
      st = DG_GPU_OOB_WRITE;
    }
  }
  return st;
}

static void do_launch(const gp_req *rq, const uint8_t *pl, size_t n)
{
  gp_launch L;
  if (n < sizeof L) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed launch"); return; }
  memcpy(&L, pl, sizeof L);
  if (n != sizeof L + L.nargs * sizeof(gp_arg)) {
    gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed launch");
    return;
  }
  gp_arg *args = dg_calloc(L.nargs + 1, sizeof *args);
  memcpy(args, pl + sizeof L, L.nargs * sizeof *args);
  guard_vec hits = {0};
  float ms;
  char *msg;
  bool fatal = false;
  dg_gpu_status st = gch_run_launch(&L, args, &hits, &ms, &msg, &fatal);
  gch_reply(st, ms, hits.v, st == DG_GPU_OOB_WRITE ? hits.n * sizeof *hits.v : 0, msg ? "%s" : NULL, msg);
  free(msg);
  dg_vec_free(&hits);
  free(args);
  if (fatal) _exit(3);   /* the context is gone: the parent starts another child */
}

static void do_params(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (rq->a >= gch_st.kernels.n) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no kernel %u", rq->a); return; }
  const void *fn = (const void *)gch_st.kernels.v[rq->a];
  DG_VEC(uint64_t) sizes = {0};
  size_t off, size;
  cudaError_t e = cudaSuccess;
  while (sizes.n < 1024 && (e = cudaFuncGetParamInfo(fn, sizes.n, &off, &size)) == cudaSuccess)
    dg_vec_push(&sizes, (uint64_t)size);
  cudaGetLastError();
  if (e != cudaSuccess && e != cudaErrorInvalidValue)
    gch_reply(DG_GPU_CUDA, 0, NULL, 0, "parameter sizes: %s (%s)", CUERR(e));
  else
    gch_reply(DG_GPU_OK, 0, sizes.v, sizes.n * sizeof *sizes.v, NULL);
  dg_vec_free(&sizes);
}

static void do_guard(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (rq->a >= gch_st.kernels.n) { gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no kernel %u", rq->a); return; }
  gch_st.guard_k = (int)rq->a;
  gch_st.regions_dirty = true;
  gch_st.graph_epoch++;
  gch_reply(DG_GPU_OK, 0, NULL, 0, NULL);
}

static void (*const handlers[])(const gp_req *, const uint8_t *, size_t) = {
  [GP_HELLO] = do_hello, [GP_LOAD] = do_load, [GP_ALLOC] = do_alloc,
  [GP_UPLOAD] = do_copy, [GP_DOWNLOAD] = do_copy, [GP_POISON] = do_poison_free,
  [GP_FREE] = do_poison_free, [GP_LAUNCH] = do_launch, [GP_PARAMS] = do_params,
  [GP_BATCH] = gch_do_batch, [GP_GUARD] = do_guard, [GP_LANES] = gch_do_lanes,
};

void gch_dispatch(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (rq->op < sizeof handlers / sizeof *handlers && handlers[rq->op])
    handlers[rq->op](rq, pl, n);
  else
    gch_reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "unknown request %u", rq->op);
}

_Noreturn void gp_child_main(int fd)
{
  gch_st.fd = fd;
  int mf = memfd_create("dirigo-kernel-output", 0);
  if (mf >= 0 && dup2(mf, 1) == 1) gch_st.capture = true;
  if (mf > 1) close(mf);
  uint8_t *pl = NULL;
  size_t cap = 0;
  for (;;) {
    gp_req rq;
    if (gp_read(fd, &rq, sizeof rq, 0)) _exit(0);
    if (rq.len + 1 > cap) {   /* kept across requests: a case's batch is the same size each time */
      free(pl);
      cap = rq.len + 1;
      pl = dg_malloc(cap);
    }
    if (rq.len && gp_read(fd, pl, rq.len, 0)) _exit(0);
    pl[rq.len] = 0;
    gch_dispatch(&rq, pl, rq.len);
  }
}
#endif
