/* fuzz_envelope.c — the kernel-precision envelope of the validator: a
 * failing element judged again against the reference as an fp32 kernel would
 * compute it (see the comment below and doc/design.md, "Fuzz validation").
 * Split out of fuzz_run.c, which keeps the campaigns. */
#include "fuzz_run.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the rule's code shared with the GPU (gpu_env.c): here for dge_perturb */
#define DG_ENV_EMIT(...) __VA_ARGS__
#define DG_DEV static inline
#include "gpu_env_dev.h"
#undef DG_DEV
#undef DG_ENV_EMIT

/* ---- the kernel-precision envelope ------------------------------------------
 * An fp32 kernel cannot be more exact than fp32 arithmetic allows: with huge
 * or cancelling inputs (sums that overflow, x^2 past FLT_MAX) the fp64
 * reference is no fair judge, and flagging those elements is how the
 * adversarial strategy reached 94% false positives in the literature. Each
 * element that fails against fp64 is judged again against the reference
 * evaluated as a straightforward fp32 CUDA kernel would (every operation
 * rounded to float, fmaxf/fminf ignoring NaN): where that computation is not
 * finite a finite kernel value is judged against fp64 alone unless an
 * overflow may have been absorbed (within_envelope); otherwise the kernel may differ from
 * it by the tolerance plus twice the fp32 reference's own error. Unwritten
 * elements, and non-finite values where fp32 stays finite and no order of
 * its operations overflows (within_envelope), remain failures. */
typedef struct {
  const dg_problem *p;
  double *const *data;         /* input values per tensor */
  const int64_t *sizes;
  int64_t dims[64][8];
  DG_VEC(double) vals;         /* values of the "symbolic" ids */
  DG_VEC(double) shadow;       /* per id: the sum of |terms| its adds and subs summed (dge_fins), else |value| */
  int64_t nops;
  bool nan_input;              /* the element's reference read a NaN input */
  bool overflowed;             /* an fp32 operation on finite operands gave Inf */
  bool order_overflow;         /* round32: a sum another order would overflow (gpu_env_dev.h's dge_order_ovf) */
  bool nan_cmp;                /* a comparison, max or min read a NaN, or a where's condition was NaN */
  bool round32;                /* round every operation to float */
  bool absorb;                 /* with round32: adds and subs exact (the absorbing evaluation, dge_absorbs) */
  bool perturb;                /* move every input by 4 ulps of itself and of maxin (dge_rd) */
  double maxin[64], scale[64]; /* per tensor: its largest finite value read by the round32 pass; the normwise scale */
  int64_t flat;                /* the element judged, and which perturbed evaluation (k): */
  int k;                       /* they key the perturbation (dge_perturb, gpu_env_dev.h) */
  unsigned long long opkey;    /* dge_op_key(flat, k): the operations' deltas (dge_perturb_op) */
  unsigned ocnt[12];           /* per class: the operations so far in this evaluation */
  const fuzz_values *lazy;     /* inputs without data (huge cases): values on demand */
} env32;

static dg_symval v32_push_sh(env32 *e, double v, double sh)
{
  dg_vec_push(&e->vals, v);
  dg_vec_push(&e->shadow, sh);
  return (dg_symval)(e->vals.n - 1);
}

static dg_symval v32_push(env32 *e, double v) { return v32_push_sh(e, v, fabs(v)); }

static dg_symval v32_constant(void *ud, double v)
{
  env32 *e = ud;
  return v32_push(e, e->round32 ? (double)(float)v : v);
}

/* The perturbed evaluations' rounding model (gpu_env_dev.h, dge_perturb_op):
 * the class of each operation that rounds, as the device's dge_add ... dge_erf
 * pass it; 0: exact (max, min, neg, abs, floor, ceil, where, comparisons). */
static const signed char op_class[DG_VOP__COUNT] = {
  [DG_VOP_ADD] = 1, [DG_VOP_SUB] = 2, [DG_VOP_MUL] = 3, [DG_VOP_DIV] = 4, [DG_VOP_EXP] = 5,
  [DG_VOP_LOG] = 6, [DG_VOP_SQRT] = 7, [DG_VOP_RSQRT] = 8, [DG_VOP_TANH] = 9, [DG_VOP_ERF] = 10,
  [DG_VOP_POW] = 11,
};

/* The operations whose NaN operand a kernel may treat either way: a
 * comparison, or its negation, a max or min (fmaxf skips it, and a kernel
 * may gate on the max it got) and a where's condition (only a[0] read). */
static const bool cmp_op[DG_VOP__COUNT] = {
  [DG_VOP_MAX] = true, [DG_VOP_MIN] = true, [DG_VOP_LT] = true, [DG_VOP_LE] = true,
  [DG_VOP_GT] = true,   [DG_VOP_GE] = true,  [DG_VOP_EQ] = true, [DG_VOP_NE] = true, [DG_VOP_WHERE] = true,
};

static dg_symval v32_apply(void *ud, dg_vop op, const dg_symval *args)
{
  env32 *e = ud;
  double a[3];
  for (int i = 0; i < dg_vop_info[op].arity; i++) a[i] = e->vals.v[args[i]];
  double r;
  if ((op == DG_VOP_MAX || op == DG_VOP_MIN) && (isnan(a[0]) || isnan(a[1])))
    r = isnan(a[0]) ? a[1] : a[0];            /* fmaxf / fminf */
  else r = dg_vop_num(op, a);
  /* a comparison, max or min on a NaN, a where on a NaN condition (dge_r32_nonfinite) */
  if (cmp_op[op] && (isnan(a[0]) || (op != DG_VOP_WHERE && isnan(a[1])))) e->nan_cmp = true;
  /* adds and subs: their shadow, and the order term (gpu_env_dev.h's dge_fins) */
  bool sum = op == DG_VOP_ADD || op == DG_VOP_SUB;
  double sh = sum ? e->shadow.v[args[0]] + e->shadow.v[args[1]] : 0;
  if (e->round32 && sum && e->absorb) {
    /* the absorbing evaluation: an order of the sums that never overflows */
  } else if (e->round32) {
    r = (double)(float)r;
    if (sum && dge_order_ovf(sh, r)) e->order_overflow = true;
  } else if (e->perturb && sum) {
    double d2, f = dge_perturb_op2(e->opkey, op_class[op], e->ocnt[(int)op_class[op]]++, &d2);
    r = r * f + d2 * (dge_ord() * dge_excess(sh, a[0], a[1]));
  } else if (e->perturb && op_class[op])   /* gpu_env_dev.h's dge_fin: the same delta */
    r *= dge_perturb_op(e->opkey, op_class[op], e->ocnt[(int)op_class[op]]++);
  if (isinf(r) && isfinite(a[0]) && (dg_vop_info[op].arity < 2 || isfinite(a[1]))) e->overflowed = true;
  e->nops++;
  return sum ? v32_push_sh(e, r, sh) : v32_push(e, r);
}

static bool v32_read(void *ud, int t, const int64_t *idx, dg_refval *out)
{
  env32 *e = ud;
  const dg_tensor *ts = &e->p->tensors.v[t];
  int64_t flat = dg_flat_index(e->dims[t], ts->shape.n, idx);
  if (flat < 0) return false;
  if (!e->data[t] && !(e->lazy && e->lazy->value)) return false;
  double v = e->data[t] ? e->data[t][flat] : e->lazy->value(e->lazy->ud, t, flat);
  if (e->perturb && !ts->has_range) {   /* gpu_env_dev.h's dge_pert, the same expression */
    if (isfinite(v)) {                   /* an Inf as it is (-Inf + d (-Inf) was NaN for d < 0) */
      double d = dge_perturb(e->flat, e->k, t, flat) - 1;
      double sc = t < 64 ? e->scale[t] : 0;
      v = v + d * (v + (v < 0 ? -sc : sc));
    }
  } else if (!e->perturb && !ts->has_range && t < 64 && isfinite(v) && fabs(v) > e->maxin[t]) {
    e->maxin[t] = fabs(v);
  }
  e->nan_input |= isnan(v);
  if (ts->has_range) *out = (dg_refval){ .is_sym = false, .num = v };
  else *out = (dg_refval){ .is_sym = true, .sym = v32_push(e, v) };
  return true;
}

/* A float attribute in a perturbed evaluation: gpu_env_dev.h's dge_attr. */
static double v32_attr(void *ud, int a, double v)
{
  env32 *e = ud;
  (void)a;
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return v * dge_perturb(e->flat, e->k, -1, (long long)bits);
}

/* The reference at element idx of t with the env's current mode. */
static bool eval32(env32 *e, int t, const int64_t *idx, double *val)
{
  static const dg_sym_ops ops32 = { v32_constant, v32_apply, NULL };
  dg_sym_ops ops = ops32;
  ops.ud = e;
  /* the attributes are perturbed with the inputs; otherwise read as they are */
  dg_ref_env env = { .sizes = e->sizes, .read = v32_read, .sym = &ops, .ud = e, .attr = e->perturb ? v32_attr : NULL };
  dg_refval r;
  char *err = NULL;
  e->vals.n = 0;
  e->shadow.n = 0;
  e->opkey = dge_op_key(e->flat, e->k);
  memset(e->ocnt, 0, sizeof e->ocnt);
  e->nops = 0;
  e->nan_input = false;
  e->overflowed = false;
  e->order_overflow = false;
  e->nan_cmp = false;
  dg_ref_status st = dg_problem_ref_eval(e->p, &env, t, idx, &r, &err);
  free(err);
  if (st != DG_REF_OK) return false;
  *val = r.is_sym ? e->vals.v[r.sym] : r.num;
  return true;
}

/* The largest finite value of each float output dtype (dge_dt_max's). */
static const double dtype_max[DG_DT__COUNT] = {
  [DG_DT_F32] = FLT_MAX, [DG_DT_F16] = 65504.0, [DG_DT_BF16] = 0x1.fep127, [DG_DT_F64] = DBL_MAX,
};

/* Is the failing element flat of output t within the fp32 envelope? */
static bool within_envelope(env32 *e, int t, int64_t flat, double got, double want, dg_tol tol)
{
  const dg_tensor *ts = &e->p->tensors.v[t];
  int64_t idx[8] = {0};
  e->flat = flat;
  for (int d = (int)ts->shape.n - 1; d >= 0 && d < 8; d--) {
    idx[d] = flat % e->dims[t][d];
    flat /= e->dims[t][d];
  }
  double r32;
  e->round32 = true;
  e->perturb = false;
  memset(e->maxin, 0, sizeof e->maxin);
  if (!eval32(e, t, idx, &r32)) return false;
  /* NaN inputs: PyTorch propagates NaN through max/argmax, CUDA's fmaxf
   * and comparisons skip it; neither is wrong unless the op says so. */
  if (!dg_dtypes[ts->dtype].is_float) return e->nan_input;
  r32 = (double)(float)r32;
  double r64 = dg_dtype_round(ts->dtype, want);
  bool r32_inf = !isfinite(r32);
  /* Inf/NaN from a kernel is a failure unless some legitimate evaluation
   * overflows: this one did on the way, and something absorbed the Inf
   * (overflowed: another order of the operations around it, a product's,
   * may turn it into NaN), or one of its sums has terms of one sign that
   * reach FLT_MAX, so that an order adding them first overflows where this
   * one does not (order_overflow: a scan's or a tree's partial sums; the
   * test is gpu_env_dev.h's dge_order_ovf). An intermediate merely near
   * FLT_MAX explains nothing: up to session 9 maxmag > 2^122 did, and a
   * softmax with max and min swapped passed at huge values (exp(x - min) =
   * Inf, where no order of the correct softmax overflows). */
  if (!isfinite(got)) return r32_inf || e->overflowed || e->order_overflow;
  /* Where fp32's own value is not finite (r32_inf) an Inf or NaN passes, as
   * above: which one fp32 gives is not order-free once a finite factor may
   * underflow (exp(a) exp(b) against exp(a + b), 0 * Inf against 1e-45 *
   * Inf). A finite value there (session 11; up to session 10 any value
   * passed) is inside where an overflow (fp32's own, overflowed, or another
   * order's, order_overflow) may be absorbed in another order into a finite
   * value far from fp64's (Welford's layernorm: M2 overflows, rsqrt(Inf) =
   * 0, y = b, where the reference's sum overflows first: NaN) and the value
   * is that order's: near the absorbing evaluation's (round32 with every add
   * and sub exact, an order of the sums that never overflows, while
   * products, squares and exps overflow as fp32's do: y = b; dge_absorbs;
   * session 13, val17: up to then any finite value passed where fp32
   * overflowed), or the backward-error test's around fp64 (an order that
   * overflows nowhere: its perturbed evaluations, in double, are finite), or
   * where fp64
   * gives NaN and a comparison, max or min of fp32's evaluation read a NaN
   * (nan_cmp: a kernel's comparison may be the negated one and take the
   * finite branch; softmax_online gates a lane on the max its fmaxf got with
   * the NaN skipped, and drops the lane's NaN sum). Otherwise fp32's
   * non-finite value came from the inputs' Inf or NaN or an invalid operation through
   * arithmetic alone, non-finite in every order (session 12, val16: up to
   * then fp64 NaN passed any finite value — a sum that drops a NaN input or
   * a +Inf/-Inf pair): fp64 NaN or past FLT_MAX is outside, and a finite
   * fp64 value is the backward-error test's below alone — no slack from r32,
   * and a perturbed evaluation that is not finite explains nothing
   * (dge_r32_nonfinite, shared with the device). doc/strategies.md, "A
   * finite value where fp32's own evaluation is not finite". */
  if (r32_inf) {
    bool ovf = e->overflowed, oovf = e->order_overflow, ncmp = e->nan_cmp;
    int near = 0;
    if (ovf || oovf) {   /* dge_absorbs: the absorbing evaluation's value (maxin as the round32 pass left it) */
      double ra, mx[64];
      memcpy(mx, e->maxin, sizeof mx);
      e->absorb = true;
      bool ev = eval32(e, t, idx, &ra);
      e->absorb = false;
      memcpy(e->maxin, mx, sizeof mx);
      near = ev && dge_absorbs((double)(float)ra, got, tol.atol, tol.rtol);
    }
    int v = dge_r32_nonfinite(r64, ovf, oovf, ncmp, near);
    if (v < 2) return v;
  }
  /* the fp32 reference's own distance to fp64 is one sample of the error
   * fp32 arithmetic makes here. (A slack proportional to the largest
   * intermediate was tried and dropped: a softmax row sum of 550 made it
   * wide enough to pass a 2x error in outputs of 1e-5; the backward-error
   * test below measures the conditioning at the element instead.) */
  /* Where fp64's value rounded to the output dtype is not finite and fp32's
   * own is (session 12; up to session 11 the slack below was infinite there
   * and any finite value passed), a finite value is judged against fp64's
   * clamped to the dtype's largest value (dge_center: fp64 finite past
   * FLT_MAX, every order's value that large or Inf), or, where fp64 gives no
   * number (NaN inputs fmaxf skips, +-Inf), against fp32's own value alone
   * and the perturbed evaluations' spread around it (dge_sample). */
  double c64 = dge_center(r64, want, dtype_max[ts->dtype]);
  double slack = isfinite(c64) ? 2 * fabs(r32 - c64) : 0;
  if (!r32_inf && fabs(got - r32) <= tol.atol + tol.rtol * fabs(r32) + slack) return true;
  /* backward error: a kernel that is exact for inputs a few ulps away is
   * right; the exact reference at perturbed inputs measures how far that
   * moves the output (the problem's conditioning at this element). Each
   * input moves by up to 4 ulps of itself and 4 ulps of the largest value
   * this element's reference reads from the same tensor (normwise: fp32 reductions are backward
   * stable that way, not element by element — layernorm_block's shifted mean
   * is off by an ulp of x[0]; gpu_env_dev.h says more). The perturbation is
   * a function of (element, k, input tensor, input element) (dge_perturb),
   * so the GPU's envelope perturbs exactly the same way.
   *
   * forward error: every operation that rounds in fp32 (op_class) also has
   * its exact result moved, fl(a op b) = (a op b)(1 + delta) with delta
   * uniform in +-4 * 2^-24 (dge_perturb_op, keyed by the element, k, the
   * operation's class and its place among that class's operations: the
   * device's dge_fin draws the same delta for the same operation, env.t
   * checks it bit for bit). Why (session 7, the H200's matmul_tiled 4096^3
   * sorted case, c[176,4095]: kernel 6.1e-4, fp64 -3.2e-5): a reduction's
   * fp32 result is off by sum_i delta_i S_i to first order, S_i its partial
   * sums, |delta_i| <= 2^-24 — it grows with how many partial sums there
   * are and how large, up to 4096 there while the result is ~0, and an
   * input perturbation of fixed size does not see that. Sound, in what
   * sense:
   *  - the model: each perturbed evaluation is a Monte Carlo sample
   *    (Parker's Monte Carlo arithmetic, random rounding) of
   *    sum_i delta_i S_i with |delta_i| up to 4 roundings, propagated
   *    through every later operation as the reference computes them (a
   *    softmax's sum through its division, a layernorm's through rsqrt).
   *    A correct kernel's error is the same sum with |delta_i| <= 2^-24 over
   *    its own order's partial sums: the same as the reference's
   *    (sequential, tiled: a tile's partial sum is a piece of the same
   *    running sum; FMA: fewer roundings) or smaller (warp lanes, trees,
   *    pairwise: partial sums of pieces of the row). With 4x the amplitude
   *    and the judge's 4 * max over 3 samples, the kernel's error passes
   *    unless all three samples fall below 1/16 of their typical size
   *    together, a probability of order 16^-3 times how likely the kernel's
   *    error is to be that large: measured on 4000 elements of the sorted
   *    4096^3 case in 8 orders (sequential with and without fmaf, reverse,
   *    tiles of 16, split-k, warp lanes and a tree, pairwise) none came
   *    within 1/7 of the bound (t/unit/envelope.c replays 12 of them).
   *  - the order term (session 8): the partial sums above are the
   *    reference's, and another order's may be far larger — where the
   *    reference's terms cancel pairwise and the kernel sums each sign apart
   *    (adversarial large-offset values, rows alternating +-10^4, under a
   *    warp's 32 strided lanes, float4's 4 accumulators or 2: matmul_warp's
   *    sample failed there, 1/3 of K = 4096 elements for 32 lanes, 9/10 for
   *    2). So every add and sub also moves by delta2 * 1/2 * (sh - |a| - |b|)
   *    (dge_fins, dge_excess), delta2 uniform in +-4 * 2^-24 and sh its
   *    shadow: the sum of the |terms| it adds (v32_push_sh; a value no add
   *    made is its own |v|), less its operands' magnitudes — the
   *    cancellation inside them, which is what another order can undo (since
   *    session 9: with sh itself, x - m of a softmax over inputs near 1e37
   *    moved by ~1e31, exp overflowed, and a non-finite evaluation passed
   *    any output — a kernel storing its input passed `adversarial`'s huge
   *    case).
   *    Any order's partial sums are bounded by sums of |terms| of the same
   *    subset; a kernel that spreads n terms over L >= 2 chains (lanes,
   *    accumulators) has lane partial sums whose root sum of squares is
   *    about 1/L of the shadow's, so 1/2 covers every L >= 2 with the
   *    rounding model's margin (L = 2 exactly, 32 lanes 16x more). Measured
   *    (notes/s8/env9/camp.c, matmul 4096^3 large-offset, 300 elements, worst
   *    |err| / bound): 32 lanes 0.02, 4 accumulators 0.24, 2: 0.54 (with a
   *    weight of 1/4 one of 300 failed, 1/8 lost 4 accumulators); K = 300,
   *    5000 elements: 0.09, 0.33, 0.74, none outside. What it costs: a bug
   *    that moves the sum by less than ~|terms| * 2^-22 * sqrt(n) hides
   *    behind it — on large-offset data skipping a tile of 16 alternating
   *    terms (a sum of ~0) is no longer told from a 2-lane order (fp32
   *    itself cannot), and on normal data at K = 4096 a single dropped term
   *    is caught at 91% of elements instead of 98.5% (K = 300: 99.8%, from
   *    99.9%). The recall tables did not move.
   *  - bugs stay outside: the slack is 4 * max of three samples of that
   *    noise, about 5 * 2^-22 ||S||_2 / sqrt(3) (||S||_2 the partial sums'
   *    root sum of squares: 0.14 at c[176,4095], a few times the kernel's
   *    own fp32 noise and 16x a rounding model's); a dropped term or k, a
   *    missing +=, a wrong mask or 0 for -inf moves the result by a term,
   *    a tile's sum, a row's sum or an Inf, and is caught wherever that
   *    exceeds the slack — where it does not, fp32 itself cannot tell the
   *    kernel from a correct one in another order. Measured: every
   *    element off by the last term, the first tile of 16, a reset
   *    accumulator or k < K - 1 stays outside in the sorted case; a single
   *    random term of 4096 dropped is caught at 96.6% of elements (99.6%
   *    before: the rest are terms smaller than fp32's own noise there). */
  e->round32 = false;
  e->perturb = true;
  memcpy(e->scale, e->maxin, sizeof e->scale);
  double cond = 0;
  for (int k = 0; k < 3; k++) {
    double rp;
    e->k = k;
    /* a perturbed evaluation that is not finite explains nothing (session
     * 12; up to session 11 it passed the element where r32 is finite), nor
     * one the reference could not give (an error, nil: a float attribute it
     * perturbs used as a count or an index; session 12, val16: up to then
     * it passed the element where r32 is finite). Host only: the device's
     * evaluations (dge_eval_op) have no error. */
    if (!eval32(e, t, idx, &rp)) continue;
    if (dge_sample(rp, c64, want, r32, got, tol.atol, tol.rtol, &cond)) return true;
  }
  return fabs(got - c64) <= tol.atol + tol.rtol * fabs(c64) + 4 * cond;   /* (c64 NaN: false) */
}

bool fuzz_envelope_eval(const dg_problem *p, const int64_t *sizes, double **env_data, int t, int64_t flat, int k,
                        fuzz_envelope_facts *f)
{
  env32 *e = dg_calloc(1, sizeof *e);
  e->p = p;
  e->data = env_data;
  e->sizes = sizes;
  for (size_t i = 0; i < p->tensors.n && i < 64; i++)
    if (p->tensors.v[i].shape.n <= 8) dg_problem_shape(p, (int)i, sizes, e->dims[i], NULL);
  const dg_tensor *ts = &p->tensors.v[t];
  int64_t idx[8] = {0}, rest = flat;
  for (int d = (int)ts->shape.n - 1; d >= 0 && d < 8; d--) {
    idx[d] = rest % e->dims[t][d];
    rest /= e->dims[t][d];
  }
  e->flat = flat;
  bool ok = true;
  if (k >= 0) {   /* the normwise scale: the round32 pass's largest input */
    double r32;
    e->round32 = true;
    e->perturb = false;
    ok = eval32(e, t, idx, &r32);
    memcpy(e->scale, e->maxin, sizeof e->scale);
  }
  e->round32 = k < 0;
  e->absorb = k == -2;   /* the absorbing evaluation (dge_absorbs) */
  e->perturb = k >= 0;
  e->k = k;
  ok = ok && eval32(e, t, idx, &f->value);
  f->overflowed = e->overflowed;
  f->order_overflow = e->order_overflow;
  f->nan_input = e->nan_input;
  dg_vec_free(&e->vals);
  dg_vec_free(&e->shadow);
  free(e);
  return ok;
}

/* The backend's verdicts (its envelope hook) for the elements the rule below
 * may judge: the first FUZZ_ENVELOPE_JUDGED written ones off the reference,
 * up to where 32 unwritten ones end the judging. NULL: the host judges. */
static uint8_t *backend_verdicts(const fuzz_backend *be, const dg_problem *p, const int64_t *sizes, int t,
                                 const double *got, const double *want, const uint8_t *defined,
                                 const uint8_t *written, int64_t n, dg_tol tol, int64_t *m)
{
  *m = 0;
  if (!be || !be->envelope) return NULL;
  DG_VEC(int64_t) idx = {0};
  DG_VEC(double) g = {0}, w = {0};
  int64_t unwritten = 0;
  for (int64_t i = 0; i < n && idx.n < FUZZ_ENVELOPE_JUDGED && unwritten < 32; i++) {
    if (defined && !defined[i]) continue;
    if (written && !written[i]) {
      unwritten++;
      continue;
    }
    if (fuzz_elem_check(p->tensors.v[t].dtype, got[i], want[i], tol) == FUZZ_ELEM_OK) continue;
    dg_vec_push(&idx, i);
    dg_vec_push(&g, got[i]);
    dg_vec_push(&w, want[i]);
  }
  uint8_t *ok = idx.n ? dg_malloc(idx.n) : NULL;
  if (ok && be->envelope(be->self, p, sizes, t, idx.v, g.v, w.v, (int64_t)idx.n, tol, ok)) *m = (int64_t)idx.n;
  else free(ok), ok = NULL;
  dg_vec_free(&idx), dg_vec_free(&g), dg_vec_free(&w);
  return ok;
}

int64_t fuzz_envelope_filter(const dg_problem *p, const int64_t *sizes, double **env_data,
                             const fuzz_values *lazy, int t, const double *got, const double *want,
                             const uint8_t *defined, const uint8_t *written, int64_t n, dg_tol tol,
                             int64_t *first, const fuzz_space_ctx *ctx)
{
  return fuzz_envelope_filter_on(NULL, p, sizes, env_data, lazy, t, got, want, defined, written, n, tol, first,
                                 ctx);
}

int64_t fuzz_envelope_filter_on(const fuzz_backend *be, const dg_problem *p, const int64_t *sizes,
                                double **env_data, const fuzz_values *lazy, int t, const double *got,
                                const double *want, const uint8_t *defined, const uint8_t *written, int64_t n,
                                dg_tol tol, int64_t *first, const fuzz_space_ctx *ctx)
{
  int64_t nbe;
  uint8_t *be_ok = backend_verdicts(be, p, sizes, t, got, want, defined, written, n, tol, &nbe);
  env32 *e = dg_calloc(1, sizeof *e);
  e->p = p;
  e->data = env_data;
  e->lazy = lazy;
  e->sizes = sizes;
  for (size_t i = 0; i < p->tensors.n && i < 64; i++)
    if (p->tensors.v[i].shape.n <= 8) dg_problem_shape(p, (int)i, sizes, e->dims[i], NULL);
  int64_t remain = 0, judged = 0;
  *first = -1;
  for (int64_t i = 0; i < n; i++) {
    if (defined && !defined[i]) continue;
    bool unwritten = written && !written[i];
    if (!unwritten && fuzz_elem_check(p->tensors.v[t].dtype, got[i], want[i], tol) == FUZZ_ELEM_OK)
      continue;
    /* once 32 elements stay failures the case has failed: the rest are
     * counted as failures without the (per-element, costly) second look */
    bool ok = !unwritten && judged < FUZZ_ENVELOPE_JUDGED && remain < 32 &&
              (be_ok && judged < nbe ? be_ok[judged] != 0 : within_envelope(e, t, i, got[i], want[i], tol));
    if (!unwritten) judged++;
    if (!ok) {
      if (*first < 0) *first = i;
      remain++;
      if (ctx && ctx->on_fail) ctx->on_fail(ctx->on_fail_ud, t, i);
    }
  }
  dg_vec_free(&e->vals);
  dg_vec_free(&e->shadow);
  free(e);
  free(be_ok);
  return remain;
}
