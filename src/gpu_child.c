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
#include <cuda_runtime_api.h>

static const uint8_t canary[8] = { 0xca, 0xfe, 0xf0, 0x0d, 0x5a, 0xfe, 0x6a, 0x4d };

typedef DG_VEC(gp_guard) guard_vec;

/* A kernel's parameter sizes as cudaFuncGetParamInfo gives them, asked once
 * (asking on every launch cost a driver call per argument: 24 for the
 * envelope's kernel). n < 0: this driver cannot say. */
struct kparams { int32_t n; size_t size[]; };

typedef struct {
  uint8_t *base;      /* cudaMalloc'd: guard | bytes | guard */
  size_t size;
  dg_gpu_pattern poison;
  bool live;
} cbuf;

static struct {
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
} C = { .guard_k = -1 };

#define OUTPUT_MAX (64 * 1024)

/* Moves what kernels printed since the last call (device printf lands on the
 * child's stdout at synchronisation) into C.out, and empties the memfd. */
static void collect_output(void)
{
  if (!C.capture) return;
  fflush(stdout);
  off_t end = lseek(1, 0, SEEK_END);
  if (end > 0) {
    size_t n = end > OUTPUT_MAX ? OUTPUT_MAX : (size_t)end;
    char *b = dg_malloc(n);
    ssize_t got = pread(1, b, n, 0);
    if (got > 0) dg_buf_put(&C.out, b, (size_t)got);
    if (end > OUTPUT_MAX) dg_buf_printf(&C.out, "\n[%lld more bytes dropped]\n", (long long)(end - OUTPUT_MAX));
    free(b);
  }
  if (ftruncate(1, 0) == 0) lseek(1, 0, SEEK_SET);
}

/* Reply: status, message, what kernels printed, then data (two parts, sent
 * one after the other: a batch's launch records and its downloads). */
static void reply_parts(dg_gpu_status st, double ms, const void *d1, size_t n1, const void *d2, size_t n2,
                        const char *msg)
{
  gp_rep rep = { st, msg ? (uint32_t)strlen(msg) : 0, (uint32_t)C.out.n, C.pad, ms, n1 + n2 };
  if (gp_write(C.fd, &rep, sizeof rep) || (msg && gp_write(C.fd, msg, rep.msg_len))
      || (C.out.n && gp_write(C.fd, C.out.s, C.out.n)) || (n1 && gp_write(C.fd, d1, n1))
      || (n2 && gp_write(C.fd, d2, n2)))
    _exit(2);
  C.out.n = 0;
}

static void reply(dg_gpu_status st, double ms, const void *data, size_t n, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));
static void reply(dg_gpu_status st, double ms, const void *data, size_t n, const char *fmt, ...)
{
  char *msg = NULL;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    msg = dg_vprintf(fmt, ap);
    va_end(ap);
  }
  reply_parts(st, ms, data, n, NULL, 0, msg);
  free(msg);
}

#define CUERR(e) cudaGetErrorString(e), cudaGetErrorName(e)

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
    reply(DG_GPU_FAULT, 0, NULL, 0, "%s: %s (%s); the CUDA context is lost", what, CUERR(e));
    _exit(3);
  }
  reply(DG_GPU_CUDA, 0, NULL, 0, "%s: %s (%s)", what, CUERR(e));
  return true;
}

static uint8_t *stage(size_t n)
{
  if (n > C.stage_len) {
    free(C.stage);
    C.stage = dg_malloc(n);
    C.stage_len = n;
  }
  return C.stage;
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
  uint8_t *h = stage(PATTERN_BLOCK), *dev = NULL;
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
static cudaError_t fill(uint8_t *d, size_t n, const uint8_t *p, size_t len)
{
  size_t m = n < PATTERN_BLOCK ? n : PATTERN_BLOCK;
  const uint8_t *blk = m ? pattern_block(p, len) : NULL;
  cudaError_t e = cudaSuccess;
  if (blk) {
    e = cudaMemcpyAsync(d, blk, m, cudaMemcpyDeviceToDevice, 0);
  } else if (m) {                  /* no block (out of memory): from the host */
    uint8_t *h = stage(m);
    for (size_t i = 0; i < m; i++) h[i] = p[i % len];
    e = cudaMemcpy(d, h, m, cudaMemcpyHostToDevice);
  }
  for (size_t have = m; have < n && !e;) {
    size_t k = n - have < have ? n - have : have;
    e = cudaMemcpyAsync(d + have, d, k, cudaMemcpyDeviceToDevice, 0);
    have += k;
  }
  return e;
}

static cbuf *get_buf(uint32_t id)
{
  return id < C.bufs.n && C.bufs.v[id].live ? &C.bufs.v[id] : NULL;
}

static void do_hello(const gp_req *rq, const uint8_t *pl, size_t len)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
    if (e == cudaErrorInsufficientDriver)
      reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "no CUDA driver (none loaded, or older than CUDA runtime %d.%d): %s",
            CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, cudaGetErrorString(e));
    else
      reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "no GPU device");
    _exit(0);
  }
  if (e) {
    reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "CUDA initialisation failed: %s (%s)", CUERR(e));
    _exit(0);
  }
  struct cudaDeviceProp p;
  if ((e = cudaSetDevice(0)) || (e = cudaFree(0)) || (e = cudaGetDeviceProperties(&p, 0))
      || (e = cudaEventCreate(&C.ev0)) || (e = cudaEventCreate(&C.ev1))) {
    reply(DG_GPU_NO_DEVICE, 0, NULL, 0, "GPU 0 unusable: %s (%s)", CUERR(e));
    _exit(0);
  }
  C.guard = rq->b;
  dg_gpu_info info = {0};
  snprintf(info.name, sizeof info.name, "%.127s", p.name);
  snprintf(info.arch, sizeof info.arch, "sm_%d%d", p.major, p.minor);
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.sm_count = p.multiProcessorCount;
  info.mem_total = p.totalGlobalMem;
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  reply(DG_GPU_OK, 0, &info, sizeof info, NULL);
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
  dg_vec_push(&C.images, image);
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
      reply(DG_GPU_CUDA, 0, NULL, 0, "kernel %s not in the module: %s (%s)", nm, CUERR(e));
      free(nm);
      return;
    }
    ids[i] = (uint32_t)C.kernels.n;
    dg_vec_push(&C.kernels, kern);
  }
  reply(DG_GPU_OK, 0, ids, k * sizeof *ids, NULL);
  for (uint32_t i = 0; i < k; i++) free(names[i]);
  free(names);
  free(ids);
  return;
bad_names:
  for (uint32_t i = 0; i < k; i++) free(names[i]);
  free(names);
bad:
  reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed module");
}

static void do_alloc(const gp_req *rq, const uint8_t *pl, size_t n)
{
  dg_gpu_pattern pat;
  if (n != sizeof pat) { reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed alloc"); return; }
  memcpy(&pat, pl, sizeof pat);
  if (!pat.len || pat.len > 8 || (pat.len & (pat.len - 1))) {
    reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "poison pattern of %d bytes (1, 2, 4 or 8)", pat.len);
    return;
  }
  cbuf b = { NULL, rq->b, pat, true };
  cudaError_t e = cudaMalloc((void **)&b.base, rq->b + 2 * C.guard);
  if (fail(e, "cudaMalloc")) return;
  if ((e = fill(b.base, C.guard, canary, 8)) || (e = fill(b.base + C.guard + b.size, C.guard, canary, 8))
      || (e = fill(b.base + C.guard, b.size, pat.b, pat.len))) {
    cudaFree(b.base);
    fail(e, "filling a new buffer");
    return;
  }
  uint32_t id = (uint32_t)C.bufs.n;
  dg_vec_push(&C.bufs, b);
  C.regions_dirty = true;
  reply(DG_GPU_OK, 0, &id, sizeof id, NULL);
}

static void do_copy(const gp_req *rq, const uint8_t *pl, size_t n)
{
  cbuf *b = get_buf(rq->a);
  bool up = rq->op == GP_UPLOAD;
  size_t len = up ? n : rq->c;
  if (!b) {
    reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no buffer %u", rq->a);
    return;
  }
  if (rq->b > b->size || len > b->size - rq->b) {
    reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "copy of %zu bytes at offset %llu outside a buffer of %zu",
          len, (unsigned long long)rq->b, b->size);
    return;
  }
  uint8_t *d = b->base + C.guard + rq->b;
  if (up) {
    if (!fail(cudaMemcpy(d, pl, n, cudaMemcpyHostToDevice), "upload"))
      reply(DG_GPU_OK, 0, NULL, 0, NULL);
  } else {
    uint8_t *h = stage(len ? len : 1);
    if (!fail(cudaMemcpy(h, d, len, cudaMemcpyDeviceToHost), "download"))
      reply(DG_GPU_OK, 0, h, len, NULL);
  }
}

static void do_poison_free(const gp_req *rq, const uint8_t *pl, size_t n)
{
  cbuf *b = get_buf(rq->a);
  if (!b) { reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no buffer %u", rq->a); return; }
  if (rq->op == GP_POISON) {
    if (!fail(fill(b->base + C.guard, b->size, b->poison.b, b->poison.len), "poison"))
      reply(DG_GPU_OK, 0, NULL, 0, NULL);
    return;
  }
  cudaFree(b->base);
  b->live = false;
  C.regions_dirty = true;
  reply(DG_GPU_OK, 0, NULL, 0, NULL);
}

/* Pinned host memory kept and grown: at least n bytes, or NULL (the caller
 * then copies pageable and synchronously). */
typedef struct { uint8_t *p; size_t len; } pinned_buf;

static uint8_t *pinned_grow(pinned_buf *b, size_t n)
{
  if (n <= b->len) return b->p;
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
  return pinned_grow(&guards, n);
}

/* The guard check on the device (gpu_guard.c): one launch over every guard
 * region, 16 bytes a region back. Same hits as the host comparison. In
 * halves, so that a launch's own synchronisation covers the check too:
 * guard_enqueue queues it behind the launch (no wait) into a result slot,
 * guard_collect reads a slot once the stream is synchronised. An
 * asynchronous batch (GP_BATCH_ASYNC) gives each launch its own slot. */
static struct {
  uint8_t **tab;                   /* device: the regions' addresses */
  unsigned long long *res, *hres;  /* device: per slot counts then firsts; pinned host:
                                      the initial values (2n), then per slot the results */
  unsigned long long *hinit;       /* pinned host: the initial values of every slot */
  size_t cap_n, cap_slots, nreg, n;
} GD;

/* Room for nslots checks over `live` buffers, and the region table. */
static cudaError_t guard_reserve(size_t live, size_t nslots)
{
  size_t n = 2 * live;
  cudaError_t e = cudaSuccess;
  if (n > GD.cap_n || nslots > GD.cap_slots) {
    size_t cn = n > GD.cap_n ? n : GD.cap_n, cs = nslots > GD.cap_slots ? nslots : GD.cap_slots;
    if (GD.tab) cudaFree(GD.tab), cudaFree(GD.res), cudaFreeHost(GD.hres), cudaFreeHost(GD.hinit);
    GD.tab = NULL, GD.res = GD.hres = GD.hinit = NULL, GD.cap_n = GD.cap_slots = 0;
    if ((e = cudaMalloc((void **)&GD.tab, cn * sizeof *GD.tab)) ||
        (e = cudaMalloc((void **)&GD.res, 2 * cn * cs * sizeof *GD.res)) ||
        (e = cudaMallocHost((void **)&GD.hres, 2 * cn * (cs + 1) * sizeof *GD.hres)) ||
        (e = cudaMallocHost((void **)&GD.hinit, 2 * cn * cs * sizeof *GD.hinit)))
      return e;
    GD.cap_n = cn, GD.cap_slots = cs;
    C.regions_dirty = true;
  }
  if (C.regions_dirty) {
    uint8_t **h = (uint8_t **)stage(n * sizeof *h);
    GD.nreg = 0;
    for (size_t i = 0; i < C.bufs.n; i++)
      if (C.bufs.v[i].live) {
        h[GD.nreg++] = C.bufs.v[i].base;
        h[GD.nreg++] = C.bufs.v[i].base + C.guard + C.bufs.v[i].size;
      }
    if ((e = cudaMemcpy(GD.tab, h, n * sizeof *h, cudaMemcpyHostToDevice))) return e;
    C.regions_dirty = false;
  }
  GD.n = n;
  for (size_t r = 0; r < n; r++) GD.hres[r] = 0, GD.hres[n + r] = ~0ull;   /* counts 0, firsts ~0 */
  return cudaSuccess;
}

/* The check kernel alone, into slot's results (initialised beforehand). */
static cudaError_t guard_kernel(size_t slot)
{
  size_t n = GD.n;
  unsigned long long *res = GD.res + 2 * n * slot;
  unsigned long long len = C.guard, nn = n;
  void *args[] = { &GD.tab, &len, &nn, &res };
  dim3 grid = { 16, (unsigned)n, 1 }, block = { 256, 1, 1 };
  return cudaLaunchKernel((const void *)C.kernels.v[C.guard_k], grid, block, args, 0, 0);
}

static cudaError_t guard_enqueue(size_t slot)
{
  size_t n = GD.n;
  unsigned long long *res = GD.res + 2 * n * slot, *out = GD.hres + 2 * n * (slot + 1);
  cudaError_t e;
  if ((e = cudaMemcpyAsync(res, GD.hres, 2 * n * sizeof *res, cudaMemcpyHostToDevice, 0))
      || (e = guard_kernel(slot))
      || (e = cudaMemcpyAsync(out, res, 2 * n * sizeof *res, cudaMemcpyDeviceToHost, 0)))
    return e;
  return cudaSuccess;
}

/* An asynchronous batch's slots 0..nslots-1 in two copies instead of two a
 * check: every slot initialised before the batch's first launch
 * (guard_slots_init), every slot's results read back after its last
 * (guard_slots_back); in between each guarded launch queues guard_kernel. */
static cudaError_t guard_slots_init(size_t nslots)
{
  size_t n = GD.n;
  for (size_t s = 0; s < nslots; s++) memcpy(GD.hinit + 2 * n * s, GD.hres, 2 * n * sizeof *GD.hinit);
  return nslots ? cudaMemcpyAsync(GD.res, GD.hinit, 2 * n * nslots * sizeof *GD.res, cudaMemcpyHostToDevice, 0)
                : cudaSuccess;
}

static cudaError_t guard_slots_back(size_t nslots)
{
  size_t n = GD.n;
  return nslots ? cudaMemcpyAsync(GD.hres + 2 * n, GD.res, 2 * n * nslots * sizeof *GD.res, cudaMemcpyDeviceToHost, 0)
                : cudaSuccess;
}

/* Slot's hits (appended to hits, when not NULL); the canary restored where
 * the slot saw damage. */
static cudaError_t guard_collect(size_t slot, guard_vec *hits, size_t *nhit)
{
  size_t n = GD.n;
  const unsigned long long *cnt = GD.hres + 2 * n * (slot + 1), *first = cnt + n;
  size_t r = 0;
  cudaError_t e = cudaSuccess;
  for (size_t i = 0; i < C.bufs.n && !e; i++) {
    cbuf *b = &C.bufs.v[i];
    if (!b->live) continue;
    for (int after = 0; after < 2 && !e; after++, r++) {
      if (!cnt[r]) continue;
      int64_t k = (int64_t)first[r];
      gp_guard hit = { (uint32_t)i, (uint32_t)after, after ? (int64_t)b->size + k : k - (int64_t)C.guard,
                       cnt[r] };
      if (hits) dg_vec_push(hits, hit);
      if (nhit) ++*nhit;
      e = fill(after ? b->base + C.guard + b->size : b->base, C.guard, canary, 8);
    }
  }
  return e;
}

static cudaError_t check_guards_device(size_t live, guard_vec *hits)
{
  cudaError_t e = guard_reserve(live, 1);
  if (!e) e = guard_enqueue(0);
  if (!e) e = cudaStreamSynchronize(0);
  return e ? e : guard_collect(0, hits, NULL);
}

/* Live buffers with guards to check (0: none). */
static size_t guarded_live(void)
{
  size_t live = 0;
  for (size_t i = 0; i < C.bufs.n; i++) live += C.bufs.v[i].live;
  return C.guard ? live : 0;
}

/* Reads every live buffer's guards; appends hits and restores the canary. */
static cudaError_t check_guards(guard_vec *hits)
{
  size_t live = guarded_live();
  if (!live) return cudaSuccess;
  if (C.guard_k >= 0) return check_guards_device(live, hits);
  uint8_t *h = guard_stage(2 * live * C.guard);
  if (!h) return cudaErrorMemoryAllocation;
  cudaError_t e = cudaSuccess;
  size_t slot = 0;
  for (size_t i = 0; i < C.bufs.n && !e; i++) {
    cbuf *b = &C.bufs.v[i];
    if (!b->live) continue;
    for (int after = 0; after < 2 && !e; after++, slot++) {
      uint8_t *g = after ? b->base + C.guard + b->size : b->base;
      e = cudaMemcpyAsync(h + slot * C.guard, g, C.guard, cudaMemcpyDeviceToHost, 0);
    }
  }
  if (!e) e = cudaStreamSynchronize(0);
  slot = 0;
  for (size_t i = 0; i < C.bufs.n && !e; i++) {
    cbuf *b = &C.bufs.v[i];
    if (!b->live) continue;
    for (int after = 0; after < 2 && !e; after++, slot++) {
      const uint8_t *gh = h + slot * C.guard;
      if (!memcmp(gh, canary, 8) && !memcmp(gh, gh + 8, C.guard - 8)) continue;  /* intact */
      gp_guard hit = { (uint32_t)i, (uint32_t)after, 0, 0 };
      bool first = true;
      for (size_t k = 0; k < C.guard; k++)
        if (gh[k] != canary[k % 8]) {
          if (first) hit.first_off = after ? (int64_t)(b->size + k) : (int64_t)k - (int64_t)C.guard;
          first = false;
          hit.nbytes++;
        }
      dg_vec_push(hits, hit);
      e = fill(after ? b->base + C.guard + b->size : b->base, C.guard, canary, 8);
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
  while (C.params.n < C.kernels.n) dg_vec_push(&C.params, (struct kparams *)NULL);
  if (C.params.v[k]) return C.params.v[k];
  const void *fn = (const void *)C.kernels.v[k];
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
  return C.params.v[k] = kp;
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
 * the child must exit after its reply). *msg gets the sentence. */
static dg_gpu_status cuda_status(cudaError_t e, const char *what, char **msg, bool *fatal)
{
  if (e == cudaSuccess) return DG_GPU_OK;
  if ((*fatal = context_poisoned())) {
    *msg = dg_printf("%s: %s (%s); the CUDA context is lost", what, CUERR(e));
    return DG_GPU_FAULT;
  }
  *msg = dg_printf("%s: %s (%s)", what, CUERR(e));
  return DG_GPU_CUDA;
}

/* A launch without waiting for it: arguments against the kernel's
 * parameters, dynamic shared memory, the launch between events e0 and e1.
 * *msg (owned) on failure; *fatal when the context is lost. */
static dg_gpu_status launch_only(const gp_launch *L, const gp_arg *args, cudaEvent_t e0, cudaEvent_t e1,
                                 char **msg, bool *fatal)
{
  *msg = NULL;
  if (L->kernel >= C.kernels.n) {
    *msg = dg_printf("no kernel %u", L->kernel);
    return DG_GPU_BAD_REQUEST;
  }
  void **argv = dg_calloc(L->nargs + 1, sizeof *argv);
  void **ptrs = dg_calloc(L->nargs + 1, sizeof *ptrs);
  dg_gpu_status st = DG_GPU_OK;
  for (uint32_t i = 0; i < L->nargs && st == DG_GPU_OK; i++) {
    if (args[i].kind == DG_GPU_ARG_BUF) {
      cbuf *b = get_buf(args[i].buf);
      if (!b || args[i].off > b->size) {
        *msg = dg_printf("argument %u: no buffer %u", i + 1, args[i].buf);
        st = DG_GPU_BAD_REQUEST;
        break;
      }
      ptrs[i] = b->base + C.guard + args[i].off;
      argv[i] = &ptrs[i];
    } else if (args[i].size > sizeof args[i].value) {
      *msg = dg_printf("argument %u: a value of %llu bytes (64 at most)", i + 1,
                       (unsigned long long)args[i].size);
      st = DG_GPU_BAD_REQUEST;
    } else {
      argv[i] = (void *)args[i].value;
    }
  }
  const void *fn = (const void *)C.kernels.v[L->kernel];
  if (st == DG_GPU_OK && (*msg = check_params(L->kernel, args, L->nargs))) st = DG_GPU_BAD_REQUEST;
  cudaError_t e;
  if (st == DG_GPU_OK && L->shmem > 48 * 1024
      && (e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L->shmem))) {
    cudaGetLastError();
    *msg = dg_printf("%u bytes of dynamic shared memory: %s (%s)", L->shmem, CUERR(e));
    st = DG_GPU_LAUNCH;
  }
  if (st == DG_GPU_OK) {
    dim3 grid = { L->grid.x, L->grid.y, L->grid.z }, block = { L->block.x, L->block.y, L->block.z };
    cudaEventRecord(e0, 0);
    e = cudaLaunchKernel(fn, grid, block, argv, L->shmem, 0);
    if (e && (*fatal = context_poisoned())) {
      *msg = dg_printf("launch: %s (%s); the CUDA context is lost", CUERR(e));
      st = DG_GPU_FAULT;
    } else if (e) {
      *msg = dg_printf("launch <<<(%u,%u,%u), (%u,%u,%u), %u>>>: %s (%s)", grid.x, grid.y, grid.z,
                       block.x, block.y, block.z, L->shmem, CUERR(e));
      st = DG_GPU_LAUNCH;
    } else {
      cudaEventRecord(e1, 0);
    }
  }
  free(argv);
  free(ptrs);
  return st;
}

/* One launch: arguments against the kernel's parameters, launch, sync, the
 * guards of every live buffer. *msg (owned) on failure; *fatal when the
 * context is lost. */
static dg_gpu_status run_launch(const gp_launch *L, const gp_arg *args, guard_vec *hits, float *ms,
                                char **msg, bool *fatal)
{
  *ms = 0;
  dg_gpu_status st = launch_only(L, args, C.ev0, C.ev1, msg, fatal);
  cudaError_t e;
  /* the guard check on the device is queued behind the launch: one
   * synchronisation covers both (a fault is still this launch's) */
  bool guarded = !(L->flags & GP_LAUNCH_UNGUARDED);
  size_t live = guarded && C.guard_k >= 0 ? guarded_live() : 0;
  cudaError_t ge = cudaSuccess;
  if (st == DG_GPU_OK) {
    if (live && !(ge = guard_reserve(live, 1))) ge = guard_enqueue(0);
    e = cudaDeviceSynchronize();
    if (!e) e = cudaGetLastError();
    collect_output();
    if (e && (*fatal = context_poisoned())) {
      *msg = dg_printf("%s (%s)", CUERR(e));
      st = DG_GPU_FAULT;
    } else if (e) {
      *msg = dg_printf("%s (%s)", CUERR(e));
      st = DG_GPU_LAUNCH;
    }
  }
  if (st == DG_GPU_OK) {
    cudaEventElapsedTime(ms, C.ev0, C.ev1);
    if (live)
      st = cuda_status(ge ? ge : guard_collect(0, hits, NULL), "reading guard regions", msg, fatal);
    else if (guarded)
      st = cuda_status(check_guards(hits), "reading guard regions", msg, fatal);
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
  if (n < sizeof L) { reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed launch"); return; }
  memcpy(&L, pl, sizeof L);
  if (n != sizeof L + L.nargs * sizeof(gp_arg)) {
    reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "malformed launch");
    return;
  }
  gp_arg *args = dg_calloc(L.nargs + 1, sizeof *args);
  memcpy(args, pl + sizeof L, L.nargs * sizeof *args);
  guard_vec hits = {0};
  float ms;
  char *msg;
  bool fatal = false;
  dg_gpu_status st = run_launch(&L, args, &hits, &ms, &msg, &fatal);
  reply(st, ms, hits.v, st == DG_GPU_OOB_WRITE ? hits.n * sizeof *hits.v : 0, msg ? "%s" : NULL, msg);
  free(msg);
  dg_vec_free(&hits);
  free(args);
  if (fatal) _exit(3);   /* the context is gone: the parent starts another child */
}

/* A batch (gpu_proto.h GP_BATCH): the ops in order, one reply. */
typedef struct {
  dg_gpu_status st;
  char *msg;
  uint32_t failed;     /* the failed launch, UINT32_MAX: none */
  bool stopped;        /* no more launches, uploads or poisons */
  bool fatal;
  bool no_downloads;   /* a download was refused: send none */
  uint8_t *pin;        /* pinned staging for this batch's copies (NULL: pageable, synchronous) */
  size_t up_at, down0, down_at;   /* uploads from 0, downloads from down0 (contiguous) */
} batch_state;

/* Pinned host memory for a batch's copies, kept and grown. */
static uint8_t *pinned_arena(size_t n)
{
  static pinned_buf batch;            /* apart from the guards': both can be in use at once */
  return pinned_grow(&batch, n);
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

static void batch_launch(batch_state *bs, uint32_t li, const uint8_t *body, size_t len, dg_buf *recs)
{
  gp_launch L;
  float ms = 0;
  uint32_t nh = 0;
  guard_vec hits = {0};
  if (len < sizeof L || (memcpy(&L, body, sizeof L), len != sizeof L + L.nargs * sizeof(gp_arg))) {
    batch_fail(bs, DG_GPU_BAD_REQUEST, li, dg_strdup("malformed launch"));
  } else {
    gp_arg *args = dg_calloc(L.nargs + 1, sizeof *args);
    memcpy(args, body + sizeof L, L.nargs * sizeof *args);
    char *msg;
    if (gp_progress) *gp_progress = li;
    dg_gpu_status st = run_launch(&L, args, &hits, &ms, &msg, &bs->fatal);
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

/* The asynchronous batch's launches: events around each, and which ran guarded. */
static struct { cudaEvent_t *ev; size_t nev; uint8_t *guarded; size_t nguarded; } AB;

static bool async_reserve(size_t nlaunch, size_t live)
{
  if (2 * nlaunch > AB.nev) {
    AB.ev = dg_realloc(AB.ev, 2 * nlaunch * sizeof *AB.ev);
    for (; AB.nev < 2 * nlaunch; AB.nev++)
      if (cudaEventCreate(&AB.ev[AB.nev]) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
  }
  if (nlaunch > AB.nguarded) {
    AB.guarded = dg_realloc(AB.guarded, nlaunch);
    AB.nguarded = nlaunch;
  }
  memset(AB.guarded, 0, nlaunch);
  if (live && (guard_reserve(live, nlaunch) != cudaSuccess || guard_slots_init(nlaunch) != cudaSuccess)) {
    cudaGetLastError();
    return false;
  }
  return true;
}

/* Launch li of an asynchronous batch: queued, its guard check queued behind it. */
static void batch_launch_async(batch_state *bs, uint32_t li, const uint8_t *body, size_t len, size_t live)
{
  gp_launch L;
  if (len < sizeof L || (memcpy(&L, body, sizeof L), len != sizeof L + L.nargs * sizeof(gp_arg))) {
    batch_fail(bs, DG_GPU_BAD_REQUEST, li, dg_strdup("malformed launch"));
    return;
  }
  gp_arg *args = dg_calloc(L.nargs + 1, sizeof *args);
  memcpy(args, body + sizeof L, L.nargs * sizeof *args);
  char *msg;
  if (gp_progress) *gp_progress = li;
  dg_gpu_status st = launch_only(&L, args, AB.ev[2 * li], AB.ev[2 * li + 1], &msg, &bs->fatal);
  free(args);
  if (st == DG_GPU_OK && live && !(L.flags & GP_LAUNCH_UNGUARDED)) {
    AB.guarded[li] = 1;
    st = cuda_status(guard_kernel(li), "queueing a guard check", &msg, &bs->fatal);
  }
  if (st != DG_GPU_OK) batch_fail(bs, st, li, msg);
  else free(msg);
}

/* After the asynchronous batch's synchronisation: per launch that ran, its
 * time and the guard hits its check saw (the first launch with hits fails
 * the batch; the canary is restored). */
static void async_records(batch_state *bs, uint32_t nran, dg_buf *recs)
{
  for (uint32_t li = 0; li < nran; li++) {
    float ms = 0;
    guard_vec hits = {0};
    if (cudaEventElapsedTime(&ms, AB.ev[2 * li], AB.ev[2 * li + 1]) != cudaSuccess) {
      ms = 0;            /* a launch refused before it ran */
      cudaGetLastError();
    }
    cudaError_t e = AB.guarded[li] ? guard_collect(li, &hits, NULL) : cudaSuccess;
    char *m = NULL;
    dg_gpu_status st = cuda_status(e, "restoring guard regions", &m, &bs->fatal);
    if (st != DG_GPU_OK) batch_fail(bs, st, li, m);
    else if (hits.n)
      batch_fail(bs, DG_GPU_OOB_WRITE, li, dg_printf("the kernel wrote outside %zu buffer guard region(s)", hits.n));
    uint32_t nh = (uint32_t)hits.n;
    dg_buf_put(recs, (const char *)&ms, 4);
    dg_buf_put(recs, (const char *)&nh, 4);
    if (nh) dg_buf_put(recs, (const char *)hits.v, nh * sizeof *hits.v);
    dg_vec_free(&hits);
  }
}

static void batch_copy(batch_state *bs, const gp_op *op, const uint8_t *body, dg_buf *downs)
{
  cbuf *b = get_buf(op->buf);
  bool down = op->kind == GP_OP_DOWNLOAD;
  if (!b || op->off > b->size || op->len > b->size - op->off) {
    char *m = b ? dg_printf("copy of %llu bytes at offset %llu outside a buffer of %zu",
                            (unsigned long long)op->len, (unsigned long long)op->off, b->size)
                : dg_printf("no buffer %u", op->buf);
    if (down) bs->no_downloads = true;
    batch_fail(bs, DG_GPU_BAD_REQUEST, UINT32_MAX, m);
    return;
  }
  uint8_t *d = b->base + C.guard + op->off;
  char *m = NULL;
  cudaError_t e;
  if (op->kind == GP_OP_POISON) e = fill(d, b->size, b->poison.b, b->poison.len);
  else if (!down && bs->pin) {     /* through pinned memory, asynchronously */
    memcpy(bs->pin + bs->up_at, body, op->len);
    e = cudaMemcpyAsync(d, bs->pin + bs->up_at, op->len, cudaMemcpyHostToDevice, 0);
    bs->up_at += op->len;
  } else if (down && bs->pin) {    /* collected at the end of the batch */
    e = cudaMemcpyAsync(bs->pin + bs->down_at, d, op->len, cudaMemcpyDeviceToHost, 0);
    bs->down_at += op->len;
  } else if (!down) e = cudaMemcpy(d, body, op->len, cudaMemcpyHostToDevice);
  else {
    uint8_t *h = stage(op->len ? op->len : 1);
    e = cudaMemcpy(h, d, op->len, cudaMemcpyDeviceToHost);
    if (!e) dg_buf_put(downs, (const char *)h, op->len);
  }
  dg_gpu_status st = cuda_status(e, down ? "download" : op->kind == GP_OP_POISON ? "poison" : "upload",
                                 &m, &bs->fatal);
  if (st != DG_GPU_OK) {
    if (down) bs->no_downloads = true;
    batch_fail(bs, st, UINT32_MAX, m);
  }
}

/* The bytes a batch uploads and downloads (malformed ops end the count;
 * the main pass refuses them). */
static void batch_bytes(uint32_t nops, const uint8_t *pl, size_t n, size_t *up, size_t *down, size_t *nlaunch)
{
  size_t at = 0;
  *up = *down = *nlaunch = 0;
  for (uint32_t i = 0; i < nops && n - at >= sizeof(gp_op); i++) {
    gp_op op;
    memcpy(&op, pl + at, sizeof op);
    at += sizeof op;
    size_t body = op.kind == GP_OP_UPLOAD || op.kind == GP_OP_LAUNCH ? op.len : 0;
    if (n - at < body) break;
    at += (body + 7) & ~(size_t)7;
    if (at > n) at = n;
    if (op.kind == GP_OP_UPLOAD) *up += op.len;
    if (op.kind == GP_OP_LAUNCH) ++*nlaunch;
    if (op.kind == GP_OP_DOWNLOAD && op.len < ((size_t)1 << 40)) *down += op.len;
  }
}

static void do_batch(const gp_req *rq, const uint8_t *pl, size_t n)
{
  batch_state bs = { DG_GPU_OK, NULL, UINT32_MAX, false, false, false, NULL, 0, 0, 0 };
  dg_buf recs = {0}, downs = {0};
  uint32_t nlaunch = 0, nran = 0;
  dg_buf_put(&recs, (const char *)&nran, 4);
  size_t up, down, nl;
  batch_bytes(rq->a, pl, n, &up, &down, &nl);
  bs.pin = pinned_arena(up + down + 1);
  size_t live = guarded_live();
  bool async = (rq->b & GP_BATCH_ASYNC) && C.guard_k >= 0 && bs.pin && async_reserve(nl, live);
  bs.down0 = bs.down_at = up;
  size_t at = 0;
  for (uint32_t i = 0; i < rq->a && !bs.fatal; i++) {
    gp_op op;
    if (n - at < sizeof op) {
      batch_fail(&bs, DG_GPU_BAD_REQUEST, UINT32_MAX, dg_strdup("malformed batch"));
      bs.no_downloads = true;
      break;
    }
    memcpy(&op, pl + at, sizeof op);
    at += sizeof op;
    size_t body = op.kind == GP_OP_UPLOAD || op.kind == GP_OP_LAUNCH ? op.len : 0;
    if (n - at < body) {
      batch_fail(&bs, DG_GPU_BAD_REQUEST, UINT32_MAX, dg_strdup("malformed batch"));
      bs.no_downloads = true;
      break;
    }
    const uint8_t *bp = pl + at;
    at += (body + 7) & ~(size_t)7;
    if (at > n) at = n;
    if (op.kind == GP_OP_LAUNCH) {
      uint32_t li = nlaunch++;
      if (bs.stopped) continue;
      if (async) batch_launch_async(&bs, li, bp, body, live);
      else batch_launch(&bs, li, bp, body, &recs);
      nran++;
    } else if (op.kind == GP_OP_DOWNLOAD) {
      if (!bs.no_downloads) batch_copy(&bs, &op, bp, &downs);
    } else if (op.kind == GP_OP_UPLOAD || op.kind == GP_OP_POISON) {
      if (!bs.stopped) batch_copy(&bs, &op, bp, &downs);
    } else {
      batch_fail(&bs, DG_GPU_BAD_REQUEST, UINT32_MAX, dg_printf("unknown batch op %u", op.kind));
      bs.no_downloads = true;
    }
  }
  memcpy(recs.s, &nran, 4);
  if (bs.pin && !bs.fatal) {   /* the asynchronous copies (and launches): done, and their errors */
    char *m = NULL;
    cudaError_t e = async && live ? guard_slots_back(nran) : cudaSuccess;
    if (!e) e = cudaStreamSynchronize(0);
    if (async && !e) e = cudaGetLastError();
    if (async) collect_output();
    dg_gpu_status st = cuda_status(e, async ? "an asynchronous batch" : "copies", &m, &bs.fatal);
    if (st != DG_GPU_OK) {
      bs.no_downloads = true;
      batch_fail(&bs, st, UINT32_MAX, m);
    } else if (async) {
      async_records(&bs, nran, &recs);
    }
  }
  if (async && recs.n == 4) nran = 0, memcpy(recs.s, &nran, 4);   /* no records: none to report */
  const uint8_t *dl = NULL;
  size_t dn = 0;
  if (!bs.no_downloads && !bs.fatal) {
    dl = bs.pin ? bs.pin + bs.down0 : (const uint8_t *)downs.s;
    dn = bs.pin ? bs.down_at - bs.down0 : downs.n;
  }
  C.pad = bs.failed;
  if (bs.fatal) reply(bs.st, 0, NULL, 0, "%s", bs.msg ? bs.msg : "the CUDA context is lost");
  else reply_parts(bs.st, 0, recs.s, recs.n, dl, dn, bs.msg);
  C.pad = 0;
  free(bs.msg);
  dg_buf_free(&recs);
  dg_buf_free(&downs);
  if (bs.fatal) _exit(3);
}

static void do_params(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (rq->a >= C.kernels.n) { reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no kernel %u", rq->a); return; }
  const void *fn = (const void *)C.kernels.v[rq->a];
  DG_VEC(uint64_t) sizes = {0};
  size_t off, size;
  cudaError_t e = cudaSuccess;
  while (sizes.n < 1024 && (e = cudaFuncGetParamInfo(fn, sizes.n, &off, &size)) == cudaSuccess)
    dg_vec_push(&sizes, (uint64_t)size);
  cudaGetLastError();
  if (e != cudaSuccess && e != cudaErrorInvalidValue)
    reply(DG_GPU_CUDA, 0, NULL, 0, "parameter sizes: %s (%s)", CUERR(e));
  else
    reply(DG_GPU_OK, 0, sizes.v, sizes.n * sizeof *sizes.v, NULL);
  dg_vec_free(&sizes);
}

static void do_guard(const gp_req *rq, const uint8_t *pl, size_t n)
{
  if (rq->a >= C.kernels.n) { reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "no kernel %u", rq->a); return; }
  C.guard_k = (int)rq->a;
  C.regions_dirty = true;
  reply(DG_GPU_OK, 0, NULL, 0, NULL);
}

static void (*const handlers[])(const gp_req *, const uint8_t *, size_t) = {
  [GP_HELLO] = do_hello, [GP_LOAD] = do_load, [GP_ALLOC] = do_alloc,
  [GP_UPLOAD] = do_copy, [GP_DOWNLOAD] = do_copy, [GP_POISON] = do_poison_free,
  [GP_FREE] = do_poison_free, [GP_LAUNCH] = do_launch, [GP_PARAMS] = do_params,
  [GP_BATCH] = do_batch, [GP_GUARD] = do_guard,
};

_Noreturn void gp_child_main(int fd)
{
  C.fd = fd;
  int mf = memfd_create("dirigo-kernel-output", 0);
  if (mf >= 0 && dup2(mf, 1) == 1) C.capture = true;
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
    if (rq.op < sizeof handlers / sizeof *handlers && handlers[rq.op])
      handlers[rq.op](&rq, pl, rq.len);
    else
      reply(DG_GPU_BAD_REQUEST, 0, NULL, 0, "unknown request %u", rq.op);
  }
}
#endif
