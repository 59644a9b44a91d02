/* simt_compound.c — expressions built from other values: && || and ?:
 * (both sides under masks, and under a data-dependent guard where the
 * domain cannot decide), calls of device functions, address-of, vector and
 * struct construction, the comma operator. The node kinds of simt_expr.c's
 * table that are not on the arithmetic fast path. */
#include "simt_int.h"
#include <string.h>

dom_val *simt_ev_logic(simt_x *x, const dg_expr *e, msk *k)
{
  msk t, f;
  simt_split sp;
  simt_branch2(x, e->a, k, &t, &f, &sp);
  bool land = e->kind == DG_EX_LAND;
  msk *rest = land ? &t : &f, *done = land ? &f : &t;
  dom_val *r = simt_const(x, e->type, done, land ? 0 : 1);
  if (rest->cnt) {
    simt_guard g = simt_guard_push(x, &sp, land);
    dom_val *b = simt_eval(x, e->b, rest);
    simt_guard_pop(x, g);
    dom_val *bb = simt_vals(x, e->type);
    x->d->cast(x->d, DG_CAST_CONVERT, x->t_bool, e->b->type, SL(rest), AT(bb, rest), AT(b, rest));
    if (sp.any) {              /* undecided lanes: a && b as select(a, b, 0); a || b as select(a, 1, b) */
      msk *bo = &sp.both;
      dom_val *kv = simt_const(x, x->t_bool, bo, land ? 0 : 1), *m = simt_vals(x, x->t_bool);
      x->d->select(x->d, x->t_bool, SL(bo), AT(m, bo), AT(sp.cv, bo), AT(land ? bb : kv, bo), AT(land ? kv : bb, bo));
      simt_merge(x, bb, m, bo, 1);
    }
    if (e->type->kind != DG_TY_BOOL) bb = simt_convert(x, e->type, x->t_bool, rest, bb);
    simt_merge(x, r, bb, rest, 1);
  }
  return r;
}

dom_val *simt_ev_cond(simt_x *x, const dg_expr *e, msk *k)
{
  msk t, f;
  simt_split sp;
  simt_branch2(x, e->a, k, &t, &f, &sp);
  int nc = simt_ncomp(e->type);
  dom_val *r = simt_vals(x, e->type), *vb = NULL, *vc = NULL;
  simt_guard g = simt_guard_push(x, &sp, true);
  if (t.cnt) simt_merge(x, r, vb = simt_convert(x, e->type, e->b->type, &t, simt_eval(x, e->b, &t)), &t, nc);
  simt_guard_pop(x, g);
  g = simt_guard_push(x, &sp, false);
  if (f.cnt) simt_merge(x, r, vc = simt_convert(x, e->type, e->c->type, &f, simt_eval(x, e->c, &f)), &f, nc);
  simt_guard_pop(x, g);
  if (sp.any && vb && vc)
    for (int c = 0; c < nc; c++) {
      size_t o = (size_t)c * x->n;
      x->d->select(x->d, dom_comp(e->type, c), SL(&sp.both), AT(r + o, &sp.both), AT(sp.cv, &sp.both),
                   AT(vb + o, &sp.both), AT(vc + o, &sp.both));
    }
  return r;
}

dom_val *simt_ev_call(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val **args = simt_alloc(x, sizeof *args * (size_t)(e->nargs + 1));
  const dg_func *f = e->func;
  for (int i = 0; i < e->nargs; i++) {
    args[i] = simt_eval(x, e->args[i], k);
    if (f && i < f->nparams) args[i] = simt_convert(x, f->params[i]->type, e->args[i]->type, k, args[i]);
  }
  if (!f || !f->body) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "call of a function without a body");
    return x->zeros;
  }
  return simt_call(x, f, args, k);
}

dom_val *simt_ev_addr(simt_x *x, const dg_expr *e, msk *k)
{
  simt_lval lv;
  if (!simt_lval_of(x, e->a, k, &lv)) return x->zeros;
  if (!lv.mem) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, e->span, k->lo, "address of a register variable");
    return x->zeros;
  }
  return simt_const_vec(x, e->type, k, lv.addr);
}

/* A struct built from its members: each argument fills as many slots as it has. */
static dom_val *struct_build(simt_x *x, const dg_expr *e, msk *k)
{
  dom_val *r = simt_vals(x, e->type);
  int nc = simt_ncomp(e->type), at = 0;
  for (int a = 0; a < e->nargs && !x->stop; a++) {
    const dg_type *at_t = e->args[a]->type;
    dom_val *v = simt_eval(x, e->args[a], k);
    int an = simt_ncomp(at_t);
    if (an == 1 && at < nc && dom_comp(e->type, at) != at_t)
      v = simt_convert(x, dom_comp(e->type, at), at_t, k, v);
    for (int c = 0; c < an && at < nc; c++, at++)
      memcpy(r + (size_t)at * x->n + k->lo, v + (size_t)c * x->n + k->lo, sizeof *r * (size_t)(k->hi - k->lo));
  }
  return r;
}

dom_val *simt_ev_vecbuild(simt_x *x, const dg_expr *e, msk *k)
{
  if (e->type->kind == DG_TY_STRUCT) return struct_build(x, e, k);
  dom_val *r = simt_vals(x, e->type);
  const dg_type *et = simt_scalar(e->type);
  int nc = simt_ncomp(e->type);
  for (int c = 0; c < nc && c < e->nargs; c++) {
    dom_val *v = simt_convert(x, et, e->args[c]->type, k, simt_eval(x, e->args[c], k));
    memcpy(r + (size_t)c * x->n + k->lo, v + k->lo, sizeof *r * (size_t)(k->hi - k->lo));
  }
  return r;
}

dom_val *simt_ev_comma(simt_x *x, const dg_expr *e, msk *k)
{
  simt_eval(x, e->a, k);
  return simt_eval(x, e->b, k);
}
