/* simt_expr.c — expressions over all lanes of a block at once (the compound
 * kinds: simt_compound.c; uniform programs: simt_uni.c). Each IR node
 * is one call into the domain over the active slice of the mask. Results
 * are read-only arrays of n (x components) slots: a register read hands out
 * the register itself, everything else scratch memory released by the
 * enclosing statement. Addresses are concrete pointer encodings.
 *
 * Uniform values (concrete domain only, a fast path the results never see):
 * constants, blockIdx/blockDim/gridDim, a kernel's parameters and registers
 * last written with one value under a mask holding every lane that can still
 * read them (frame.runi) hold one value in all active lanes. Unary, binary,
 * conversion and assignment nodes over such operands compute the first
 * active lane only; their result stays "thin" (that lane alone) while it
 * flows into other uniform nodes (eval_u), and simt_eval fills the active
 * range before anything reads it lane by lane. Every node is still
 * dispatched and counted as before, so traces and lane counts do not change. */
/* The lane loops are the engine's hot path and vectorise well; -O2 of GCC 12
 * vectorises only loops without a remainder, so this file asks for more. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

static const dg_type ty_ptr8 = { .kind = DG_TY_PTR, .name = "void *" };

dom_val *simt_const(simt_x *x, const dg_type *t, msk *k, int64_t v)
{
  dom_val *r = simt_vals(x, t);
  if (!k->cnt) return r;
  if (x->ident && simt_ncomp(t) == 1 && !simt_isfloat(t)) {
    /* the concrete domain maps lanes alone: convert one, fill the active range */
    static const uint8_t on = 1;
    dom_val w;
    x->d->const_int(x->d, t, 1, &on, &w, &v);
    for (int i = k->lo; i < k->hi; i++) r[i] = w;
    return r;
  }
  int64_t *src = NULL;
  for (int c = 0; c < simt_ncomp(t); c++) {     /* a struct's slots may differ in type */
    const dg_type *ct = dom_comp(t, c);
    dom_val *rc = r + (size_t)c * x->n;
    if (simt_isfloat(ct)) {
      x->d->const_float(x->d, ct, SL(k), AT(rc, k), (double)v);
      continue;
    }
    if (!src) {
      src = simt_alloc(x, sizeof *src * (size_t)x->n);
      for (int i = k->lo; i < k->hi; i++) src[i] = v;
    }
    x->d->const_int(x->d, ct, SL(k), AT(rc, k), AT(src, k));
  }
  return r;
}

dom_val *simt_const_vec(simt_x *x, const dg_type *t, msk *k, const int64_t *src)
{
  dom_val *r = simt_vals(x, t);
  if (k->cnt) x->d->const_int(x->d, t, SL(k), AT(r, k), AT(src, k));
  return r;
}

int64_t *simt_conc(simt_x *x, const dg_type *t, msk *k, const dom_val *v, dg_span sp)
{
  if (x->ident && !simt_isfloat(t)) return (int64_t *)v;
  int64_t *r = simt_alloc(x, sizeof *r * (size_t)x->n);
  if (!k->cnt) return r;
  int bad = x->d->concrete(x->d, t, SL(k), AT(v, k), AT(r, k));
  if (bad >= 0) {
    simt_fatal(x, SIMT_EV_DATA_DEP, sp, k->lo + bad, "address or count depends on input data");
    memset(r, 0, sizeof *r * (size_t)x->n);
  }
  return r;
}

/* d[i] = s[i] where b[i], lo <= i < hi: a blend, it vectorises (a gapped
 * mask: packed blocks' retired threads). Apart from simt_merge, which
 * stays inlinable (a clone is not). */
SIMT_LANES static void merge_gapped(dom_val *d, const dom_val *s, const uint8_t *b, int lo, int hi)
{
  for (int i = lo; i < hi; i++) { dom_val m = 0 - (dom_val)b[i]; d[i] = (s[i] & m) | (d[i] & ~m); }
}

void simt_merge(simt_x *x, dom_val *dst, const dom_val *src, const msk *k, int nc)
{
  bool dense = k->cnt == k->hi - k->lo;
  for (int c = 0; c < nc; c++) {
    size_t o = (size_t)c * x->n;
    if (dense) memmove(dst + o + k->lo, src + o + k->lo, sizeof *dst * (size_t)(k->hi - k->lo));
    else if (dst != src) merge_gapped(dst + o, src + o, k->b, k->lo, k->hi);
  }
}

static inline dom_val *operand(simt_x *x, const dg_expr *e, msk *k, bool *u, bool *t);
static void ufill(simt_x *x, dom_val *r, int nc, const msk *k, int l);

/* ---- lvalues ------------------------------------------------------------------ */
static bool is_lval(const dg_expr *e)
{
  return e->kind == DG_EX_VAR || e->kind == DG_EX_INDEX || e->kind == DG_EX_DEREF
      || ((e->kind == DG_EX_LANE || e->kind == DG_EX_FIELD) && is_lval(e->a));
}

static int64_t *addr_vec(simt_x *x, msk *k, uint32_t buf, bool per_lane)
{
  int64_t *a = simt_alloc(x, sizeof *a * (size_t)x->n);
  for (int i = k->lo; i < k->hi; i++) a[i] = (int64_t)dom_ptr(per_lane ? buf + (uint32_t)i : buf, 0);
  return a;
}

SIMT_LANES bool simt_lval_of(simt_x *x, const dg_expr *e, msk *k, simt_lval *lv)
{
  lv->t = e->type, lv->mem = false, lv->reg = NULL, lv->addr = NULL, lv->slot = lv->part = -1, lv->uaddr = false;
  switch (e->kind) {
  case DG_EX_VAR: {
    const dg_var *v = e->var;
    if (v->kind == DG_VAR_LOCAL || v->kind == DG_VAR_PARAM) {
      if (x->fr->reg[v->slot]) { lv->reg = x->fr->reg[v->slot], lv->slot = v->slot; return true; }
      lv->mem = true, lv->addr = addr_vec(x, k, (uint32_t)x->fr->obj[v->slot], true);
      return true;
    }
    int b = simt_var_buf(x, v);
    if (!b) { simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "variable not reachable from the kernel"); return false; }
    lv->mem = true, lv->addr = addr_vec(x, k, (uint32_t)b, false);
    return true;
  }
  case DG_EX_INDEX: {
    int64_t *base = NULL;
    bool bu = false;           /* a pointer base that is one value in every lane */
    uint64_t ub = 0;           /* base NULL: every lane's base is ub (a shared or __device__ array) */
    const dg_var *av = e->a->kind == DG_EX_VAR ? e->a->var : NULL;
    int avb;
    if (e->a->type->kind == DG_TY_ARRAY && av && av->kind != DG_VAR_LOCAL && av->kind != DG_VAR_PARAM
        && (avb = simt_var_buf(x, av)) != 0) {
      ub = dom_ptr((uint32_t)avb, 0);
    } else if (e->a->type->kind == DG_TY_ARRAY) {
      simt_lval al;
      if (!simt_lval_of(x, e->a, k, &al)) return false;
      if (!al.mem) { simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "array held in a register"); return false; }
      base = al.addr;
    } else {
      bool bt;
      dom_val *bv = operand(x, e->a, k, &bu, &bt);      /* operand_full, keeping "uniform" */
      if (bt) ufill(x, bv, 1, k, msk_first(k).lo);
      base = x->ident && !simt_isfloat(e->a->type) ? (int64_t *)bv : simt_conc(x, e->a->type, k, bv, e->a->span);
    }
    bool ui, ti;
    dom_val *iv = operand(x, e->b, k, &ui, &ti);
    int64_t es = simt_tysize(e->type);
    int64_t *a = simt_alloc(x, sizeof *a * (size_t)x->n);
    /* An index of any integer type, a size_t past 2^63 too, scales and adds
     * modulo 2^64 as the GPU's address arithmetic does: x[(size_t)-2] is
     * x[-2] (a size_t index >= 2^63 used to be placed far past the end, which
     * put a row pointer's row[(size_t)(j - 2)] at row[-1]). */
    const uint64_t lm = (1ull << DOM_PTR_OFFBITS) - 1;
    if (ui && !simt_isfloat(e->b->type)) {   /* a uniform concrete index: one offset for every lane */
      uint64_t d = (uint64_t)iv[msk_first(k).lo] * (uint64_t)es;
      const uint64_t *restrict bp = (const uint64_t *)base;
      uint64_t *restrict ap = (uint64_t *)a;
      if (!base) for (int i = k->lo; i < k->hi; i++) ap[i] = (ub & ~lm) | ((ub + d) & lm);
      else for (int i = k->lo; i < k->hi; i++) ap[i] = (bp[i] & ~lm) | ((bp[i] + d) & lm);
      lv->uaddr = !base || bu;
      lv->mem = true, lv->addr = a;
      return true;
    }
    if (ti) ufill(x, iv, 1, k, msk_first(k).lo);
    int64_t *idx = x->ident && !simt_isfloat(e->b->type) ? (int64_t *)iv : simt_conc(x, e->b->type, k, iv, e->b->span);
    if (!base) {
      const uint64_t *restrict ip = (const uint64_t *)idx;
      uint64_t *restrict ap = (uint64_t *)a, ues = (uint64_t)es;
      if (es > 0 && !(es & (es - 1))) {
        int sh = __builtin_ctzll(ues);
        for (int i = k->lo; i < k->hi; i++) ap[i] = (ub & ~lm) | ((ub + (ip[i] << sh)) & lm);
      } else {
        for (int i = k->lo; i < k->hi; i++) ap[i] = (ub & ~lm) | ((ub + ip[i] * ues) & lm);
      }
    } else {
      /* dom_ptr(buf, off + d): the buffer bits kept, the low bits wrap as the offset's */
      const uint64_t *restrict bp = (const uint64_t *)base, *restrict ip = (const uint64_t *)idx;
      uint64_t *restrict ap = (uint64_t *)a, ues = (uint64_t)es;
      if (es > 0 && !(es & (es - 1))) {      /* a power of two: a shift, which vectorises */
        int sh = __builtin_ctzll(ues);
        for (int i = k->lo; i < k->hi; i++) ap[i] = (bp[i] & ~lm) | ((bp[i] + (ip[i] << sh)) & lm);
      } else {
        for (int i = k->lo; i < k->hi; i++) ap[i] = (bp[i] & ~lm) | ((bp[i] + ip[i] * ues) & lm);
      }
    }
    lv->mem = true, lv->addr = a;
    return true;
  }
  case DG_EX_DEREF:
    lv->mem = true, lv->addr = simt_conc(x, e->a->type, k, simt_eval(x, e->a, k), e->a->span);
    return true;
  case DG_EX_LANE: {
    simt_lval al;
    if (!simt_lval_of(x, e->a, k, &al)) return false;
    if (!al.mem) { lv->reg = al.reg + (size_t)e->ival * x->n, lv->part = al.slot >= 0 ? al.slot : al.part; return true; }
    int64_t es = simt_tysize(e->type);
    int64_t *a = simt_alloc(x, sizeof *a * (size_t)x->n);
    for (int i = k->lo; i < k->hi; i++) a[i] = al.addr[i] + e->ival * es;
    lv->mem = true, lv->addr = a;
    return true;
  }
  case DG_EX_FIELD: {
    simt_lval al;
    if (!simt_lval_of(x, e->a, k, &al)) return false;
    const dg_field *f = &e->a->type->fields[e->ival];
    if (!al.mem) { lv->reg = al.reg + (size_t)f->slot * x->n, lv->part = al.slot >= 0 ? al.slot : al.part; return true; }
    int64_t *a = simt_alloc(x, sizeof *a * (size_t)x->n);
    for (int i = k->lo; i < k->hi; i++) a[i] = al.addr[i] + f->offset;
    lv->mem = true, lv->addr = a;
    return true;
  }
  default:
    simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "expression is not assignable");
    return false;
  }
}

static dom_val *lval_read(simt_x *x, const simt_lval *lv, msk *k, dg_span sp)
{
  if (!lv->mem) return lv->reg;
  dom_val *v = simt_vals(x, lv->t);
  simt_mem_access(x, sp, lv->t, k, lv->addr, v, false);
  return v;
}

/* A register read is uniform when its slot is (lval_write keeps the flags). */
static bool lval_uni(simt_x *x, const simt_lval *lv)
{
  return !lv->mem && lv->slot >= 0 && x->fr->runi[lv->slot];
}

static void lval_write(simt_x *x, const simt_lval *lv, msk *k, dom_val *v, dg_span sp, bool uni)
{
  if (lv->mem) simt_mem_access(x, sp, lv->t, k, lv->addr, v, true);
  else simt_merge(x, lv->reg, x->gm ? simt_guarded(x, lv->t, k, v, lv->reg) : v, k, simt_ncomp(lv->t));
  if (lv->slot >= 0) simt_reg_wrote(x, lv->slot, lv->t, k, uni);
  else if (lv->part >= 0) x->fr->runi[lv->part] = 0;     /* a lane or field of it changed */
}

void simt_reg_wrote(simt_x *x, int slot, const dg_type *t, const msk *k, bool uni)
{
  /* uniform: one value written to every lane that can still read the register */
  x->fr->runi[slot] = uni && x->ident && !x->gm && simt_ncomp(t) == 1 && k->cnt == x->fr->nlive;
}

/* ---- uniform values: one lane computed, the active range filled ------------------ */
static inline dom_val *uret(simt_x *x, const dg_expr *e, dom_val *r)
{
  x->u_node = e;
  return r;
}

/* A uniform result computed in the first active lane only: the caller of
 * eval_u reads that lane, simt_eval fills the rest. */
static inline dom_val *thin_ret(simt_x *x, const dg_expr *e, dom_val *r)
{
  x->u_node = x->t_node = e;
  return r;
}


static void ufill(simt_x *x, dom_val *r, int nc, const msk *k, int l)
{
  for (int c = 0; c < nc; c++) {
    dom_val *rc = r + (size_t)c * x->n, v = rc[l];
    for (int i = k->lo; i < k->hi; i++) rc[i] = v;
  }
}

/* ---- conversions --------------------------------------------------------------- */
dom_val *simt_convert(simt_x *x, const dg_type *to, const dg_type *from, msk *k, dom_val *v)
{
  if (to == from || to->kind == DG_TY_VOID) return v;
  if (to->kind == from->kind && to->kind != DG_TY_VEC) return v;
  dg_castkind ck = to->kind == DG_TY_PTR || from->kind == DG_TY_PTR || from->kind == DG_TY_ARRAY
                 ? DG_CAST_PTR : DG_CAST_CONVERT;
  if (from->kind == DG_TY_ARRAY) from = &ty_ptr8;
  int nc = simt_ncomp(to) < simt_ncomp(from) ? simt_ncomp(to) : simt_ncomp(from);
  if (x->ident && ck == DG_CAST_CONVERT && nc == 1 && to->kind != DG_TY_STRUCT && from->kind != DG_TY_STRUCT) {
    dg_tykind tk = simt_scalar(to)->kind, fk = simt_scalar(from)->kind;
    if (simt_cast_same(tk, fk)) return v;
    dom_val *r = simt_vals(x, to);
    if (simt_fast_cast(tk, fk, k->lo, k->hi, r, v)) return r;
  }
  dom_val *r = simt_vals(x, to);
  for (int c = 0; c < nc; c++)
    x->d->cast(x->d, ck, simt_scalar(to), simt_scalar(from), SL(k), AT(r + (size_t)c * x->n, k),
               AT(v + (size_t)c * x->n, k));
  return r;
}

/* ---- constants, cached per launch (block-dependent ones per block) ------------- */
static size_t kc_hash(const dg_expr *e, size_t cap)
{
  return (size_t)(((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
}

static void kc_grow(simt_x *x)
{
  size_t cap = x->kccap ? x->kccap * 2 : 256;
  simt_kc *t = dg_calloc(cap, sizeof *t);
  for (size_t i = 0; i < x->kccap; i++) {
    if (!x->kc[i].e) continue;
    size_t h = kc_hash(x->kc[i].e, cap);
    while (t[h].e) h = (h + 1) & (cap - 1);
    t[h] = x->kc[i];
  }
  free(x->kc);
  x->kc = t, x->kccap = cap;
}

/* The slots cached for e; *fresh when the caller must (re)fill them. */
static dom_val *kc_get(simt_x *x, const dg_expr *e, int64_t block, bool *fresh)
{
  if (x->kcn * 2 >= x->kccap) kc_grow(x);
  size_t h = kc_hash(e, x->kccap);
  while (x->kc[h].e && x->kc[h].e != e) h = (h + 1) & (x->kccap - 1);
  simt_kc *c = &x->kc[h];
  *fresh = !c->e || c->block != block;
  if (!c->e) {
    c->e = e;
    c->v = dg_malloc(sizeof(dom_val) * (size_t)x->ncap * (size_t)simt_ncomp(e->type));
    x->kcn++;
  }
  c->block = block;
  return c->v;
}

/* ---- nodes ----------------------------------------------------------------------- */
typedef dom_val *(*ev_fn)(simt_x *x, const dg_expr *e, msk *k);

static dom_val *ev_int(simt_x *x, const dg_expr *e, msk *k)
{
  bool fresh;
  dom_val *r = kc_get(x, e, -1, &fresh);
  if (fresh) {
    dom_val *v = simt_const(x, e->type, &x->all, e->ival);
    memcpy(r, v, sizeof *r * (size_t)x->n * (size_t)simt_ncomp(e->type));
  }
  return uret(x, e, r);
}

static dom_val *ev_float(simt_x *x, const dg_expr *e, msk *k)
{
  bool fresh;
  dom_val *r = kc_get(x, e, -1, &fresh);
  if (fresh)
    for (int c = 0; c < simt_ncomp(e->type); c++)
      x->d->const_float(x->d, simt_scalar(e->type), x->n, x->all.b, r + (size_t)c * x->n, e->fval);
  return uret(x, e, r);
}

/* An operand: a register read or a literal is taken here, without the
 * dispatch (doing what simt_eval_u would: count the lanes, hand out the
 * register or the cached constant); anything else is evaluated. *u, *t:
 * uniform, thin. */
static inline dom_val *operand(simt_x *x, const dg_expr *e, msk *k, bool *u, bool *t)
{
  if (x->trace_lane < 0 && !x->stop) {
    if (e->kind == DG_EX_VAR && (e->var->kind == DG_VAR_LOCAL || e->var->kind == DG_VAR_PARAM)
        && x->fr->reg[e->var->slot] && e->type->kind != DG_TY_ARRAY) {
      x->lane_ops += (uint64_t)k->cnt;
      *u = x->ident && x->fr->runi[e->var->slot], *t = false;
      return x->fr->reg[e->var->slot];
    }
    if (e->kind == DG_EX_INT || e->kind == DG_EX_FLOAT) {
      x->lane_ops += (uint64_t)k->cnt;
      *u = x->ident, *t = false;
      return e->kind == DG_EX_INT ? ev_int(x, e, k) : ev_float(x, e, k);
    }
  }
  dom_val *r = simt_eval_u(x, e, k);
  *u = x->uni, *t = x->thin;
  return r;
}


static dom_val *ev_lvalue(simt_x *x, const dg_expr *e, msk *k)
{
  if (e->kind == DG_EX_VAR && (e->var->kind == DG_VAR_LOCAL || e->var->kind == DG_VAR_PARAM)
      && x->fr->reg[e->var->slot] && e->type->kind != DG_TY_ARRAY) {
    dom_val *r = x->fr->reg[e->var->slot];     /* a register read: the register itself */
    return x->fr->runi[e->var->slot] ? uret(x, e, r) : r;
  }
  if (e->kind == DG_EX_LANE && !is_lval(e->a)) {
    dom_val *v = simt_eval(x, e->a, k);
    return v + (size_t)e->ival * x->n;
  }
  if (e->kind == DG_EX_FIELD && !is_lval(e->a)) {   /* f().m, MD{a, b}.d: the field's slots */
    if (e->type->kind == DG_TY_ARRAY) {
      simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "array member of a struct value that is not a variable");
      return x->zeros;
    }
    dom_val *v = simt_eval(x, e->a, k);
    return v + (size_t)e->a->type->fields[e->ival].slot * x->n;
  }
  simt_lval lv;
  if (!simt_lval_of(x, e, k, &lv)) return x->zeros;
  if (e->type->kind == DG_TY_ARRAY)           /* an array as a value is its address */
    return lv.mem ? simt_const_vec(x, &ty_ptr8, k, lv.addr) : x->zeros;
  if (lv.uaddr && x->ident && !x->gm && x->trace_lane < 0) {
    dom_val *r = simt_uni_load(x, &lv, k, e->span);
    if (r) return thin_ret(x, e, r);
  }
  return lval_read(x, &lv, k, e->span);
}

static dom_val *ev_builtin(simt_x *x, const dg_expr *e, msk *k)
{
  int d = e->dim < 0 || e->dim > 2 ? 0 : e->dim;
  bool fresh;
  /* packed blocks (simt_pack.c): blockIdx per lane where it differs across
   * them; the cache keeps a packed run's vectors apart */
  bool vary = e->op == DG_BI_BLOCKIDX && (x->pvary >> d & 1);
  dom_val *r = kc_get(x, e, e->op == DG_BI_BLOCKIDX ? (x->pk ? -3 - x->block : x->block) : -1, &fresh);
  if (e->op != DG_BI_THREADIDX && !vary) uret(x, e, r);   /* the same in every thread of the block */
  if (!fresh) return r;
  dom_val *v;
  switch (e->op) {
  case DG_BI_THREADIDX: v = simt_const_vec(x, e->type, &x->all, x->tid[d]); break;
  case DG_BI_BLOCKIDX:
    v = vary ? simt_const_vec(x, e->type, &x->all, x->pbid[d]) : simt_const(x, e->type, &x->all, x->bidx[d]);
    break;
  case DG_BI_BLOCKDIM: v = simt_const(x, e->type, &x->all, x->bdim[d]); break;
  case DG_BI_GRIDDIM: v = simt_const(x, e->type, &x->all, x->gdim[d]); break;
  default: v = simt_const(x, e->type, &x->all, 32); break;
  }
  memcpy(r, v, sizeof *r * (size_t)x->n);
  return r;
}

static dom_val *ev_unary(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val *a = simt_eval_u(x, e->a, k), *r = simt_vals(x, e->type);
  bool uni = x->uni;
  msk one, *kk = uni ? (one = msk_first(k), &one) : k;
  int nc = simt_ncomp(e->type);
  for (int c = 0; c < nc; c++)
    x->d->unop(x->d, e->op, simt_scalar(e->a->type), SL(kk), AT(r + (size_t)c * x->n, kk), AT(a + (size_t)c * x->n, kk));
  return uni ? thin_ret(x, e, r) : r;
}

/* ---- integer division: the undefined cases ------------------------------------ */
/* An integer / or % by 0, and INT_MIN / -1 (INT_MIN % -1) of a signed type,
 * are undefined in C++; a GPU does not trap, the result is garbage. The
 * engine reports them as a `division-by-zero` finding and goes on with the
 * concrete domain's value (x / 0 all ones, x % 0 x, INT_MIN / -1 wrapped).
 * Divisors a domain cannot make concrete (the symbolic domain's input
 * terms) are the domain's to record (dom_sym_divisors: the checker asks the
 * solver for a zero and replays it here). */
static bool int_div(int op, const dg_type *t)
{
  return (op == DG_BIN_DIV || op == DG_BIN_MOD) && !simt_isfloat(simt_scalar(t))
      && simt_scalar(t)->kind != DG_TY_PTR;
}

static int64_t smallest(dg_tykind k)
{
  switch (k) {
  case DG_TY_I8: return INT8_MIN;
  case DG_TY_I16: return INT16_MIN;
  case DG_TY_I32: return INT32_MIN;
  case DG_TY_I64: return INT64_MIN;
  default: return 0;          /* unsigned: no overflow */
  }
}

/* Lane `lane`'s a op b of scalar type st: reported when undefined (true). */
static bool div_lane(simt_x *x, const dg_expr *e, int op, const dg_type *st, int lane, dom_val av, dom_val bv)
{
  static const uint8_t on = 1;
  if (x->stop) return false;    /* past a fatal event the operands are placeholder zeros */
  bool sg = dg_type_is_signed(st);
  int64_t ca = 0, cb, mn = sg ? smallest(st->kind) : 0;
  bool ka = true;
  if (x->ident) ca = (int64_t)av, cb = (int64_t)bv;
  else {
    if (x->d->concrete(x->d, st, 1, &on, &bv, &cb) >= 0) return false;
    ka = x->d->concrete(x->d, st, 1, &on, &av, &ca) < 0;
  }
  bool zero = cb == 0, ovf = mn && cb == -1 && ka && ca == mn;
  if (!zero && !ovf) return false;
  const char *what = op == DG_BIN_DIV ? "division" : "remainder", *sym = op == DG_BIN_DIV ? "/" : "%";
  char lhs[32] = "x";
  if (ka) snprintf(lhs, sizeof lhs, sg ? "%lld" : "%llu", (long long)ca);
  simt_report(x, SIMT_EV_DIV_ZERO, e->span, lane, "integer %s %s: %s %s %s (%s), undefined", what,
              zero ? "by zero" : "overflows", lhs, sym, zero ? "0" : "-1", ir_type_name(st));
  return true;
}

/* Every active lane of k (ua, ub: a's, b's value is the first active lane's). */
static void div_check(simt_x *x, const dg_expr *e, int op, const dg_type *t, const msk *k,
                      const dom_val *a, bool ua, const dom_val *b, bool ub)
{
  const dg_type *st = simt_scalar(t);
  int l0 = msk_first(k).lo, lo = ua && ub ? l0 : k->lo, hi = ua && ub ? l0 + 1 : k->hi;
  for (int c = 0, nc = simt_ncomp(t); c < nc; c++) {
    const dom_val *ac = a + (size_t)c * x->n, *bc = b + (size_t)c * x->n;
    for (int i = lo; i < hi; i++)
      if (k->b[i] && div_lane(x, e, op, st, i, ac[ua ? l0 : i], bc[ub ? l0 : i]))
        return;               /* one event a node (the engine folds repeats by span) */
  }
}

static dom_val *binop(simt_x *x, int op, const dg_type *ta, const dg_type *tb, const dg_type *tr,
                      msk *k, dom_val *a, dom_val *b)
{
  if (x->ident && ta->kind == tb->kind && (ta->kind == DG_TY_I32 || ta->kind == DG_TY_U32 || ta->kind == DG_TY_F32)
      && tr->kind != DG_TY_VEC && tr->kind != DG_TY_STRUCT) {
    dom_val *r = simt_vals(x, tr);
    if (simt_fast_bin(op, ta->kind, k->lo, k->hi, r, a, b, SIMT_VV)) return r;
  }
  if (ta->kind != DG_TY_PTR && tb->kind == DG_TY_PTR && op == DG_BIN_PTRADD) {
    dom_val *s = a; a = b, b = s;
    const dg_type *st = ta; ta = tb, tb = st;
  }
  if (ta->kind == DG_TY_PTR && (op == DG_BIN_ADD || op == DG_BIN_SUB) && tb->kind != DG_TY_PTR) {
    if (op == DG_BIN_SUB) {
      dom_val *nb = simt_vals(x, tb);
      x->d->unop(x->d, DG_UN_NEG, tb, SL(k), AT(nb, k), AT(b, k));
      b = nb;
    }
    op = DG_BIN_PTRADD;
  }
  if (ta->kind == DG_TY_PTR && op == DG_BIN_SUB) op = DG_BIN_PTRDIFF;
  if (op == DG_BIN_PTRADD && (tb->kind == DG_TY_U8 || tb->kind == DG_TY_U16 || tb->kind == DG_TY_U32)) {
    /* a domain reads a PTRADD's count as a signed 64-bit value: an unsigned
     * count (blockIdx.x * C is unsigned int) is zero-extended first, or a
     * symbolic domain whose 32-bit terms carry no signedness would read
     * 3e9 as -1.3e9 (the concrete domain's slots are extended already: no work there) */
    b = simt_convert(x, x->t_i64, tb, k, b);
  }
  dom_val *r = simt_vals(x, tr);
  for (int c = 0, nc = simt_ncomp(tr); c < nc; c++)
    x->d->binop(x->d, op, simt_scalar(ta), SL(k), AT(r + (size_t)c * x->n, k), AT(a + (size_t)c * x->n, k),
                AT(b + (size_t)c * x->n, k));
  return r;
}

/* A register read operand() takes without the dispatch. */
static inline bool reg_read(simt_x *x, const dg_expr *e)
{
  return e->kind == DG_EX_VAR && (e->var->kind == DG_VAR_LOCAL || e->var->kind == DG_VAR_PARAM)
      && x->fr->reg[e->var->slot] && e->type->kind != DG_TY_ARRAY;
}

/* (p + q) + r of one 32-bit integer kind, q a register that is not uniform
 * and r a uniform register or a literal (an index such as base + ow + kw):
 * addition wraps, so it is q + (p + r) with p + r one value when p is
 * uniform: one lane loop instead of two. p, q and r are evaluated and every
 * node counted as the tree walk does. NULL: not this shape. */
static dom_val *add3(simt_x *x, const dg_expr *e, msk *k)
{
  const dg_expr *in = e->a;
  dg_tykind kd = e->type->kind;
  if (e->op != DG_BIN_ADD || in->kind != DG_EX_BINARY || in->op != DG_BIN_ADD || (kd != DG_TY_I32 && kd != DG_TY_U32)
      || !x->ident || x->trace_lane >= 0 || x->stop || in->type->kind != kd || in->a->type->kind != kd
      || in->b->type->kind != kd || e->b->type->kind != kd || !reg_read(x, in->b) || x->fr->runi[in->b->var->slot]
      || !(e->b->kind == DG_EX_INT || (reg_read(x, e->b) && x->fr->runi[e->b->var->slot])))
    return NULL;
  x->lane_ops += (uint64_t)k->cnt;           /* the inner node, as simt_eval_u counts it */
  bool up, tp, uq, tq, ur, tr;
  dom_val *p = operand(x, in->a, k, &up, &tp);
  dom_val *q = operand(x, in->b, k, &uq, &tq);
  dom_val *r = operand(x, e->b, k, &ur, &tr);
  int l = msk_first(k).lo;
  dom_val *res = simt_vals(x, e->type);
  if (up) {
    dom_val sum = kd == DG_TY_I32 ? (dom_val)(int64_t)(int32_t)(p[l] + r[l]) : (dom_val)(uint32_t)(p[l] + r[l]);
    simt_fast_bin(DG_BIN_ADD, kd, k->lo, k->hi, res, &sum, q, SIMT_SV);
  } else {
    dom_val *t = simt_vals(x, in->type);
    simt_fast_bin(DG_BIN_ADD, kd, k->lo, k->hi, t, p, q, SIMT_VV);
    simt_fast_bin(DG_BIN_ADD, kd, k->lo, k->hi, res, t, r + l, SIMT_VS);
  }
  return res;
}

static dom_val *ev_binary(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val *r3 = add3(x, e, k);
  if (r3) return r3;
  bool ua, ta, ub, tb;
  dom_val *a = operand(x, e->a, k, &ua, &ta);
  dom_val *b = operand(x, e->b, k, &ub, &tb);
  if (int_div(e->op, e->a->type)) div_check(x, e, e->op, e->a->type, k, a, ua || ta, b, ub || tb);
  if (ua && ub) {                            /* both uniform: one lane */
    msk one = msk_first(k);
    return thin_ret(x, e, binop(x, e->op, e->a->type, e->b->type, e->type, &one, a, b));
  }
  dg_tykind kd = e->a->type->kind;
  if ((ua || ub) && x->ident && kd == e->b->type->kind && (kd == DG_TY_I32 || kd == DG_TY_U32 || kd == DG_TY_F32)) {
    int l = msk_first(k).lo;                 /* one uniform operand: taken as a scalar, not filled */
    dom_val *r = simt_vals(x, e->type);
    if (simt_fast_bin(e->op, kd, k->lo, k->hi, r, ua ? a + l : a, ub ? b + l : b, ua ? SIMT_SV : SIMT_VS))
      return r;
  }
  if (ta) ufill(x, a, simt_ncomp(e->a->type), k, msk_first(k).lo);
  if (tb) ufill(x, b, simt_ncomp(e->b->type), k, msk_first(k).lo);
  return binop(x, e->op, e->a->type, e->b->type, e->type, k, a, b);
}

/* A register the concrete domain may set with one value, lane by lane, without
 * the vector machinery: no guard, no trace, a scalar that is not a pointer. */
static bool fast_reg(simt_x *x, const simt_lval *lv)
{
  dg_tykind kd = lv->t->kind;
  return x->ident && !x->gm && x->trace_lane < 0 && !lv->mem && lv->slot >= 0
      && kd >= DG_TY_BOOL && kd <= DG_TY_F64;
}

/* The uniform value v written to every active lane of register lv (what
 * ufill + lval_write do); the node's value ret, thin. */
SIMT_LANES static dom_val *reg_set_uni(simt_x *x, const dg_expr *e, const simt_lval *lv, msk *k, dom_val v, dom_val ret)
{
  dom_val *reg = lv->reg;
  if (k->cnt == k->hi - k->lo) for (int i = k->lo; i < k->hi; i++) reg[i] = v;
  else for (int i = k->lo; i < k->hi; i++) if (k->b[i]) reg[i] = v;
  simt_reg_wrote(x, lv->slot, lv->t, k, true);
  dom_val *r = simt_vals(x, e->type);
  r[msk_first(k).lo] = ret;
  return thin_ret(x, e, r);
}

static dom_val *ev_assign(simt_x *x, const dg_expr *e, msk *k)
{
  if (e->op != DG_BIN_NONE && e->a->kind == DG_EX_INDEX && e->b->kind == DG_EX_INDEX) {
    dom_val *f = simt_fuse_assign(x, e, k);    /* sh[threadIdx.x] += sh[threadIdx.x + s] */
    if (f) return f;
  }
  simt_lval lv;
  if (!simt_lval_of(x, e->a, k, &lv)) return x->zeros;
  dom_val *v = simt_eval_u(x, e->b, k), *v0 = v;
  bool thin = x->thin, uni = x->uni && (e->op == DG_BIN_NONE || lval_uni(x, &lv));
  const dg_type *tb0 = e->b->type;
  if (uni && fast_reg(x, &lv) && tb0->kind >= DG_TY_BOOL && tb0->kind <= DG_TY_F64) {
    int l = msk_first(k).lo;
    dom_val b = v[l];
    const dg_type *ta = e->a->type;
    if (e->op != DG_BIN_NONE) {
      if (tb0->kind != ta->kind && e->op != DG_BIN_SHL && e->op != DG_BIN_SHR)
        b = simt_uni_cast(x, DG_CAST_CONVERT, ta, tb0, b);
      if (int_div(e->op, ta)) div_lane(x, e, e->op, ta, l, lv.reg[l], b);
      b = simt_uni_bin(x, e->op, ta, lv.reg[l], b);
    } else {
      b = simt_uni_cast(x, DG_CAST_CONVERT, ta, tb0, b);
    }
    return reg_set_uni(x, e, &lv, k, b, b);
  }
  msk one, *kk = k;                            /* uniform: one lane, filled before the write */
  if (uni) one = msk_first(k), kk = &one;
  else if (thin) ufill(x, v, simt_ncomp(e->b->type), k, msk_first(k).lo);
  if (e->op != DG_BIN_NONE) {
    dom_val *old = lval_read(x, &lv, k, e->a->span);
    const dg_type *tb = e->b->type;
    if (e->a->type->kind != DG_TY_PTR && tb->kind != e->a->type->kind && e->op != DG_BIN_SHL && e->op != DG_BIN_SHR)
      v = simt_convert(x, e->a->type, tb, kk, v), tb = e->a->type;
    if (int_div(e->op, e->a->type)) div_check(x, e, e->op, e->a->type, kk, old, false, v, false);
    v = binop(x, e->op, e->a->type, tb, e->a->type, kk, old, v);
  } else {
    v = simt_convert(x, e->a->type, e->b->type, kk, v);
  }
  if (uni && (v != v0 || thin)) ufill(x, v, simt_ncomp(e->a->type), k, kk->lo);
  lval_write(x, &lv, k, v, e->span, uni);
  return uni ? uret(x, e, v) : v;
}

static dom_val *ev_incdec(simt_x *x, const dg_expr *e, msk *k)
{
  simt_lval lv;
  if (!simt_lval_of(x, e->a, k, &lv)) return x->zeros;
  const dg_type *t = e->a->type;
  bool uni = lval_uni(x, &lv);
  if (uni && fast_reg(x, &lv)) {
    int l = msk_first(k).lo;
    /* 1 of an integer type is 1 in its slot (what const_int makes of it) */
    dom_val one = t->kind <= DG_TY_U64 ? 1 : simt_uni_const(x, t, 1, 0, false);
    dom_val old = lv.reg[l], nv = simt_uni_bin(x, e->op, t, old, one);
    return reg_set_uni(x, e, &lv, k, nv, e->post ? old : nv);
  }
  msk one, *kk = uni ? (one = msk_first(k), &one) : k;   /* uniform: one lane, then filled */
  dom_val *old = lval_read(x, &lv, k, e->a->span);
  if (e->post && !lv.mem) {                    /* the register is about to change */
    dom_val *cp = simt_vals(x, t);
    memcpy(cp, old, sizeof *cp * (size_t)x->n * (size_t)simt_ncomp(t));
    old = cp;
  }
  bool ptr = t->kind == DG_TY_PTR;
  dom_val *one_v = simt_const(x, ptr ? x->t_i64 : t, kk, ptr && e->op == DG_BIN_SUB ? -1 : 1);
  int op = ptr ? DG_BIN_PTRADD : e->op;
  dom_val *nv = simt_vals(x, t);
  x->d->binop(x->d, op, t, SL(kk), AT(nv, kk), AT(old, kk), AT(one_v, kk));
  if (uni) ufill(x, nv, 1, k, kk->lo);
  lval_write(x, &lv, k, nv, e->span, uni);
  return uni ? uret(x, e, e->post ? old : nv) : e->post ? old : nv;
}

static dom_val *ev_cast(simt_x *x, const dg_expr *e, msk *k)
{
  bool uni, thin;
  dom_val *a = operand(x, e->a, k, &uni, &thin);
  if (e->op == DG_CAST_CONVERT && uni) {     /* a uniform operand: one lane */
    msk one = msk_first(k);
    dom_val *r = simt_convert(x, e->type, e->a->type, &one, a);
    return r != a || thin ? thin_ret(x, e, r) : uret(x, e, r);
  }
  if (thin) ufill(x, a, simt_ncomp(e->a->type), k, msk_first(k).lo);
  if (e->op == DG_CAST_CONVERT) return simt_convert(x, e->type, e->a->type, k, a);
  if (simt_ncomp(e->type) != 1 || simt_ncomp(e->a->type) != 1) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "bit cast of a vector value");
    return x->zeros;
  }
  const dg_type *from = e->a->type->kind == DG_TY_ARRAY ? &ty_ptr8 : e->a->type;
  dom_val *r = simt_vals(x, e->type);
  x->d->cast(x->d, e->op, e->type, from, SL(k), AT(r, k), AT(a, k));
  return r;
}

static const ev_fn ev_tab[DG_EX__COUNT] = {
  [DG_EX_INT] = ev_int, [DG_EX_FLOAT] = ev_float, [DG_EX_VAR] = ev_lvalue,
  [DG_EX_BUILTIN] = ev_builtin, [DG_EX_UNARY] = ev_unary, [DG_EX_BINARY] = ev_binary,
  [DG_EX_LAND] = simt_ev_logic, [DG_EX_LOR] = simt_ev_logic, [DG_EX_COND] = simt_ev_cond,
  [DG_EX_ASSIGN] = ev_assign, [DG_EX_INCDEC] = ev_incdec, [DG_EX_CALL] = simt_ev_call,
  [DG_EX_INTRIN] = simt_intrin, [DG_EX_CAST] = ev_cast, [DG_EX_INDEX] = ev_lvalue,
  [DG_EX_DEREF] = ev_lvalue, [DG_EX_ADDR] = simt_ev_addr, [DG_EX_LANE] = ev_lvalue,
  [DG_EX_VECBUILD] = simt_ev_vecbuild, [DG_EX_COMMA] = simt_ev_comma, [DG_EX_FIELD] = ev_lvalue,
};

dom_val *simt_eval_u(simt_x *x, const dg_expr *e, msk *k)
{
  x->uni = x->thin = false;
  if (x->stop || !k->cnt) return x->zeros;
  x->lane_ops += (uint64_t)k->cnt;
  if (x->trace_lane >= 0 && k->b[x->trace_lane]) simt_trace_span(x, e->span);
  if ((unsigned)e->kind >= DG_EX__COUNT || !ev_tab[e->kind]) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "expression kind");
    return x->zeros;
  }
  if (x->ident && x->trace_lane < 0
      && (e->kind == DG_EX_BINARY || e->kind == DG_EX_UNARY || e->kind == DG_EX_CAST)) {
    dom_val v;
    if (simt_uni_run(x, e, k, &v)) {         /* a uniform program: one value, thin */
      dom_val *r = simt_vals(x, e->type);
      r[msk_first(k).lo] = v;
      x->uni = x->thin = true;
      return r;
    }
  }
  x->u_node = x->t_node = NULL;
  dom_val *r = ev_tab[e->kind](x, e, k);
  x->uni = x->ident && x->u_node == e;
  x->thin = x->uni && x->t_node == e;
  return r;
}

dom_val *simt_eval(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val *r = simt_eval_u(x, e, k);
  if (x->thin) {
    int nc = e->type->kind == DG_TY_ARRAY ? 1 : simt_ncomp(e->type);
    ufill(x, r, nc, k, msk_first(k).lo);
    x->thin = false;
  }
  return r;
}
