/* simt_fuse.c — a compound assignment between two shared arrays indexed by
 * threadIdx.x (a tree reduction's step: sh[threadIdx.x] += sh[threadIdx.x + k])
 * as one operation (concrete domain only).
 *
 * The tree walk of ev_assign spends most of such a step on its index
 * expressions — threadIdx.x and the cast and sum around it, each one node
 * dispatch, one uniform-program attempt and one lane loop, twice — before
 * the three accesses (the right side's load, the old value, the store).
 * Here the two address vectors come straight from the lane numbers (a block
 * of one dimension: lane i's threadIdx.x is i) and the uniform offsets, and
 * the three accesses are the walk's own calls of simt_mem_access, in its
 * order, with the same spans, types, masks and addresses: bounds,
 * initialisation, races and the read log see exactly what they saw. The
 * index nodes are counted as the walk counts them (each node times the
 * active lanes). Nothing is done (NULL) when the shape or the state is not
 * the one handled: the caller walks the tree as before. */
/* the lane loops should vectorise (see simt_mem.c) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#include "simt_int.h"
#include <string.h>

/* A uniform u32 offset: a literal, a uniform register, or a uniform program
 * (pure). Counts its nodes as the walk would; false: not one now. */
static bool uni_u32(simt_x *x, const dg_expr *e, const msk *k, uint64_t *u)
{
  if (e->type->kind != DG_TY_U32) return false;
  int l = msk_first(k).lo;
  dom_val v;
  if (e->kind == DG_EX_INT) {
    v = simt_uni_const(x, e->type, e->ival, 0, false);
  } else if (e->kind == DG_EX_VAR && (e->var->kind == DG_VAR_LOCAL || e->var->kind == DG_VAR_PARAM)) {
    int s = e->var->slot;
    if (!x->fr->reg[s] || !x->fr->runi[s]) return false;
    v = x->fr->reg[s][l];
  } else if (e->kind == DG_EX_BINARY || e->kind == DG_EX_UNARY || e->kind == DG_EX_CAST) {
    /* both count the nodes under the root */
    if (!simt_uni_castreg(x, e, k, &v) && !simt_uni_run(x, e, k, &v)) return false;
  } else {
    return false;
  }
  x->lane_ops += (uint64_t)k->cnt;                     /* the root */
  *u = (uint64_t)(uint32_t)v;
  return true;
}

static bool is_tid(const dg_expr *e)
{
  return e->kind == DG_EX_BUILTIN && e->op == DG_BI_THREADIDX && e->dim == 0 && e->type->kind == DG_TY_U32;
}

/* threadIdx.x, threadIdx.x + u or u + threadIdx.x (u32): *u the offset. */
static bool tid_index(simt_x *x, const dg_expr *e, const msk *k, uint64_t *u)
{
  if (is_tid(e)) {
    x->lane_ops += (uint64_t)k->cnt;
    *u = 0;
    return true;
  }
  if (e->kind != DG_EX_BINARY || e->op != DG_BIN_ADD || e->type->kind != DG_TY_U32) return false;
  const dg_expr *o = is_tid(e->a) ? e->b : is_tid(e->b) ? e->a : NULL;
  if (!o || !uni_u32(x, o, k, u)) return false;
  x->lane_ops += 2 * (uint64_t)k->cnt;                 /* the sum and threadIdx.x */
  return true;
}

/* The buffer of a shared (or __device__) array variable indexed directly. */
static int array_buf(simt_x *x, const dg_expr *ix)
{
  const dg_expr *a = ix->a;
  if (ix->kind != DG_EX_INDEX || a->kind != DG_EX_VAR || a->type->kind != DG_TY_ARRAY || !a->var
      || a->var->kind == DG_VAR_LOCAL || a->var->kind == DG_VAR_PARAM)
    return 0;
  return simt_var_buf(x, a->var);
}

/* Lane i's address of element (uint32)(i + u) of buffer b: lval_of's bits. */
SIMT_LANES static int64_t *tid_addrs(simt_x *x, const msk *k, int b, uint64_t u, int64_t es)
{
  const uint64_t lm = (1ull << DOM_PTR_OFFBITS) - 1, ub = dom_ptr((uint32_t)b, 0);
  int64_t *a = simt_alloc(x, sizeof *a * (size_t)x->n);
  uint64_t *restrict ap = (uint64_t *)a;
  const int lo = k->lo, hi = k->hi;
  if (u + (uint64_t)hi <= UINT32_MAX && (u + (uint64_t)hi) * (uint64_t)es <= lm) {
    /* no index wraps, no offset leaves the buffer's bits: ub + (i + u) * es */
    uint64_t ad = ub + (u + (uint64_t)lo) * (uint64_t)es, ues = (uint64_t)es;
    for (int i = lo; i < hi; i++, ad += ues) ap[i] = ad;      /* an induction: it vectorises */
    return a;
  }
  for (int i = lo; i < hi; i++)
    ap[i] = (ub & ~lm) | ((ub + (uint64_t)(uint32_t)((uint64_t)i + u) * (uint64_t)es) & lm);
  return a;
}

/* sh[threadIdx.x + ul] op= sh2[threadIdx.x + ur]: its buffers, offsets and kind */
typedef struct { int lb, rb; uint64_t ul, ur; int64_t es; dg_tykind kd; } fshape;

/* e's shape now, its index nodes counted (with the right side's index
 * node); false: not this shape, nothing counted. */
static bool fuse_shape(simt_x *x, const dg_expr *e, const msk *k, fshape *fs)
{
  const dg_expr *l = e->a, *r = e->b;
  if (!x->ident || x->trace_lane >= 0 || x->gm || x->stop || x->pk || x->bdim[1] != 1 || x->bdim[2] != 1
      || l->kind != DG_EX_INDEX || r->kind != DG_EX_INDEX)
    return false;
  dg_tykind kd = l->type->kind;
  if (r->type->kind != kd || e->type->kind != kd
      || !(kd == DG_TY_F32 ? e->op == DG_BIN_ADD || e->op == DG_BIN_SUB || e->op == DG_BIN_MUL || e->op == DG_BIN_DIV
           : (kd == DG_TY_I32 || kd == DG_TY_U32) && (e->op == DG_BIN_ADD || e->op == DG_BIN_SUB || e->op == DG_BIN_MUL)))
    return false;
  int lb = array_buf(x, l), rb = lb ? array_buf(x, r) : 0;
  if (!rb) return false;
  uint64_t ops0 = x->lane_ops, ul, ur;
  if (!tid_index(x, l->b, k, &ul) || !tid_index(x, r->b, k, &ur)) {
    x->lane_ops = ops0;                                 /* the walk counts them again */
    return false;
  }
  x->lane_ops += (uint64_t)k->cnt;                     /* the right side's index node */
  *fs = (fshape){ lb, rb, ul, ur, simt_tysize(l->type), kd };
  return true;
}

dom_val *simt_fuse_assign(simt_x *x, const dg_expr *e, msk *k)
{
  const dg_expr *l = e->a, *r = e->b;
  fshape fs;
  if (!fuse_shape(x, e, k, &fs)) return NULL;
  int lb = fs.lb, rb = fs.rb;
  uint64_t ul = fs.ul, ur = fs.ur;
  int64_t es = fs.es;
  dom_val *v = simt_vals(x, r->type), *old = simt_vals(x, l->type), *res = simt_vals(x, l->type);
  /* no index wraps: lane i's offsets are (i + u) * es, consecutive from lane
   * lo's; simt_mem_run makes the accesses without address vectors where it
   * can, each one on its own (the earlier ones may have reported) */
  const uint64_t lm = (1ull << DOM_PTR_OFFBITS) - 1, hi = (uint64_t)k->hi;
  bool lrun = ul + hi <= UINT32_MAX && (ul + hi) * (uint64_t)es <= lm;
  bool rrun = ur + hi <= UINT32_MAX && (ur + hi) * (uint64_t)es <= lm;
  int64_t lo0 = (int64_t)(ul + (uint64_t)k->lo) * es, ro0 = (int64_t)(ur + (uint64_t)k->lo) * es;
  int64_t *la = NULL, *ra = NULL;
  if (!rrun || !simt_mem_run(x, r->span, r->type, k, rb, ro0, v, false))
    ra = tid_addrs(x, k, rb, ur, es), simt_mem_access(x, r->span, r->type, k, ra, v, false);
  if (!lrun || !simt_mem_run(x, l->span, l->type, k, lb, lo0, old, false))
    la = tid_addrs(x, k, lb, ul, es), simt_mem_access(x, l->span, l->type, k, la, old, false);
  simt_fast_bin(e->op, fs.kd, k->lo, k->hi, res, old, v, SIMT_VV);
  if (!lrun || !simt_mem_run(x, e->span, l->type, k, lb, lo0, res, true)) {
    if (!la) la = tid_addrs(x, k, lb, ul, es);
    simt_mem_access(x, e->span, l->type, k, la, res, true);
  }
  return res;
}

bool simt_fuse_if(simt_x *x, const dg_stmt *s, msk *k)
{
  const dg_stmt *th = s->then;
  if (s->els || !th || th->kind != DG_ST_EXPR || !th->e || k->cnt != k->hi - k->lo || x->gm || x->trace_lane >= 0)
    return false;
  const dg_expr *e = th->e;
  if (e->kind != DG_EX_ASSIGN || e->op == DG_BIN_NONE || e->a->kind != DG_EX_INDEX || e->b->kind != DG_EX_INDEX)
    return false;
  uint64_t ops0 = x->lane_ops;
  int cl, ch;
  if (!simt_tid_range(x, s->e, k, &cl, &ch)) return false;
  if (ch > cl) {
    msk t = { k->b, cl, ch, ch - cl };        /* k is dense: its bytes are t's in [cl, ch) */
    simt_mark mk = simt_mark_get(x);
    x->lane_ops += (uint64_t)t.cnt;           /* the assignment's node (st_expr's simt_eval_u) */
    dom_val *r = simt_fuse_assign(x, e, &t);
    simt_mark_release(x, mk);
    if (!r) {                                 /* nothing done: the walk counts it all again */
      x->lane_ops = ops0;
      return false;
    }
    x->uni = x->thin = false, x->u_node = x->t_node = NULL;   /* as simt_eval_u leaves them */
  }
  return true;
}

/* ---- a tree reduction's iteration ----------------------------------------------- */
static bool is_barrier(const dg_stmt *s)
{
  const dg_expr *e = s->e;
  return s->kind == DG_ST_EXPR && e && e->kind == DG_EX_INTRIN && e->op >= 0 && e->op < DG_IN__COUNT
      && dg_intrins[e->op].cls == DG_IC_SYNC_BLOCK;
}

/* The step fs for lanes [cl, ch), followed by the barrier, leaves no trace
 * in the race shadow: the interval holds no access to its buffers yet (the
 * read log is empty, no cell of either buffer was touched, none stored to)
 * and the lanes' cells are their own (two buffers, one offset, or ranges
 * apart), so the walk's three accesses would wait in the read log
 * (race_wait, log_fits) and the barrier would drop them. Both buffers are
 * written throughout (no uninitialised read), the offsets in bounds. */
static bool quiet_step(simt_x *x, const fshape *fs, int cl, int ch)
{
  const simt_buf *L = &x->m->bufs.v[fs->lb], *R = &x->m->bufs.v[fs->rb];
  const uint64_t lm = (1ull << DOM_PTR_OFFBITS) - 1, es = (uint64_t)fs->es, end = (uint64_t)ch;
  const uint32_t ep = x->epoch;
  if (L->kind != BK_SHARED || R->kind != BK_SHARED || !L->race || !R->race || x->in_atomic || !L->all_init
      || !R->all_init || L->readonly || L->writer || R->writer || L->wrapped || R->wrapped
      || (uint64_t)L->gran != es || (uint64_t)R->gran != es
      || L->wepoch == ep || L->cepoch == ep || R->wepoch == ep || R->cepoch == ep)
    return false;
  if (fs->ul + end > UINT32_MAX || (fs->ul + end) * es > lm || (fs->ul + end) * es > (uint64_t)L->mem.size
      || fs->ur + end > UINT32_MAX || (fs->ur + end) * es > lm || (fs->ur + end) * es > (uint64_t)R->mem.size)
    return false;
  if (fs->lb == fs->rb && fs->ul != fs->ur && (fs->ul > fs->ur ? fs->ul - fs->ur : fs->ur - fs->ul) < end - (uint64_t)cl)
    return false;
  return true;
}

/* its loads, operation and store as the walk's fast paths make them */
#define QLD(T, conv, src) do { \
    for (int i = cl; i < ch; i++) { T v_; memcpy(&v_, (src) + (size_t)(i - cl) * sizeof v_, sizeof v_); d_[i] = (conv); } \
  } while (0)
#define QLOAD(src) do { \
    switch (kd) { \
    case DG_TY_F32: QLD(float, dom_of_f((double)v_), src); break; \
    case DG_TY_I32: QLD(int32_t, (dom_val)(int64_t)v_, src); break; \
    default: QLD(uint32_t, (dom_val)v_, src); break; \
    } } while (0)
SIMT_LANES static void quiet_run(simt_x *x, int op, const fshape *fs, int cl, int ch)
{
  simt_mark mk = simt_mark_get(x);
  simt_buf *L = &x->m->bufs.v[fs->lb];
  const simt_buf *R = &x->m->bufs.v[fs->rb];
  dom_val *v = simt_alloc(x, sizeof *v * (size_t)x->n), *old = simt_alloc(x, sizeof *v * (size_t)x->n);
  dom_val *res = simt_alloc(x, sizeof *v * (size_t)x->n), *d_;
  const dg_tykind kd = fs->kd;
  uint8_t *lp = L->mem.bytes + (fs->ul + (uint64_t)cl) * (uint64_t)fs->es;
  const uint8_t *rp = R->mem.bytes + (fs->ur + (uint64_t)cl) * (uint64_t)fs->es;
  d_ = v;
  QLOAD(rp);
  d_ = old;
  QLOAD(lp);
  simt_fast_bin(op, kd, cl, ch, res, old, v, SIMT_VV);
  if (kd == DG_TY_F32)
    for (int i = cl; i < ch; i++) { float f = (float)dom_f(res[i]); memcpy(lp + (size_t)(i - cl) * 4, &f, 4); }
  else
    for (int i = cl; i < ch; i++) { uint32_t u = (uint32_t)res[i]; memcpy(lp + (size_t)(i - cl) * 4, &u, 4); }
  L->wepoch = x->epoch;                 /* the store's mark (its cells wait, then are dropped) */
  simt_mark_release(x, mk);
}
#undef QLOAD
#undef QLD

bool simt_fuse_tree(simt_x *x, const dg_stmt *b, msk *k)
{
  if (b->kind != DG_ST_BLOCK || b->nbody != 2 || x->rlog_n || !is_barrier(b->body[1])) return false;
  const dg_stmt *s = b->body[0], *th = s->then;
  if (s->kind != DG_ST_IF || s->els || !th || th->kind != DG_ST_EXPR || !th->e || k->cnt != k->hi - k->lo
      || x->gm || x->trace_lane >= 0 || x->stop)
    return false;
  const dg_expr *e = th->e;
  if (e->kind != DG_EX_ASSIGN || e->op == DG_BIN_NONE) return false;
  uint64_t ops0 = x->lane_ops;
  int cl, ch;
  if (!simt_tid_range(x, s->e, k, &cl, &ch)) return false;
  if (ch > cl) {
    msk t = { k->b, cl, ch, ch - cl };        /* k is dense: its bytes are t's in [cl, ch) */
    fshape fs;
    x->lane_ops += (uint64_t)t.cnt;           /* the assignment's node (st_expr's simt_eval_u) */
    if (!fuse_shape(x, e, &t, &fs) || !quiet_step(x, &fs, cl, ch)) {
      x->lane_ops = ops0;                     /* nothing done: the walk counts it all again */
      return false;
    }
    quiet_run(x, e->op, &fs, cl, ch);
    x->uni = x->thin = false, x->u_node = x->t_node = NULL;   /* as simt_eval_u leaves them */
  }
  /* the barrier (a new interval, the log dropped) as st_expr runs it: its
   * node counted, no uniform value */
  simt_mark mk = simt_mark_get(x);
  x->uni = x->thin = false, x->lane_ops += (uint64_t)k->cnt, x->u_node = x->t_node = NULL;
  simt_intrin(x, b->body[1]->e, k);
  simt_mark_release(x, mk);
  return true;
}

/* The right side of a loop step v op= r: an integer literal or a uniform
 * register of a scalar type, as ev_assign's simt_eval_u leaves it (one value);
 * false: not one of these now. */
static bool step_rhs(simt_x *x, const dg_expr *r, int l, dom_val *b)
{
  dg_tykind kd = r->type->kind;
  if (kd < DG_TY_BOOL || kd > DG_TY_F64) return false;
  if (r->kind == DG_EX_INT) { *b = simt_uni_const(x, r->type, r->ival, 0, false); return true; }
  if (r->kind != DG_EX_VAR || !r->var || (r->var->kind != DG_VAR_LOCAL && r->var->kind != DG_VAR_PARAM)) return false;
  int s = r->var->slot;
  if (!x->fr->reg[s] || !x->fr->runi[s]) return false;
  *b = x->fr->reg[s][l];
  return true;
}

SIMT_LANES bool simt_fuse_step(simt_x *x, const dg_expr *e, const msk *k)
{
  const dg_expr *v = e->a;
  bool inc = e->kind == DG_EX_INCDEC;
  if ((!inc && (e->kind != DG_EX_ASSIGN || e->op == DG_BIN_NONE)) || !x->ident || x->gm || x->trace_lane >= 0
      || x->stop || !k->cnt || v->kind != DG_EX_VAR || (v->var->kind != DG_VAR_LOCAL && v->var->kind != DG_VAR_PARAM)
      || (v->type->kind != DG_TY_I32 && v->type->kind != DG_TY_U32))
    return false;
  int s = v->var->slot, l = msk_first(k).lo;
  dom_val *reg = x->fr->reg[s], b = 1;
  if (!reg || !x->fr->runi[s] || (!inc && !step_rhs(x, e->b, l, &b))) return false;
  if (!inc && (e->op == DG_BIN_DIV || e->op == DG_BIN_MOD) && (b == 0 || (int64_t)b == -1))
    return false;                      /* maybe undefined: ev_assign reports it */
  if (!inc) {
    /* v op= r (k >>= 1, s /= 2, i += stride): ev_assign's uniform path;
     * the node and its right side counted as simt_eval_u counts them */
    const dg_type *tb = e->b->type;
    if (tb->kind != v->type->kind && e->op != DG_BIN_SHL && e->op != DG_BIN_SHR)
      b = simt_uni_cast(x, DG_CAST_CONVERT, v->type, tb, b);
    x->lane_ops += (uint64_t)k->cnt;
  }
  x->lane_ops += (uint64_t)k->cnt;                     /* the node (its variable is an lvalue: not counted) */
  dom_val nv = simt_uni_bin(x, e->op, v->type, reg[l], b);
  simt_fill_uni(x, s, v->type, k, nv);
  return true;
}

SIMT_LANES void simt_fill_uni(simt_x *x, int slot, const dg_type *t, const msk *k, dom_val v)
{
  dom_val *reg = x->fr->reg[slot];
  const int lo = k->lo, hi = k->hi;           /* locals: the stores must not reload them */
  if (k->cnt == hi - lo) {
#pragma GCC unroll 4
    for (int i = lo; i < hi; i++) reg[i] = v;
  }
  else {                                      /* a blend: it vectorises */
    const uint8_t *b = k->b;
    for (int i = lo; i < hi; i++) { dom_val m = 0 - (dom_val)b[i]; reg[i] = (v & m) | (reg[i] & ~m); }
  }
  simt_reg_wrote(x, slot, t, k, true);
}
