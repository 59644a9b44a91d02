/* simt_grace.c — races on global memory: between blocks of a launch, and
 * between warps of a block within a barrier interval.
 *
 * The emulator runs a launch's blocks one after another, so a block's plain
 * read-modify-write of an element another block stored (`acc[row] += s`
 * where two blocks share a row) sees that store and the sum comes out right;
 * on a GPU the two interleave and an update is lost. Blocks of one launch are
 * unordered, so two of them storing to one element, not both with atomics,
 * with the later store changing the bytes, leave a value that depends on
 * which block stores last: a race. Warps of one block are unordered too
 * between two barriers: two warps storing one element in one barrier
 * interval (`acc[row] += s` by each warp's lane 0), or a warp loading an
 * element another warp stored in the interval, race the same way. Lanes of
 * one warp are not checked against each other (the emulator runs a warp in
 * lockstep and lands a store's lanes in lane order; a warp's own accesses to
 * global memory are taken in program order).
 *
 * Each global buffer stored to in a launch keeps, per cell of its element's
 * size (simt_buf.gran; a buffer with no element type: its first store's
 * size), the last store: its barrier interval (x->epoch, which every block
 * start and every barrier advance, so an interval names one block's stretch
 * between barriers), thread, atomic or not, the store's span (an index into
 * the launch's table of store spans), and a generation: a cell of an earlier
 * launch holds an older one, so nothing is reset between launches (but every
 * 255th). A cell whose interval is older than the running block's first
 * (x->gep0) is another block's; the block is found from the table of the
 * intervals blocks began with (x->gbt). The cells are allocated at the
 * buffer's first store and kept with it. Every store path of simt_mem.c asks
 * before its bytes land: the common case (the cell empty in this launch, or
 * this block's of an earlier interval, or this warp's) is a load and a store
 * of the cell; only another block's or warp's cell needs the new bytes.
 * Loads look at the cells only where the buffer was stored to in this
 * interval, or by an earlier block.
 *
 * Loads of a buffer that is not read-only are recorded too (the first loader of
 * a cell's interval or another block's, and a second loader of another warp),
 * so a store after another warp's or block's load races with it; stores
 * narrower than a cell, unaligned or across two are tracked byte by byte
 * (gby), and looked at against the loads recorded in the cells they touch; a
 * load narrower than a cell is recorded byte by byte (glby), so a store of the
 * cell's other bytes does not race with it.
 *
 * Not races: same-value stores (`flag = 1` from every block), atomics against
 * atomics, a block's plain store after its own atomic on the element (the
 * atomic saw every earlier one: the "last block" counter reset), a block's
 * load of another's store where the storing block ran a __threadfence() and
 * then an atomic on global memory, and the loading block an atomic on the same
 * address before the load (the __threadfence + counter "last block" pattern:
 * the atomics on the counter order the loads after the fenced stores; an
 * atomic elsewhere orders nothing). The storing block's atomics after its fence
 * are kept by address, the first and the last, and the loading block's last
 * SIMT_GACQ distinct ones. Only a store before a fence that precedes the
 * atomic is published (a cell's span carries its phase: the fences its block
 * had run), and the loader must have counted last: a load let through on a
 * counter is noted (gex), and a later block's atomic add on the counter
 * reports it (the loader's atomic did not see every block's count: no test on
 * its value, or a test of the wrong one). Not tracked: the symbolic
 * domain (its values are terms; the check's concrete run sees the race
 * first), a launch of one block of one warp, wrapped (lazily filled)
 * buffers. */
/* the run loops below vectorise with GCC 12's dynamic cost model (as simt_mem.c's) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#include "simt_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GS_ATOMIC = 32, GS_THREAD = SIMT_GS_THREAD, GS_SPAN = SIMT_GS_SPAN, GS_GEN = SIMT_GS_GEN };

/* The launch's table of spans keeps a store's phase (the fences its block ran before it,
 * published() looks at it) in the top byte of its file index: a store of phase 0 (every
 * store of a kernel without a fence) looks its span up as before. */
enum { SP_PH = 24 };
static inline dg_span sp_of(dg_span k) { return (dg_span){ k.file & ((1u << SP_PH) - 1), k.line, k.col }; }
static inline uint8_t ph_of(dg_span k) { return (uint8_t)(k.file >> SP_PH); }

/* b's cells, at its first store or recorded load: n store cells, then n load cells and n
 * second loaders' (calloc: the pages nobody touches cost nothing) */
static void gsh_alloc(simt_buf *b)
{
  int64_t n = b->mem.size / b->ggran;
  b->gsh = dg_calloc((size_t)(n > 0 ? 3 * n : 1), sizeof *b->gsh);
  b->gch = dg_calloc((size_t)(2 * ((n >> SIMT_GCH) + 1)), sizeof *b->gch);
}

/* ---- the load cells: gsh + n, their chunk words gch + nk, the second loaders gsh + 2n ---- */
static inline int64_t gl_n(const simt_buf *b) { return b->mem.size / b->ggran; }
static inline uint64_t *gl_ch(const simt_buf *b, int64_t n) { return b->gch + (n >> SIMT_GCH) + 1; }

/* Load cell ci as the cells would hold it: its chunk's load where one stands for it, 0 where
 * the chunk saw no load of this launch. */
static inline uint64_t glr_cell(const simt_buf *b, int64_t n, int64_t ci)
{
  uint64_t h = gl_ch(b, n)[ci >> SIMT_GCH];
  if (h >> SIMT_GS_GEN != b->glgen) return 0;
  if ((h & SIMT_GS_CELLS) != SIMT_GS_CELLS) return simt_gch_cell(h, ci);
  return b->gsh[n + ci];
}

/* Load cell ci's own word (its chunk's cells made to stand for themselves). */
static uint64_t *glr_at(simt_buf *b, int64_t n, int64_t ci)
{
  uint64_t *ch = &gl_ch(b, n)[ci >> SIMT_GCH], h = *ch, gen = b->glgen;
  if (h >> SIMT_GS_GEN == gen && (h & SIMT_GS_CELLS) == SIMT_GS_CELLS) return &b->gsh[n + ci];
  int64_t a = ci >> SIMT_GCH << SIMT_GCH, e = a + (1 << SIMT_GCH) < n ? a + (1 << SIMT_GCH) : n;
  for (int64_t i = a; i < e; i++) b->gsh[n + i] = h >> SIMT_GS_GEN == gen ? simt_gch_cell(h, i) : 0;
  *ch = gen << SIMT_GS_GEN | SIMT_GS_CELLS;
  return &b->gsh[n + ci];
}

uint64_t *simt_gsh_cells(simt_x *x, simt_buf *b)
{
  if (b->glaunch != x->gl) {
    int64_t n = b->mem.size / b->ggran;
    if (!b->gsh) {
      gsh_alloc(b);
      b->ggen = 1;
    } else if (!++b->ggen) {          /* every 255 launches: the generations start again */
      memset(b->gsh, 0, (size_t)n * sizeof *b->gsh);
      if (b->gby) memset(b->gby, 0, (size_t)b->mem.size * sizeof *b->gby);
      memset(b->gch, 0, (size_t)((n >> SIMT_GCH) + 1) * sizeof *b->gch);
      b->ggen = 1;
    }
    b->glaunch = x->gl;
    b->gwep0 = x->epoch;
  }
  b->gwep = x->epoch;
  return b->gsh;
}

void simt_gsh_explode(simt_buf *b, int64_t k)
{
  uint64_t h = b->gch[k];
  if (h >> GS_GEN == b->ggen) {            /* (not SIMT_GS_CELLS: simt_gsh_at asked) */
    int64_t n = b->mem.size / b->ggran, e = ((k + 1) << SIMT_GCH) < n ? ((k + 1) << SIMT_GCH) : n;
    for (int64_t ci = (k << SIMT_GCH); ci < e; ci++) b->gsh[ci] = simt_gch_cell(h, ci);
  }                                        /* (another launch's: the cells are too) */
  b->gch[k] = (uint64_t)b->ggen << 56 | SIMT_GS_CELLS;
}

/* ---- the "last block" pattern's loads exempted, by counter --------------------------- */
/* A load of another block's store that published() let through on counter addr: the first
 * one of the loading block (ep0: its first interval) not yet told; an atomic add on addr by
 * a later block shows that the loader's atomic did not see every block's count. */
struct simt_gex {
  uint64_t addr;           /* the counter (a dom pointer; 0: a free slot) */
  uint64_t cell;           /* the store's cell */
  int64_t block, bo;       /* the loading block; the byte of buf loaded */
  uint32_t ep0;
  int buf, lane;
  bool told;
  dg_span sp;              /* the load */
};

static inline size_t gex_slot(const simt_x *x, uint64_t a)
{
  return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 32) & (size_t)(x->gexcap - 1);
}

/* the entry of counter a, or NULL */
static struct simt_gex *gex_find(simt_x *x, uint64_t a)
{
  for (size_t i = gex_slot(x, a);; i = (i + 1) & (size_t)(x->gexcap - 1)) {
    if (x->gex[i].addr == a) return &x->gex[i];
    if (!x->gex[i].addr) return NULL;
  }
}

/* a's entry, a free one (addr 0) where it has none */
static struct simt_gex *gex_slot_of(simt_x *x, uint64_t a)
{
  if (2 * (x->gexn + 1) > x->gexcap) {        /* (at most half full: the probes end) */
    struct simt_gex *old = x->gex;
    int cap = x->gexcap;
    x->gexcap = cap ? 2 * cap : 16;
    x->gex = dg_calloc((size_t)x->gexcap, sizeof *x->gex);
    for (int i = 0; i < cap; i++)
      if (old[i].addr) {
        size_t j = gex_slot(x, old[i].addr);
        while (x->gex[j].addr) j = (j + 1) & (size_t)(x->gexcap - 1);
        x->gex[j] = old[i];
      }
    free(old);
  }
  size_t i = gex_slot(x, a);
  while (x->gex[i].addr && x->gex[i].addr != a) i = (i + 1) & (size_t)(x->gexcap - 1);
  return &x->gex[i];
}

/* lane's load at byte bo of b (at sp) of the store of cell c, let through on counter a */
static void gex_note(simt_x *x, uint64_t a, const simt_buf *b, int lane, int64_t bo, dg_span sp, uint64_t c)
{
  struct simt_gex *e = gex_slot_of(x, a);
  if (e->addr && !e->told) return;             /* one not told yet stands for the counter */
  if (!e->addr) x->gexn++;
  *e = (struct simt_gex){ a, c, x->block, bo, x->gep0, (int)(b - x->m->bufs.v), lane, false, sp };
}

static void race_late(simt_x *x, struct simt_gex *e);

void simt_gsh_reset(simt_x *x)
{
  x->gl = ++x->m->glaunch, x->gbt.n = 0, x->gacqn = 0, x->gfence = false, x->gnf = 0;
  x->gpub[0] = x->gpub[1] = 0;
  if (x->gexn) memset(x->gex, 0, (size_t)x->gexcap * sizeof *x->gex);
  x->gexn = 0;
}

void simt_gsh_block(simt_x *x)
{
  x->gep0 = x->epoch;
  if (x->gbt.n && x->gpub[0]) {            /* the block before published (its entry holds zeros) */
    memcpy(x->gbt.v[x->gbt.n - 1].pub, x->gpub, sizeof x->gpub);
    memcpy(x->gbt.v[x->gbt.n - 1].pubf, x->gpubf, sizeof x->gpubf);
  }
  x->gfence = false, x->gacqn = 0, x->gnf = 0;
  x->gpub[0] = x->gpub[1] = 0;
  if (!x->gsh) return;
  dg_vec_push(&x->gbt, ((struct simt_gblk){ x->epoch, x->block, { 0, 0 }, { 0, 0 } }));
}

void simt_gsh_fence(simt_x *x)
{
  x->gfence = true;
  if (x->gnf < 255) x->gnf++;
}

void simt_gsh_atomic(simt_x *x, int64_t addr, bool counts)
{
  uint32_t id = dom_ptr_buf((dom_val)addr);
  if (!x->gsh || id == 0 || id >= (uint32_t)x->top || x->m->bufs.v[id].kind != BK_GLOBAL) return;
  uint64_t a = (uint64_t)addr;
  if (x->gfence) {                          /* after the fence: publishes on a the stores before it */
    if (!x->gpub[0]) x->gpub[0] = a, x->gpubf[0] = x->gnf;
    x->gpub[1] = a, x->gpubf[1] = x->gnf;
  }
  if (counts && x->gexn) {                  /* a count after a loader's: its loads were not the last block's */
    struct simt_gex *e = gex_find(x, a);
    if (e && !e->told && e->ep0 < x->gep0) race_late(x, e);
  }
  int n = x->gacqn < SIMT_GACQ ? x->gacqn : SIMT_GACQ;
  for (int i = 0; i < n; i++)
    if (x->gacq[i] == a) return;
  x->gacq[x->gacqn++ % SIMT_GACQ] = a;
}

/* the entry of the block whose run holds barrier interval ep (ep below the running block's) */
static const struct simt_gblk *gblk_of(const simt_x *x, uint32_t ep)
{
  size_t lo = 0, hi = x->gbt.n;            /* the last entry with .ep <= ep */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->gbt.v[mid].ep <= ep) lo = mid;
    else hi = mid;
  }
  return x->gbt.n ? &x->gbt.v[lo] : NULL;
}

static int64_t block_of(const simt_x *x, uint32_t ep)
{
  const struct simt_gblk *g = gblk_of(x, ep);
  return g ? g->block : -1;
}

/* A load of another block's store (its cell c) ordered by the "last block" pattern: the
 * storing block ran a __threadfence() and then an atomic on global memory (its stores
 * before the fence published on that atomic's address: the counter), and the loading
 * block an atomic on that address before the load (it read the counter after the storing
 * block's update): the counter's address, 0 where not. The store's phase (the fences its
 * block ran before it) must be below the fences before the atomic: a store after the
 * fence, or after the fence and the atomic, is not published by them. */
static uint64_t published(const simt_x *x, uint64_t c)
{
  const struct simt_gblk *g = x->gacqn ? gblk_of(x, (uint32_t)c) : NULL;
  if (!g || !g->pub[0]) return 0;
  uint64_t si = c >> GS_SPAN & 0x1fff;
  uint8_t ph = si < (uint64_t)x->gspn ? ph_of(x->gsp[si]) : 0;
  int n = x->gacqn < SIMT_GACQ ? x->gacqn : SIMT_GACQ;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 2; j++)
      if (x->gacq[i] == g->pub[j] && ph < g->pubf[j]) return g->pub[j];
  return 0;
}

static bool same_span(dg_span a, dg_span b) { return a.file == b.file && a.line == b.line && a.col == b.col; }

/* the index of sp (its phase in its file index) in the launch's table, kept in *last */
static uint64_t span_find(simt_x *x, dg_span sp, int *last)
{
  for (int i = 0; i < x->gspn; i++)
    if (same_span(x->gsp[i], sp)) return (uint64_t)(*last = i);
  if (x->gspn >= (1 << 13) - 1) return 0;     /* (a kernel with that many store sites: the first's line) */
  if (x->gspn == x->gspcap) {
    x->gspcap = x->gspcap ? x->gspcap * 2 : 16;
    x->gsp = dg_realloc(x->gsp, sizeof *x->gsp * (size_t)x->gspcap);
  }
  x->gsp[x->gspn] = sp;
  return (uint64_t)(*last = x->gspn++);
}

/* the index of a store's span sp in the launch's table (the last store's, usually), with its
 * phase ph */
static inline uint64_t span_index(simt_x *x, dg_span sp, uint8_t ph)
{
  if (ph && sp.file < 1u << SP_PH) sp.file |= (uint32_t)ph << SP_PH;
  if (x->gspn && same_span(x->gsp[x->gsplast], sp)) return (uint64_t)x->gsplast;
  return span_find(x, sp, &x->gsplast);
}

/* the same for a load's (phase 0; the last load's, usually) */
static inline uint64_t span_index_ld(simt_x *x, dg_span sp)
{
  if (x->gspn && same_span(x->gsp[x->glsplast], sp)) return (uint64_t)x->glsplast;
  return span_find(x, sp, &x->glsplast);
}

uint64_t simt_gsh_tag(simt_x *x, const simt_buf *b, int lane, dg_span sp)
{
  int thr = x->pk ? lane % x->nb1 : lane;      /* packed blocks: lane's own */
  return (uint64_t)b->ggen << GS_GEN | span_index(x, sp, x->gnf) << GS_SPAN | (uint64_t)thr << GS_THREAD
         | (uint64_t)x->in_atomic << GS_ATOMIC | x->epoch;
}

/* the cells [c0, c1) a store of size bytes at o covers; false: not tracked */
static inline bool span_cells(simt_buf *b, int64_t o, int64_t size, int64_t *c0, int64_t *c1)
{
  int g = simt_gsh_gran(b, size);
  if (size < g || o % g || size % g || o < 0 || o + size > b->mem.size) return false;
  *c0 = o / g, *c1 = (o + size) / g;
  return true;
}

static inline int64_t thread_of(const simt_x *x, int lane) { return x->pk ? lane % x->nb1 : lane; }

static void race(simt_x *x, simt_buf *b, int lane, bool write, uint64_t other, int kind, int64_t bo, dg_span sp,
                 bool loaded);
static void coords(const uint32_t dim[3], int64_t lin, uint32_t out[3]);

/* ---- loads recorded (the store side) ------------------------------------------------ */
/* The load recorded in cell ci of b (simt_glr_st holds) that a store of thread thr races
 * with: 1 another block's, 2 another warp's of this interval (as simt_gsh_other), 0 none;
 * *rec: the loader's cell. */
/* The same for a record c (a cell's or a byte's first loader) and c2 (its second loader). */
static inline int lr_other(const simt_x *x, uint64_t c, uint64_t c2, uint64_t gen, int64_t thr, uint64_t *rec)
{
  if (c >> GS_GEN != gen) return 0;
  uint32_t ep = (uint32_t)c;
  if (ep < x->gep0) return *rec = c, 1;
  if (ep != x->epoch) return 0;
  if ((c >> SIMT_GS_WARP & 31) != (uint64_t)(thr >> 5 & 31)) return *rec = c, 2;
  if (c2 >> GS_GEN == gen && (uint32_t)c2 == ep) return *rec = c2, 2;   /* the first is this warp: a second? */
  return 0;
}

static inline int glr_other(const simt_x *x, const simt_buf *b, int64_t ci, int64_t thr, uint64_t *rec)
{
  int64_t n = gl_n(b);
  if (ci >= n) return 0;
  return lr_other(x, glr_cell(b, n, ci), b->gsh[2 * n + ci], b->glgen, thr, rec);
}

/* b holds narrow loads of this launch (glby) */
static inline bool glb_on(const simt_x *x, const simt_buf *b) { return b->glby && b->glbyl == x->gl; }

/* The narrow load recorded at byte bi of b (glb_on holds) that a store of thread thr races
 * with, as glr_other. */
static inline int glb_other(const simt_x *x, const simt_buf *b, int64_t bi, int64_t thr, uint64_t *rec)
{
  return lr_other(x, b->glby[bi], b->glby[b->mem.size + bi], b->glgen, thr, rec);
}

static bool glr_any(const simt_x *x, const simt_buf *b, int64_t c0, int64_t c1, int64_t thr)
{
  uint64_t rec;
  for (int64_t ci = c0; ci < c1; ci++)
    if (glr_other(x, b, ci, thr, &rec)) return true;
  if (glb_on(x, b))
    for (int64_t bi = c0 * b->ggran; bi < c1 * b->ggran && bi < b->mem.size; bi++)
      if (glb_other(x, b, bi, thr, &rec)) return true;
  return false;
}

/* Bytes [a, z) of a store of thread thr (nb: the new bytes from byte o; was: the old ones
 * from o, or b's where NULL) against the narrow loads recorded there: the first byte whose
 * load races with the store and that it changes, -1 none; *rec, *kind: its load. */
static int64_t glb_store(const simt_x *x, const simt_buf *b, int64_t a, int64_t z, int64_t o, const uint8_t *nb,
                         const uint8_t *was, int64_t thr, uint64_t *rec, int *kind)
{
  for (int64_t bi = a; bi < z; bi++) {
    *kind = glb_other(x, b, bi, thr, rec);
    if (*kind && nb[bi - o] != (was ? was[bi - o] : b->mem.bytes[bi])) return bi;
  }
  return -1;
}

/* Lane's store of bytes nb at byte o of b (its cells [c0, c1)) against the loads recorded:
 * a race where a cell's load races with it and the bytes change (from was, the bytes there
 * before, or b's where NULL); true if told. */
static bool glr_store(simt_x *x, simt_buf *b, int lane, int64_t c0, int64_t c1, int64_t o, const uint8_t *nb,
                      const uint8_t *was, dg_span sp)
{
  int g = b->ggran;
  int64_t thr = thread_of(x, lane);
  for (int64_t ci = c0; ci < c1; ci++) {
    uint64_t rec;
    int kind = glr_other(x, b, ci, thr, &rec);
    if (!kind) continue;
    int64_t bo = ci * g;
    if (!memcmp(nb + (bo - o), was ? was + (bo - o) : b->mem.bytes + bo, (size_t)g)) continue;   /* the same value */
    race(x, b, lane, true, rec, kind, bo, sp, true);
    return true;
  }
  uint64_t rec;
  int kind;
  int64_t bi = glb_on(x, b) ? glb_store(x, b, c0 * g, c1 * g, o, nb, was, thr, &rec, &kind) : -1;
  if (bi < 0) return false;
  race(x, b, lane, true, rec, kind, bi, sp, true);
  return true;
}

/* a store narrower than a cell, not aligned or across two that is tracked (byte by byte) */
static inline bool nar_ok(const simt_buf *b, int64_t o, int64_t size)
{
  return o >= 0 && size > 0 && size <= 64 && b->ggran && o + size <= b->mem.size / b->ggran * b->ggran;
}

bool simt_gsh_try(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp)
{
  int64_t c0, c1;
  if (!span_cells(b, o, size, &c0, &c1)) {      /* narrow: byte by byte, with its bytes */
    if (!nar_ok(b, o, size)) return true;
    simt_gsh_cells(x, b);
    return false;
  }
  if (simt_gsh_nar(x, b)) return false;                                     /* narrow stores' bytes to look at */
  simt_gsh_cells(x, b);
  uint64_t tag = simt_gsh_tag(x, b, lane, sp);
  int64_t thr = thread_of(x, lane);
  if (simt_glr_st(x, b) && glr_any(x, b, c0, c1, thr)) return false;
  for (int64_t ci = c0; ci < c1; ci++)
    if (simt_gsh_other(x, simt_gsh_cell(b, ci), b->ggen, thr)) return false;
  for (int64_t ci = c0; ci < c1; ci++) *simt_gsh_at(b, ci) = tag;
  return true;
}

static void coords(const uint32_t dim[3], int64_t lin, uint32_t out[3])
{
  out[0] = (uint32_t)(lin % dim[0]);
  out[1] = (uint32_t)(lin / dim[0] % dim[1]);
  out[2] = (uint32_t)(lin / dim[0] / dim[1]);
}

/* event e's other access: the cell other (kind: simt_gsh_other's) at byte bo of b */
static void race_other(simt_x *x, simt_event *e, const simt_buf *b, bool write, uint64_t other, int kind, int64_t bo,
                       dg_span sp)
{
  int64_t othr = (int64_t)(other >> GS_THREAD & 0x3ff);
  uint64_t si = other >> GS_SPAN & 0x1fff;
  e->span2 = si < (uint64_t)x->gspn ? sp_of(x->gsp[si]) : sp;
  e->thread2 = othr, e->gmem = true;
  if (kind == 1) {
    int64_t oblk = block_of(x, (uint32_t)other);
    e->xblock = true, e->block2 = oblk;
    coords(x->gdim, oblk, e->bidx2);
    coords(x->bdim, othr, e->tidx2);
  }
  e->buf = b->mem.id, e->off = bo, e->size = b->ggran, e->write = write;
}

/* lane's access at byte bo of b (a store when write) against the cell other
 * (kind: simt_gsh_other's) */
static void race(simt_x *x, simt_buf *b, int lane, bool write, uint64_t other, int kind, int64_t bo, dg_span sp,
                 bool loaded)
{
  bool a1 = other >> GS_ATOMIC & 1, a2 = write && x->in_atomic;
  int64_t es = b->elem ? dom_tysize(b->elem) : 0;
  char el[48];
  if (es > 0 && bo % es == 0) snprintf(el, sizeof el, "%lld", (long long)(bo / es));
  else snprintf(el, sizeof el, "byte %lld", (long long)bo);
  const char *what = loaded ? (a2 ? "read-atomic" : "read-write")
                   : write ? (a1 ? "atomic-write" : a2 ? "write-atomic" : "write-write") : a1 ? "atomic-read" : "write-read";
  simt_event *e;
  if (kind == 1 && loaded)
    e = simt_report(x, SIMT_EV_RACE, sp, lane, "%s of %s[%s] by two blocks of one launch: what a block loaded depends "
                    "on whether another block stored first", what, b->name, el);
  else if (loaded)
    e = simt_report(x, SIMT_EV_RACE, sp, lane, "%s of %s[%s] by two warps of one block in one barrier interval: what a "
                    "warp loaded depends on whether another warp stored first", what, b->name, el);
  else if (kind == 1 && write)
    e = simt_report(x, SIMT_EV_RACE, sp, lane, "%s of %s[%s] by two blocks of one launch, not both atomic: the value "
                    "depends on which block stores last", what, b->name, el);
  else if (kind == 1)
    e = simt_report(x, SIMT_EV_RACE, sp, lane, "%s of %s[%s] by two blocks of one launch: what the load sees depends "
                    "on which block runs first (no __threadfence then count orders them)", what, b->name, el);
  else if (write)
    e = simt_report(x, SIMT_EV_RACE, sp, lane, "%s of %s[%s] by two warps of one block in one barrier interval, not "
                    "both atomic: the value depends on which warp stores last", what, b->name, el);
  else
    e = simt_report(x, SIMT_EV_RACE, sp, lane, "%s of %s[%s] by two warps of one block in one barrier interval: what "
                    "the load sees depends on which warp runs first", what, b->name, el);
  if (e) race_other(x, e, b, write, other, kind, bo, sp);
}

/* A load of a published() store (e) whose loading block's atomic on the counter came
 * before a later block's count on it (the running block's): the loading block read the
 * partials with the counter not showing every block's count (no test on its value, or
 * a test of the wrong one), so on a GPU it may run before the storing block. */
static void race_late(simt_x *x, struct simt_gex *e)
{
  simt_buf *b = &x->m->bufs.v[e->buf];
  int64_t es = b->elem ? dom_tysize(b->elem) : 0;
  char el[48];
  if (es > 0 && e->bo % es == 0) snprintf(el, sizeof el, "%lld", (long long)(e->bo / es));
  else snprintf(el, sizeof el, "byte %lld", (long long)e->bo);
  e->told = true;
  uint32_t bi[3];
  coords(x->gdim, x->block, bi);
  simt_event *v = simt_report(x, SIMT_EV_RACE, e->sp, e->lane, "write-read of %s[%s] by two blocks of one launch: "
                              "the load's block counted before block (%u,%u,%u), not last: the store may come later",
                              b->name, el, bi[0], bi[1], bi[2]);
  if (!v) return;
  v->block = e->block;                      /* the loading block's event */
  coords(x->gdim, e->block, v->bidx);
  race_other(x, v, b, false, e->cell, 1, e->bo, e->sp);
}

/* A narrow store's bytes nb at byte o of b (was: the bytes there before) against the loads
 * recorded in the cells it touches (simt_glr_st holds): a read-write race where a cell's
 * load is another block's or another warp's of the interval and the store changes its
 * bytes there; then against the narrow loads of its own bytes (glby), the same way. */
static bool glr_narrow(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, const uint8_t *nb,
                       const uint8_t *was, dg_span sp)
{
  int g = b->ggran;
  int64_t thr = thread_of(x, lane);
  for (int64_t ci = o / g; ci <= (o + size - 1) / g; ci++) {
    uint64_t rec;
    int kind = glr_other(x, b, ci, thr, &rec);
    if (!kind) continue;
    int64_t a = ci * g > o ? ci * g : o, z = ci * g + g < o + size ? ci * g + g : o + size;
    if (!memcmp(nb + (a - o), was + (a - o), (size_t)(z - a))) continue;       /* the same bytes */
    race(x, b, lane, true, rec, kind, a, sp, true);
    return true;
  }
  uint64_t rec;
  int kind;
  int64_t bi = glb_on(x, b) ? glb_store(x, b, o, o + size, o, nb, was, thr, &rec, &kind) : -1;
  if (bi < 0) return false;
  race(x, b, lane, true, rec, kind, bi, sp, true);
  return true;
}

/* Lane's store of size bytes nb at byte o of b, narrower than a cell, not aligned to one or
 * across two: against the full stores of the cells it touches (they cover its bytes) and
 * the narrow stores of its bytes, a race where they are another block's or another warp's
 * of the interval, not both atomic, and the bytes they share change; its bytes then take its
 * tag (not the cells: a narrow store of the element's other half does not race with it);
 * then against the loads recorded in those cells (glr_narrow). */
static void gsh_narrow(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, const uint8_t *nb,
                       const uint8_t *prev, dg_span sp)
{
  int g = simt_gsh_gran(b, size);
  if (!nar_ok(b, o, size)) return;
  simt_gsh_cells(x, b);
  if (!b->gby) b->gby = dg_calloc((size_t)b->mem.size, sizeof *b->gby);
  b->gbyl = x->gl;
  uint64_t tag = simt_gsh_tag(x, b, lane, sp);
  int64_t thr = thread_of(x, lane), n = b->mem.size / g;
  const uint8_t *was = prev ? prev : b->mem.bytes + o;     /* was[i]: byte o + i before */
  bool told = false;
  for (int64_t ci = o / g; ci <= (o + size - 1) / g && ci < n && !told; ci++) {
    uint64_t c = simt_gsh_cell(b, ci);
    int kind = simt_gsh_other(x, c, b->ggen, thr);
    if (!kind || (c & tag) >> GS_ATOMIC & 1) continue;
    int64_t a = ci * g > o ? ci * g : o, z = ci * g + g < o + size ? ci * g + g : o + size;
    if (!memcmp(nb + (a - o), was + (a - o), (size_t)(z - a))) continue;       /* the same bytes: benign */
    race(x, b, lane, true, c, kind, a, sp, false);
    told = true;
  }
  for (int64_t i = 0; i < size; i++) {
    uint64_t c = b->gby[o + i];
    int kind = told ? 0 : simt_gsh_other(x, c, b->ggen, thr);
    if (kind && !((c & tag) >> GS_ATOMIC & 1) && nb[i] != was[i]) {
      race(x, b, lane, true, c, kind, o + i, sp, false);
      told = true;
    }
    b->gby[o + i] = tag;
  }
  if (!told && simt_glr_st(x, b)) glr_narrow(x, b, lane, o, size, nb, was, sp);
}

/* A full store's cells [c0, c1) where the buffer holds narrow stores: their bytes against it
 * (as gsh_narrow), then cleared (the cells' store covers them); true if told. */
static bool nar_full(simt_x *x, simt_buf *b, int lane, int64_t c0, int64_t c1, int64_t o, const uint8_t *nb,
                     const uint8_t *prev, bool told, dg_span sp)
{
  int g = b->ggran;
  int64_t thr = thread_of(x, lane);
  bool at = x->in_atomic;
  for (int64_t bi = c0 * g; bi < c1 * g; bi++) {
    uint64_t c = b->gby[bi];
    int kind = told ? 0 : simt_gsh_other(x, c, b->ggen, thr);
    if (kind && !(at && (c >> GS_ATOMIC & 1)) && nb[bi - o] != (prev ? prev[bi - o] : b->mem.bytes[bi])) {
      race(x, b, lane, true, c, kind, bi, sp, false);
      told = true;
    }
    b->gby[bi] = 0;
  }
  return told;
}

void simt_gsh_store(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, const uint8_t *nb,
                    const uint8_t *prev, dg_span sp)
{
  int64_t c0, c1;
  if (!span_cells(b, o, size, &c0, &c1)) {
    gsh_narrow(x, b, lane, o, size, nb, prev, sp);
    return;
  }
  simt_gsh_cells(x, b);
  uint64_t tag = simt_gsh_tag(x, b, lane, sp);
  int64_t thr = thread_of(x, lane);
  int g = b->ggran;
  bool told = false;
  for (int64_t ci = c0; ci < c1; ci++) {
    uint64_t old = simt_gsh_cell(b, ci);
    *simt_gsh_at(b, ci) = tag;
    int kind = simt_gsh_other(x, old, b->ggen, thr);
    if (told || !kind || (old & tag) >> GS_ATOMIC & 1) continue;
    int64_t bo = ci * g;
    const uint8_t *was = prev ? prev + (bo - o) : b->mem.bytes + bo;
    if (!memcmp(nb + (bo - o), was, (size_t)g)) continue;    /* the same value: benign */
    race(x, b, lane, true, old, kind, bo, sp, false);
    told = true;
  }
  if (simt_gsh_nar(x, b)) told = nar_full(x, b, lane, c0, c1, o, nb, prev, told, sp);
  if (!told && simt_glr_st(x, b)) glr_store(x, b, lane, c0, c1, o, nb, prev, sp);
}

/* ---- loads ------------------------------------------------------------------------ */
void simt_gsh_load(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp)
{
  int g = b->ggran;
  if (o < 0 || size <= 0 || o + size > b->mem.size || !g) return;
  int64_t thr = thread_of(x, lane);

  for (int64_t ci = o / g; ci <= (o + size - 1) / g && ci < b->mem.size / g; ci++) {
    uint64_t c = simt_gsh_cell(b, ci);
    int kind = simt_gsh_other(x, c, b->ggen, thr);
    uint64_t a = kind == 1 ? published(x, c) : 0;
    if (a) gex_note(x, a, b, lane, ci * g, sp, c);
    if (!kind || a) continue;
    race(x, b, lane, false, c, kind, ci * g, sp, false);
    return;
  }
  if (simt_gsh_nar(x, b))                              /* the narrow stores of its bytes */
    for (int64_t bi = o; bi < o + size; bi++) {
      uint64_t c = b->gby[bi];
      int kind = simt_gsh_other(x, c, b->ggen, thr);
      uint64_t a = kind == 1 ? published(x, c) : 0;
      if (a) gex_note(x, a, b, lane, bi, sp, c);
      if (!kind || a) continue;
      race(x, b, lane, false, c, kind, bi, sp, false);
      return;
    }
}

/* usually no cell of a load holds anything to look at: a chunk or one pass (it vectorises) to see that */
static inline bool any_other(const simt_x *x, const simt_buf *b, int64_t s0, int64_t s1)
{
  uint64_t any = 0, gen = b->ggen;
  uint32_t e0 = x->gep0, ep = x->epoch;
  for (int64_t k = s0 >> SIMT_GCH; k <= (s1 - 1) >> SIMT_GCH; k++) {
    uint64_t h = b->gch[k];
    if (h >> GS_GEN != gen) continue;         /* no store of this launch */
    if ((h & SIMT_GS_CELLS) != SIMT_GS_CELLS) {
      any |= (uint64_t)((uint32_t)h < e0 || (uint32_t)h == ep);
      continue;
    }
    const uint64_t *c = b->gsh;
    int64_t a = (k << SIMT_GCH) > s0 ? (k << SIMT_GCH) : s0, z = ((k + 1) << SIMT_GCH) < s1 ? ((k + 1) << SIMT_GCH) : s1;
    for (int64_t i = a; i < z; i++) any |= (uint64_t)(c[i] >> GS_GEN == gen) & (uint64_t)((uint32_t)c[i] < e0 || (uint32_t)c[i] == ep);
  }
  return any != 0;
}

void simt_gsh_load_run(simt_x *x, simt_buf *b, int lo, int hi, int64_t o0, int64_t size, dg_span sp)
{
  int g = b->ggran;
  if (g && size == g && o0 % g == 0 && o0 >= 0 && o0 + (hi - lo) * size <= b->mem.size && !simt_gsh_nar(x, b)
      && !any_other(x, b, o0 / g, o0 / g + (hi - lo)))
    return;
  for (int i = lo; i < hi && !x->stop; i++) simt_gsh_load(x, b, i, o0 + (int64_t)(i - lo) * size, size, sp);
}

void simt_gsh_load_lanes(simt_x *x, simt_buf *b, int lo, int hi, const uint8_t *m, const int64_t *addr,
                         int64_t size, dg_span sp)
{
  for (int i = lo; i < hi && !x->stop; i++)
    if (m[i - lo]) simt_gsh_load(x, b, i, dom_ptr_off((dom_val)addr[i - lo]), size, sp);
}

/* ---- loads recorded (the load side) -------------------------------------------------- */
/* b's load cells (gsh + n; gl_n(b) of them), a new generation at its first recorded load of
 * a launch */
static void glr_cells(simt_x *x, simt_buf *b)
{
  if (b->gllaunch != x->gl) {
    int64_t n = gl_n(b);
    if (!b->gsh) {
      gsh_alloc(b);
      b->glgen = 1;
    } else if (!++b->glgen) {            /* every 255 launches: the generations start again */
      memset(b->gsh + n, 0, (size_t)(2 * n) * sizeof *b->gsh);
      if (b->glby) memset(b->glby, 0, (size_t)(2 * b->mem.size) * sizeof *b->glby);
      memset(gl_ch(b, n), 0, (size_t)((n >> SIMT_GCH) + 1) * sizeof *b->gch);
      b->glgen = 1;
    }
    b->gllaunch = x->gl;
    b->glep0 = x->epoch;
  }
  b->glep = x->epoch;
}

/* the cell a load at sp leaves, its thread added by the caller */
static inline uint64_t glr_base(simt_x *x, const simt_buf *b, dg_span sp)
{
  return (uint64_t)b->glgen << GS_GEN | span_index_ld(x, sp) << GS_SPAN | x->epoch;
}

/* The second loader of cell ci, c its first (of this interval): tag's unless one is there. */
static inline void glr_second(const simt_buf *b, int64_t n, int64_t ci, uint64_t c, uint64_t tag)
{
  uint64_t *r2 = &b->gsh[2 * n + ci];
  if (*r2 >> GS_GEN != b->glgen || (uint32_t)*r2 != (uint32_t)c) *r2 = tag;
}

/* Cell ci's load by tag's thread: the cell keeps its first loader of the interval, or
 * another block's (any store of a later block races with that one); a load of another warp
 * of the interval is the second loader unless one is there. */
static inline void glr_note(const simt_x *x, simt_buf *b, int64_t n, int64_t ci, uint64_t tag)
{
  uint64_t c = glr_cell(b, n, ci);
  uint32_t ep = (uint32_t)c;
  if (c >> GS_GEN != b->glgen || (ep >= x->gep0 && ep != x->epoch)) *glr_at(b, n, ci) = tag;
  else if (ep == x->epoch && ((c ^ tag) >> SIMT_GS_WARP & 31)) glr_second(b, n, ci, c, tag);
}

/* A load of size bytes at o (in b) narrower than a cell, not aligned to one or across two:
 * recorded byte by byte (glby), as glr_note does a cell. */
static void glb_load(simt_x *x, simt_buf *b, int64_t o, int64_t size, uint64_t tag)
{
  if (!b->glby) b->glby = dg_calloc((size_t)(2 * b->mem.size), sizeof *b->glby);
  b->glbyl = x->gl;
  uint64_t *r2 = b->glby + b->mem.size;
  for (int64_t bi = o; bi < o + size; bi++) {
    uint64_t c = b->glby[bi];
    uint32_t ep = (uint32_t)c;
    if (c >> GS_GEN != b->glgen || (ep >= x->gep0 && ep != x->epoch)) b->glby[bi] = tag;
    else if (ep == x->epoch && ((c ^ tag) >> SIMT_GS_WARP & 31)
             && (r2[bi] >> GS_GEN != b->glgen || (uint32_t)r2[bi] != ep)) r2[bi] = tag;
  }
}

/* a load of size bytes at o not a whole number of b's cells (g bytes each) */
static inline bool ld_narrow(int64_t o, int64_t size, int g) { return size < g || o % g || size % g; }

/* Lane's load: its cells (glr_note), or its bytes where it is narrow (glb_load). */
static inline void glr_lane(simt_x *x, simt_buf *b, int64_t n, int g, int64_t o, int64_t size, uint64_t tag)
{
  if (ld_narrow(o, size, g)) glb_load(x, b, o, size, tag);
  else
    for (int64_t ci = o / g; ci < (o + size) / g && ci < n; ci++) glr_note(x, b, n, ci, tag);
}

void simt_glr_load(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp)
{
  int g = simt_gsh_gran(b, size);
  if (o < 0 || size <= 0 || o + size > b->mem.size || b->mem.size < g) return;
  glr_cells(x, b);
  glr_lane(x, b, gl_n(b), g, o, size, glr_base(x, b, sp) | (uint64_t)thread_of(x, lane) << GS_THREAD);
}

/* A chunk of 32 cells loaded by consecutive threads from t (tag: the first cell's): one word
 * where the chunk is untouched in this launch, or holds an earlier interval of this block; a
 * chunk of another block's stays; one of this interval only looks for a second loader. */
static bool glr_chunk(const simt_x *x, simt_buf *b, int64_t n, int64_t k, uint64_t tag)
{
  uint64_t *ch = &gl_ch(b, n)[k], h = *ch;
  uint32_t ep = (uint32_t)h;
  if (h >> GS_GEN != b->glgen || (ep >= x->gep0 && ep != x->epoch && (h & SIMT_GS_CELLS) != SIMT_GS_CELLS)) {
    *ch = tag;
    return true;
  }
  if ((h & SIMT_GS_CELLS) == SIMT_GS_CELLS) return false;        /* cells of their own: the caller's loop */
  if (ep < x->gep0 || !((h ^ tag) >> GS_THREAD & 0x3ff)) return true;   /* another block's; or the same threads */
  for (int i = 0; i < 1 << SIMT_GCH; i++) {
    int64_t ci = (k << SIMT_GCH) + i;
    uint64_t c = simt_gch_cell(h, ci), t = simt_gch_cell(tag, ci);
    if ((c ^ t) >> SIMT_GS_WARP & 31) glr_second(b, n, ci, c, t);
  }
  return true;
}

/* Lanes [lo, hi) loading consecutive cells from byte o0: a word a chunk where one warp's
 * lanes load all of it, else one pass a block (packed blocks: their own threads) that
 * vectorises, the cells taken and those of another warp of the interval seen (then lane
 * by lane). */
SIMT_LANES void simt_glr_load_run(simt_x *x, simt_buf *b, int lo, int hi, int64_t o0, int64_t size, dg_span sp)
{
  int g = simt_gsh_gran(b, size);
  if (size != g || o0 % g || o0 < 0 || o0 + (int64_t)(hi - lo) * size > b->mem.size) {
    for (int i = lo; i < hi; i++) simt_glr_load(x, b, i, o0 + (int64_t)(i - lo) * size, size, sp);
    return;
  }
  glr_cells(x, b);
  int64_t n = gl_n(b);
  uint64_t *r = b->gsh + n, base = glr_base(x, b, sp), gen = b->glgen;
  const uint32_t e0 = x->gep0, ep = x->epoch;
  for (int a = lo; a < hi;) {
    int t0 = x->pk ? a / x->nb1 * x->nb1 : 0, z = x->pk && t0 + x->nb1 < hi ? t0 + x->nb1 : hi;
    int64_t s0 = o0 / g + (a - lo), s1 = s0 + (z - a);        /* cell s0 + j: thread a - t0 + j */
    for (int64_t k = s0 >> SIMT_GCH; k <= (s1 - 1) >> SIMT_GCH; k++) {
      int64_t ca = k << SIMT_GCH > s0 ? k << SIMT_GCH : s0, cz = (k + 1) << SIMT_GCH < s1 ? (k + 1) << SIMT_GCH : s1;
      uint64_t tb = base | (uint64_t)(ca - s0 + a - t0) << GS_THREAD;      /* cell ca's */
      if (ca == k << SIMT_GCH && cz == (k + 1) << SIMT_GCH && glr_chunk(x, b, n, k, tb)) continue;
      if (ca != k << SIMT_GCH || cz != (k + 1) << SIMT_GCH) glr_at(b, n, ca);   /* (a chunk in part: its cells) */
      uint64_t other = 0;
      for (int64_t ci = ca; ci < cz; ci++) {
        uint64_t cv = r[ci], t = tb + ((uint64_t)(ci - ca) << GS_THREAD);
        uint32_t ce = (uint32_t)cv;
        uint64_t same = (uint64_t)(cv >> GS_GEN == gen), take = (same ^ 1) | (uint64_t)(ce >= e0 && ce != ep);
        r[ci] = take ? t : cv;
        other |= same & (uint64_t)(ce == ep) & (uint64_t)(((cv ^ t) >> SIMT_GS_WARP & 31) != 0);
      }
      if (other)
        for (int64_t ci = ca; ci < cz; ci++) {
          uint64_t cv = r[ci], t = tb + ((uint64_t)(ci - ca) << GS_THREAD);
          if ((uint32_t)cv == ep && ((cv ^ t) >> SIMT_GS_WARP & 31)) glr_second(b, n, ci, cv, t);
        }
    }
    a = z;
  }
}

void simt_glr_load_lanes(simt_x *x, simt_buf *b, int lo, int hi, const uint8_t *m, const int64_t *addr,
                         int64_t size, dg_span sp)
{
  int g = simt_gsh_gran(b, size);
  if (b->mem.size < g) return;
  glr_cells(x, b);
  int64_t n = gl_n(b);
  uint64_t base = glr_base(x, b, sp);
  for (int a = lo; a < hi;) {               /* a warp at a time: a row of consecutive elements is a run */
    int z = (a / 32 + 1) * 32 < hi ? (a / 32 + 1) * 32 : hi;
    uint64_t d = 0, ex = (uint64_t)addr[a - lo];
    uint8_t all = 1;
    for (int i = a; i < z; i++, ex += (uint64_t)size) d |= (uint64_t)addr[i - lo] ^ ex, all &= m[i - lo];
    if (!d && all && z - a >= 8) {
      simt_glr_load_run(x, b, a, z, dom_ptr_off((dom_val)addr[a - lo]), size, sp);
      a = z;
      continue;
    }
    for (int i = a; i < z; i++) {
      if (!m[i - lo]) continue;
      glr_lane(x, b, n, g, dom_ptr_off((dom_val)addr[i - lo]), size, base | (uint64_t)thread_of(x, i) << GS_THREAD);
    }
    a = z;
  }
}

/* ---- the fast store paths' cells (simt_mem.c's fast_access and contig_access) ---- */
/* Lane j's store lands before lane i's of the same store: warps in x->worder,
 * lanes in order within one (as the stores land). */
bool simt_gsh_lands_before(const simt_x *x, int j, int i)
{
  if (j / 32 == i / 32) return j < i;
  for (int wi = 0; wi < x->nwarps; wi++) {
    if (x->worder[wi] == j / 32) return true;
    if (x->worder[wi] == i / 32) return false;
  }
  return false;
}

/* The global race shadow of lane i's store of size bytes at byte o of lb:
 * the new bytes only where another block's or warp's store is
 * there; prev: what an earlier lane of this store leaves there, or NULL. */
static inline void gsh_lane(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, int i, int64_t o,
                            const dom_val *vals, const uint8_t *prev, dg_span sp)
{
  if (simt_gsh_try(x, lb, i, o, size, sp)) return;
  uint8_t tmp[8];
  simt_fast_st(kd, tmp, 0, vals, i);
  simt_gsh_store(x, lb, i, o, size, tmp, prev, sp);
}

/* The same for lanes [lo, hi) storing consecutive elements from byte o0, a
 * cell a lane where they pair up: one load and one store of a cell a lane
 * while no other block's or warp's store is there (packed blocks: block by
 * block). No two lanes store one element: the bytes there are the last store's. */
SIMT_LANES static void gsh_run(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, int lo, int hi, int64_t o0,
                               const dom_val *vals, dg_span sp)
{
  int g = simt_gsh_gran(lb, size);
  if (size != g || o0 % g || simt_gsh_nar(x, lb)) {
    for (int wi = 0; wi < x->nwarps; wi++) {
      int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
      for (int i = a; i < z; i++) gsh_lane(x, lb, kd, size, i, o0 + (int64_t)(i - lo) * size, vals, NULL, sp);
    }
    return;
  }
  simt_gsh_cells(x, lb);
  uint64_t *c = lb->gsh + o0 / g, *ch = lb->gch;    /* c[i - lo]: lane i's cell */
  const uint64_t thr = (uint64_t)0x3ff << SIMT_GS_THREAD, gen = lb->ggen, cells = gen << 56 | SIMT_GS_CELLS;
  const uint32_t e0 = x->gep0, ep = x->epoch;
  const int64_t c0 = o0 / g;
  const bool ld = simt_glr_st(x, lb);      /* loads recorded to look at: lane by lane */
  for (int a = lo; a < hi;) {
    int t0 = x->pk ? a / x->nb1 * x->nb1 : 0, z = x->pk && t0 + x->nb1 < hi ? t0 + x->nb1 : hi;
    uint64_t base = simt_gsh_tag(x, lb, a, sp) & ~thr;
    /* usually no cell holds another block's store of this launch, or another
     * warp's of this interval: one pass over the chunks (and the cells of
     * those whose cells stand for themselves) to see it, one to fill them: a
     * chunk the store covers takes its tag, a chunk it covers in part its cells */
    int64_t s0 = c0 + (a - lo), s1 = c0 + (z - lo), k0 = s0 >> SIMT_GCH, k1 = (s1 - 1) >> SIMT_GCH;
    uint64_t other = ld;
    for (int64_t k = k0; k <= k1 && !other; k++) {
      uint64_t h = ch[k];
      if (h >> GS_GEN != gen) continue;                /* no store of this launch there */
      int64_t ca = (k << SIMT_GCH) > s0 ? (k << SIMT_GCH) : s0, cz = ((k + 1) << SIMT_GCH) < s1 ? ((k + 1) << SIMT_GCH) : s1;
      if (h != cells) {                                /* one store's cells: the same thread a cell? */
        uint32_t he = (uint32_t)h;
        other |= he < e0 || (he == ep && (int64_t)(h >> SIMT_GS_THREAD & 0x3ff) != (int64_t)((k << SIMT_GCH) - s0 + a - t0));
        continue;
      }
      for (int64_t ci = ca; ci < cz; ci++) {
        uint64_t cv = lb->gsh[ci];
        uint32_t ce = (uint32_t)cv;
        int64_t ti = ci - s0 + a - t0;
        other |= (uint64_t)(cv >> SIMT_GS_GEN == gen)
                 & ((uint64_t)(ce < e0) | ((uint64_t)(ce == ep) & (uint64_t)((((cv >> SIMT_GS_WARP) ^ (uint64_t)(ti >> 5)) & 31) != 0)));
      }
    }
    if (!other) {
      for (int64_t k = k0; k <= k1; k++) {
        int64_t ca = (k << SIMT_GCH) > s0 ? (k << SIMT_GCH) : s0, cz = ((k + 1) << SIMT_GCH) < s1 ? ((k + 1) << SIMT_GCH) : s1;
        if (ca == (k << SIMT_GCH) && cz == ((k + 1) << SIMT_GCH)) { ch[k] = base | (uint64_t)(ca - s0 + a - t0) << SIMT_GS_THREAD; continue; }
        if (ch[k] != cells) simt_gsh_explode(lb, k);
        for (int64_t ci = ca; ci < cz; ci++) lb->gsh[ci] = base | (uint64_t)(ci - s0 + a - t0) << SIMT_GS_THREAD;
      }
      a = z;
      continue;
    }
    for (int64_t k = k0; k <= k1; k++)
      if (ch[k] != cells) simt_gsh_explode(lb, k);
    for (int wi = 0; wi < x->nwarps; wi++) {      /* in the order the stores land (the first race told) */
      int w = x->worder[wi], wa = w * 32 > a ? w * 32 : a, wz = w * 32 + 32 < z ? w * 32 + 32 : z;
      for (int i = wa; i < wz; i++) {
        uint64_t ci = c[i - lo];
        if (__builtin_expect(simt_gsh_other(x, ci, gen, i - t0) != 0, 0)
            || (ld && glr_any(x, lb, c0 + (i - lo), c0 + (i - lo) + 1, i - t0))) {
          uint8_t tmp[8];
          simt_fast_st(kd, tmp, 0, vals, i);
          simt_gsh_store(x, lb, i, o0 + (int64_t)(i - lo) * size, size, tmp, NULL, sp);
        } else {
          c[i - lo] = base | (uint64_t)(i - t0) << SIMT_GS_THREAD;
        }
      }
    }
    a = z;
  }
}

void simt_gsh_run(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, int lo, int hi, int64_t o0,
                  const dom_val *vals, dg_span sp)
{
  gsh_run(x, lb, kd, size, lo, hi, o0, vals, sp);
}

/* The same for the lanes of b in [lo, hi) storing at their addresses (in
 * bounds), in the order they land: a cell a lane where the store is one
 * element, the cells looked up inline; where lanes of two warps store one
 * element, the later one's bytes are checked against the earlier one's. */
static void gsh_lanes1(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, const uint8_t *b, int lo, int hi,
                       int a, int z, const int64_t *addr, const dom_val *vals, dg_span sp)
{
  int g = simt_gsh_gran(lb, size);
  simt_gsh_cells(x, lb);
  uint64_t gen = lb->ggen, cells = gen << 56 | SIMT_GS_CELLS;
  uint64_t base = simt_gsh_tag(x, lb, a, sp) & ~((uint64_t)0x3ff << SIMT_GS_THREAD);
  int gs = __builtin_ctz((unsigned)g);      /* 1, 2, 4 or 8 */
  const uint32_t e0 = x->gep0, ep = x->epoch;
  uint64_t *gsh = lb->gsh, *gch = lb->gch;
  const bool ld = simt_glr_st(x, lb) || simt_gsh_nar(x, lb);   /* loads recorded or narrow stores: simt_gsh_try's lanes */
  for (int i = a; i < z; i++) {
    if (!b[i]) continue;
    int64_t o = dom_ptr_off((dom_val)addr[i]), thr = x->pk ? i % x->nb1 : i;
    bool one = size == g && !(o & (g - 1)) && !ld;
    int64_t ci = one ? o >> gs : o / g;
    if (one) {                                /* the usual cases inline: cells in a chunk of cells, or a chunk untouched */
      uint64_t h = gch[ci >> SIMT_GCH], cv = gsh[ci];
      if (h == cells && (cv >> GS_GEN != gen || ((uint32_t)cv >= e0 && ((uint32_t)cv != ep || (cv >> SIMT_GS_WARP & 31) == (uint64_t)(thr >> 5))))) {
        gsh[ci] = base | (uint64_t)thr << SIMT_GS_THREAD;
        continue;
      }
      if (h >> GS_GEN != gen) {
        gch[ci >> SIMT_GCH] = cells;
        gsh[ci] = base | (uint64_t)thr << SIMT_GS_THREAD;
        continue;
      }
    }
    uint64_t h = lb->gch[ci >> SIMT_GCH];            /* simt_gsh_cell and simt_gsh_at, the chunk read once */
    uint64_t cv = h == cells ? lb->gsh[ci] : h >> GS_GEN == gen ? simt_gch_cell(h, ci) : 0;
    if (one && __builtin_expect(!simt_gsh_other(x, cv, gen, thr), 1)) {
      if (h != cells) simt_gsh_explode(lb, ci >> SIMT_GCH);
      lb->gsh[ci] = base | (uint64_t)thr << SIMT_GS_THREAD;
      continue;
    }
    uint8_t ptmp[8];
    const uint8_t *prev = NULL;
    int j = simt_gsh_cell_lane(x, cv, i);
    if (j >= lo && j < hi && j != i && b[j] && addr[j] == addr[i] && simt_gsh_lands_before(x, j, i)) {
      simt_fast_st(kd, ptmp, 0, vals, j);
      prev = ptmp;
    }
    gsh_lane(x, lb, kd, size, i, o, vals, prev, sp);
  }
}

/* A warp's lanes [a, z), all active, storing consecutive elements from byte *o0
 * (a row a warp), bytes no earlier warp of this store touched (*seg of them
 * so far, their ranges in rs; 32: a warp before went lane by lane): gsh_run's
 * cells a chunk at a time. */
static bool warp_run(const simt_x *x, const uint8_t *b, int a, int z, const int64_t *addr, int64_t size,
                     int64_t (*rs)[2], int *seg, int64_t *o0)
{
  uint64_t d = 0, ex = (uint64_t)addr[a];
  uint8_t all = 1;
  for (int i = a; i < z; i++, ex += (uint64_t)size) d |= (uint64_t)addr[i] ^ ex, all &= b[i];
  if (d || !all || *seg >= 32) return false;
  int64_t s = dom_ptr_off((dom_val)addr[a]), e = s + (int64_t)(z - a) * size;
  for (int j = 0; j < *seg; j++)
    if (rs[j][0] < e && s < rs[j][1]) return false;
  rs[*seg][0] = s, rs[*seg][1] = e, ++*seg;
  *o0 = s;
  return true;
}

void simt_gsh_lanes(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, const uint8_t *b, int lo, int hi,
                      const int64_t *addr, const dom_val *vals, dg_span sp)
{
  int64_t rs[32][2], o0;
  int seg = 0;
  for (int wi = 0; wi < x->nwarps; wi++) {
    int w = x->worder[wi], a = w * 32 > lo ? w * 32 : lo, z = w * 32 + 32 < hi ? w * 32 + 32 : hi;
    if (a >= z) continue;
    if (z - a >= 8 && warp_run(x, b, a, z, addr, size, rs, &seg, &o0)) gsh_run(x, lb, kd, size, a, z, o0, vals, sp);
    else {
      gsh_lanes1(x, lb, kd, size, b, lo, hi, a, z, addr, vals, sp);
      seg = 32;                 /* (its lanes' bytes are not in rs: no run after it) */
    }
  }
}
