/* simt_mask.c — lane masks and the branches that make them: a branch splits
 * the active lanes into those where the condition holds and those where it
 * does not (a uniform concrete condition sends them all one way without a
 * per-lane test); lanes a symbolic domain cannot decide go both ways under a
 * data-dependent guard, and writes under a guard keep the old value where it
 * is false. */
/* The lane loops are the engine's hot path and vectorise well; -O2 of GCC 12
 * vectorises only loops without a remainder, so this file asks for more. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#include "simt_int.h"
#include <string.h>

/* ---- masks ---------------------------------------------------------------- */
msk msk_new(simt_x *x)
{
  msk k = { simt_alloc(x, (size_t)x->n), 0, 0, 0 };
  memset(k.b, 0, (size_t)x->n);
  return k;
}

msk msk_copy(simt_x *x, const msk *a)
{
  msk k = *a;
  k.b = simt_alloc(x, (size_t)x->n);
  memcpy(k.b, a->b, (size_t)x->n);
  return k;
}

/* Mask bytes are 0 or 1: eight lanes are counted at once. */
void msk_fix(msk *k)
{
  const uint8_t *b = k->b;
  int i = k->lo, e = k->hi, cnt = 0;
  for (; i + 8 <= e; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    cnt += (int)((w * 0x0101010101010101ull) >> 56);
  }
  for (; i < e; i++) cnt += b[i];
  int lo = 0, hi = 0;
  if (cnt) {                       /* the first and last lanes set, skipping eight clear lanes a word */
    lo = k->lo, hi = k->hi;
    uint64_t w;
    while (lo + 8 <= hi && (memcpy(&w, b + lo, 8), !w)) lo += 8;
    while (!b[lo]) lo++;
    while (hi - 8 >= lo && (memcpy(&w, b + hi - 8, 8), !w)) hi -= 8;
    while (!b[hi - 1]) hi--;
  }
  k->lo = lo, k->hi = hi, k->cnt = cnt;
}

/* ---- branches --------------------------------------------------------------------- */
/* threadIdx.x < v (<=, >, >=) with v one unsigned value in every lane, in a
 * block of one dimension (lane i's threadIdx.x is i): a reduction's
 * `if (tid < s)`. The lanes where it holds are one range: the masks are
 * k cut at its ends, without the compare's vector. The nodes are counted as
 * the walk counts them (the comparison, threadIdx, v's nodes); v is a
 * literal, a uniform register, or a uniform program (pure: trying it has no
 * effect). false: not this form, nothing done. */
bool simt_tid_range(simt_x *x, const dg_expr *cond, const msk *k, int *pcl, int *pch)
{
  const dg_expr *a = cond->a, *v = cond->b;
  if (cond->kind != DG_EX_BINARY || !x->ident || x->trace_lane >= 0 || x->stop || x->pk || x->bdim[1] != 1 || x->bdim[2] != 1
      || (cond->op != DG_BIN_LT && cond->op != DG_BIN_LE && cond->op != DG_BIN_GT && cond->op != DG_BIN_GE)
      || a->kind != DG_EX_BUILTIN || a->op != DG_BI_THREADIDX || a->dim != 0 || a->type->kind != DG_TY_U32
      || v->type->kind != DG_TY_U32)
    return false;
  int l = msk_first(k).lo;
  dom_val bv;
  uint64_t n = (uint64_t)k->cnt;
  if (v->kind == DG_EX_INT) {
    bv = simt_uni_const(x, v->type, v->ival, 0, false);
    x->lane_ops += n;
  } else if (v->kind == DG_EX_VAR && (v->var->kind == DG_VAR_LOCAL || v->var->kind == DG_VAR_PARAM)
             && x->fr->reg[v->var->slot] && x->fr->runi[v->var->slot]) {
    bv = x->fr->reg[v->var->slot][l];
    x->lane_ops += n;
  } else if ((v->kind == DG_EX_BINARY || v->kind == DG_EX_UNARY || v->kind == DG_EX_CAST)
             && (simt_uni_castreg(x, v, k, &bv) || simt_uni_run(x, v, k, &bv))) {
    x->lane_ops += n;                          /* v's root, as simt_eval_u counts it */
  } else {
    return false;
  }
  x->lane_ops += 2 * n;                        /* the comparison and threadIdx.x */
  int64_t u = (int64_t)(uint32_t)bv, tl, th;   /* lanes [tl, th) hold */
  switch (cond->op) {
  case DG_BIN_LT: tl = 0, th = u; break;
  case DG_BIN_LE: tl = 0, th = u + 1; break;
  case DG_BIN_GT: tl = u + 1, th = INT64_MAX; break;
  default: tl = u, th = INT64_MAX; break;
  }
  const int lo = k->lo, hi = k->hi;
  *pcl = tl > lo ? (tl < hi ? (int)tl : hi) : lo, *pch = th < hi ? (th > *pcl ? (int)th : *pcl) : hi;
  return true;
}

static bool tid_range(simt_x *x, const dg_expr *cond, msk *k, msk *t, msk *f)
{
  int cl, ch;
  if (!simt_tid_range(x, cond, k, &cl, &ch)) return false;
  const int lo = k->lo, hi = k->hi;
  /* t: k's lanes in [cl, ch); f: the others */
  memset(t->b + lo, 0, (size_t)(cl - lo)), memcpy(t->b + cl, k->b + cl, (size_t)(ch - cl)), memset(t->b + ch, 0, (size_t)(hi - ch));
  memcpy(f->b + lo, k->b + lo, (size_t)(cl - lo)), memset(f->b + cl, 0, (size_t)(ch - cl)), memcpy(f->b + ch, k->b + ch, (size_t)(hi - ch));
  if (k->cnt == hi - lo) {                     /* dense: the counts and bounds are the ranges' */
    t->lo = cl, t->hi = ch, t->cnt = ch - cl;
    if (!t->cnt) t->lo = t->hi = 0;
    f->cnt = k->cnt - t->cnt;
    f->lo = cl > lo ? lo : ch, f->hi = ch < hi ? hi : cl;
    if (!f->cnt) f->lo = f->hi = 0;
  } else {
    t->lo = f->lo = lo, t->hi = f->hi = hi;
    msk_fix(t), msk_fix(f);
  }
  return true;
}

SIMT_LANES static void branch_(simt_x *x, const dg_expr *cond, msk *k, msk *t, msk *f, simt_split *sp)
{
  /* only [lo, hi) of the new masks is ever read */
  t->b = simt_alloc(x, (size_t)x->n), f->b = simt_alloc(x, (size_t)x->n);
  t->lo = f->lo = k->lo, t->hi = f->hi = k->hi;
  if (sp) sp->any = false;
  if (!k->cnt) { t->cnt = f->cnt = 0, t->hi = f->hi = t->lo; return; }
  if (tid_range(x, cond, k, t, f)) return;
  dom_val *c = simt_eval_u(x, cond, k);
  uint8_t *o = simt_alloc(x, (size_t)x->n), both = 0;
  const uint8_t *restrict kb = k->b;
  uint8_t *restrict tb = t->b, *restrict fb = f->b;
  if (x->uni) {
    /* a uniform concrete condition (maybe thin): every active lane goes one way, as c_branch says */
    msk one = msk_first(k);
    bool v = simt_isfloat(cond->type) ? dom_f(c[one.lo]) != 0 : c[one.lo] != 0;
    size_t w = (size_t)(k->hi - k->lo);
    memcpy((v ? tb : fb) + k->lo, kb + k->lo, w);
    memset((v ? fb : tb) + k->lo, 0, w);
    if (kb[k->lo] && kb[k->hi - 1]) {        /* k is tight: msk_fix would find k's own bounds */
      msk *on = v ? t : f, *off = v ? f : t;
      on->lo = k->lo, on->hi = k->hi, on->cnt = k->cnt;
      off->lo = off->hi = off->cnt = 0;
      return;
    }
  } else if (x->ident && !simt_isfloat(cond->type)) {
    /* the concrete domain's integers and pointers: true is nonzero, never
     * both; the false lanes are k's lanes that are not true, eight a word
     * (the bounds are locals: stores of bytes could change k->hi, and the
     * loops would not vectorise) */
    const int lo = k->lo, hi = k->hi;
    const dom_val *restrict cv = c;
    if (cond->type->kind == DG_TY_BOOL)     /* 0 or 1 already: a byte each */
      for (int i = lo; i < hi; i++) tb[i] = kb[i] & (uint8_t)cv[i];
    else
      for (int i = lo; i < hi; i++) tb[i] = kb[i] & (cv[i] != 0);
    int i = lo;
    for (; i + 8 <= hi; i += 8) {
      uint64_t a, t;
      memcpy(&a, kb + i, 8), memcpy(&t, tb + i, 8);
      a &= ~t;
      memcpy(fb + i, &a, 8);
    }
    for (; i < hi; i++) fb[i] = kb[i] & !tb[i];
  } else {
    x->d->branch(x->d, cond->type, SL(k), AT(c, k), AT(o, k));
    const uint8_t *restrict ob = o;
    for (int i = k->lo; i < k->hi; i++) {
      uint8_t a = kb[i], v = ob[i];
      tb[i] = a & (v != DOM_FALSE), fb[i] = a & (v != DOM_TRUE), both |= a & (v == DOM_BOTH);
    }
  }
  if (both && !sp) {
    for (int i = k->lo; i < k->hi; i++)
      if (k->b[i] && o[i] == DOM_BOTH) {
        simt_fatal(x, SIMT_EV_DATA_DEP, cond->span, i, "loop or warp vote depends on input data");
        break;
      }
  } else if (both) {
    sp->any = true;
    sp->both = msk_new(x);
    sp->both.lo = k->lo, sp->both.hi = k->hi;
    for (int i = k->lo; i < k->hi; i++) sp->both.b[i] = k->b[i] && o[i] == DOM_BOTH;
    msk_fix(&sp->both);
    sp->cv = simt_vals(x, x->t_bool);
    x->d->cast(x->d, DG_CAST_CONVERT, x->t_bool, cond->type, SL(&sp->both), AT(sp->cv, &sp->both), AT(c, &sp->both));
  }
  msk_fix(t), msk_fix(f);
}

void simt_branch(simt_x *x, const dg_expr *cond, msk *k, msk *t, msk *f) { branch_(x, cond, k, t, f, NULL); }

/* A loop's test: run keeps the lanes where cond holds, the others join done.
 * A uniform concrete condition (the common loop counter) moves all or none
 * without new masks; anything else is simt_branch. */
/* A uniform register or a literal of a 32-bit integer type as one value
 * (false: neither); literals wrapped as dom_concrete's const_int wraps them */
static inline bool uni_leaf(simt_x *x, const dg_expr *e, int l, dom_val *v)
{
  if (e->kind == DG_EX_INT) {
    *v = e->type->kind == DG_TY_I32 ? (dom_val)(int64_t)(int32_t)e->ival : (dom_val)(uint32_t)e->ival;
    return true;
  }
  if (e->kind != DG_EX_VAR || (e->var->kind != DG_VAR_LOCAL && e->var->kind != DG_VAR_PARAM)
      || !x->fr->reg[e->var->slot] || !x->fr->runi[e->var->slot] || e->type->kind == DG_TY_ARRAY)
    return false;
  *v = x->fr->reg[e->var->slot][l];
  return true;
}

/* i < n, i and n uniform registers or literals of a 32-bit integer type
 * (the common loop test): the comparison the loop's program would make,
 * without looking the program up and running it. */
static bool loop_cmp(simt_x *x, const dg_expr *cond, const msk *run, dom_val *v)
{
  dom_val a, b;
  int l = run->lo;                             /* run is tight: its first lane */
  dg_tykind kd = cond->a->type->kind;
  if (cond->kind != DG_EX_BINARY || cond->op < DG_BIN_EQ || cond->op > DG_BIN_GE
      || (kd != DG_TY_I32 && kd != DG_TY_U32) || cond->b->type->kind != kd
      || !uni_leaf(x, cond->a, l, &a) || !uni_leaf(x, cond->b, l, &b))
    return false;
  /* the slots hold the values sign- (i32) or zero-extended (u32): a 64-bit
   * comparison is the 32-bit one; only the truth of the answer is read */
  int64_t p = (int64_t)a, q = (int64_t)b;
  switch (cond->op) {
  case DG_BIN_EQ: *v = p == q; break;
  case DG_BIN_NE: *v = p != q; break;
  case DG_BIN_LT: *v = p < q; break;
  case DG_BIN_LE: *v = p <= q; break;
  case DG_BIN_GT: *v = p > q; break;
  default: *v = p >= q; break;
  }
  return true;
}

/* run[i] &= c[i] != 0 over [lo, hi) (bl: c a bool, 0 or 1), the lanes that
 * leave or-ed into dn; returns how many stay (the loops vectorise: no
 * branch, no bool) */
SIMT_LANES static int split_nz(const dom_val *restrict c, uint8_t *restrict rb, uint8_t *restrict dn, int lo, int hi,
                               bool bl)
{
  int cnt = 0;
  if (bl)
    for (int i = lo; i < hi; i++) {
      uint8_t a = rb[i], t = a & (uint8_t)c[i];
      dn[i] |= a & (uint8_t)~t, rb[i] = t;
      cnt += t;
    }
  else
    for (int i = lo; i < hi; i++) {
      uint8_t a = rb[i], t = a & (uint8_t)((c[i] | (0 - c[i])) >> 63);
      dn[i] |= a & (uint8_t)~t, rb[i] = t;
      cnt += t;
    }
  return cnt;
}

/* A loop test comparing a register that differs across lanes with a uniform
 * register or literal of the same 32-bit integer kind (a grid-stride loop's
 * c < C): compared and split in one pass, the comparison as the lane loops
 * make it (simt_lanes.c), its three nodes counted as simt_eval_u and
 * operand() count them. Returns the lanes that stay; -1: not this shape,
 * nothing done. */
#define CMP_LOOP(T, OP) do { \
    const T u_ = (T)u; \
    for (int i = lo; i < hi; i++) { \
      uint8_t a = rb[i], t = a & (uint8_t)((T)c[i] OP u_); \
      dn[i] |= a & (uint8_t)~t, rb[i] = t; \
      cnt += t; \
    } } while (0)
#define CMP_OPS(T) do { \
    switch (op) { \
    case DG_BIN_EQ: CMP_LOOP(T, ==); break; \
    case DG_BIN_NE: CMP_LOOP(T, !=); break; \
    case DG_BIN_LT: CMP_LOOP(T, <); break; \
    case DG_BIN_LE: CMP_LOOP(T, <=); break; \
    case DG_BIN_GT: CMP_LOOP(T, >); break; \
    default: CMP_LOOP(T, >=); break; \
    } } while (0)
SIMT_LANES static int cmp_split(simt_x *x, const dg_expr *cond, msk *run, uint8_t *restrict dn)
{
  const dg_expr *a = cond->a, *b = cond->b;
  dg_tykind kd = a->type->kind;
  int op = cond->op;
  if (cond->kind != DG_EX_BINARY || op < DG_BIN_EQ || op > DG_BIN_GE || (kd != DG_TY_I32 && kd != DG_TY_U32)
      || b->type->kind != kd || a->kind != DG_EX_VAR || (a->var->kind != DG_VAR_LOCAL && a->var->kind != DG_VAR_PARAM)
      || !x->fr->reg[a->var->slot] || x->fr->runi[a->var->slot])
    return -1;
  dom_val u;
  if (b->kind == DG_EX_INT) u = simt_uni_const(x, b->type, b->ival, 0, false);
  else if (b->kind == DG_EX_VAR && (b->var->kind == DG_VAR_LOCAL || b->var->kind == DG_VAR_PARAM)
           && x->fr->reg[b->var->slot] && x->fr->runi[b->var->slot])
    u = x->fr->reg[b->var->slot][msk_first(run).lo];
  else
    return -1;
  x->lane_ops += 3 * (uint64_t)run->cnt;     /* the comparison and its operands */
  x->uni = x->thin = false, x->u_node = x->t_node = NULL;   /* as simt_eval_u leaves them */
  const dom_val *restrict c = x->fr->reg[a->var->slot];
  uint8_t *restrict rb = run->b;
  const int lo = run->lo, hi = run->hi;
  int cnt = 0;
  if (kd == DG_TY_I32) CMP_OPS(int32_t);
  else CMP_OPS(uint32_t);
  return cnt;
}
#undef CMP_OPS
#undef CMP_LOOP

void simt_loop_test(simt_x *x, const dg_expr *cond, msk *run, uint8_t *done)
{
  if (x->ident && x->trace_lane < 0 && !x->stop && run->cnt && run->b[run->lo] && run->b[run->hi - 1]
      && (cond->kind == DG_EX_BINARY || cond->kind == DG_EX_UNARY || cond->kind == DG_EX_CAST)) {
    dom_val v;
    x->lane_ops += (uint64_t)run->cnt;        /* what simt_eval_u counts for the node itself */
    bool lc = loop_cmp(x, cond, run, &v);
    if (lc) x->lane_ops += 2 * (uint64_t)run->cnt;   /* its operands, as the program counts them */
    if (lc || simt_uni_run(x, cond, run, &v)) {
      if (simt_isfloat(cond->type) ? dom_f(v) != 0 : v != 0) return;
      msk_or(done, done, run->b, run->lo, run->hi);
      memset(run->b + run->lo, 0, (size_t)(run->hi - run->lo));
      run->cnt = 0, run->hi = run->lo;
      return;
    }
    x->lane_ops -= (uint64_t)run->cnt;
  }
  int cs = x->ident && x->trace_lane < 0 && !x->stop && run->cnt ? cmp_split(x, cond, run, done) : -1;
  if (cs >= 0) {
    run->cnt = cs;
    if (!cs) run->lo = run->hi = 0;           /* as msk_fix leaves an empty mask */
    else if (cs != run->hi - run->lo) msk_fix(run);
    return;
  }
  simt_mark mk = simt_mark_get(x);
  if (x->ident && !simt_isfloat(cond->type) && run->cnt) {
    /* concrete integers: true is nonzero and never both; the lanes are split
     * in place, in one pass (what branch_ and the or below do) */
    const dom_val *restrict c = simt_eval_u(x, cond, run);
    uint8_t *restrict rb = run->b, *restrict dn = done;
    const int lo = run->lo, hi = run->hi;     /* locals: the byte stores could change run->hi */
    if (x->uni) {
      if (c[msk_first(run).lo] == 0) {
        msk_or(done, done, rb, lo, hi);
        memset(rb + lo, 0, (size_t)(hi - lo));
      }
    } else {
      int cnt = split_nz(c, rb, dn, lo, hi, cond->type->kind == DG_TY_BOOL);
      if (cnt == hi - lo || !cnt) {           /* every lane stays (the bounds are exact) or none */
        run->cnt = cnt;
        if (!cnt) run->lo = run->hi = 0;      /* as msk_fix leaves an empty mask */
        simt_mark_release(x, mk);
        return;
      }
    }
    msk_fix(run);
    simt_mark_release(x, mk);
    return;
  }
  msk t, f;
  branch_(x, cond, run, &t, &f, NULL);
  msk_or(done, done, f.b, run->lo, run->hi);
  memcpy(run->b + run->lo, t.b + run->lo, (size_t)(run->hi - run->lo));
  msk_fix(run);
  simt_mark_release(x, mk);
}
void simt_branch2(simt_x *x, const dg_expr *cond, msk *k, msk *t, msk *f, simt_split *sp) { branch_(x, cond, k, t, f, sp); }

simt_guard simt_guard_push(simt_x *x, const simt_split *sp, bool then_side)
{
  simt_guard old = { x->gm, x->gv };
  if (!sp->any) return old;
  const msk *b = &sp->both;
  uint8_t *gm = simt_alloc(x, (size_t)x->n);
  dom_val *gv = simt_vals(x, x->t_bool), *c = sp->cv;
  if (old.gm) memcpy(gm, old.gm, (size_t)x->n), memcpy(gv, old.gv, sizeof *gv * (size_t)x->n);
  else memset(gm, 0, (size_t)x->n);
  if (!then_side) {
    c = simt_vals(x, x->t_bool);
    x->d->unop(x->d, DG_UN_NOT, x->t_bool, SL(b), AT(c, b), AT(sp->cv, b));
  }
  dom_val *fls = simt_const(x, x->t_bool, (msk *)b, 0), *g = simt_vals(x, x->t_bool);
  memcpy(g + b->lo, c + b->lo, sizeof *g * (size_t)(b->hi - b->lo));
  if (old.gm) {                  /* nested: old guard && this condition */
    msk inner = msk_new(x);
    inner.lo = b->lo, inner.hi = b->hi;
    for (int i = b->lo; i < b->hi; i++) inner.b[i] = b->b[i] && old.gm[i];
    msk_fix(&inner);
    if (inner.cnt) x->d->select(x->d, x->t_bool, SL(&inner), AT(g, &inner), AT(old.gv, &inner), AT(c, &inner), AT(fls, &inner));
  }
  for (int i = b->lo; i < b->hi; i++) if (b->b[i]) gm[i] = 1, gv[i] = g[i];
  x->gm = gm, x->gv = gv;
  return old;
}

void simt_guard_pop(simt_x *x, simt_guard g) { x->gm = g.gm, x->gv = g.gv; }

/* Writes of guarded lanes keep the old value where the guard is false. */
static void guard_merge(simt_x *x, const dg_type *t, const msk *k, dom_val *v, const dom_val *old)
{
  msk g = msk_new(x);
  g.lo = k->lo, g.hi = k->hi;
  for (int i = k->lo; i < k->hi; i++) g.b[i] = k->b[i] && x->gm[i];
  msk_fix(&g);
  if (!g.cnt) return;
  for (int c = 0; c < simt_ncomp(t); c++) {
    size_t o = (size_t)c * x->n;
    x->d->select(x->d, dom_comp(t, c), SL(&g), AT(v + o, &g), AT(x->gv, &g), AT(v + o, &g), AT(old + o, &g));
  }
}

dom_val *simt_guarded(simt_x *x, const dg_type *t, const msk *k, const dom_val *v, const dom_val *old)
{
  size_t sz = sizeof *v * (size_t)x->n * (size_t)simt_ncomp(t);
  dom_val *r = simt_alloc(x, sz);
  memcpy(r, v, sz);
  guard_merge(x, t, k, r, old);
  return r;
}

