/* simt_grace.c — races between blocks on global memory.
 *
 * The emulator runs a launch's blocks one after another, so a block's plain
 * read-modify-write of an element another block stored (`acc[row] += s`
 * where two blocks share a row) sees that store and the sum comes out right;
 * on a GPU the two interleave and an update is lost. Blocks of one launch are
 * unordered, so two of them storing to one element, not both with atomics,
 * with the later store changing the bytes, leave a value that depends on
 * which block stores last: a race.
 *
 * Each global buffer stored to in a launch keeps, per cell of its element's
 * size (simt_buf.gran; a buffer with no element type: its first store's
 * size), the last store: block, thread, atomic or not, and the
 * store's span (an index into the launch's table of store spans), and a
 * generation: a cell of an earlier launch holds an older one, so nothing is
 * reset between launches (but every 255th). The cells are allocated at the
 * buffer's first store and kept with it. Every store path of simt_mem.c asks before its bytes land:
 * the common case (the cell empty in this launch or this block's) is a load
 * and a store of the cell; only another block's cell needs the new bytes.
 *
 * Not races: same-value stores (`flag = 1` from every block), atomics against
 * atomics, a block's plain store after its own atomic on the element (the
 * atomic saw every earlier one: the "last block" counter reset), loads (a
 * block reading another's result is the __threadfence pattern). Not tracked:
 * the symbolic domain (its values are terms; the check's concrete run sees
 * the race first), a launch of one block, wrapped (lazily filled) buffers,
 * stores narrower than the buffer's element or across its boundary. */
#include "simt_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GS_ATOMIC = 32, GS_THREAD = SIMT_GS_THREAD, GS_SPAN = 43, GS_GEN = SIMT_GS_GEN };
#define GS_BLOCK(c) ((uint32_t)(c))

uint64_t *simt_gsh_cells(simt_x *x, simt_buf *b)
{
  if (b->glaunch != x->gl) {
    if (!b->gsh) {
      int64_t n = b->mem.size / b->ggran;
      b->gsh = dg_calloc((size_t)(n > 0 ? n : 1), sizeof *b->gsh);
      b->ggen = 1;
    } else if (!++b->ggen) {          /* every 255 launches: the generations start again */
      memset(b->gsh, 0, (size_t)(b->mem.size / b->ggran) * sizeof *b->gsh);
      b->ggen = 1;
    }
    b->glaunch = x->gl;
  }
  return b->gsh;
}

void simt_gsh_reset(simt_x *x) { x->gl = ++x->m->glaunch; }

static bool same_span(dg_span a, dg_span b) { return a.file == b.file && a.line == b.line && a.col == b.col; }

/* the index of sp in the launch's table (the last one asked, usually) */
static uint64_t span_index(simt_x *x, dg_span sp)
{
  if (x->gspn && same_span(x->gsp[x->gsplast], sp)) return (uint64_t)x->gsplast;
  for (int i = 0; i < x->gspn; i++)
    if (same_span(x->gsp[i], sp)) return (uint64_t)(x->gsplast = i);
  if (x->gspn >= (1 << 13) - 1) return 0;     /* (a kernel with that many store sites: the first's line) */
  if (x->gspn == x->gspcap) {
    x->gspcap = x->gspcap ? x->gspcap * 2 : 16;
    x->gsp = dg_realloc(x->gsp, sizeof *x->gsp * (size_t)x->gspcap);
  }
  x->gsp[x->gspn] = sp;
  return (uint64_t)(x->gsplast = x->gspn++);
}

uint64_t simt_gsh_tag(simt_x *x, const simt_buf *b, int lane, dg_span sp)
{
  int64_t blk = x->block;
  int thr = lane;
  if (x->pk) blk += lane / x->nb1, thr = lane % x->nb1;    /* packed blocks: lane's own */
  return (uint64_t)b->ggen << GS_GEN | span_index(x, sp) << GS_SPAN | (uint64_t)thr << GS_THREAD
         | (uint64_t)x->in_atomic << GS_ATOMIC | (uint32_t)(blk + 1);
}

/* the cells [c0, c1) a store of size bytes at o covers; false: not tracked */
static inline bool span_cells(simt_buf *b, int64_t o, int64_t size, int64_t *c0, int64_t *c1)
{
  int g = simt_gsh_gran(b, size);
  if (size < g || o % g || size % g || o < 0 || o + size > b->mem.size) return false;
  *c0 = o / g, *c1 = (o + size) / g;
  return true;
}

bool simt_gsh_try(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp)
{
  int64_t c0, c1;
  if (!span_cells(b, o, size, &c0, &c1)) return true;
  uint64_t *c = simt_gsh_cells(x, b), tag = simt_gsh_tag(x, b, lane, sp);
  for (int64_t ci = c0; ci < c1; ci++)
    if (c[ci] >> GS_GEN == b->ggen && GS_BLOCK(c[ci]) != GS_BLOCK(tag)) return false;
  for (int64_t ci = c0; ci < c1; ci++) c[ci] = tag;
  return true;
}

static void coords(const uint32_t dim[3], int64_t lin, uint32_t out[3])
{
  out[0] = (uint32_t)(lin % dim[0]);
  out[1] = (uint32_t)(lin / dim[0] % dim[1]);
  out[2] = (uint32_t)(lin / dim[0] / dim[1]);
}

static void race(simt_x *x, simt_buf *b, int lane, uint64_t tag, uint64_t other, int64_t bo, dg_span sp)
{
  bool a1 = other >> GS_ATOMIC & 1, a2 = tag >> GS_ATOMIC & 1;
  int64_t oblk = (int64_t)GS_BLOCK(other) - 1;
  int64_t othr = (int64_t)(other >> GS_THREAD & 0x3ff);
  int64_t es = b->elem ? dom_tysize(b->elem) : 0;
  char el[48];
  if (es > 0 && bo % es == 0) snprintf(el, sizeof el, "%lld", (long long)(bo / es));
  else snprintf(el, sizeof el, "byte %lld", (long long)bo);
  simt_event *e = simt_report(x, SIMT_EV_RACE, sp, lane,
                              "%s of %s[%s] by two blocks of one launch, not both atomic: the value depends on "
                              "which block stores last", a1 ? "atomic-write" : a2 ? "write-atomic" : "write-write",
                              b->name, el);
  if (!e) return;
  uint64_t si = other >> GS_SPAN & 0x1fff;
  e->span2 = si < (uint64_t)x->gspn ? x->gsp[si] : sp;
  e->thread2 = othr, e->xblock = true, e->block2 = oblk;
  coords(x->gdim, oblk, e->bidx2);
  coords(x->bdim, othr, e->tidx2);
  e->buf = b->mem.id, e->off = bo, e->size = b->ggran, e->write = true;
}

void simt_gsh_store(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, const uint8_t *nb, dg_span sp)
{
  int64_t c0, c1;
  if (!span_cells(b, o, size, &c0, &c1)) return;
  uint64_t *c = simt_gsh_cells(x, b), tag = simt_gsh_tag(x, b, lane, sp);
  int g = b->ggran;
  bool told = false;
  for (int64_t ci = c0; ci < c1; ci++) {
    uint64_t old = c[ci];
    c[ci] = tag;
    if (told || old >> GS_GEN != b->ggen || GS_BLOCK(old) == GS_BLOCK(tag) || (old & tag) >> GS_ATOMIC & 1) continue;
    int64_t bo = ci * g;
    if (!memcmp(nb + (bo - o), b->mem.bytes + bo, (size_t)g)) continue;    /* the same value: benign */
    race(x, b, lane, tag, old, bo, sp);
    told = true;
  }
}
