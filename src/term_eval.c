/* term_eval.c — concrete evaluation of a term under given variable values:
 * how the checker replays a solver model. Walks the reachable terms in id
 * order (operands before users), so deep chains need no recursion. */
#include "term_priv.h"
#include <math.h>
#include <stdlib.h>

typedef struct { const term_ctx *c; const term_value *v; double acc; bool prod, is_max; } acc_ctx;

static bool acc_sum(void *ud, dg_term key, dg_term val)
{
  acc_ctx *a = ud;
  double k = term_real_val(a->c, val), x = a->v[key].f;
  if (a->prod) a->acc *= k == 1 ? x : pow(x, k);
  else a->acc += k * x;
  return true;
}

static bool acc_mm(void *ud, dg_term key, dg_term val)
{
  acc_ctx *a = ud;
  double x = a->v[key].f;
  a->acc = a->is_max ? fmax(a->acc, x) : fmin(a->acc, x);
  return true;
}

static double fn_eval(term_fn f, double x)
{
  switch (f) {
  case TERM_FN_EXP: return exp(x);
  case TERM_FN_LOG: return log(x);
  case TERM_FN_SQRT: return sqrt(x);
  case TERM_FN_RSQRT: return 1 / sqrt(x);
  case TERM_FN_TANH: return tanh(x);
  case TERM_FN_ERF: return erf(x);
  case TERM_FN_SIN: return sin(x);
  case TERM_FN_COS: return cos(x);
  case TERM_FN_EXP2: return exp2(x);
  case TERM_FN_LOG2: return log2(x);
  default: return log1p(x);
  }
}

static uint64_t bv_eval(term_op op, term_sort s, uint64_t x, uint64_t y, bool *err)
{
  int w = term_sort_bits(s);
  int64_t sx = term_sext(s, x), sy = term_sext(s, y);
  int64_t smin = term_sext(s, (term_mask(s) >> 1) + 1);
  switch (op) {
  case TOP_BADD: return x + y;
  case TOP_BSUB: return x - y;
  case TOP_BMUL: return x * y;
  case TOP_UDIV: if (!y) { *err = true; return 0; } return x / y;
  case TOP_UREM: if (!y) { *err = true; return 0; } return x % y;
  case TOP_SDIV: if (!y) { *err = true; return 0; } return sy == -1 && sx == smin ? x : (uint64_t)(sx / sy);
  case TOP_SREM: if (!y) { *err = true; return 0; } return sy == -1 ? 0 : (uint64_t)(sx % sy);
  case TOP_SHL: return y >= (uint64_t)w ? 0 : x << y;
  case TOP_LSHR: return y >= (uint64_t)w ? 0 : x >> y;
  case TOP_ASHR: return (uint64_t)(sx >> (y >= (uint64_t)w ? w - 1 : (int)y));
  case TOP_BAND: return x & y;
  case TOP_BOR: return x | y;
  case TOP_BXOR: return x ^ y;
  default: return 0;
  }
}

static term_value cvt_eval(term_sort from, term_sort to, bool sg, term_value a)
{
  term_value r = { 0, 0 };
  bool fint = TERM_SK(from) == TERM_SK_INT, tint = TERM_SK(to) == TERM_SK_INT;
  if (fint && tint) r.i = sg ? term_sext(from, (uint64_t)a.i) : (int64_t)((uint64_t)a.i & term_mask(from));
  else if (fint) r.f = sg ? (double)term_sext(from, (uint64_t)a.i) : (double)((uint64_t)a.i & term_mask(from));
  else if (tint) {
    double t = trunc(a.f);
    r.i = !isfinite(t) || fabs(t) >= 9.2e18 ? 0 : sg || t < 0 ? (int64_t)t : (int64_t)(uint64_t)t;
  } else r.f = a.f;
  if (tint) r.i = (int64_t)((uint64_t)r.i & term_mask(to));
  else if (TERM_SK(to) == TERM_SK_FP) r.f = term_round_to(to, r.f);
  return r;
}

static term_value eval_node(const term_ctx *c, dg_term t, term_value *v, const term_value *vals, bool *err)
{
  term_node n = *term_node_of(c, t);
  uint8_t refs = term_ops[n.op].refs;
  term_value r = { 0, 0 }, z = { 0, 0 };
  term_value A = refs & 1 ? v[n.a] : z, B = refs & 2 ? v[n.b] : z, C = refs & 4 ? v[n.c] : z;
  term_sort s = n.sort, as = refs & 1 && n.a ? c->nodes.v[n.a].sort : 0;
  acc_ctx ac = { c, v, 0, false, n.op == TOP_MAX };
  switch (n.op) {
  case TOP_CONST:
    if (s == TERM_S_REAL || TERM_SK(s) == TERM_SK_FP) r.f = term_real_val(c, t);
    else r.i = (int64_t)term_bits_val(c, t);
    return r;
  case TOP_VAR:
    if (vals) r = vals[n.d];
    if (TERM_SK(s) == TERM_SK_FP) r.f = term_round_to(s, r.f);
    if (TERM_SK(s) == TERM_SK_INT) r.i = (int64_t)((uint64_t)r.i & term_mask(s));
    if (s == TERM_S_BOOL) r.i = r.i != 0;
    return r;
  case TOP_ADD: ac.acc = n.a ? A.f : 0; term_set_each(c, n.b, acc_sum, &ac); r.f = ac.acc; return r;
  case TOP_MUL:
    ac.acc = n.a ? A.f : 1;
    ac.prod = true;
    term_set_each(c, n.b, acc_sum, &ac);
    r.f = ac.acc * (n.c ? exp(C.f) : 1);
    return r;
  case TOP_MAX: case TOP_MIN:
    ac.acc = n.a ? A.f : n.op == TOP_MAX ? -INFINITY : INFINITY;
    term_set_each(c, n.b, acc_mm, &ac);
    r.f = ac.acc;
    return r;
  case TOP_DIV: r.f = A.f / B.f; return r;
  case TOP_ABS: case TOP_FABS: r.f = fabs(A.f); break;
  case TOP_FLOOR: r.f = floor(A.f); break;
  case TOP_CEIL: r.f = ceil(A.f); break;
  case TOP_TRUNC: r.f = trunc(A.f); break;
  case TOP_FADD: r.f = A.f + B.f; break;
  case TOP_FSUB: r.f = A.f - B.f; break;
  case TOP_FMUL: r.f = A.f * B.f; break;
  case TOP_FDIV: r.f = A.f / B.f; break;
  case TOP_FNEG: r.f = -A.f; break;
  case TOP_FMAX: r.f = fmax(A.f, B.f); break;
  case TOP_FMIN: r.f = fmin(A.f, B.f); break;
  case TOP_FMA: r.f = s == TERM_S_F32 ? fmaf((float)A.f, (float)B.f, (float)C.f) : fma(A.f, B.f, C.f); break;
  case TOP_ITE: return A.i ? B : C;
  case TOP_EQ:
    r.i = as == TERM_S_REAL || TERM_SK(as) == TERM_SK_FP ? A.f == B.f
        : ((uint64_t)(A.i ^ B.i) & (as == TERM_S_BOOL ? 1 : term_mask(as))) == 0;
    return r;
  case TOP_FEQ: r.i = A.f == B.f; return r;
  case TOP_LT: case TOP_LE:
    if (TERM_SK(as) == TERM_SK_INT) {
      int64_t x = term_sext(as, (uint64_t)A.i), y = term_sext(as, (uint64_t)B.i);
      r.i = n.op == TOP_LT ? x < y : x <= y;
    } else r.i = n.op == TOP_LT ? A.f < B.f : A.f <= B.f;
    return r;
  case TOP_ULT: case TOP_ULE: {
    uint64_t m = term_mask(as), x = (uint64_t)A.i & m, y = (uint64_t)B.i & m;
    r.i = n.op == TOP_ULT ? x < y : x <= y;
    return r;
  }
  case TOP_AND: r.i = A.i && B.i; return r;
  case TOP_OR: r.i = A.i || B.i; return r;
  case TOP_NOT: r.i = !A.i; return r;
  case TOP_ISNAN: r.i = isnan(A.f); return r;
  case TOP_ISINF: r.i = isinf(A.f); return r;
  case TOP_BNEG: r.i = (int64_t)((0 - (uint64_t)A.i) & term_mask(s)); return r;
  case TOP_CVT: return cvt_eval(as, s, n.aux, A);
  case TOP_FN: r.f = fn_eval((term_fn)n.aux, A.f); break;
  case TOP_POW: r.f = pow(A.f, B.f); break;
  default:
    if (TERM_SK(s) != TERM_SK_INT) term_die("eval of %s", term_ops[n.op].name);
    r.i = (int64_t)(bv_eval((term_op)n.op, s, (uint64_t)A.i & term_mask(s), (uint64_t)B.i & term_mask(s), err) & term_mask(s));
    return r;
  }
  if (TERM_SK(s) == TERM_SK_FP) r.f = term_round_to(s, r.f);
  return r;
}

term_value term_eval(const term_ctx *c, dg_term t, const term_value *vals, bool *err)
{
  bool dummy = false;
  if (!err) err = &dummy;
  uint8_t *seen = term_reach(c, &t, 1);
  term_value *v = dg_calloc(c->nodes.n, sizeof *v);
  for (size_t i = 1; i <= t; i++)
    if (seen[i] && c->nodes.v[i].op != TOP_SET) v[i] = eval_node(c, (dg_term)i, v, vals, err);
  term_value r = v[t];
  free(v);
  free(seen);
  return r;
}
