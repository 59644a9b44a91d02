/* check_ref.c — the reference of one element as a term: the op's reference
 * (Lua, through dg_ref_ops) reads the same input variables the symbolic
 * kernel run loaded (index-valued inputs as the concrete values the run was
 * fixed to) and builds its arithmetic through dg_sym_ops on our term ctx. */
#include "check_int.h"
#include "dom_sym.h"
#include <math.h>
#include <string.h>

/* ---- the reference, symbolically ------------------------------------------------ */
term_sort check_fsort(chk *c) { return term_float_sort(c->tc, DG_TY_F64); }

dg_term check_as_num(chk *c, dg_term x)
{
  term_sort s = term_sort_of(c->tc, x);
  if (s == TERM_S_BOOL) return term_ite(c->tc, x, term_float(c->tc, DG_TY_F64, 1), term_float(c->tc, DG_TY_F64, 0));
  if (s != check_fsort(c)) return term_convert(c->tc, x, check_fsort(c), true);
  return x;
}

static dg_term as_bool(chk *c, dg_term x)
{
  if (term_sort_of(c->tc, x) == TERM_S_BOOL) return x;
  return term_cmp(c->tc, TERM_CMP_NE, check_as_num(c, x), term_float(c->tc, DG_TY_F64, 0));
}

static dg_symval ref_const(void *ud, double v)
{
  chk *c = ud;
  if (!isfinite(v)) {       /* the real model has no infinities: an opaque value, flagged */
    if (!c->r->reason) c->r->reason = dg_strdup("the reference uses an infinite constant");
    term_varinfo vi = { .kind = TERM_VAR_FREE, .tensor = v > 0 ? "ref+inf" : "ref-inf", .dtype = DG_TY_F64 };
    return term_var(c->tc, check_fsort(c), &vi);
  }
  return term_float(c->tc, DG_TY_F64, v);
}

static dg_symval ref_apply(void *ud, dg_vop op, const dg_symval *a)
{
  chk *c = ud;
  term_ctx *tc = c->tc;
  static const term_cmpop cmp[DG_VOP__COUNT] = {
    [DG_VOP_LT] = TERM_CMP_LT, [DG_VOP_LE] = TERM_CMP_LE, [DG_VOP_GT] = TERM_CMP_GT,
    [DG_VOP_GE] = TERM_CMP_GE, [DG_VOP_EQ] = TERM_CMP_EQ, [DG_VOP_NE] = TERM_CMP_NE,
  };
  static const struct { bool ok; term_fn fn; } fn[DG_VOP__COUNT] = {
    [DG_VOP_EXP] = { true, TERM_FN_EXP }, [DG_VOP_LOG] = { true, TERM_FN_LOG },
    [DG_VOP_SQRT] = { true, TERM_FN_SQRT }, [DG_VOP_RSQRT] = { true, TERM_FN_RSQRT },
    [DG_VOP_TANH] = { true, TERM_FN_TANH }, [DG_VOP_ERF] = { true, TERM_FN_ERF },
  };
  if (op == DG_VOP_WHERE) {
    dg_term x = check_as_num(c, a[1]), y = check_as_num(c, a[2]);
    return term_ite(tc, as_bool(c, a[0]), x, y);
  }
  dg_term x = check_as_num(c, a[0]), y = dg_vop_info[op].arity > 1 ? check_as_num(c, a[1]) : TERM_NONE;
  if (fn[op].ok) return term_fn1(tc, fn[op].fn, x);
  if (op >= DG_VOP_LT && op <= DG_VOP_NE) return term_cmp(tc, cmp[op], x, y);
  switch (op) {
  case DG_VOP_ADD: return term_add(tc, x, y);
  case DG_VOP_SUB: return term_sub(tc, x, y);
  case DG_VOP_MUL: return term_mul(tc, x, y);
  case DG_VOP_DIV: return dom_sym_div(tc, x, y);
  case DG_VOP_NEG: return term_neg(tc, x);
  case DG_VOP_MAX: return term_max(tc, x, y);
  case DG_VOP_MIN: return term_min(tc, x, y);
  case DG_VOP_ABS: return term_abs(tc, x);
  case DG_VOP_POW: return term_pow(tc, x, y);
  case DG_VOP_FLOOR: return term_floor(tc, x);
  case DG_VOP_CEIL: return term_ceil(tc, x);
  default: return x;
  }
}

static bool ref_read(void *ud, int t, const int64_t *idx, dg_refval *out)
{
  chk *c = ud;
  const dg_tensor *ts = &c->p->tensors.v[t];
  int64_t flat = dg_flat_index(c->dims[t], ts->shape.n, idx);
  if (flat < 0) return false;
  if (ts->has_range) {
    *out = (dg_refval){ .is_sym = false, .num = c->io.data[t][flat] };
    return true;
  }
  dg_term v = dom_sym_input_var(c->tc, ts->name, check_tykind(ts->dtype), flat);
  *out = (dg_refval){ .is_sym = true, .sym = check_as_num(c, v) };
  return true;
}

dg_term check_ref_term(chk *c)
{
  dg_sym_ops ops = { ref_const, ref_apply, c };
  dg_ref_env env = { .sizes = c->sizes, .read = ref_read, .sym = &ops, .ud = c, .deadline = c->deadline };
  double t0 = dg_now();
  dg_refval v;
  char *err = NULL;
  dg_ref_status st = dg_problem_ref_eval(c->p, &env, c->t, c->r->index, &v, &err);
  if (st == DG_REF_NIL) {
    check_say(c->r, CHECK_UNCHECKED, "the reference leaves this element undefined");
    return TERM_NONE;
  }
  if (st != DG_REF_OK && check_out_of_time(c)) {
    check_say(c->r, CHECK_UNKNOWN, "the check's budget is spent in the reference (its Lua evaluation was stopped "
              "after %.1f s of building this element's term)", dg_now() - t0);
    free(err);
    return TERM_NONE;
  }
  if (st != DG_REF_OK) {
    /* the message only: the Lua traceback would split the verdict's one line */
    const char *m = err ? err : "error";
    check_say(c->r, CHECK_UNKNOWN, "the reference could not run symbolically: %.*s", (int)strcspn(m, "\n"), m);
    free(err);
    return TERM_NONE;
  }
  free(err);
  return v.is_sym ? check_as_num(c, (dg_term)v.sym) : ref_const(c, v.num);
}

