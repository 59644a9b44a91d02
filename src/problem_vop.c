/* problem_vop.c — the value-operation table with its concrete
 * semantics, and the engine's entry points to a problem's reference. */
#include "problem.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const dg_vop_info_t dg_vop_info[DG_VOP__COUNT] = {
#define DG_VOP_INFO(id, name, arity) [DG_VOP_##id] = { name, arity },
  DG_VOPS(DG_VOP_INFO)
#undef DG_VOP_INFO
};

int dg_vop_lookup(const char *name)
{
  for (int i = 0; i < DG_VOP__COUNT; i++)
    if (!strcmp(dg_vop_info[i].name, name)) return i;
  return -1;
}

/* Concrete semantics, one function per operation (a table, not a switch). */
static double v_add(const double *a) { return a[0] + a[1]; }
static double v_sub(const double *a) { return a[0] - a[1]; }
static double v_mul(const double *a) { return a[0] * a[1]; }
static double v_div(const double *a) { return a[0] / a[1]; }
static double v_neg(const double *a) { return -a[0]; }
/* NaN propagates through max/min, as in torch (fmax would drop it). */
static double v_max(const double *a) { return isnan(a[0]) || isnan(a[1]) ? NAN : a[0] > a[1] ? a[0] : a[1]; }
static double v_min(const double *a) { return isnan(a[0]) || isnan(a[1]) ? NAN : a[0] < a[1] ? a[0] : a[1]; }
static double v_exp(const double *a) { return exp(a[0]); }
static double v_log(const double *a) { return log(a[0]); }
static double v_sqrt(const double *a) { return sqrt(a[0]); }
static double v_rsqrt(const double *a) { return 1.0 / sqrt(a[0]); }
static double v_tanh(const double *a) { return tanh(a[0]); }
static double v_erf(const double *a) { return erf(a[0]); }
static double v_abs(const double *a) { return fabs(a[0]); }
static double v_pow(const double *a) { return pow(a[0], a[1]); }
static double v_floor(const double *a) { return floor(a[0]); }
static double v_ceil(const double *a) { return ceil(a[0]); }
static double v_where(const double *a) { return a[0] != 0 ? a[1] : a[2]; }
static double v_lt(const double *a) { return a[0] < a[1]; }
static double v_le(const double *a) { return a[0] <= a[1]; }
static double v_gt(const double *a) { return a[0] > a[1]; }
static double v_ge(const double *a) { return a[0] >= a[1]; }
static double v_eq(const double *a) { return a[0] == a[1]; }
static double v_ne(const double *a) { return a[0] != a[1]; }

static double (*const vop_num[DG_VOP__COUNT])(const double *) = {
  [DG_VOP_ADD] = v_add, [DG_VOP_SUB] = v_sub, [DG_VOP_MUL] = v_mul, [DG_VOP_DIV] = v_div,
  [DG_VOP_NEG] = v_neg, [DG_VOP_MAX] = v_max, [DG_VOP_MIN] = v_min, [DG_VOP_EXP] = v_exp,
  [DG_VOP_LOG] = v_log, [DG_VOP_SQRT] = v_sqrt, [DG_VOP_RSQRT] = v_rsqrt, [DG_VOP_TANH] = v_tanh,
  [DG_VOP_ERF] = v_erf, [DG_VOP_ABS] = v_abs, [DG_VOP_POW] = v_pow, [DG_VOP_FLOOR] = v_floor,
  [DG_VOP_CEIL] = v_ceil, [DG_VOP_WHERE] = v_where, [DG_VOP_LT] = v_lt, [DG_VOP_LE] = v_le,
  [DG_VOP_GT] = v_gt, [DG_VOP_GE] = v_ge, [DG_VOP_EQ] = v_eq, [DG_VOP_NE] = v_ne,
};

double dg_vop_num(dg_vop op, const double *args) { return vop_num[op](args); }

/* ---- the reference -------------------------------------------------------------- */
static dg_ref_status no_ref(const dg_problem *p, char **err)
{
  if (err) *err = dg_printf("problem has no reference");
  return DG_REF_ERROR;
}

static bool is_output(const dg_problem *p, int t, char **err)
{
  if (t >= 0 && (size_t)t < p->tensors.n && p->tensors.v[t].role == DG_TENSOR_OUTPUT) return true;
  if (err) *err = dg_printf("tensor %d is not an output", t);
  return false;
}

dg_ref_status dg_problem_ref_eval(const dg_problem *p, const dg_ref_env *env, int t,
                                  const int64_t *idx, dg_refval *out, char **err)
{
  if (!p->ref.ops) return no_ref(p, err);
  if (!is_output(p, t, err)) return DG_REF_ERROR;
  return p->ref.ops->eval(p->ref.self, env, t, idx, out, err);
}

dg_ref_status dg_problem_ref_eval_all_within(const dg_problem *p, const dg_ref_env *env, int t, int64_t k,
                                             double *out, uint8_t *defined, char **err)
{
  if (!p->ref.ops || !p->ref.ops->eval_all_within || !is_output(p, t, NULL)) return DG_REF_NIL;
  return p->ref.ops->eval_all_within(p->ref.self, env, t, k, out, defined, err);
}

dg_ref_status dg_problem_ref_eval_all(const dg_problem *p, const dg_ref_env *env, int t,
                                      double *out, uint8_t *defined, char **err)
{
  if (!p->ref.ops) return no_ref(p, err);
  if (!is_output(p, t, err)) return DG_REF_ERROR;
  if (p->ref.ops->eval_all) return p->ref.ops->eval_all(p->ref.self, env, t, out, defined, err);
  const dg_tensor *tt = &p->tensors.v[t];
  int64_t dims[16], idx[16] = {0};
  int rank = (int)tt->shape.n;
  dg_diags d = {0};
  if (rank > 16 || !dg_problem_shape(p, t, env->sizes, dims, &d)) {
    dg_diags_free(&d);
    if (err) *err = dg_printf("cannot resolve the shape of %s", tt->name);
    return DG_REF_ERROR;
  }
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= dims[k];
  for (int64_t lin = 0; lin < n; lin++) {
    int64_t r = lin;
    for (int k = rank - 1; k >= 0; k--) {
      idx[k] = r % dims[k];
      r /= dims[k];
    }
    dg_refval v;
    dg_ref_status s = p->ref.ops->eval(p->ref.self, env, t, idx, &v, err);
    if (s == DG_REF_ERROR) return s;
    if (v.is_sym && s == DG_REF_OK) {
      if (err) *err = dg_printf("reference gave a symbolic value in a concrete evaluation");
      return DG_REF_ERROR;
    }
    out[lin] = s == DG_REF_OK ? v.num : 0;
    defined[lin] = s == DG_REF_OK;
  }
  return DG_REF_OK;
}
