/* simt_warp.c — builtin functions: barriers and fences, warp shuffles and
 * votes, atomics, __ldg, vector packing and the math classes (which the
 * domain computes). One handler per semantic class of builtins.def. */
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

typedef dom_val *(*in_fn)(simt_x *x, const dg_expr *e, msk *k);

static dom_val *arg(simt_x *x, const dg_expr *e, int i, msk *k) { return simt_eval(x, e->args[i], k); }

static int64_t *cargs(simt_x *x, const dg_expr *e, int i, msk *k)
{
  return simt_conc(x, e->args[i]->type, k, arg(x, e, i, k), e->args[i]->span);
}

static dom_val *from_ints(simt_x *x, const dg_type *t, msk *k, const int64_t *src)
{
  dom_val *r = simt_vals(x, t);
  if (k->cnt) x->d->const_int(x->d, t, SL(k), AT(r, k), AT(src, k));
  return r;
}

/* ---- barriers --------------------------------------------------------------------- */
static dom_val *in_syncthreads(simt_x *x, const dg_expr *e, msk *k)
{
  int missing = -1, arrived = 0, live = 0, i = 0;
  const simt_frame *top = x->fr;
  while (top->up) top = top->up;
  /* the kernel's frame counts the threads that have not exited (x->live);
   * the lanes here are among them: as many, and every one arrived */
  if (k->cnt == top->nlive) i = x->n;
  for (; i + 8 <= x->n; i += 8) {          /* mask bytes are 0/1: eight lanes a word */
    uint64_t l, b;
    memcpy(&l, x->live + i, 8), memcpy(&b, k->b + i, 8);
    live += (int)((l * 0x0101010101010101ull) >> 56);
    arrived += (int)(((l & b) * 0x0101010101010101ull) >> 56);
    if (missing < 0 && (l & ~b)) missing = i + __builtin_ctzll(l & ~b) / 8;
  }
  for (; i < x->n; i++) {
    live += x->live[i];
    arrived += x->live[i] && k->b[i];
    if (x->live[i] && !k->b[i] && missing < 0) missing = i;
  }
  if (missing >= 0) {
    simt_event *ev = simt_report(x, SIMT_EV_BARRIER_DIVERGENCE, e->span, k->lo,
                                 "__syncthreads reached by %d of %d threads; thread %d is elsewhere",
                                 arrived, live, missing);
    if (ev) ev->thread2 = missing;
  }
  x->epoch++;               /* a new barrier interval: the race shadow starts over */
  simt_race_drop(x);
  simt_shared_settle(x);
  return x->zeros;
}

static dom_val *in_syncwarp(simt_x *x, const dg_expr *e, msk *k)
{
  int64_t *mask = e->nargs > 0 ? cargs(x, e, 0, k) : NULL;
  if (x->rlog_n) simt_race_flush(x);     /* waiting loads keep the __syncwarp counts they saw */
  for (int w = k->lo / 32; w * 32 < k->hi; w++) {
    uint32_t active = 0, exist = 0, want = 0xffffffffu;
    for (int l = 0; l < 32 && w * 32 + l < x->n; l++) {
      int i = w * 32 + l;
      exist |= (uint32_t)x->live[i] << l;
      if (k->b[i]) active |= 1u << l, want = mask ? (uint32_t)mask[i] : want;
    }
    if (!active) continue;
    if (want & exist & ~active) {
      int l = __builtin_ctz(want & exist & ~active);
      simt_report(x, SIMT_EV_BARRIER_DIVERGENCE, e->span, w * 32 + __builtin_ctz(active),
                  "__syncwarp mask 0x%08x names lane %d, which did not arrive", want, l);
    }
    x->wsync[w]++;
  }
  return x->zeros;
}

static dom_val *in_nothing(simt_x *x, const dg_expr *e, msk *k)
{
  for (int i = 0; i < e->nargs; i++) arg(x, e, i, k);
  return e->type && e->type->kind != DG_TY_VOID ? simt_const(x, e->type, k, 0) : x->zeros;
}

/* __threadfence(): loads of other blocks' stores after it and an atomic are the
 * "last block" pattern, not races (simt_grace.c); the block-scope fence orders nothing
 * between blocks */
static dom_val *in_fence(simt_x *x, const dg_expr *e, msk *k)
{
  if (e->op == DG_IN___THREADFENCE) simt_gsh_fence(x);
  return in_nothing(x, e, k);
}

static dom_val *in_assert(simt_x *x, const dg_expr *e, msk *k)
{
  msk t, f;
  simt_branch(x, e->args[0], k, &t, &f);
  if (f.cnt) simt_report(x, SIMT_EV_ASSERT, e->span, f.lo, "assert failed in %d threads", f.cnt);
  return x->zeros;
}

/* ---- warp shuffles and votes --------------------------------------------------------- */
static dom_val *in_shfl(simt_x *x, const dg_expr *e, msk *k)
{
  dg_iclass c = dg_intrins[e->op].cls;
  int64_t *mask = cargs(x, e, 0, k);
  dom_val *var = simt_convert(x, e->type, e->args[1]->type, k, arg(x, e, 1, k));
  int64_t *sel = cargs(x, e, 2, k);
  int64_t *wid = e->nargs > 3 ? cargs(x, e, 3, k) : NULL;
  int nc = simt_ncomp(e->type);
  dom_val *r = simt_vals(x, e->type);
  for (int i = k->lo; i < k->hi && !x->stop; i++) {
    if (!k->b[i]) continue;
    int w = i / 32, li = i % 32;
    int64_t wd = wid ? wid[i] : 32;
    if (wd <= 0 || wd > 32 || (wd & (wd - 1))) wd = 32;
    int base = li & ~(int)(wd - 1), s = (int)sel[i], src = li;
    switch (c) {
    case DG_IC_WARP_SHFL: src = base + (s & (int)(wd - 1)); break;
    case DG_IC_WARP_SHFL_UP: src = li - base >= s ? li - s : li; break;
    case DG_IC_WARP_SHFL_DOWN: src = (int64_t)(li - base) + (uint32_t)s < wd ? li + s : li; break;
    default: src = li ^ (s & 31); if (src >= base + wd) src = li; break;
    }
    int sl = w * 32 + src;
    uint32_t m = (uint32_t)mask[i];
    if (!(m >> li & 1))
      simt_report(x, SIMT_EV_SHFL_INACTIVE, e->span, i, "calling lane %d is not in the mask 0x%08x", li, m);
    if (sl >= x->n || !k->b[sl] || !(m >> src & 1)) {
      simt_report(x, SIMT_EV_SHFL_INACTIVE, e->span, i, "lane %d reads lane %d, which is %s", li, src,
                  sl < x->n && k->b[sl] ? "not in the mask" : "inactive");
      sl = i;
    }
    for (int cc = 0; cc < nc; cc++) r[(size_t)cc * x->n + i] = var[(size_t)cc * x->n + sl];
  }
  return r;
}

static dom_val *in_vote(simt_x *x, const dg_expr *e, msk *k)
{
  dg_iclass c = dg_intrins[e->op].cls;
  int64_t *mask = c == DG_IC_WARP_ACTIVEMASK ? NULL : cargs(x, e, 0, k);
  uint8_t *p = NULL;
  if (c != DG_IC_WARP_ACTIVEMASK) {
    msk t, f;
    simt_branch(x, e->args[1], k, &t, &f);
    p = t.b;
  }
  int64_t *out = simt_alloc(x, sizeof *out * (size_t)x->n);
  for (int w = k->lo / 32; w * 32 < k->hi; w++) {
    uint32_t act = 0, yes = 0, m = 0xffffffffu;
    for (int l = 0; l < 32 && w * 32 + l < x->n; l++) {
      int i = w * 32 + l;
      if (!k->b[i]) continue;
      act |= 1u << l;
      if (mask) m = (uint32_t)mask[i];
      if (p && p[i]) yes |= 1u << l;
    }
    yes &= m & act;
    for (int l = 0; l < 32 && w * 32 + l < x->n; l++) {
      int i = w * 32 + l;
      switch (c) {
      case DG_IC_WARP_BALLOT: out[i] = yes; break;
      case DG_IC_WARP_ANY: out[i] = yes != 0; break;
      case DG_IC_WARP_ALL: out[i] = yes == (m & act); break;
      default: out[i] = act; break;
      }
    }
  }
  return from_ints(x, e->type, k, out);
}

/* ---- atomics: lane by lane, warps in x->worder ---------------------------------------- */
static dom_val *in_atomic(simt_x *x, const dg_expr *e, msk *k)
{
  dg_iclass c = dg_intrins[e->op].cls;
  const dg_type *t = e->type;
  int64_t *p = cargs(x, e, 0, k);
  dom_val *v = simt_convert(x, t, e->args[1]->type, k, arg(x, e, 1, k)), *cmp = NULL;
  if (c == DG_IC_ATOMIC_CAS) {
    cmp = v;
    v = simt_convert(x, t, e->args[2]->type, k, arg(x, e, 2, k));
  }
  dom_val *old = simt_vals(x, t), *nv = simt_vals(x, t), *eq = simt_vals(x, x->t_bool);
  msk one = msk_new(x);
  dom *d = x->d;
  x->in_atomic = true;
  for (int wi = 0; wi < x->nwarps && !x->stop; wi++) {
    int w = x->worder[wi];
    for (int i = w * 32; i < w * 32 + 32 && i < x->n; i++) {
      if (i < k->lo || i >= k->hi || !k->b[i]) continue;
      one.b[i] = 1, one.lo = i, one.hi = i + 1, one.cnt = 1;
      simt_race_atomic(x, i, p[i], simt_tysize(t), e->span);    /* against plain accesses (atomics skip the shadow) */
      simt_gsh_atomic(x, p[i], (c == DG_IC_ATOMIC_ADD || c == DG_IC_ATOMIC_SUB) && v[i]);   /* the "last block" pattern's counter */
      simt_mem_access(x, e->span, t, &one, p, old, false);
      const dom_val *args2[2] = { old + i, v + i };
      switch (c) {
      case DG_IC_ATOMIC_ADD: d->binop(d, DG_BIN_ADD, t, 1, one.b + i, nv + i, old + i, v + i); break;
      case DG_IC_ATOMIC_SUB: d->binop(d, DG_BIN_SUB, t, 1, one.b + i, nv + i, old + i, v + i); break;
      case DG_IC_ATOMIC_AND: d->binop(d, DG_BIN_AND, t, 1, one.b + i, nv + i, old + i, v + i); break;
      case DG_IC_ATOMIC_OR: d->binop(d, DG_BIN_OR, t, 1, one.b + i, nv + i, old + i, v + i); break;
      case DG_IC_ATOMIC_MAX: d->math(d, DG_IC_MATH_MAX, t, t, 2, 1, one.b + i, nv + i, args2); break;
      case DG_IC_ATOMIC_MIN: d->math(d, DG_IC_MATH_MIN, t, t, 2, 1, one.b + i, nv + i, args2); break;
      case DG_IC_ATOMIC_CAS:
        d->binop(d, DG_BIN_EQ, t, 1, one.b + i, eq + i, old + i, cmp + i);
        d->select(d, t, 1, one.b + i, nv + i, eq + i, v + i, old + i);
        break;
      default: nv[i] = v[i]; break;     /* exchange */
      }
      simt_mem_access(x, e->span, t, &one, p, nv, true);
      one.b[i] = 0;
    }
  }
  x->in_atomic = false;
  return old;
}

/* ---- loads, vectors, conversions, math --------------------------------------------------- */
static dom_val *in_ldg(simt_x *x, const dg_expr *e, msk *k)
{
  int64_t *p = cargs(x, e, 0, k);
  dom_val *r = simt_vals(x, e->type);
  simt_mem_access(x, e->span, e->type, k, p, r, false);
  return r;
}

static dom_val *in_vecbuild(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val *r = simt_vals(x, e->type);
  const dg_type *et = simt_scalar(e->type);
  for (int c = 0; c < simt_ncomp(e->type) && c < e->nargs; c++) {
    dom_val *v = simt_convert(x, et, simt_scalar(e->args[c]->type), k, arg(x, e, c, k));
    memcpy(r + (size_t)c * x->n + k->lo, v + k->lo, sizeof *r * (size_t)(k->hi - k->lo));
  }
  return r;
}

static dom_val *in_part(simt_x *x, const dg_expr *e, msk *k)
{
  int c = dg_intrins[e->op].cls == DG_IC_VEC_HIGH ? 1 : 0;
  const dg_type *at = e->args[0]->type;
  dom_val *v = arg(x, e, 0, k);
  if (c >= simt_ncomp(at)) c = 0;
  return simt_convert(x, e->type, simt_scalar(at), k, v + (size_t)c * x->n);
}

static dom_val *in_bits(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val *v = arg(x, e, 0, k), *r = simt_vals(x, e->type);
  x->d->cast(x->d, DG_CAST_BITCAST, e->type, e->args[0]->type, SL(k), AT(r, k), AT(v, k));
  return r;
}

static dom_val *in_convert(simt_x *x, const dg_expr *e, msk *k)
{
  return simt_convert(x, e->type, e->args[0]->type, k, arg(x, e, 0, k));
}

/* Scalar arguments each one value in every lane (rsqrtf(red[0] / C + eps)):
 * the function runs in the first lane only and its result is thin (the
 * caller reads that lane, simt_eval fills the rest). */
static bool math_args(simt_x *x, const dg_expr *e, int na, msk *k, dom_val **a)
{
  bool uni = x->ident && simt_ncomp(e->type) == 1, thin[3] = { false };
  for (int i = 0; i < na; i++) {
    a[i] = simt_eval_u(x, e->args[i], k);
    uni &= x->uni && simt_ncomp(e->args[i]->type) == 1;
    thin[i] = x->thin;
  }
  int l = msk_first(k).lo;
  if (!uni)
    for (int i = 0; i < na; i++)
      if (thin[i]) {
        int nc = e->args[i]->type->kind == DG_TY_ARRAY ? 1 : simt_ncomp(e->args[i]->type);
        for (int c = 0; c < nc; c++) {
          dom_val *rc = a[i] + (size_t)c * x->n, v = rc[l];
          for (int j = k->lo; j < k->hi; j++) rc[j] = v;
        }
      }
  return uni;
}

static dom_val *in_math(simt_x *x, const dg_expr *e, msk *k)
{
  dg_iclass c = dg_intrins[e->op].cls;
  int na = e->nargs < 3 ? e->nargs : 3;
  dom_val *a[3] = { 0 };
  const dg_type *t = na ? e->args[0]->type : e->type;
  bool uni = math_args(x, e, na, k, a);
  msk one, *kk = uni ? (one = msk_first(k), &one) : k;
  for (int i = 1; i < na; i++)
    if (e->args[i]->type != t) a[i] = simt_convert(x, t, e->args[i]->type, kk, a[i]);
  int nc = simt_ncomp(e->type);
  dom_val *r = simt_vals(x, e->type);
  for (int cc = 0; cc < nc; cc++) {
    const dom_val *s[3] = { 0 };
    for (int i = 0; i < na; i++) s[i] = AT(a[i] + (size_t)cc * x->n * (simt_ncomp(t) > 1), kk);
    if (!x->d->math(x->d, c, simt_scalar(e->type), simt_scalar(t), na, SL(kk), AT(r + (size_t)cc * x->n, kk), s)) {
      simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, dg_intrins[e->op].name);
      break;
    }
  }
  if (uni) x->u_node = x->t_node = e;
  return r;
}

static const in_fn in_tab[DG_IC__COUNT] = {
  [DG_IC_SYNC_BLOCK] = in_syncthreads, [DG_IC_SYNC_WARP] = in_syncwarp, [DG_IC_FENCE] = in_fence,
  [DG_IC_IGNORE] = in_nothing, [DG_IC_ASSERT] = in_assert,
  [DG_IC_WARP_SHFL] = in_shfl, [DG_IC_WARP_SHFL_UP] = in_shfl, [DG_IC_WARP_SHFL_DOWN] = in_shfl,
  [DG_IC_WARP_SHFL_XOR] = in_shfl, [DG_IC_WARP_BALLOT] = in_vote, [DG_IC_WARP_ANY] = in_vote,
  [DG_IC_WARP_ALL] = in_vote, [DG_IC_WARP_ACTIVEMASK] = in_vote,
  [DG_IC_ATOMIC_ADD] = in_atomic, [DG_IC_ATOMIC_SUB] = in_atomic, [DG_IC_ATOMIC_MAX] = in_atomic,
  [DG_IC_ATOMIC_MIN] = in_atomic, [DG_IC_ATOMIC_EXCH] = in_atomic, [DG_IC_ATOMIC_CAS] = in_atomic,
  [DG_IC_ATOMIC_AND] = in_atomic, [DG_IC_ATOMIC_OR] = in_atomic,
  [DG_IC_LOAD] = in_ldg, [DG_IC_VEC_BUILD] = in_vecbuild, [DG_IC_VEC_LOW] = in_part,
  [DG_IC_VEC_HIGH] = in_part, [DG_IC_CVT_BITS] = in_bits, [DG_IC_CVT_VALUE] = in_convert,
};

dom_val *simt_intrin(simt_x *x, const dg_expr *e, msk *k)
{
  if (e->op < 0 || e->op >= DG_IN__COUNT) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "unknown builtin");
    return x->zeros;
  }
  in_fn f = in_tab[dg_intrins[e->op].cls];
  return f ? f(x, e, k) : in_math(x, e, k);
}
