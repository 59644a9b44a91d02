/* simt_mem.c — every memory access: bounds, the initialised shadow,
 * shared-memory race detection within barrier intervals, the writer map,
 * and the order in which warps' stores land (the buffers: simt_buf.c). */
/* The lane loops are the engine's hot path and vectorise well; -O2 of GCC 12
 * vectorises only loops without a remainder, so this file asks for more. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

/* ---- races ---------------------------------------------------------------------- */
static bool ordered(const simt_x *x, int other, uint32_t osync, int lane)
{
  return other / 32 == lane / 32 && osync != x->wsync[lane / 32];
}

static void race_event(simt_x *x, simt_evkind k, simt_buf *b, int lane, int other, dg_span sp,
                       dg_span osp, int64_t off, bool write, const char *what)
{
  /* other: a thread the race cell names (never lane itself) */
  simt_event *e = simt_report(x, k, sp, lane, "%s of %s[byte %lld] by thread %d and thread %d in one barrier interval",
                              what, b->name, (long long)off, other, lane);
  if (!e) return;
  e->span2 = osp, e->thread2 = other, e->buf = b->mem.id, e->off = off, e->write = write;
}

/* The readers of a cell (or the atomics of an atomic cell, which do not
 * race with each other either): two of them, r and r2 (while rmulti), with
 * their warps' __syncwarp counts, kept so that a later store races with one
 * of the two whenever it races with any reader so far. A lane's later
 * access replaces its earlier one (a later count orders whatever the
 * earlier one ordered). A third lane: once r and r2 are in two warps, every
 * later store races with one of them (one is in another warp than the
 * store's), so they stay; otherwise the one with the older count makes
 * room (a store of their warp is ordered after it if after the newer one,
 * and a reader of another warp makes two warps). */
static inline void rd_add(simt_race *c, int lane, uint32_t ws, dg_span sp)
{
  if (c->r < 0 || c->r == lane) c->r = lane, c->rsync = ws, c->rsp = sp;
  else if (!c->rmulti || c->r2 == lane) c->rmulti = true, c->r2 = lane, c->r2sync = ws, c->r2sp = sp;
  else if (c->r / 32 != c->r2 / 32) return;
  else if (c->rsync < c->r2sync) c->r = lane, c->rsync = ws, c->rsp = sp;
  else c->r2 = lane, c->r2sync = ws, c->r2sp = sp;
}

/* A recorded reader (or atomic) of c that lane's access is not ordered
 * with: its lane and span; -1: none. */
static int rd_other(const simt_x *x, const simt_race *c, int lane, dg_span *osp)
{
  if (c->r >= 0 && c->r != lane && !ordered(x, c->r, c->rsync, lane)) { *osp = c->rsp; return c->r; }
  if (c->rmulti && c->r2 != lane && !ordered(x, c->r2, c->r2sync, lane)) { *osp = c->r2sp; return c->r2; }
  return -1;
}

/* The atomic cell of cell ci of b in this interval, or NULL: none had an atomic. */
static inline const simt_race *acell(const simt_x *x, const simt_buf *b, int64_t ci)
{
  if (b->aepoch != x->epoch || b->race[b->cap + ci].epoch != x->epoch) return NULL;
  return &b->race[b->cap + ci];
}

static void race_check(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, bool write,
                       dg_span sp, const uint8_t *newbytes)
{
  uint32_t ws = x->wsync[lane / 32];
  bool told = false;
  int g = b->gran;
  b->cepoch = x->epoch;
  for (int64_t ci = o / g; ci <= (o + size - 1) / g; ci++) {
    simt_race *c = &b->race[ci];
    int64_t bo = ci * g > o ? ci * g : o;
    if (c->epoch != x->epoch) {
      c->epoch = x->epoch, c->w = c->r = -1, c->rmulti = false;
    } else if (!told) {
      if (c->w >= 0 && c->w != lane && !ordered(x, c->w, c->wsync, lane)) {
        bool benign = write && newbytes;
        int64_t be = (ci + 1) * g < o + size ? (ci + 1) * g : o + size;
        for (int64_t j = bo; benign && j < be; j++) benign = newbytes[j - o] == b->mem.bytes[j];
        race_event(x, benign ? SIMT_EV_RACE_BENIGN : SIMT_EV_RACE, b, lane, c->w, sp, c->wsp, bo, write,
                   write ? "write-write" : "write-read");
        told = !benign;
      }
      dg_span osp;
      int other;
      if (!told && write && (other = rd_other(x, c, lane, &osp)) >= 0) {
        race_event(x, SIMT_EV_RACE, b, lane, other, sp, osp, bo, write, "read-write");
        told = true;
      }
    }
    /* plain against atomic: an atomic of another thread in this interval */
    const simt_race *a = told ? NULL : acell(x, b, ci);
    dg_span asp;
    int other;
    if (a && (other = rd_other(x, a, lane, &asp)) >= 0) {
      race_event(x, SIMT_EV_RACE, b, lane, other, sp, asp, bo, write, write ? "atomic-write" : "atomic-read");
      told = true;
    }
    if (write) c->w = lane, c->wsync = ws, c->wsp = sp;
    else rd_add(c, lane, ws, sp);
  }
}

/* An atomic of lane at addr (size bytes): it races with a plain store or
 * load of another thread in the same barrier interval that no __syncwarp
 * orders, never with another atomic. Its cell records it among the atomics
 * (r and r2 the atomics' lanes) for the plain accesses after it
 * (race_check; the fast paths leave a buffer with atomics in this interval
 * to it). The atomic cells follow the plain ones in race, which the
 * buffer's first atomic doubles (a field in simt_buf would make every
 * buffer's record a cache line longer). Called before the atomic's own
 * load and store, which the race shadow skips (x->in_atomic). */
void simt_race_atomic(simt_x *x, int lane, int64_t addr, int64_t size, dg_span sp)
{
  uint32_t id = dom_ptr_buf((dom_val)addr);
  int64_t o = dom_ptr_off((dom_val)addr);
  if (id == 0 || id >= (uint32_t)x->top) return;
  simt_buf *b = &x->m->bufs.v[id];
  if (b->kind != BK_SHARED || !b->race || o < 0 || size <= 0 || o + size > b->mem.size) return;   /* out of bounds: the access reports it */
  if (x->rlog_n) simt_race_flush(x);      /* the waiting loads and stores into their cells first */
  int g = b->gran;
  if (!b->aepoch) {
    b->race = dg_realloc(b->race, (size_t)b->cap * 2 * sizeof *b->race);
    memset(b->race + b->cap, 0, (size_t)b->cap * sizeof *b->race);
  }
  uint32_t ws = x->wsync[lane / 32];
  bool told = false;
  for (int64_t ci = o / g; ci <= (o + size - 1) / g; ci++) {
    const simt_race *c = &b->race[ci];
    int64_t bo = ci * g > o ? ci * g : o;
    dg_span osp;
    int other;
    if (!told && c->epoch == x->epoch) {
      if (c->w >= 0 && c->w != lane && !ordered(x, c->w, c->wsync, lane)) {
        race_event(x, SIMT_EV_RACE, b, lane, c->w, sp, c->wsp, bo, true, "write-atomic");
        told = true;
      } else if ((other = rd_other(x, c, lane, &osp)) >= 0) {
        race_event(x, SIMT_EV_RACE, b, lane, other, sp, osp, bo, true, "read-atomic");
        told = true;
      }
    }
    simt_race *a = &b->race[b->cap + ci];
    if (a->epoch != x->epoch) a->epoch = x->epoch, a->w = a->r = -1, a->rmulti = false;
    rd_add(a, lane, ws, sp);
  }
  b->aepoch = b->cepoch = x->epoch;
}

/* ---- the race cells of loads --------------------------------------------------- */
/* A load's lanes as readers of their cells (race_check's read, inline where
 * nothing can race). */
/* b and addr hold lanes from base on (b[i - base] is lane i's) */
static void read_cells(simt_x *x, simt_buf *lb, int lo, int hi, int base, const uint8_t *b, const int64_t *addr,
                       int64_t size, dg_span sp)
{
  int g = lb->gran, gs = __builtin_ctz((unsigned)g);    /* 1, 2, 4 or 8 */
  bool cell = size <= g;
  const uint32_t ep = x->epoch;
  simt_race *c = NULL;
  int64_t prev = -1;        /* the previous lane's offset when it left its cell readers only */
  lb->cepoch = ep;
  for (int i = lo; i < hi; i++) {
    if (!b[i - base]) continue;
    int64_t o = dom_ptr_off((dom_val)addr[i - base]);
    if (o == prev) {
      /* the previous lane's cell (lanes reading one element, as a tile's
       * row): nobody wrote it in this interval, this lane reads it too */
      rd_add(c, i, x->wsync[i / 32], sp);
      continue;
    }
    prev = -1;
    c = &lb->race[o >> gs];
    if (cell && (o & (g - 1)) == 0) {
      if (c->epoch != ep) {               /* first access in this interval */
        c->epoch = ep, c->w = -1, c->rmulti = false;
        c->r = i, c->rsync = x->wsync[i / 32], c->rsp = sp;
        prev = o;
        continue;
      }
      if (c->w < 0) {                     /* nobody wrote in this interval */
        rd_add(c, i, x->wsync[i / 32], sp);
        prev = o;
        continue;
      }
    }
    race_check(x, lb, i, o, size, false, sp, NULL);
  }
}

/* The same for every lane of [lo, hi) reading one cell each, consecutive
 * from byte o0 (a dense load of consecutive elements, one cell an element,
 * o0 on a cell): no addresses to decode, no cell shared by two lanes. */
static void read_cells_run(simt_x *x, simt_buf *lb, int lo, int hi, int64_t o0, int64_t size, dg_span sp)
{
  const uint32_t ep = x->epoch, *ws = x->wsync;
  simt_race *c = &lb->race[o0 / lb->gran];
  lb->cepoch = ep;
  for (int i = lo; i < hi; i++, c++) {
    if (c->epoch != ep) {                 /* first access in this interval */
      c->epoch = ep, c->w = -1, c->rmulti = false;
      c->r = i, c->rsync = ws[i / 32], c->rsp = sp;
    } else if (c->w < 0) {                /* nobody wrote in this interval */
      rd_add(c, i, ws[i / 32], sp);
    } else {
      race_check(x, lb, i, o0 + (int64_t)(i - lo) * size, size, false, sp, NULL);
    }
  }
}

/* The same for a store of every lane of [lo, hi) to consecutive cells from
 * byte o0 that log_fits admitted: each cell is new in this interval or
 * touched by its own lane only (race_check otherwise, as the store would). */
static void write_cells_run(simt_x *x, simt_buf *lb, int lo, int hi, int64_t o0, int64_t size, dg_span sp)
{
  const uint32_t ep = x->epoch, *ws = x->wsync;
  simt_race *c = &lb->race[o0 / lb->gran];
  lb->cepoch = ep;
  for (int i = lo; i < hi; i++, c++) {
    if (c->epoch != ep) {
      c->epoch = ep, c->r = -1, c->rmulti = false;
      c->w = i, c->wsync = ws[i / 32], c->wsp = sp;
    } else if ((c->w < 0 || c->w == i) && (c->r < 0 || (c->r == i && !c->rmulti))) {
      c->w = i, c->wsync = ws[i / 32], c->wsp = sp;
    } else {
      int64_t o = o0 + (int64_t)(i - lo) * size;
      race_check(x, lb, i, o, size, true, sp, lb->mem.bytes + o);
    }
  }
}

/* a dense access to consecutive elements can use the runs above */
static inline bool cell_run(const simt_buf *lb, bool contig, int64_t o0, int64_t size)
{
  return contig && size == lb->gran && (o0 & (lb->gran - 1)) == 0;
}

/* A load of a shared buffer nothing stored to in this barrier interval can
 * find no race: no cell of the buffer has a writer in it. Its cells only
 * matter to an access that can (a store to the buffer in this interval),
 * so the load waits in x->rlog until then, and a barrier drops it: tiles
 * filled, synchronised and then read many times pay for no read shadow.
 * Anything that touches race cells other than such a load runs the waiting
 * ones first, in their order (simt_race_flush), so every cell ends as the
 * loads in program order would have left it; and __syncwarp does, as the
 * cells keep the warps' __syncwarp counts at the load. */
static void race_wait(simt_x *x, simt_buf *lb, int lo, int hi, const uint8_t *b, const int64_t *addr,
                      int64_t size, dg_span sp, int64_t run, bool write)
{
  size_t w = (size_t)(hi - lo), need = run >= 0 ? 0 : (w * 9 + 15) & ~(size_t)15;
  if (x->rlog_used + need > x->rlog_dcap) {
    x->rlog_dcap = (x->rlog_used + need) * 2;
    x->rlog_data = dg_realloc(x->rlog_data, x->rlog_dcap);
  }
  if (x->rlog_n == x->rlog_cap) {
    x->rlog_cap = x->rlog_cap ? x->rlog_cap * 2 : 64;
    x->rlog = dg_realloc(x->rlog, x->rlog_cap * sizeof *x->rlog);
  }
  if (run < 0) {
    uint8_t *d = x->rlog_data + x->rlog_used;
    memcpy(d, addr + lo, w * 8);
    memcpy(d + w * 8, b + lo, w);
  }
  x->rlog[x->rlog_n++] = (simt_rlog){ lb->mem.id, sp, lo, hi, size, x->rlog_used, run, write, false };
  x->rlog_used += need;
}

/* A load of one address by every lane of [lo, hi) (simt_race_wait_uni): the
 * cells as read_cells leaves them for that mask and those addresses. */
static void read_cells_uni(simt_x *x, simt_buf *lb, int lo, int hi, int64_t o, int64_t size, dg_span sp)
{
  simt_mark mk = simt_mark_get(x);
  size_t w = (size_t)(hi - lo);
  int64_t *a = simt_alloc(x, sizeof *a * w);
  uint8_t *b = simt_alloc(x, w);
  for (size_t i = 0; i < w; i++) a[i] = (int64_t)dom_ptr((uint32_t)lb->mem.id, o), b[i] = 1;
  read_cells(x, lb, lo, hi, lo, b, a, size, sp);
  simt_mark_release(x, mk);
}

/* A load by every lane of k (dense) from byte o of shared buffer lb, which
 * nothing stored to in this barrier interval: its cells wait in the log as
 * fast_access's would, without the lanes' addresses (one value, thin: the
 * caller reads it once). False: not such a load, nothing done. */
bool simt_race_wait_uni(simt_x *x, simt_buf *lb, const msk *k, int64_t o, int64_t size, dg_span sp)
{
  if (x->in_atomic || lb->kind != BK_SHARED || lb->wepoch == x->epoch || lb->aepoch == x->epoch || k->cnt != k->hi - k->lo)
    return false;
  race_wait(x, lb, k->lo, k->hi, NULL, NULL, size, sp, 0, false);   /* no data: run 0 reserves none */
  simt_rlog *r = &x->rlog[x->rlog_n - 1];
  r->o0 = -1, r->at = (size_t)o, r->uni = true;
  return true;
}

void simt_race_flush(simt_x *x)
{
  for (size_t j = 0; j < x->rlog_n; j++) {
    const simt_rlog *r = &x->rlog[j];
    const uint8_t *d = x->rlog_data + r->at;
    size_t w = (size_t)(r->hi - r->lo);
    if (r->uni) read_cells_uni(x, &x->m->bufs.v[r->buf], r->lo, r->hi, (int64_t)r->at, r->size, r->sp);
    else if (r->write) write_cells_run(x, &x->m->bufs.v[r->buf], r->lo, r->hi, r->o0, r->size, r->sp);
    else if (r->o0 >= 0) read_cells_run(x, &x->m->bufs.v[r->buf], r->lo, r->hi, r->o0, r->size, r->sp);
    else read_cells(x, &x->m->bufs.v[r->buf], r->lo, r->hi, r->lo, d + w * 8, (const int64_t *)(const void *)d,
                    r->size, r->sp);
  }
  simt_race_drop(x);
}

void simt_race_drop(simt_x *x) { x->rlog_n = 0, x->rlog_used = 0; }

/* Stores wait in the log too, and loads after them, where ranges alone show
 * that they cannot race (a tree reduction's step: lanes [0, s) read cells
 * [0, s) and [s, 2s), then store to [0, s)): the access, lanes lo..hi to
 * consecutive cells from byte o0, and the buffer's cells hold nothing of
 * this interval that is not in the log (cepoch), and every logged run of
 * the buffer it must be checked against (every one for a store, the stores
 * for a load) either touches none of its cells or the same cells by the
 * same lanes: each cell is then touched by one lane only, and replaying the
 * log (simt_race_flush) reports nothing. Anything else, or a long log,
 * flushes and takes the per-lane path. */
static bool log_fits(const simt_x *x, const simt_buf *lb, int lo, int hi, int64_t o0, bool write)
{
  if (lb->cepoch == x->epoch || x->rlog_n > 64) return false;
  int64_t c0 = o0 / lb->gran, c1 = c0 + (hi - lo), d = c0 - lo;    /* lane i's cell: i + d */
  for (size_t j = 0; j < x->rlog_n; j++) {
    const simt_rlog *r = &x->rlog[j];
    if (r->buf != lb->mem.id || (!write && !r->write)) continue;
    if (r->o0 < 0 || r->size != lb->gran) return false;
    int64_t e0 = r->o0 / lb->gran, e1 = e0 + (r->hi - r->lo);
    if (e1 > c0 && e0 < c1 && e0 - r->lo != d) return false;
  }
  return true;
}

/* ---- the access path -------------------------------------------------------------- */
static inline bool all_set(const uint8_t *p, int64_t n)
{
  if (n == 4) { uint32_t w; memcpy(&w, p, 4); return w == 0x01010101u; }
  for (int64_t i = 0; i < n; i++) if (!p[i]) return false;
  return true;
}

/* Lane i loaded size bytes at byte o of lb that nothing has written. */
static void report_uninit(simt_x *x, const simt_buf *lb, dg_span sp, int i, int64_t o, int64_t size)
{
  simt_event *e = simt_report(x, SIMT_EV_UNINIT, sp, i, "load of %lld bytes at byte %lld of %s, never written",
                              (long long)size, (long long)o, lb->name);
  if (e) e->buf = lb->mem.id, e->off = o, e->size = (int)size;
}

static inline void set_all(uint8_t *p, int64_t n)
{
  if (n == 4) memcpy(p, &(uint32_t){ 0x01010101u }, 4);
  else memset(p, 1, (size_t)n);
}

static void oob_event(simt_x *x, dg_span sp, int lane, uint32_t id, int64_t o, int64_t size, bool write)
{
  simt *m = x->m;
  simt_event *e;
  if (id == 0 || id >= (uint32_t)x->top)
    e = simt_report(x, SIMT_EV_OOB, sp, lane, "%s of %lld bytes through a %s pointer",
                    write ? "store" : "load", (long long)size, id == 0 ? "null" : "dangling");
  else
    e = simt_report(x, SIMT_EV_OOB, sp, lane, "%s of %lld bytes at byte %lld of %s (%lld bytes)",
                    write ? "store" : "load", (long long)size, (long long)o, m->bufs.v[id].name,
                    (long long)m->bufs.v[id].mem.size);
  if (e) e->buf = (int)id, e->off = o, e->size = (int)size, e->write = write;
}

static void store_lanes(simt_x *x, const dg_type *et, int nc, int64_t es, int lo, int hi,
                        const uint8_t *ok, dom_val *vals, dom_mem **mem, const int64_t *off, int64_t *offc)
{
  for (int c = 0; c < nc; c++) {
    for (int i = lo; i < hi; i++) offc[i] = off[i] + c * es;
    x->d->store(x->d, et, hi - lo, ok + lo, vals + (size_t)c * x->n + lo, mem + lo, offc + lo);
  }
}

/* A struct is accessed slot by slot: padding is neither read nor written,
 * so a struct written field by field copies without an uninitialised read,
 * and each field is its own race cell. */
static void struct_access(simt_x *x, dg_span sp, const dg_type *t, const msk *k, const int64_t *addr,
                          dom_val *vals, bool write)
{
  simt_mark mk = simt_mark_get(x);
  int64_t *a = simt_alloc(x, sizeof *a * (size_t)x->n);
  for (int c = 0; c < t->nslots && !x->stop; c++) {
    for (int i = k->lo; i < k->hi; i++) a[i] = addr[i] + t->slots[c].offset;
    simt_mem_access(x, sp, t->slots[c].type, k, a, vals + (size_t)c * x->n, write);
  }
  simt_mark_release(x, mk);
}

/* ---- the fast path: the concrete domain, a 4- or 8-byte scalar, every active
 * lane in bounds of one buffer, no data-dependent guard. It does what the
 * general path below does, in the same order (uninitialised reads, races,
 * the access, the shadow and writer map), without the per-lane bookkeeping
 * arrays and the domain calls. Anything else returns false untouched. */
#define FLD(T, conv) do { T v_; memcpy(&v_, bytes + o, sizeof v_); vals[i] = (conv); } while (0)
#define FST(T, conv) do { T v_ = (conv); memcpy(bytes + o, &v_, sizeof v_); } while (0)

static void fast_store_run(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, const msk *k, int a, int z,
                           bool dense, bool race, dg_span sp, const int64_t *addr, const dom_val *vals)
{
  uint8_t *bytes = lb->mem.bytes;
  const uint8_t *b = k->b;
  if (race) {
    int g = lb->gran, gs = __builtin_ctz((unsigned)g);    /* 1, 2, 4 or 8 */
    lb->cepoch = x->epoch;
    for (int i = a; i < z; i++) {
      if (!b[i]) continue;
      int64_t o = dom_ptr_off((dom_val)addr[i]);
      simt_race *c = &lb->race[o >> gs];
      bool cell = size <= g && (o & (g - 1)) == 0;
      if (cell && c->epoch != x->epoch) {
        /* the first access to its cell in this interval: race_check's write, inline */
        c->epoch = x->epoch, c->r = -1, c->rmulti = false;
        c->w = i, c->wsync = x->wsync[i / 32], c->wsp = sp;
      } else if (cell && (c->w < 0 || c->w == i) && (c->r < 0 || (c->r == i && !c->rmulti))) {
        /* only this lane touched the cell in this interval: nothing to report */
        c->w = i, c->wsync = x->wsync[i / 32], c->wsp = sp;
      } else {
        uint8_t tmp[8];                 /* the new bytes: a same-value write is benign */
        simt_fast_st(kd, tmp, 0, vals, i);
        race_check(x, lb, i, o, size, true, sp, tmp);
      }
      simt_fast_st(kd, bytes, o, vals, i);
    }
    return;
  }
#define FRUN(T, conv) do { \
    if (dense) for (int i = a; i < z; i++) { int64_t o = dom_ptr_off((dom_val)addr[i]); FST(T, conv); } \
    else for (int i = a; i < z; i++) if (b[i]) { int64_t o = dom_ptr_off((dom_val)addr[i]); FST(T, conv); } \
  } while (0)
  switch (kd) {
  case DG_TY_F32: FRUN(float, (float)dom_f(vals[i])); break;
  case DG_TY_I32: case DG_TY_U32: FRUN(uint32_t, (uint32_t)vals[i]); break;
  default: FRUN(uint64_t, vals[i]); break;
  }
#undef FRUN
}

/* An access by every lane of [lo, hi) (a dense mask) to consecutive
 * elements from byte o0 of lb, in bounds (fast_access's contig case): one
 * range of bytes, the loops vectorise. addr (the lanes' addresses) may be
 * NULL where no step needs them: then the race cells must be a cell an
 * element (cell_run) and the buffer keep no writer map, else false before
 * anything is done. */
#define CRUN(T, conv) do { \
    const uint8_t *p_ = lb->mem.bytes + o0; \
    for (int i = lo; i < hi; i++) { T v_; memcpy(&v_, p_ + (size_t)(i - lo) * sizeof v_, sizeof v_); vals[i] = (conv); } \
  } while (0)
SIMT_LANES static bool contig_access(simt_x *x, dg_span sp, dg_tykind kd, simt_buf *lb, int64_t size,
                                     const msk *k, int lo, int hi, int64_t o0, const int64_t *addr, dom_val *vals, bool write)
{
  bool race = lb->race && !x->in_atomic, run = cell_run(lb, true, o0, size);
  if (!addr && ((race && !run) || lb->writer)) return false;
  if (race && lb->aepoch == x->epoch) return false;      /* atomics in this interval: lane by lane (race_check) */
  if (!write) {
    if (!lb->all_init && memchr(lb->init + o0, 0, (size_t)((hi - lo) * size)))
      for (int i = lo; i < hi; i++) {
        int64_t o = o0 + (int64_t)(i - lo) * size;
        if (all_set(lb->init + o, size)) continue;
        report_uninit(x, lb, sp, i, o, size);
      }
    switch (kd) {
    case DG_TY_F32: CRUN(float, dom_of_f((double)v_)); break;
    case DG_TY_I32: CRUN(int32_t, (dom_val)(int64_t)v_); break;
    case DG_TY_U32: CRUN(uint32_t, (dom_val)v_); break;
    default: CRUN(uint64_t, v_); break;
    }
    if (simt_gsh_ld(x, lb)) simt_gsh_load_run(x, lb, lo, hi, o0, size, sp);   /* global races */
    if (simt_glr_on(x, lb)) simt_glr_load_run(x, lb, lo, hi, o0, size, sp);   /* ... with a later store */
    if (race) {               /* then the race shadow (loads report nothing, races only reads of writes) */
      if (lb->wepoch != x->epoch) race_wait(x, lb, lo, hi, k->b, addr, size, sp, run ? o0 : -1, false);
      else if (lb->cepoch != x->epoch && run && log_fits(x, lb, lo, hi, o0, false))
        race_wait(x, lb, lo, hi, k->b, addr, size, sp, o0, false);      /* after stores that wait */
      else {
        if (lb->cepoch != x->epoch) simt_race_flush(x);     /* this interval's stores to it wait: run them */
        if (run) read_cells_run(x, lb, lo, hi, o0, size, sp);
        else read_cells(x, lb, lo, hi, 0, k->b, addr, size, sp);
      }
    }
    return true;
  }
  if (simt_gsh_on(x, lb)) simt_gsh_run(x, lb, kd, size, lo, hi, o0, vals, sp);    /* before the bytes land */
  race = race && lb->kind == BK_SHARED;     /* as the general path: a reused buffer may keep its cells */
  if (race) {
    if (run && log_fits(x, lb, lo, hi, o0, true)) {
      race_wait(x, lb, lo, hi, k->b, addr, size, sp, o0, true);    /* its cells wait: no race possible */
      race = false;
    } else if (x->rlog_n) simt_race_flush(x);
    lb->wepoch = x->epoch;
  }
  if (race && !run) {
    /* cells shared by lanes: checked lane by lane in the order the stores land */
    bool natural = true;
    for (int w = 0; w < x->nwarps && natural; w++) natural = x->worder[w] == w;
    if (natural) fast_store_run(x, lb, kd, size, k, lo, hi, true, race, sp, addr, vals);
    else
      for (int wi = 0; wi < x->nwarps; wi++) {
        int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
        if (a < z) fast_store_run(x, lb, kd, size, k, a, z, true, race, sp, addr, vals);
      }
  } else {
    /* distinct bytes (and a cell a lane): the order the bytes land in does
     * not matter; the cells are checked in the order the stores land, warp
     * by warp, each against the bytes as they were (no lane of this store
     * writes another's) */
    if (race) {
      const uint32_t ep = x->epoch, *ws = x->wsync;
      simt_race *c0 = &lb->race[o0 / lb->gran];
      lb->cepoch = ep;
      for (int wi = 0; wi < x->nwarps; wi++) {
        int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
        simt_race *c = c0 + (a - lo);
        for (int i = a; i < z; i++, c++) {
          if (c->epoch != ep) {          /* the first access to its cell in this interval */
            c->epoch = ep, c->r = -1, c->rmulti = false;
            c->w = i, c->wsync = ws[i / 32], c->wsp = sp;
          } else if ((c->w < 0 || c->w == i) && (c->r < 0 || (c->r == i && !c->rmulti))) {
            c->w = i, c->wsync = ws[i / 32], c->wsp = sp;     /* only this lane touched it */
          } else {
            uint8_t tmp[8];
            simt_fast_st(kd, tmp, 0, vals, i);
            race_check(x, lb, i, o0 + (int64_t)(i - lo) * size, size, true, sp, tmp);
          }
        }
      }
    }
    uint8_t *p_ = lb->mem.bytes + o0;
#define CST(T, conv) do { \
    for (int i = lo; i < hi; i++) { T v_ = (conv); memcpy(p_ + (size_t)(i - lo) * sizeof v_, &v_, sizeof v_); } \
  } while (0)
    switch (kd) {
    case DG_TY_F32: CST(float, (float)dom_f(vals[i])); break;
    case DG_TY_I32: case DG_TY_U32: CST(uint32_t, (uint32_t)vals[i]); break;
    default: CST(uint64_t, vals[i]); break;
    }
#undef CST
  }
  if (!lb->all_init && !lb->writer) {
    memset(lb->init + o0, 1, (size_t)((hi - lo) * size));
  } else if (lb->writer) {
    int64_t gbase = x->block * (int64_t)x->nb1;      /* packed blocks: the first one's */
    for (int i = lo; i < hi; i++) {
      int64_t o = o0 + (int64_t)(i - lo) * size;
      if (!lb->all_init) set_all(lb->init + o, size);
      for (int64_t j = o; j < o + size; j++) {
        if (lb->writer[j] >= 0 && lb->writer[j] != gbase + i) lb->nwriters[j] = 2;
        else if (!lb->nwriters[j]) lb->nwriters[j] = 1;
        lb->writer[j] = gbase + i;
      }
    }
  }
  return true;
}

SIMT_LANES static bool fast_access(simt_x *x, dg_span sp, const dg_type *t, const msk *k, const int64_t *addr,
                        dom_val *vals, bool write)
{
  dg_tykind kd = t->kind;
  if (!x->ident || x->gm) return false;
  if (kd != DG_TY_F32 && kd != DG_TY_I32 && kd != DG_TY_U32 && kd != DG_TY_F64 && kd != DG_TY_I64
      && kd != DG_TY_U64 && kd != DG_TY_PTR)
    return false;
  int lo = k->lo, hi = k->hi;
  const uint8_t *b = k->b;
  while (lo < hi && !b[lo]) lo++;
  if (lo >= hi) return false;
  uint32_t id = dom_ptr_buf((dom_val)addr[lo]);
  if (id == 0 || id >= (uint32_t)x->top) return false;
  simt_buf *lb = &x->m->bufs.v[id];
  int64_t size = kd == DG_TY_F32 || kd == DG_TY_I32 || kd == DG_TY_U32 ? 4 : 8;
  if (lb->mem.size < size || (write && lb->readonly)) return false;
  if (lb->race && lb->aepoch == x->epoch && !x->in_atomic) return false;   /* atomics in this interval: race_check */
  /* pointer encodings of this buffer at offsets 0 .. size - access size */
  uint64_t base = (uint64_t)id << DOM_PTR_OFFBITS, lim = (uint64_t)(lb->mem.size - size);
  bool dense = k->cnt == hi - lo;
  uint8_t bad = 0;
  /* consecutive elements in consecutive lanes (a[threadIdx.x + c]), in
   * bounds: one range of bytes from o0, the loops below vectorise */
  bool contig = false;
  int64_t o0 = 0;
  if (dense && (hi - lo < 2 || (uint64_t)addr[lo + 1] == (uint64_t)addr[lo] + (uint64_t)size)) {   /* (the first pair rejects most) */
    uint64_t a0 = (uint64_t)addr[lo], d = 0, ex = a0;
    for (int i = lo; i < hi; i++, ex += (uint64_t)size) d |= (uint64_t)addr[i] ^ ex;   /* an induction: it vectorises */
    uint64_t u0 = a0 - base, u1 = u0 + (uint64_t)(hi - lo - 1) * (uint64_t)size;
    contig = !d && u0 <= lim && u1 <= lim && u1 >= u0;
    o0 = (int64_t)u0;
  }
  if (contig) return contig_access(x, sp, kd, lb, size, k, lo, hi, o0, addr, vals, write);
  if (dense && !write && lb->all_init && !(lb->race && !x->in_atomic)) {
    /* a plain dense load: bounds and values in one pass; a lane out of
     * bounds sends the whole access to the general path, which rewrites
     * every active lane's value */
    const uint8_t *bytes = lb->mem.bytes;
#define FRUN(T, conv) do { \
    for (int i = lo; i < hi; i++) { \
      uint64_t u = (uint64_t)addr[i] - base; \
      if (u > lim) return false; \
      int64_t o = (int64_t)u; \
      FLD(T, conv); \
    } } while (0)
    switch (kd) {
    case DG_TY_F32: FRUN(float, dom_of_f((double)v_)); break;
    case DG_TY_I32: FRUN(int32_t, (dom_val)(int64_t)v_); break;
    case DG_TY_U32: FRUN(uint32_t, (dom_val)v_); break;
    default: FRUN(uint64_t, v_); break;
    }
#undef FRUN
    if (simt_gsh_ld(x, lb)) simt_gsh_load_lanes(x, lb, lo, hi, b + lo, addr + lo, size, sp);   /* global races */
    if (simt_glr_on(x, lb)) simt_glr_load_lanes(x, lb, lo, hi, b + lo, addr + lo, size, sp);   /* ... with a later store */
    return true;
  }
  if (lim < (1ull << DOM_PTR_OFFBITS)) {
    /* u = addr - base is in bounds iff u <= lim: then u and lim - u both fit
     * in the offset bits; out of bounds one of them has a higher bit set
     * (no 64-bit compare: the loop vectorises) */
    uint64_t acc = 0;
    if (dense)
      for (int i = lo; i < hi; i++) { uint64_t u = (uint64_t)addr[i] - base; acc |= u | (lim - u); }
    else
      for (int i = lo; i < hi; i++) { uint64_t u = (uint64_t)addr[i] - base; acc |= (u | (lim - u)) & (0 - (uint64_t)b[i]); }
    bad = (acc >> DOM_PTR_OFFBITS) != 0;
  }
  else if (dense) for (int i = lo; i < hi; i++) bad |= (uint64_t)addr[i] - base > lim;
  else for (int i = lo; i < hi; i++) bad |= b[i] & ((uint64_t)addr[i] - base > lim);
  if (bad) return false;
  bool race = lb->race && !x->in_atomic;
  if (!write) {
    bool written = lb->all_init;
    if (!written && dense && size == 4) {    /* usually every lane's bytes were written: one pass, no branch */
      uint32_t acc = 0x01010101u;
      for (int i = lo; i < hi; i++) {
        uint32_t w;
        memcpy(&w, lb->init + dom_ptr_off((dom_val)addr[i]), 4);
        acc &= w;
      }
      written = acc == 0x01010101u;
    }
    if (!written)
      for (int i = lo; i < hi; i++) {
        if (!b[i]) continue;
        int64_t o = dom_ptr_off((dom_val)addr[i]);
        if (all_set(lb->init + o, size)) continue;
        report_uninit(x, lb, sp, i, o, size);
      }
    const uint8_t *bytes = lb->mem.bytes;
#define FRUN(T, conv) do { \
    if (dense) for (int i = lo; i < hi; i++) { int64_t o = dom_ptr_off((dom_val)addr[i]); FLD(T, conv); } \
    else for (int i = lo; i < hi; i++) if (b[i]) { int64_t o = dom_ptr_off((dom_val)addr[i]); FLD(T, conv); } \
  } while (0)
    switch (kd) {
    case DG_TY_F32: FRUN(float, dom_of_f((double)v_)); break;
    case DG_TY_I32: FRUN(int32_t, (dom_val)(int64_t)v_); break;
    case DG_TY_U32: FRUN(uint32_t, (dom_val)v_); break;
    default: FRUN(uint64_t, v_); break;
    }
    if (race) {               /* then the race shadow (loads report nothing, races only reads of writes) */
      if (lb->wepoch != x->epoch) race_wait(x, lb, lo, hi, b, addr, size, sp, -1, false);
      else {
        if (lb->cepoch != x->epoch) simt_race_flush(x);     /* this interval's stores to it wait: run them */
        read_cells(x, lb, lo, hi, 0, b, addr, size, sp);
      }
    }
#undef FRUN
    if (simt_gsh_ld(x, lb)) simt_gsh_load_lanes(x, lb, lo, hi, b + lo, addr + lo, size, sp);   /* global races */
    if (simt_glr_on(x, lb)) simt_glr_load_lanes(x, lb, lo, hi, b + lo, addr + lo, size, sp);   /* ... with a later store */
    return true;
  }
  if (simt_gsh_on(x, lb)) simt_gsh_lanes(x, lb, kd, size, b, lo, hi, addr, vals, sp);    /* before the bytes land */
  /* stores land warp by warp in x->worder; within a warp the higher lane wins */
  bool natural = true;
  for (int w = 0; w < x->nwarps && natural; w++) natural = x->worder[w] == w;
  race = race && lb->kind == BK_SHARED;     /* as the general path: a reused buffer may keep its cells */
  if (race) {
    if (x->rlog_n) simt_race_flush(x);
    lb->wepoch = x->epoch;
  }
  if (natural) fast_store_run(x, lb, kd, size, k, lo, hi, dense, race, sp, addr, vals);
  else
    for (int wi = 0; wi < x->nwarps; wi++) {
      int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
      if (a < z) fast_store_run(x, lb, kd, size, k, a, z, dense, race, sp, addr, vals);
    }
  if (!lb->all_init || lb->writer) {
    int64_t gbase = x->block * (int64_t)x->nb1;      /* packed blocks: the first one's */
    for (int i = lo; i < hi; i++) {
      if (!b[i]) continue;
      int64_t o = dom_ptr_off((dom_val)addr[i]);
      if (!lb->all_init) set_all(lb->init + o, size);
      if (lb->writer)
        for (int64_t j = o; j < o + size; j++) {
          if (lb->writer[j] >= 0 && lb->writer[j] != gbase + i) lb->nwriters[j] = 2;
          else if (!lb->nwriters[j]) lb->nwriters[j] = 1;
          lb->writer[j] = gbase + i;
        }
    }
  }
  return true;
}
#undef FLD
#undef FST
#undef CRUN

SIMT_LANES bool simt_mem_run(simt_x *x, dg_span sp, const dg_type *t, const msk *k, int buf, int64_t o0,
                             dom_val *vals, bool write)
{
  dg_tykind kd = t->kind;
  int lo = k->lo, hi = k->hi;
  if (!x->ident || x->gm || x->pk || x->stop || !k->cnt || k->cnt != hi - lo || buf <= 0 || buf >= x->top
      || x->trace_lane >= 0 || (kd != DG_TY_F32 && kd != DG_TY_I32 && kd != DG_TY_U32))
    return false;
  simt_buf *lb = &x->m->bufs.v[buf];
  int64_t size = 4;
  if (o0 < 0 || o0 + (int64_t)(hi - lo) * size > lb->mem.size || (write && lb->readonly)) return false;
  return contig_access(x, sp, kd, lb, size, k, lo, hi, o0, NULL, vals, write);
}

void simt_mem_access(simt_x *x, dg_span sp, const dg_type *t, const msk *k, const int64_t *addr,
                     dom_val *vals, bool write)
{
  if (t->kind == DG_TY_STRUCT) { struct_access(x, sp, t, k, addr, vals, write); return; }
  simt *m = x->m;
  dom *d = x->d;
  int n = x->n, lo = k->lo, hi = k->hi;
  int64_t size = simt_tysize(t), es = simt_tysize(simt_scalar(t));
  const dg_type *et = simt_scalar(t);
  int nc = simt_ncomp(t);
  if (!k->cnt || x->stop) return;
  if (__builtin_expect(x->pk != NULL, 0)) {
    /* packed blocks (simt_pack.c): a store's bytes are checked and tagged
     * before it lands; a load the fast path made read the first active
     * lane's buffer in every lane */
    if (write) simt_pack_access(x, k, addr, size, true);
    if (fast_access(x, sp, t, k, addr, vals, write)) {
      if (!write) simt_pack_load1(x, dom_ptr_buf((dom_val)addr[msk_first(k).lo]));
      return;
    }
    if (!write) simt_pack_access(x, k, addr, size, false);
  } else if (fast_access(x, sp, t, k, addr, vals, write)) return;
  if (x->rlog_n) simt_race_flush(x);         /* race cells are read and written lane by lane below */
  simt_mark mk = simt_mark_get(x);
  uint8_t *ok = simt_alloc(x, (size_t)n);
  dom_mem **mem = simt_alloc(x, sizeof *mem * (size_t)n);
  if (__builtin_expect(x->trace_lane >= 0, 0) && write && x->trace_lane >= k->lo && x->trace_lane < k->hi
      && k->b[x->trace_lane])     /* steps: the traced thread's store */
    x->step_store = (dom_val)addr[x->trace_lane], x->step_sty = simt_scalar(t);
  int64_t *off = simt_alloc(x, sizeof *off * (size_t)n), *offc = simt_alloc(x, sizeof *off * (size_t)n);
  bool shared = false, ro = false, chk = false, sh = false, post = false;
  uint32_t lid = 0;          /* the buffer of the previous lane: usually every lane's */
  simt_buf *lb = NULL;
  int64_t lsz = -1;
  for (int i = lo; i < hi; i++) {
    ok[i] = 0;
    if (!k->b[i]) continue;
    uint32_t id = dom_ptr_buf((dom_val)addr[i]);
    int64_t o = dom_ptr_off((dom_val)addr[i]);
    if (id != lid || !lb) {
      if (id == 0 || id >= (uint32_t)x->top) { oob_event(x, sp, i, id, o, size, write); continue; }
      lid = id, lb = &m->bufs.v[id], lsz = lb->mem.size;
      ro = write && lb->readonly, chk = !write && !lb->all_init, sh = lb->race && !x->in_atomic;
      post |= write && (!lb->all_init || lb->writer);   /* stores mark the shadow and the writer map */
    }
    if (o < 0 || o + size > lsz) { oob_event(x, sp, i, id, o, size, write); continue; }
    if (ro) {
      simt_event *e = simt_report(x, SIMT_EV_READONLY, sp, i,
                                  "store into read-only %s at byte %lld (an input: the caller's data would be"
                                  " clobbered; an in-place update is an `accumulate` output)",
                                  lb->name, (long long)o);
      if (e) e->buf = (int)id, e->off = o, e->size = (int)size, e->write = true;
      continue;
    }
    ok[i] = 1, mem[i] = &lb->mem, off[i] = o;
    shared |= sh;
    if (chk && !all_set(lb->init + o, size)) report_uninit(x, lb, sp, i, o, size);
  }
  if (!write) {
    if (shared)
      for (int i = lo; i < hi; i++)
        if (ok[i] && ((simt_buf *)mem[i])->race) {    /* mem is simt_buf's first member */
          simt_buf *b = (simt_buf *)mem[i];
          const simt_race *c = &b->race[off[i] / b->gran];
          /* read again in an interval nobody wrote in (nor an atomic), at the
           * same __syncwarp count: nothing changes */
          uint32_t ws = x->wsync[i / 32];
          if (size <= b->gran && off[i] % b->gran == 0 && c->epoch == x->epoch && c->w < 0 && b->aepoch != x->epoch
              && ((c->r == i && c->rsync == ws) || (c->rmulti && c->r2 == i && c->r2sync == ws)))
            continue;
          race_check(x, b, i, off[i], size, false, sp, NULL);
        }
    for (int c = 0; c < nc; c++) {
      dom_val *v = vals + (size_t)c * n;
      for (int i = lo; i < hi; i++) {
        offc[i] = off[i] + c * es;
        if (k->b[i] && !ok[i]) v[i] = 0;   /* a refused load still yields a value (slot 0) */
      }
      d->load(d, et, hi - lo, ok + lo, v + lo, mem + lo, offc + lo);
    }
    if (x->gsh)              /* global races: a load of another warp's or block's store */
      for (int i = lo; i < hi && !x->stop; i++)
        if (ok[i] && simt_gsh_ld(x, (simt_buf *)mem[i])) simt_gsh_load(x, (simt_buf *)mem[i], i, off[i], size, sp);
    if (x->gsh)              /* ... and recorded, against a later store of another warp or block */
      for (int i = lo; i < hi && !x->stop; i++)
        if (ok[i] && simt_glr_on(x, (simt_buf *)mem[i])) simt_glr_load(x, (simt_buf *)mem[i], i, off[i], size, sp);
    simt_mark_release(x, mk);
    return;
  }
  if (x->gm) {               /* guarded lanes store select(guard, new, old) */
    dom_val *old = simt_alloc(x, sizeof *old * (size_t)n * (size_t)nc);
    for (int c = 0; c < nc; c++) {
      for (int i = lo; i < hi; i++) offc[i] = off[i] + c * es;
      d->load(d, et, hi - lo, ok + lo, old + (size_t)c * n + lo, mem + lo, offc + lo);
    }
    msk okm = { ok, lo, hi, 0 };
    msk_fix(&okm);
    vals = simt_guarded(x, t, &okm, vals, old);
  }
  uint8_t one = 1;
  if (x->gsh)                /* global races, before the bytes land, in the order they land */
    for (int wi = 0; wi < x->nwarps; wi++) {
      int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
      for (int i = a; i < z; i++) {
        if (!ok[i]) continue;
        simt_buf *b = (simt_buf *)mem[i];     /* mem is simt_buf's first member */
        if (!simt_gsh_on(x, b) || size > 64 || simt_gsh_try(x, b, i, off[i], size, sp)) continue;
        uint8_t tmp[64], ptmp[64];
        const uint8_t *prev = NULL;
        int j = off[i] % b->ggran ? -1 : simt_gsh_cell_lane(x, simt_gsh_cell(b, off[i] / b->ggran), i);
        dom_mem tm = { tmp, (int64_t)sizeof tmp, NULL, 0 }, pm = { ptmp, (int64_t)sizeof ptmp, NULL, 0 };
        dom_mem *tmp_p = &tm, *ptmp_p = &pm;
        bool early = j >= lo && j < hi && j != i && ok[j] && mem[j] == mem[i] && off[j] == off[i] && simt_gsh_lands_before(x, j, i);
        for (int c = 0; c < nc; c++) {
          int64_t to = c * es;
          d->store(d, et, 1, &one, vals + (size_t)c * n + i, &tmp_p, &to);
          if (early) d->store(d, et, 1, &one, vals + (size_t)c * n + j, &ptmp_p, &to);   /* an earlier lane's, here */
        }
        if (early) prev = ptmp;
        simt_gsh_store(x, b, i, off[i], size, tmp, prev, sp);
      }
    }
  /* stores land warp by warp in x->worder; within a warp the higher lane wins */
  bool natural = true;
  for (int w = 0; w < x->nwarps; w++) natural &= x->worder[w] == w;
  for (int wi = 0; wi < x->nwarps; wi++) {
    int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
    if (natural && !shared) { store_lanes(x, et, nc, es, lo, hi, ok, vals, mem, off, offc); break; }
    if (a >= z) continue;
    if (!shared) { store_lanes(x, et, nc, es, a, z, ok, vals, mem, off, offc); continue; }
    for (int i = a; i < z; i++) {          /* shared: lane by lane, checking races */
      if (!ok[i]) continue;
      simt_buf *b = &m->bufs.v[mem[i]->id];
      if (b->kind != BK_SHARED || x->in_atomic) { store_lanes(x, et, nc, es, i, i + 1, ok, vals, mem, off, offc); continue; }
      b->wepoch = x->epoch;
      if (d->mem_bytes) {
        uint8_t tmp[64];
        dom_mem tm = { tmp, (int64_t)sizeof tmp, NULL, 0 }, *tmp_p = &tm;
        for (int c = 0; c < nc && (c + 1) * es <= (int64_t)sizeof tmp; c++) {
          int64_t to = c * es;
          d->store(d, et, 1, &one, vals + (size_t)c * n + i, &tmp_p, &to);
        }
        race_check(x, b, i, off[i], size, true, sp, tmp);
        memcpy(b->mem.bytes + off[i], tmp, (size_t)(size < 64 ? size : 64));
      } else {
        race_check(x, b, i, off[i], size, true, sp, NULL);
        store_lanes(x, et, nc, es, i, i + 1, ok, vals, mem, off, offc);
      }
    }
  }
  if (!post) { simt_mark_release(x, mk); return; }
  int64_t gbase = x->block * (int64_t)x->nb1;
  for (int i = lo; i < hi; i++) {
    if (!ok[i]) continue;
    simt_buf *b = (simt_buf *)mem[i];
    if (!b->all_init) set_all(b->init + off[i], size);
    if (b->writer)
      for (int64_t j = off[i]; j < off[i] + size; j++) {
        if (b->writer[j] >= 0 && b->writer[j] != gbase + i) b->nwriters[j] = 2;
        else if (!b->nwriters[j]) b->nwriters[j] = 1;
        b->writer[j] = gbase + i;
      }
  }
  simt_mark_release(x, mk);
}
