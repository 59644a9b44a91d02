/* simt_pack.c — block packing: several consecutive blocks of a launch run as
 * one lane vector (a "pack"), so the walk's cost per node is shared by more
 * lanes. Exact, or not done:
 *   - only where the blocks cannot see each other but through global memory:
 *     the concrete domain, the natural block order (seed 0, no block list),
 *     no trace, step hook or deadline, no shared or __device__ memory, no
 *     barrier, warp operation, atomic or assert, no wrapped buffer (simt_pack_plan);
 *   - global memory: within a pack a user buffer is either loaded or stored,
 *     never both, and no byte is stored by two of its blocks; a buffer's
 *     first store in the launch snapshots it (bytes, shadow, writer map);
 *   - anything else (every event, a conflict, a snapshot over budget) stops
 *     the packed run at once (simt_pack_abort): the buffers are restored and
 *     the launch runs block by block as if packing had never been tried
 *     (simt.c run_packed). Packs run in block order, so what one pack sees
 *     of the packs before it is what the blocks would see one at a time.
 * With no conflict, every block computes what it computes alone: its lanes
 * read only bytes no block of its pack writes, its stores land in the same
 * order among themselves, and nothing else is shared; the lanes counted are
 * the sum of the blocks' (every node counts its active lanes). */
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

/* a pack fills 512 lanes (conv2d's 32-thread blocks: 256 lanes took 1.38 /
 * 142 ms, 512 1.20 / 121 ms, 1024 slower where blockIdx.z starts to vary);
 * blocks of more than 128 threads fill the vectors alone */
enum { PACK_LANES = 512, PACK_BLOCK_MAX = 128, PACK_BUDGET = 64 << 20 };

typedef struct {
  uint32_t id;
  uint8_t *bytes, *init, *nw;
  int64_t *writer;
  bool all_init;
} pk_snap;

struct simt_pack {
  jmp_buf jb;
  uint32_t seq;            /* the pack running now, from 1 */
  int nuser;
  uint32_t *rd, *wr;       /* per user buffer: the last pack that loaded / stored it */
  uint32_t **tag;          /* per user buffer, per byte: seq << 8 | block in pack + 1 of its last store */
  bool *snapped;
  DG_VEC(pk_snap) snaps;
  int64_t spent;           /* bytes of snapshots and tags */
};

/* ---- which launches pack ----------------------------------------------------- */
typedef DG_VEC(const dg_func *) pk_funcs;
static bool ok_func(const dg_func *f, pk_funcs *seen);

static bool ok_expr(const dg_expr *e, pk_funcs *seen)
{
  if (!e) return true;
  if (e->kind == DG_EX_INTRIN) {
    if (e->op < 0 || e->op >= DG_IN__COUNT) return false;
    switch (dg_intrins[e->op].cls) {
    case DG_IC_SYNC_BLOCK: case DG_IC_SYNC_WARP: case DG_IC_ASSERT:
    case DG_IC_WARP_SHFL: case DG_IC_WARP_SHFL_UP: case DG_IC_WARP_SHFL_DOWN: case DG_IC_WARP_SHFL_XOR:
    case DG_IC_WARP_BALLOT: case DG_IC_WARP_ANY: case DG_IC_WARP_ALL: case DG_IC_WARP_ACTIVEMASK:
    case DG_IC_ATOMIC_ADD: case DG_IC_ATOMIC_SUB: case DG_IC_ATOMIC_MAX: case DG_IC_ATOMIC_MIN:
    case DG_IC_ATOMIC_EXCH: case DG_IC_ATOMIC_CAS: case DG_IC_ATOMIC_AND: case DG_IC_ATOMIC_OR:
      return false;
    default: break;
    }
  }
  if (e->kind == DG_EX_VAR && e->var && e->var->kind != DG_VAR_LOCAL && e->var->kind != DG_VAR_PARAM)
    return false;
  if (e->kind == DG_EX_CALL && (!e->func || !ok_func(e->func, seen))) return false;
  if (!ok_expr(e->a, seen) || !ok_expr(e->b, seen) || !ok_expr(e->c, seen)) return false;
  for (int i = 0; i < e->nargs; i++)
    if (!ok_expr(e->args[i], seen)) return false;
  return true;
}

static bool ok_stmt(const dg_stmt *s, pk_funcs *seen)
{
  if (!s) return true;
  if (!ok_expr(s->e, seen) || !ok_expr(s->step, seen)) return false;
  for (int i = 0; i < s->ninits; i++)
    if (!ok_expr(s->inits[i], seen)) return false;
  if (!ok_stmt(s->init, seen) || !ok_stmt(s->then, seen) || !ok_stmt(s->els, seen)) return false;
  for (int i = 0; i < s->nbody; i++)
    if (!ok_stmt(s->body[i], seen)) return false;
  if (s->kind == DG_ST_DECL && s->var && s->var->kind != DG_VAR_LOCAL && s->var->kind != DG_VAR_PARAM) return false;
  return true;
}

static bool ok_func(const dg_func *f, pk_funcs *seen)
{
  for (size_t i = 0; i < seen->n; i++)
    if (seen->v[i] == f) return true;
  dg_vec_push(seen, f);
  return f->nshared == 0 && ok_stmt(f->body, seen);
}

int simt_pack_plan(simt_x *x, const dg_func *k, const simt_launch *L, int64_t cnt)
{
  simt *m = x->m;
  if (!x->ident || L->seed || L->blocks || L->deadline > 0 || L->max_lane_ops || L->shared_bytes > 0 || m->tracing || m->step_fn
      || x->n % 32 || x->n > PACK_BLOCK_MAX || cnt < 2)
    return 1;
  for (int i = 0; i < m->nnopack; i++)
    if (m->nopack[i] == k) return 1;
  /* a wrapped buffer (a lazily filled reservation, emu_lazy.h) is filled
   * and evicted in the order it is touched: blocks run one by one */
  for (int i = 1; i < m->nuser; i++)
    if (m->bufs.v[i].wrapped) return 1;
  pk_funcs seen = {0};
  bool ok = ok_func(k, &seen);
  dg_vec_free(&seen);
  if (!ok) return 1;
  int64_t kb = PACK_LANES / x->n;
  return (int)(kb < cnt ? kb : cnt);
}

/* ---- a packed run ------------------------------------------------------------------ */
simt_pack *simt_pack_new(simt_x *x)
{
  simt_pack *p = dg_calloc(1, sizeof *p);
  p->nuser = x->m->nuser;
  p->rd = dg_calloc((size_t)p->nuser, sizeof *p->rd);
  p->wr = dg_calloc((size_t)p->nuser, sizeof *p->wr);
  p->tag = dg_calloc((size_t)p->nuser, sizeof *p->tag);
  p->snapped = dg_calloc((size_t)p->nuser, sizeof *p->snapped);
  return p;
}

jmp_buf *simt_pack_jb(simt_pack *p) { return &p->jb; }

void simt_pack_begin(simt_x *x, int64_t first, int nb)
{
  x->pk->seq++;
  x->n = nb * x->nb1;
  x->nwarps = x->n / 32;
  x->all.lo = 0, x->all.hi = x->all.cnt = x->n;
  x->block = first;
  uint32_t c0[3] = {0}, c[3];
  x->pvary = 0;
  for (int j = 0; j < nb; j++) {
    int64_t lin = first + j;
    c[0] = (uint32_t)(lin % x->gdim[0]);
    c[1] = (uint32_t)(lin / x->gdim[0] % x->gdim[1]);
    c[2] = (uint32_t)(lin / x->gdim[0] / x->gdim[1]);
    for (int d = 0; d < 3; d++) {
      if (j == 0) c0[d] = c[d];
      else if (c[d] != c0[d]) x->pvary |= (uint8_t)(1 << d);
      for (int l = j * x->nb1; l < (j + 1) * x->nb1; l++) x->pbid[d][l] = c[d];
    }
  }
}

static void pk_free(simt_pack *p)
{
  for (int i = 0; i < p->nuser; i++) free(p->tag[i]);
  for (size_t i = 0; i < p->snaps.n; i++) {
    pk_snap *s = &p->snaps.v[i];
    free(s->bytes), free(s->init), free(s->writer), free(s->nw);
  }
  dg_vec_free(&p->snaps);
  free(p->rd), free(p->wr), free(p->tag), free(p->snapped), free(p);
}

void simt_pack_done(simt_x *x, bool undo)
{
  simt_pack *p = x->pk;
  simt *m = x->m;
  if (undo) {
    for (size_t i = p->snaps.n; i-- > 0;) {
      pk_snap *s = &p->snaps.v[i];
      simt_buf *b = &m->bufs.v[s->id];
      size_t sz = (size_t)b->mem.size;
      memcpy(b->mem.bytes, s->bytes, sz);
      if (s->init) memcpy(b->init, s->init, sz);
      if (s->writer) memcpy(b->writer, s->writer, sz * sizeof *b->writer), memcpy(b->nwriters, s->nw, sz);
      b->all_init = s->all_init;
    }
    /* the next launch of this kernel does not try again */
    if (m->nnopack < (int)(sizeof m->nopack / sizeof *m->nopack)) m->nopack[m->nnopack++] = x->kfunc;
    else m->nopack[m->nnopack - 1] = x->kfunc;
  }
  pk_free(p);
  x->pk = NULL;
}

void simt_pack_abort(simt_x *x) { longjmp(x->pk->jb, 1); }

static void spend(simt_x *x, simt_pack *p, int64_t bytes)
{
  if (p->spent + bytes > PACK_BUDGET) simt_pack_abort(x);
  p->spent += bytes;
}

/* the buffer's bytes, shadow and writer map as before its first store */
static void snap(simt_x *x, simt_pack *p, uint32_t id)
{
  simt_buf *b = &x->m->bufs.v[id];
  size_t sz = (size_t)b->mem.size;
  spend(x, p, (int64_t)sz * (1 + (b->init != NULL) + (b->writer ? 9 : 0)));
  pk_snap s = { .id = id, .all_init = b->all_init };
  s.bytes = dg_malloc(sz ? sz : 1);
  memcpy(s.bytes, b->mem.bytes, sz);
  if (b->init) s.init = dg_malloc(sz ? sz : 1), memcpy(s.init, b->init, sz);
  if (b->writer) {
    s.writer = dg_malloc(sizeof *s.writer * (sz ? sz : 1)), memcpy(s.writer, b->writer, sz * sizeof *s.writer);
    s.nw = dg_malloc(sz ? sz : 1), memcpy(s.nw, b->nwriters, sz);
  }
  dg_vec_push(&p->snaps, s);
  p->snapped[id] = true;
}

void simt_pack_load1(simt_x *x, uint32_t id)
{
  simt_pack *p = x->pk;
  if (id == 0 || id >= (uint32_t)p->nuser) return;
  if (p->wr[id] == p->seq) simt_pack_abort(x);
  p->rd[id] = p->seq;
}

void simt_pack_access(simt_x *x, const msk *k, const int64_t *addr, int64_t size, bool write)
{
  simt_pack *p = x->pk;
  const uint8_t *b = k->b;
  int lo = k->lo, hi = k->hi;
  while (lo < hi && !b[lo]) lo++;
  if (lo >= hi) return;
  if (!write) {
    /* usually one buffer for every lane: one test */
    uint64_t id0 = (uint64_t)addr[lo] >> DOM_PTR_OFFBITS, acc = 0;
    for (int i = lo; i < hi; i++) acc |= (((uint64_t)addr[i] >> DOM_PTR_OFFBITS) ^ id0) & (0 - (uint64_t)b[i]);
    if (!acc) { simt_pack_load1(x, (uint32_t)dom_ptr_buf((dom_val)addr[lo])); return; }
    for (int i = lo; i < hi; i++)
      if (b[i]) simt_pack_load1(x, dom_ptr_buf((dom_val)addr[i]));
    return;
  }
  for (int i = lo; i < hi; i++) {
    if (!b[i]) continue;
    uint32_t id = dom_ptr_buf((dom_val)addr[i]);
    if (id == 0 || id >= (uint32_t)p->nuser) continue;    /* locals (one lane's) and null: their own checks */
    if (p->rd[id] == p->seq) simt_pack_abort(x);
    if (!p->snapped[id]) snap(x, p, id);
    p->wr[id] = p->seq;
    simt_buf *lb = &x->m->bufs.v[id];
    int64_t o = dom_ptr_off((dom_val)addr[i]);
    if (o < 0 || o + size > lb->mem.size) continue;       /* out of bounds: the access reports it */
    if (!p->tag[id]) {
      spend(x, p, lb->mem.size * 4);
      p->tag[id] = dg_calloc((size_t)(lb->mem.size ? lb->mem.size : 1), sizeof **p->tag);
    }
    uint32_t *t = p->tag[id] + o, mine = p->seq << 8 | (uint32_t)(i / x->nb1 + 1);
    for (int64_t j = 0; j < size; j++) {
      if (t[j] >> 8 == (p->seq & 0xffffff) && t[j] != mine) simt_pack_abort(x);
      t[j] = mine;
    }
  }
}
