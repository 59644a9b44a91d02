/* envelope_nonfinite.c — the validator's non-finite rule (fuzz_envelope.c's
 * within_envelope, gpu_env_dev.h's dge_order_ovf): an Inf or NaN from a
 * kernel, where fp32's own evaluation of the reference is finite, is
 * explained only by an overflow of some legitimate evaluation — fp32's
 * (overflowed, with the Inf absorbed on the way) or another order of one of
 * its sums, whose terms of one sign reach FLT_MAX (order_overflow). Values
 * of `huge` (adversarial's case 2: |x| in [FLT_MAX/32, 3 FLT_MAX/32], the
 * generator's own draws):
 *  - softmax (samples/softmax/softmax_warp.lua, one row of 77): its warp max
 *    combined with fminf (a min/max swap) makes exp(x - m) overflow and the
 *    row NaN; no order of the correct softmax overflows (x - m <= 0, every
 *    exp <= 1), so every NaN of the row and a plain Inf or NaN at every
 *    element are outside. Up to session 10 an intermediate within 64x of
 *    FLT_MAX explained them (maxmag > 2^122): all of them inside.
 *  - row sums (samples/reduce/sum_rows_smem.lua, rows of 256): rows whose
 *    signs alternate never overflow in the reference's sequential order, but
 *    2 strided lanes, or the positive terms first, do; those Inf/NaN are
 *    inside (sum_rows_smem's and cumsum_block's false positives without the
 *    order term of the rule), and an Inf on a row of normal values outside. */
#include "fuzz_run.h"
#include "lua_spec.h"
#include "../tap.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define DG_ENV_EMIT(...) __VA_ARGS__
#define DG_DEV static inline
#include "gpu_env_dev.h"
#undef DG_DEV
#undef DG_ENV_EMIT

static dg_problem *load(const char *rel)
{
  char *path = dg_printf("%s/samples/%s.lua", DG_DATADIR, rel);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  free(path);
  bool loaded = p && !d.nerrors;
  dg_diags_free(&d);
  ok(loaded, "%s loads", rel);
  if (!loaded && p) dg_problem_free(p), p = NULL;
  return p;
}

static int tensor(const dg_problem *p, const char *name)
{
  for (size_t t = 0; t < p->tensors.n; t++)
    if (!strcmp(p->tensors.v[t].name, name)) return (int)t;
  return -1;
}

/* A problem at given sizes, its input x and output y, the fp64 reference. */
typedef struct {
  dg_problem *p;
  int64_t sizes[8], n, nx;
  int tx, ty;
  double **env, *want;
  uint8_t *def;
} prob;

static bool prob_open(prob *q, const char *rel, int64_t N, int64_t C)
{
  memset(q, 0, sizeof *q);
  q->p = load(rel);
  if (!q->p) return false;
  q->tx = tensor(q->p, "x"), q->ty = tensor(q->p, "y");
  for (size_t i = 0; i < q->p->sizes.n && i < 8; i++) q->sizes[i] = !strcmp(q->p->sizes.v[i].name, "C") ? C : N;
  q->nx = N * C;
  q->n = dg_problem_numel(q->p, q->ty, q->sizes);
  q->env = dg_calloc(q->p->tensors.n, sizeof *q->env);
  q->env[q->tx] = dg_calloc((size_t)q->nx, sizeof(double));
  q->env[q->ty] = dg_calloc((size_t)q->n, sizeof(double));
  q->want = dg_calloc((size_t)q->n, sizeof(double));
  q->def = dg_calloc((size_t)q->n, 1);
  return q->tx >= 0 && q->ty >= 0;
}

static bool prob_ref(prob *q)
{
  dg_ref_env renv = { .sizes = q->sizes, .data = (const double *const *)q->env };
  char *err = NULL;
  bool okr = dg_problem_ref_eval_all(q->p, &renv, q->ty, q->want, q->def, &err) == DG_REF_OK;
  free(err);
  return okr;
}

static void prob_close(prob *q)
{
  if (q->env) free(q->env[q->tx >= 0 ? q->tx : 0]), free(q->env[q->ty >= 0 ? q->ty : 0]);
  free(q->env), free(q->want), free(q->def);
  if (q->p) dg_problem_free(q->p);
}

/* Is got at element i alone inside the envelope? (-1: within the tolerance, not judged) */
static int inside(const prob *q, int64_t i, double got)
{
  dg_tol tol = dg_problem_tol(q->p, q->ty);
  if (fuzz_elem_check(DG_DT_F32, got, q->want[i], tol) == FUZZ_ELEM_OK) return -1;
  double *g = dg_calloc((size_t)q->n, sizeof *g);
  uint8_t *only = dg_calloc((size_t)q->n, 1);
  g[i] = got, only[i] = 1;
  int64_t first;
  int64_t remain = fuzz_envelope_filter(q->p, q->sizes, q->env, NULL, q->ty, g, q->want, only, NULL, q->n, tol,
                                        &first, NULL);
  free(g), free(only);
  return remain == 0;
}

/* huge's draws of the case's input x (fuzz_ctr: what the campaign and the GPU generator give) */
static fuzz_ctr huge_of(const prob *q, int64_t row)
{
  return (fuzz_ctr){ .key = fuzz_input_key(fuzz_case_seed(1, 2), q->tx), .dist = FUZZ_DIST_HUGE,
                     .dtype = DG_DT_F32, .row = row, .n = q->nx };
}

#define SC 77

/* softmax_warp.cu on one row in fp32: 32 strided lanes, butterfly trees;
 * the warp max combined by fmaxf, or by fminf (the bug) */
static void softmax_warp(const float *x, float *y, bool swapped)
{
  float m[32], s[32], t[32];
  for (int l = 0; l < 32; l++) {
    m[l] = -INFINITY;
    for (int c = l; c < SC; c += 32) m[l] = fmaxf(m[l], x[c]);
  }
  for (int o = 16; o; o >>= 1) {
    for (int l = 0; l < 32; l++) t[l] = swapped ? fminf(m[l], m[l ^ o]) : fmaxf(m[l], m[l ^ o]);
    memcpy(m, t, sizeof m);
  }
  for (int l = 0; l < 32; l++) {
    s[l] = 0;
    for (int c = l; c < SC; c += 32) s[l] += expf(x[c] - m[l]);
  }
  for (int o = 16; o; o >>= 1) {
    for (int l = 0; l < 32; l++) t[l] = s[l] + s[l ^ o];
    memcpy(s, t, sizeof s);
  }
  for (int c = 0; c < SC; c++) y[c] = expf(x[c] - m[c % 32]) * (1.0f / s[c % 32]);
}

static void softmax_huge(void)
{
  prob q;
  if (!prob_open(&q, "softmax/softmax_warp", 1, SC)) {
    prob_close(&q);
    return;
  }
  fuzz_ctr g = huge_of(&q, SC);
  float x[SC], y[SC];
  for (int c = 0; c < SC; c++) x[c] = (float)(q.env[q.tx][c] = fuzz_ctr_value(&g, c));
  double lo = INFINITY, hi = 0;
  for (int c = 0; c < SC; c++) lo = fmin(lo, fabs(x[c])), hi = fmax(hi, fabs(x[c]));
  ok(prob_ref(&q) && lo >= FLT_MAX / 32 && hi <= 3 * (double)FLT_MAX / 32,
     "softmax, huge values: |x| in [%.3g, %.3g], the fp64 reference", lo, hi);
  fuzz_envelope_facts f;
  bool ev = fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, 0, -1, &f);
  ok(ev && isfinite(f.value) && lo > 0x1p122 && !f.overflowed && !f.order_overflow,
     "fp32's evaluation at y[0]: finite (%g), every input read past 2^122 (%.3g: the old rule's clause, the largest "
     "magnitude read or computed past 2^122), no overflow in this order (%d) nor in another order of a sum (%d)",
     f.value, lo, f.overflowed, f.order_overflow);
  /* the correct kernel: every element within the tolerance or inside */
  softmax_warp(x, y, false);
  int out = 0, judged = 0;
  for (int c = 0; c < SC; c++) {
    int v = inside(&q, c, y[c]);
    judged += v >= 0, out += v == 0;
  }
  ok(out == 0, "correct softmax_warp: %d of %d elements past the tolerance, all inside", judged, judged);
  /* the min/max swap: its NaN (and Inf) outside, every one */
  softmax_warp(x, y, true);
  int nonfinite = 0;
  out = 0;
  for (int c = 0; c < SC; c++)
    if (!isfinite(y[c])) nonfinite++, out += inside(&q, c, y[c]) == 0;
  ok(nonfinite >= SC / 2 && out == nonfinite, "softmax_warp with fminf in its warp max: %d of %d elements NaN/Inf, "
     "%d outside", nonfinite, SC, out);
  int outs[2] = {0};
  for (int c = 0; c < SC; c++) outs[0] += inside(&q, c, INFINITY) == 0, outs[1] += inside(&q, c, NAN) == 0;
  ok(outs[0] == SC && outs[1] == SC, "Inf at every element: %d of %d outside; NaN: %d", outs[0], SC, outs[1]);
  prob_close(&q);
}

#define RC 256
#define RN 6

static float sum_seq(const float *x)
{
  float a = 0;
  for (int c = 0; c < RC; c++) a += x[c];
  return a;
}

static float sum_lanes(const float *x, int L)   /* L strided lanes, then a tree (sum_rows_smem: 128) */
{
  float p[128];
  for (int l = 0; l < L; l++) {
    p[l] = 0;
    for (int c = l; c < RC; c += L) p[l] += x[c];
  }
  for (int o = L / 2; o; o >>= 1)
    for (int l = 0; l < o; l++) p[l] += p[l + o];
  return p[0];
}

static float sum_pos_first(const float *x)   /* the positive terms, then the negative ones */
{
  float a = 0;
  for (int c = 0; c < RC; c++) a += x[c] > 0 ? x[c] : 0;
  for (int c = 0; c < RC; c++) a += x[c] < 0 ? x[c] : 0;
  return a;
}

/* rows 0-3 huge (0 and 1 with alternating signs), 4 and 5 normal values */
static void row_sums_huge(void)
{
  prob q;
  if (!prob_open(&q, "reduce/sum_rows_smem", RN, RC)) {
    prob_close(&q);
    return;
  }
  fuzz_ctr g = huge_of(&q, RC);
  dg_rng r;
  dg_rng_seed(&r, 5);
  for (int64_t i = 0; i < q.nx; i++) {
    double v = fuzz_ctr_value(&g, i);
    int64_t row = i / RC;
    if (row < 2) v = (i % 2 ? -1 : 1) * fabs(v);
    if (row >= 4) v = (float)dg_rng_normal(&r);
    q.env[q.tx][i] = v;
  }
  ok(prob_ref(&q), "row sums: the fp64 reference");
  int order_rows = 0, r32_finite = 0;
  for (int64_t i = 0; i < 2; i++) {
    fuzz_envelope_facts f;
    if (fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, i, -1, &f))
      r32_finite += isfinite(f.value) && !f.overflowed, order_rows += f.order_overflow;
  }
  ok(r32_finite == 2 && order_rows == 2, "alternating huge rows: fp32's sequential sum finite without overflow (%d "
     "of 2), another order overflows (%d of 2)", r32_finite, order_rows);
  int judged = 0, out = 0, nonfinite = 0;
  float x[RC];
  for (int64_t i = 0; i < 4; i++) {
    for (int c = 0; c < RC; c++) x[c] = (float)q.env[q.tx][i * RC + c];
    float v[4] = { sum_seq(x), sum_lanes(x, 128), sum_lanes(x, 2), sum_pos_first(x) };
    for (int k = 0; k < 4; k++) {
      if (isfinite(v[k])) continue;
      int in = inside(&q, i, v[k]);
      nonfinite++, judged += in >= 0, out += in == 0;
    }
  }
  ok(judged >= 4 && out == 0,
     "correct orders of huge row sums (sequential, 128 lanes and a tree, 2 lanes, positive terms first): %d "
     "Inf/NaN, %d where the reference is finite, all inside", nonfinite, judged);
  int outs = 0;
  for (int64_t i = 4; i < RN; i++) outs += inside(&q, i, INFINITY) == 0;
  ok(outs == 2, "Inf on a row of normal values: %d of 2 outside", outs);
  prob_close(&q);
}

/* Where fp32's own value is not finite (session 11; up to session 10 any
 * kernel value passed there). Rows of sum_rows_smem: normal values, and
 *  - row 0 an input +Inf: fp32's value +Inf with nothing overflowed, and in
 *    every order: a kernel that drops that element (a finite sum), -Inf and
 *    NaN are outside;
 *  - row 1 inputs +Inf and -Inf: NaN in every order, a kernel's Inf outside;
 *  - row 2 two terms a = 2e38 and two -a first: fp32's sequential sum
 *    overflows (a + a), 2 strided lanes do not (a - a), and their finite
 *    value, which is right, is within the tolerance; NaN and -Inf inside
 *    (an overflow on the way: any order's Inf or NaN, as before).
 * And layernorm (samples/norm/layernorm_welford.lua) at values whose row sum
 * overflows in the reference's order (fp32's value NaN): Welford's running
 * mean stays finite, its M2 overflows, rsqrt(Inf) = 0 and y = b — an
 * absorbed overflow, a finite value far from fp64's that is inside (the
 * strict rule, every finite value judged against fp64 alone, failed
 * layernorm_welford and layernorm_warp this way at dtype-edge and pow2-edge:
 * doc/strategies.md). */
static float sum_row(const double *x, int skip)
{
  float a = 0;
  for (int c = 0; c < RC; c++)
    if (c != skip) a += (float)x[c];
  return a;
}

static void fp32_not_finite(void)
{
  prob q;
  if (!prob_open(&q, "reduce/sum_rows_smem", 3, RC)) {
    prob_close(&q);
    return;
  }
  dg_rng r;
  dg_rng_seed(&r, 9);
  double *x = q.env[q.tx], a = 2e38;
  for (int64_t i = 0; i < q.nx; i++) x[i] = (float)dg_rng_normal(&r);
  x[5] = INFINITY;
  x[RC + 7] = INFINITY, x[RC + 9] = -INFINITY;
  x[2 * RC] = x[2 * RC + 1] = a, x[2 * RC + 2] = x[2 * RC + 3] = -a;
  ok(prob_ref(&q), "rows with Inf inputs and an overflowing pair: the fp64 reference");
  fuzz_envelope_facts f[3];
  bool ev = true;
  for (int i = 0; i < 3; i++) ev = ev && fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, i, -1, &f[i]);
  ok(ev && f[0].value == INFINITY && !f[0].overflowed && !f[0].order_overflow && isnan(f[1].value) &&
     !f[1].overflowed && isinf(f[2].value) && f[2].overflowed && isfinite(q.want[2]),
     "fp32's values: +Inf from the input (overflowed %d), NaN from +-Inf (%d), Inf from a + a (%d) where fp64 "
     "gives %g", f[0].overflowed, f[1].overflowed, f[2].overflowed, q.want[2]);
  int drop = inside(&q, 0, sum_row(x, 5)), big = inside(&q, 0, FLT_MAX), nan0 = inside(&q, 0, NAN);
  ok(drop == 0 && big == 0 && nan0 == 1, "+Inf input: the sum without it (%g) outside (%d), FLT_MAX outside (%d), "
     "NaN inside (%d: fp32's value not finite)", sum_row(x, 5), drop, big, nan0);
  /* session 12 (val16): up to then a finite value passed here, fp64 NaN */
  float rest = 0;   /* row 1 without its +Inf and -Inf */
  for (int c = 0; c < RC; c++)
    if (c != 7 && c != 9) rest += (float)x[RC + c];
  ok(inside(&q, 1, rest) == 0 && inside(&q, 1, 0) == 0 &&
     inside(&q, 1, INFINITY) == 1 && inside(&q, 1, NAN) != 0,
     "+Inf and -Inf inputs: fp64's value NaN; a finite value (0, the sum without them) outside, Inf and NaN inside");
  float l2[2] = { 0, 0 };
  for (int c = 0; c < RC; c++) l2[c % 2] += (float)x[2 * RC + c];
  float two = l2[0] + l2[1];
  ok(isfinite(two) && inside(&q, 2, two) != 0 && inside(&q, 2, NAN) == 1 && inside(&q, 2, -INFINITY) == 1,
     "a + a - a - a + normal values: 2 lanes' finite sum (%g, fp64 %g) passes, NaN and -Inf inside", two, q.want[2]);
  /* session 13 (val17): up to then any finite value passed where fp32 overflowed; now only the value of an order
   * that absorbs the overflow (dge_absorbs: the sums exact, here fp64's) or the backward-error test's around fp64 */
  fuzz_envelope_facts fa;
  bool aev = fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, 2, -2, &fa);
  ok(aev && (float)fa.value == (float)q.want[2] && inside(&q, 2, FLT_MAX) == 0 && inside(&q, 2, 1e36) == 0 &&
     inside(&q, 2, -1e36) == 0,
     "a + a - a - a: the absorbing evaluation gives fp64's %g (%g); FLT_MAX, 1e36 and -1e36 outside (an order that "
     "loses the normal values to a's rounding, 0, is the backward-error test's)", q.want[2], fa.value);
  prob_close(&q);

  /* layernorm, one row of 64 huge positive values */
  dg_problem *p = load("norm/layernorm_welford");
  if (!p) return;
  int tx = tensor(p, "x"), tw = tensor(p, "w"), tb = tensor(p, "b"), ty = tensor(p, "y");
  int64_t sizes[8] = {0}, C = 64;
  for (size_t i = 0; i < p->sizes.n && i < 8; i++) sizes[i] = !strcmp(p->sizes.v[i].name, "C") ? C : 1;
  double **env = dg_calloc(p->tensors.n, sizeof *env), *want = dg_calloc((size_t)C, sizeof *want);
  uint8_t *def = dg_calloc((size_t)C, 1);
  for (size_t t = 0; t < p->tensors.n; t++) env[t] = dg_calloc((size_t)C, sizeof(double));
  for (int c = 0; c < C; c++)
    env[tx][c] = (float)(1e37 * (1 + c / 64.0)), env[tw][c] = (float)(1 + dg_rng_unit(&r)),
    env[tb][c] = (float)dg_rng_normal(&r);
  dg_ref_env renv = { .sizes = sizes, .data = (const double *const *)env };
  char *err = NULL;
  bool refok = dg_problem_ref_eval_all(p, &renv, ty, want, def, &err) == DG_REF_OK;
  free(err);
  fuzz_envelope_facts lf;
  bool lev = refok && fuzz_envelope_eval(p, sizes, env, ty, 3, -1, &lf);
  ok(lev && isnan(lf.value) && lf.overflowed && isfinite(want[3]),
     "layernorm, x in [1e37, 2e37): fp32's value NaN, overflowed (%d), fp64 %g", lf.overflowed, want[3]);
  /* Welford in fp32: the mean finite, M2 past FLT_MAX, y = (x - mean) * rsqrt(Inf) * w + b = b */
  float mean = 0, m2 = 0;
  for (int c = 0; c < C; c++) {
    float d = (float)env[tx][c] - mean;
    mean += d / (float)(c + 1);
    m2 += d * ((float)env[tx][c] - mean);
  }
  dg_tol tol = dg_problem_tol(p, ty);
  int judged = 0, in = 0;
  for (int c = 0; c < C; c++) {
    float y = ((float)env[tx][c] - mean) * (1.0f / sqrtf(m2 / (float)C + 1e-5f)) * (float)env[tw][c] +
              (float)env[tb][c];
    if (fuzz_elem_check(DG_DT_F32, y, want[c], tol) == FUZZ_ELEM_OK) continue;
    double *g = dg_calloc((size_t)C, sizeof *g);
    uint8_t *only = dg_calloc((size_t)C, 1);
    g[c] = y, only[c] = 1;
    int64_t first;
    judged++;
    in += fuzz_envelope_filter(p, sizes, env, NULL, ty, g, want, only, NULL, C, tol, &first, NULL) == 0;
    free(g), free(only);
  }
  ok(isinf(m2) && isfinite(mean) && judged >= C - 4 && in == judged,
     "Welford's layernorm: M2 overflows (%g), y = b at %d of %d elements, all inside (%d)", m2, judged, (int)C, in);
  /* session 13 (val17): a finite value passes there only near the absorbing evaluation's (y = b), or fp64's; up to
   * then any did. A layernorm that drops its bias (y = 0 here), or adds it twice, and garbage outside. */
  fuzz_envelope_facts af;
  bool aok = fuzz_envelope_eval(p, sizes, env, ty, 3, -2, &af);
  ok(aok && af.value == (float)env[tb][3], "layernorm at [1e37, 2e37): the absorbing evaluation (sums exact) gives "
     "y = b (%g, b %g)", af.value, (float)env[tb][3]);
  int outs[3] = {0}, nj[3] = {0};
  for (int c = 0; c < C; c++) {
    float bad[3] = { 0, 2 * (float)env[tb][c], (float)env[tb][c] + 1 };
    for (int k = 0; k < 3; k++) {
      if (fuzz_elem_check(DG_DT_F32, bad[k], want[c], tol) == FUZZ_ELEM_OK ||
          fabs(bad[k] - (float)env[tb][c]) <= tol.atol + tol.rtol * fabs((float)env[tb][c]))
        continue;
      double *g = dg_calloc((size_t)C, sizeof *g);
      uint8_t *only = dg_calloc((size_t)C, 1);
      g[c] = bad[k], only[c] = 1;
      int64_t first;
      nj[k]++;
      outs[k] += fuzz_envelope_filter(p, sizes, env, NULL, ty, g, want, only, NULL, C, tol, &first, NULL) == 1;
      free(g), free(only);
    }
  }
  ok(nj[0] >= C - 4 && outs[0] == nj[0] && nj[1] >= C / 2 && outs[1] == nj[1] && nj[2] >= C - 4 && outs[2] == nj[2],
     "layernorm at [1e37, 2e37): without its bias (0) %d of %d outside, the bias twice %d of %d, b + 1 %d of %d",
     outs[0], nj[0], outs[1], nj[1], outs[2], nj[2]);
  for (size_t t = 0; t < p->tensors.n; t++) free(env[t]);
  free(env), free(want), free(def);
  dg_problem_free(p);
}

/* Where fp32's own value is finite and fp64's, rounded to the output dtype,
 * is not (session 12; up to session 11 any finite kernel value passed there:
 * the first test's slack 2 |r32 - r64| was infinite, and the device's line
 * returned 1 outright):
 *  - sum_rows_smem, a row FLT_MAX and four 2^102: fp64 FLT_MAX + 2^104 =
 *    2^128 rounds to Inf, fp32's sequential sum stays FLT_MAX (each 2^102 is
 *    below half an ulp). Every order gives FLT_MAX or Inf; the envelope is
 *    fp64's value clamped to FLT_MAX: FLT_MAX inside, 0, FLT_MAX / 2 and
 *    -FLT_MAX outside;
 *  - max_rows_pairs, a row with a NaN: fp64 NaN (max propagates it), fp32's
 *    fmaxf skips it. No fp64 number: fp32's value and the perturbed
 *    evaluations' finite spread around it judge. The fmaxf kernel's value
 *    inside; 0, the row's max plus one, the max of the values after the NaN
 *    (a comparison that drops the prefix) outside. */
static void fp64_not_finite(void)
{
  prob q;
  if (!prob_open(&q, "reduce/sum_rows_smem", 1, RC)) {
    prob_close(&q);
    return;
  }
  double *x = q.env[q.tx];
  x[0] = FLT_MAX;
  for (int c = 1; c <= 4; c++) x[c] = 0x1p102;
  fuzz_envelope_facts f;
  bool ev = prob_ref(&q) && fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, 0, -1, &f);
  ok(ev && f.value == FLT_MAX && isfinite(q.want[0]) && isinf((float)q.want[0]),
     "FLT_MAX + 4 * 2^102: fp32's sum %g, fp64 %.9g rounds to Inf", f.value, q.want[0]);
  int vmax = inside(&q, 0, FLT_MAX), v0 = inside(&q, 0, 0), vhalf = inside(&q, 0, FLT_MAX / 2),
      vneg = inside(&q, 0, -FLT_MAX);
  ok(vmax == 1 && v0 == 0 && vhalf == 0 && vneg == 0,
     "fp64 past FLT_MAX: FLT_MAX inside (%d); 0 (%d), FLT_MAX / 2 (%d), -FLT_MAX (%d) outside", vmax, v0, vhalf,
     vneg);
  prob_close(&q);

  if (!prob_open(&q, "reduce/max_rows_pairs", 1, 37)) {
    prob_close(&q);
    return;
  }
  dg_rng r;
  dg_rng_seed(&r, 21);
  x = q.env[q.tx];
  float m = -INFINITY, suffix = -INFINITY;
  for (int c = 0; c < 37; c++) {
    x[c] = c == 20 ? NAN : c == 3 ? 4.5 : (float)dg_rng_normal(&r) / 4;   /* the row's max before the NaN */
    if (c != 20) m = fmaxf(m, (float)x[c]);
    if (c > 20) suffix = fmaxf(suffix, (float)x[c]);
  }
  ev = prob_ref(&q) && fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, 0, -1, &f);
  ok(ev && isnan(q.want[0]) && f.value == m && m == 4.5 && suffix < m,
     "a row with a NaN: fp64 NaN, fp32's fmaxf %g, the max after the NaN %g", f.value, suffix);
  int vm = inside(&q, 0, m), vz = inside(&q, 0, 0), v1 = inside(&q, 0, m + 1), vs = inside(&q, 0, suffix);
  ok(vm == 1 && vz == 0 && v1 == 0 && vs == 0,
     "fp64 NaN: fmaxf's max inside (%d); 0 (%d), max + 1 (%d), the max after the NaN %g (%d) outside", vm, vz, v1,
     suffix, vs);
  prob_close(&q);
}

/* The shared rule (gpu_env_dev.h's dge_judge, which the host's
 * within_envelope follows through dge_center and dge_sample) on evaluations
 * given (dge_st.pre, as the device's matmul windows hand them over): the
 * round32 pass r32 and three perturbed evaluations rp. Its verdict whole
 * and in parts, evaluation k alone each, joined (gpu_env.c's warps): -1
 * where the two differ. f32 output, softmax's tolerance. */
static int given(double r32, double rp0, double rp1, double rp2, double got, double want)
{
  dge_res q[4] = { { .r = r32 }, { .r = rp0 }, { .r = rp1 }, { .r = rp2 } };
  long long n[4] = {0};
  double p[3] = {0}, atol = 1e-6, rtol = 1e-5;
  dge_st e;
  memset(&e, 0, sizeof e);
  e.pre = q;
  int v = dge_judge(&e, 0, n, p, 0, got, want, 0, atol, rtol), pv[3];
  double pc[3];
  for (int k = 0; k < 3; k++) {
    dge_st x;
    memset(&x, 0, sizeof x);
    x.pre = q;
    pv[k] = dge_judge_part(&x, 0, n, p, 0, got, want, 0, atol, rtol, k, k, &pc[k]);
  }
  return v == dge_judge_join(pv, pc, 3, got, want, 0, atol, rtol) ? v : -1;
}

/* A perturbed evaluation that is not finite (session 12; up to session 11
 * it passed any finite kernel value where fp32's own value is finite), and
 * fp64 not finite where fp32 is, on the shared rule's own terms (given):
 *  - r32 = 1, fp64 1.001, an evaluation NaN: the other two judge (1.003
 *    inside, 1.01 outside; with all three NaN 1.01 outside too);
 *  - fp64 3.5e38 (Inf in fp32), r32 = FLT_MAX: 0 outside, FLT_MAX inside;
 *  - fp64 NaN, r32 = 2: fp32's value and the evaluations' spread around it
 *    (2.0005 inside with an evaluation at 2.0002; 2.01 and 0 outside);
 *  - r32 = Inf, fp64 finite (session 11's branch): a NaN evaluation is
 *    skipped as above, where it failed the element before. And softmax_warp,
 *    a row with a -Inf (a mask): exp(-Inf - m) = 0 in every order, but the
 *    perturbed read of -Inf was -Inf + d (-Inf), NaN for d < 0, and the row's
 *    evaluation NaN; an Inf is read as it is now. Every element of the row
 *    doubled outside, the correct kernel inside. */
static void perturbed_not_finite(void)
{
  double big = 3.5e38, fm = FLT_MAX;
  ok(given(1, NAN, 1.0005, 1.0002, 1.003, 1.001) == 1 && given(1, NAN, 1.0005, 1.0002, 1.01, 1.001) == 0 &&
     given(1, NAN, NAN, NAN, 1.01, 1.001) == 0 && given(1, INFINITY, 1.0005, 1.0002, 1.01, 1.001) == 0,
     "r32 = 1, fp64 1.001, an evaluation NaN or Inf: 1.003 inside, 1.01 outside (all three NaN: outside)");
  ok(given(fm, big * (1 + 1e-7), big, big * (1 - 1e-7), 0, big) == 0 &&
     given(fm, big * (1 + 1e-7), big, big, fm, big) == 1 && given(fm, big, big, big, fm / 2, big) == 0,
     "fp64 3.5e38, r32 = FLT_MAX: 0 and FLT_MAX / 2 outside, FLT_MAX inside");
  ok(given(2, NAN, 2.0002, 1.9999, 2.0005, NAN) == 1 && given(2, NAN, 2.0002, 1.9999, 2.01, NAN) == 0 &&
     given(2, 2, 2, 2, 0, NAN) == 0 && given(2, NAN, NAN, NAN, 2, NAN) == 1,
     "fp64 NaN, r32 = 2: 2.0005 inside (an evaluation at 2.0002), 2.01 and 0 outside, 2 itself inside");
  ok(given(INFINITY, NAN, 1.001, 1, 1.003, 1) == 1 && given(INFINITY, NAN, NAN, NAN, 1.003, 1) == 0,
     "r32 = Inf, fp64 1: a NaN evaluation skipped, 1.003 inside by the other two; outside with all three NaN");

  prob q;
  if (!prob_open(&q, "softmax/softmax_warp", 1, SC)) {
    prob_close(&q);
    return;
  }
  dg_rng r;
  dg_rng_seed(&r, 23);
  float x[SC], y[SC];
  for (int c = 0; c < SC; c++) x[c] = (float)(q.env[q.tx][c] = c == 10 ? -INFINITY : (float)dg_rng_normal(&r));
  int fin = 0;
  if (prob_ref(&q))
    for (int c = 0; c < SC; c++)
      for (int k = 0; k < 3; k++) {
        fuzz_envelope_facts f;
        fin += fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, c, k, &f) && isfinite(f.value);
      }
  ok(fin == 3 * SC, "softmax, a row with a -Inf: %d of %d perturbed evaluations finite (-Inf read as it is)", fin,
     3 * SC);
  softmax_warp(x, y, false);
  int cin = 0, dout = 0, dj = 0;
  for (int c = 0; c < SC; c++) {
    cin += inside(&q, c, y[c]) != 0;
    if (c == 10) continue;
    int v = inside(&q, c, 2 * y[c]);
    dj += v >= 0, dout += v == 0;
  }
  ok(cin == SC && dj == SC - 1 && dout == dj,
     "softmax with a -Inf: the correct kernel inside or within the tolerance at %d of %d, twice its value outside at "
     "%d of %d", cin, SC, dout, dj);
  prob_close(&q);
}

/* Where fp32's own value is not finite and fp64 is NaN (val16, session 12;
 * up to then any finite kernel value passed there: session 11's first
 * clause, isnan(r64) -> inside). fp32's non-finite value through arithmetic
 * alone is non-finite in every order; a finite value is inside only where an
 * overflow may be absorbed (overflowed, order_overflow: as before) or where
 * a comparison, max or min read a NaN (nan_cmp: the kernel's comparison may
 * be the negated one, or gate on a max that skipped the NaN):
 *  - sum_rows_smem, a row with a NaN input: the sum without it outside, NaN
 *    inside;
 *  - softmax_warp, a row with a +Inf: m = Inf, exp(Inf - Inf) makes the
 *    row's sum and every output NaN in every order: the softmax of the row
 *    without the Inf outside at every element. With a NaN instead, the max
 *    reads it (nan_cmp) and the same values are inside: softmax_online
 *    (a correct sample) gives them on adversarial's `special` case 9 — a
 *    lane whose fmaxf skipped the NaN keeps m = -Inf, and its merge's guard
 *    (m == -Inf: 0) drops the lane's NaN sum;
 *  - leaky_relu (where(gt(x, 0), x, a x)) at a NaN: fp32's value NaN, but
 *    fmaxf(x, 0) + a fminf(x, 0) gives 0 — a kernel's legitimate value,
 *    inside; the rule itself (dge_r32_nonfinite) on its four inputs. */
static void r32_nonfinite_fp64_nan(void)
{
  ok(dge_r32_nonfinite(NAN, 0, 0, 0, 0) == 0 && dge_r32_nonfinite(NAN, 0, 0, 1, 0) == 1 &&
     dge_r32_nonfinite(NAN, 1, 0, 0, 1) == 1 && dge_r32_nonfinite(NAN, 0, 1, 0, 1) == 1 &&
     dge_r32_nonfinite(NAN, 1, 0, 0, 0) == 0 && dge_r32_nonfinite(NAN, 0, 0, 0, 1) == 0 &&
     dge_r32_nonfinite(INFINITY, 0, 0, 1, 0) == 0 && dge_r32_nonfinite(-INFINITY, 1, 0, 0, 1) == 1 &&
     dge_r32_nonfinite(-INFINITY, 1, 0, 0, 0) == 2 && dge_r32_nonfinite(1.5, 0, 0, 1, 0) == 2 &&
     dge_r32_nonfinite(1.5, 0, 1, 0, 1) == 1 && dge_r32_nonfinite(1.5, 1, 0, 0, 0) == 2,
     "dge_r32_nonfinite: fp64 NaN outside unless a comparison on a NaN, or an overflow and the value an order "
     "absorbing it gives; fp64 Inf outside without an overflow, else the clamp's; finite fp64 the backward-error "
     "test's unless the absorbing order's value");
  prob q;
  if (!prob_open(&q, "reduce/sum_rows_smem", 1, RC)) {
    prob_close(&q);
    return;
  }
  dg_rng r;
  dg_rng_seed(&r, 31);
  double *x = q.env[q.tx];
  for (int64_t i = 0; i < q.nx; i++) x[i] = (float)dg_rng_normal(&r);
  x[17] = NAN;
  fuzz_envelope_facts f;
  bool ev = prob_ref(&q) && fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, 0, -1, &f);
  ok(ev && isnan(f.value) && isnan(q.want[0]) && f.nan_input && !f.overflowed && !f.order_overflow,
     "a row with a NaN: fp32's sum NaN, fp64 NaN, no overflow");
  float drop = sum_row(x, 17);
  int vd = inside(&q, 0, drop), vz = inside(&q, 0, 0), vn = inside(&q, 0, NAN);
  ok(vd == 0 && vz == 0 && vn != 0, "the sum without the NaN (%g) outside (%d), 0 outside (%d), NaN inside (%d)",
     drop, vd, vz, vn);
  prob_close(&q);

  if (!prob_open(&q, "softmax/softmax_warp", 1, SC)) {
    prob_close(&q);
    return;
  }
  float xs[SC], y[SC], xd[SC];
  for (int pass = 0; pass < 2; pass++) {   /* a NaN at 40, then a +Inf */
    for (int c = 0; c < SC; c++)
      xs[c] = (float)(q.env[q.tx][c] = c == 40 ? (pass ? INFINITY : NAN) : (float)dg_rng_normal(&r));
    for (int c = 0; c < SC; c++) xd[c] = c == 40 ? -INFINITY : xs[c];   /* the row without it */
    softmax_warp(xd, y, false);
    int nanwant = 0, in = 0, judged = 0;
    if (prob_ref(&q))
      for (int c = 0; c < SC; c++) {
        nanwant += isnan(q.want[c]) != 0;
        int v = inside(&q, c, y[c]);
        judged += v >= 0, in += v == 1;
      }
    if (!pass)
      ok(nanwant == SC && judged == SC && in == SC,
         "softmax with a NaN: fp64 NaN at %d of %d; the max reads the NaN (nan_cmp): the softmax without it (what "
         "softmax_online gives where its lane's fmaxf skipped the NaN) inside at %d of %d", nanwant, SC, in, judged);
    else
      ok(nanwant == SC && judged == SC && in == 0,
         "softmax with a +Inf: fp64 NaN at %d of %d (Inf - Inf), no NaN read by a max: the softmax without it "
         "inside at %d of %d", nanwant, SC, in, judged);
  }
  prob_close(&q);

  if (!prob_open(&q, "elementwise/leaky_relu_macro", 8, 1)) {
    prob_close(&q);
    return;
  }
  for (int i = 0; i < 8; i++) q.env[q.tx][i] = i == 3 ? NAN : i - 4.5;
  ev = prob_ref(&q) && fuzz_envelope_eval(q.p, q.sizes, q.env, q.ty, 3, -1, &f);
  ok(ev && isnan(f.value) && isnan(q.want[3]) && inside(&q, 3, 0) == 1 && inside(&q, 3, NAN) != 0,
     "leaky_relu at a NaN: fp32's where(gt(x, 0), x, a x) NaN; fmaxf(x, 0) + a fminf(x, 0) = 0 inside");
  prob_close(&q);
}

/* A perturbed evaluation the reference cannot give (val16, session 12; up to
 * then within_envelope returned !r32_inf: inside wherever fp32's own value
 * is finite). A reference that reads its float attribute `shift` as an
 * integer (math.tointeger: nil for the perturbed 1 + d), y[i] = 2 x[i +
 * shift]: the round32 pass reads 1.0 and gives fp64's value, every perturbed
 * evaluation errors out. Such an evaluation explains nothing: a kernel value
 * off by 1 or by 2x is outside at every element, the correct one within the
 * tolerance. Host only: the device's evaluations (dge_eval_op) cannot fail. */
static const char attr_index_spec[] =
  "return problem {\n"
  "  source = \"k.cu\",\n"
  "  op = op \"shift2\" {\n"
  "    inputs  = { x = {\"N\"} },\n"
  "    outputs = { y = {\"N\"} },\n"
  "    attrs   = { shift = 1.0 },\n"
  "    sizes   = { N = {8} },\n"
  "    ref = function(T, i) return 2 * T.x[(i + math.tointeger(T.shift)) % T.N] end,\n"
  "  },\n"
  "  sizes = { N = 8 },\n"
  "  launch = \"k<<<1, 8>>>(y, x, N)\",\n"
  "}\n";

static void perturbed_error(void)
{
  char dir[] = "/tmp/dg_envelope_XXXXXX";
  if (!mkdtemp(dir)) {
    ok(0, "a temporary folder");
    return;
  }
  char *path = dg_printf("%s/shift2.lua", dir);
  FILE *fp = fopen(path, "w");
  bool written = fp && fputs(attr_index_spec, fp) >= 0;
  if (fp) written = fclose(fp) == 0 && written;
  dg_diags d = {0};
  dg_problem *p = written ? dg_spec_load(path, &d) : NULL;
  bool loaded = p && !d.nerrors;
  dg_diags_free(&d);
  remove(path);
  rmdir(dir);
  free(path);
  ok(loaded, "an op whose reference reads a float attribute as an integer loads");
  if (!loaded) {
    if (p) dg_problem_free(p);
    return;
  }
  int tx = tensor(p, "x"), ty = tensor(p, "y");
  int64_t sizes[8] = { 8 }, n = 8;
  double **env = dg_calloc(p->tensors.n, sizeof *env), want[8];
  uint8_t def[8];
  for (size_t t = 0; t < p->tensors.n; t++) env[t] = dg_calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) env[tx][i] = 0.25 + i;
  dg_ref_env renv = { .sizes = sizes, .data = (const double *const *)env };
  char *err = NULL;
  bool refok = dg_problem_ref_eval_all(p, &renv, ty, want, def, &err) == DG_REF_OK;
  free(err);
  fuzz_envelope_facts f;
  int r32ok = 0, perr = 0;
  for (int i = 0; refok && i < n; i++) {
    r32ok += fuzz_envelope_eval(p, sizes, env, ty, i, -1, &f) && f.value == want[i];
    for (int k = 0; k < 3; k++) perr += !fuzz_envelope_eval(p, sizes, env, ty, i, k, &f);
  }
  ok(refok && r32ok == n && perr == 3 * n,
     "y[i] = 2 x[i + shift]: fp32's value fp64's at %d of %d, %d of %d perturbed evaluations fail", r32ok, (int)n,
     perr, (int)(3 * n));
  dg_tol tol = dg_problem_tol(p, ty);
  int out1 = 0, out2 = 0, good = 0;
  for (int64_t i = 0; i < n; i++) {
    double vals[3] = { want[i] + 1, 2 * want[i], (float)want[i] };
    for (int v = 0; v < 3; v++) {
      if (fuzz_elem_check(DG_DT_F32, vals[v], want[i], tol) == FUZZ_ELEM_OK) {
        good += v == 2;
        continue;
      }
      double g[8] = {0};
      uint8_t only[8] = {0};
      g[i] = vals[v], only[i] = 1;
      int64_t first;
      int64_t remain = fuzz_envelope_filter(p, sizes, env, NULL, ty, g, want, only, NULL, n, tol, &first, NULL);
      if (v == 0) out1 += remain == 1;
      if (v == 1) out2 += remain == 1;
      if (v == 2) good += remain == 0;
    }
  }
  ok(out1 == n && out2 == n && good == n,
     "every perturbed evaluation an error: y + 1 outside at %d of %d, 2 y at %d, the correct value inside or within "
     "the tolerance at %d", out1, (int)n, out2, good);
  for (size_t t = 0; t < p->tensors.n; t++) free(env[t]);
  free(env);
  dg_problem_free(p);
}

/* dge_order_ovf itself: max(P, N) = (sh + |r|) / 2 against 2^128 - 2^103 */
static void order_test(void)
{
  double fm = FLT_MAX, a = 2e38;
  ok(!dge_order_ovf(2 * fm, 0), "FLT_MAX - FLT_MAX: no order overflows");
  ok(dge_order_ovf(3 * a, a), "a + a - a, a = 2e38: adding a + a first overflows");
  /* FLT_MAX + b - FLT_MAX: the positive terms reach FLT_MAX + b, which rounds to Inf from b = half an ulp (to even) */
  ok(!dge_order_ovf(2 * fm + 0x1p102, 0x1p102) && dge_order_ovf(2 * fm + 0x1p103, 0x1p103),
     "FLT_MAX + b - FLT_MAX: b = 2^102 no order overflows, b = 2^103 (half an ulp) FLT_MAX + b does");
  ok(!dge_order_ovf(INFINITY, INFINITY) && !dge_order_ovf(1, NAN), "a non-finite result: not this test's");
}

int main(void)
{
  order_test();
  softmax_huge();
  row_sums_huge();
  fp32_not_finite();
  fp64_not_finite();
  perturbed_not_finite();
  r32_nonfinite_fp64_nan();
  perturbed_error();
  return tap_done();
}
