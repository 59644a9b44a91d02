/* env.c — the validator's envelope on the GPU (gpu_env.c). Built two ways:
 *  env.t: with no GPU, the rule's shared code (gpu_env_dev.h, compiled here
 *    as C) gives the host envelope's verdict (fuzz_envelope.c, the Lua
 *    reference in fp32) element by element on every sample with a GPU
 *    reference, on adversarial inputs and kernel values built to reach each
 *    branch of the rule; the backend hook's plumbing in fuzz_envelope_filter_on
 *    (candidates, caps, first failure, on_fail) against the host filter; the
 *    kernel compiles with NVRTC. On a GPU, in addition: every sample with a
 *    GPU reference fuzzed (boundary and adversarial) with the envelope on the
 *    device and with the host's (DIRIGO_GPU_ENVELOPE=0): the same outcome,
 *    case by case (the agreement table of doc/gpu.md §4.4).
 *  env_mock.t (DG_MOCK_CUDA): the campaign comparison on the mocked runtime,
 *    whose dg_env runs the shared code: the hook's plumbing end to end. */
#include "fuzz_gpu.h"
#include "gpu_env.h"
#include "lua_spec.h"
#include "../tap.h"
#include "samples.h"
#include <dirent.h>
#include <math.h>

#define DG_ENV_EMIT(...) __VA_ARGS__
#define DG_DEV static inline
#include "gpu_env_dev.h"
#undef DG_DEV
#undef DG_ENV_EMIT



/* A case of a problem with a GPU reference: adversarial inputs (as doubles
 * and as the device's bytes), the fp64 reference of the output. */
typedef struct {
  dg_problem *p;
  int64_t *sizes;
  gpu_env_launch L;
  int out;
  int64_t n;
  double **data;
  uint8_t **raw;
  double *want;
  uint8_t *def;
} ecase;

static double adversarial(dg_rng *r, bool positive)
{
  double u = dg_rng_unit(r), v;
  if (u < 0.005) return NAN;
  if (u < 0.4) v = dg_rng_normal(r);
  else if (u < 0.55) v = 1e4 * dg_rng_normal(r);
  else if (u < 0.65) v = 3e38 * (2 * dg_rng_unit(r) - 1);
  else if (u < 0.75) v = 1e-30 * dg_rng_normal(r);
  else if (u < 0.9) v = 1e6 + dg_rng_normal(r);
  else v = 60 * dg_rng_normal(r);
  return positive ? fabs(v) + 1e-3 : v;
}

/* The sample's spec sizes, those named in set ("K=1025 M=3") replaced. */
static bool case_make_sized(ecase *c, const char *rel, uint64_t seed, bool mild, const char *set)
{
  memset(c, 0, sizeof *c);
  c->p = gt_load(rel);
  if (!c->p) return false;
  dg_problem *p = c->p;
  c->sizes = dg_calloc(p->sizes.n + 1, sizeof *c->sizes);
  dg_problem_default_sizes(p, c->sizes);
  for (const char *q = set; q && *q;) {
    char name[32];
    long long v;
    int used = 0;
    if (sscanf(q, " %31[^=]=%lld%n", name, &v, &used) != 2) return false;
    q += used;
    size_t i = 0;
    while (i < p->sizes.n && strcmp(p->sizes.v[i].name, name)) i++;
    if (i == p->sizes.n) return false;
    c->sizes[i] = v;
  }
  gpu_ref_plan pl;
  if (!gpu_ref_plan_for(p, c->sizes, &pl) ||
      !gpu_env_launch_for(p, c->sizes, pl.out, dg_problem_tol(p, pl.out), &c->L))
    return false;
  c->out = pl.out;
  c->n = dg_problem_numel(p, c->out, c->sizes);
  dg_rng r;
  dg_rng_seed(&r, seed);
  c->data = dg_calloc(p->tensors.n, sizeof *c->data);
  c->raw = dg_calloc(p->tensors.n, sizeof *c->raw);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t n = dg_problem_numel(p, (int)t, c->sizes);
    c->data[t] = dg_calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    c->raw[t] = dg_calloc((size_t)(n > 0 ? n : 1), (size_t)dg_dtypes[ts->dtype].size);
    if (ts->role != DG_TENSOR_INPUT) continue;
    for (int64_t i = 0; i < n; i++) {
      double v = mild ? (ts->positive ? 0.5 + dg_rng_unit(&r) : dg_rng_normal(&r)) : adversarial(&r, ts->positive);
      c->data[t][i] = dg_dtype_round(ts->dtype, v);
      dg_dtype_store(ts->dtype, c->raw[t], i, c->data[t][i]);
    }
  }
  c->want = dg_calloc((size_t)c->n + 1, sizeof *c->want);
  c->def = dg_calloc((size_t)c->n + 1, 1);
  dg_ref_env env = { .sizes = c->sizes, .data = (const double *const *)c->data };
  char *err = NULL;
  bool ok = dg_problem_ref_eval_all(p, &env, c->out, c->want, c->def, &err) == DG_REF_OK;
  free(err);
  return ok;
}

static bool case_make(ecase *c, const char *rel, uint64_t seed, bool mild)
{
  return case_make_sized(c, rel, seed, mild, NULL);
}

static void case_free(ecase *c)
{
  for (size_t t = 0; c->p && c->data && t < c->p->tensors.n; t++) free(c->data[t]), free(c->raw[t]);
  free(c->data), free(c->raw), free(c->want), free(c->def), free(c->sizes);
  if (c->p) dg_problem_free(c->p);
}

/* The shared rule, as the kernel runs it, on the case's device bytes. */
static dge_st st_of(const ecase *c)
{
  dge_st e;
  memset(&e, 0, sizeof e);
  for (int i = 0; i < 3; i++) {
    e.in[i] = c->L.in_t[i] >= 0 ? c->raw[c->L.in_t[i]] : NULL;
    e.dt[i] = (int)c->L.in_dt[i];
    e.tid[i] = c->L.in_t[i];
  }
  return e;
}

static int dev_judge(const ecase *c, int64_t i, double got)
{
  dge_st e = st_of(c);
  long long n[4] = { c->L.n[0], c->L.n[1], c->L.n[2], c->L.n[3] };
  return dge_judge(&e, (int)c->L.kind, n, c->L.p, i, got, c->want[i], (int)c->L.out_dt, c->L.atol,
                   c->L.rtol);
}

/* fp32's own value of element i (round32 evaluation of the shared code). */
static double r32_of(const ecase *c, int64_t i)
{
  dge_st e = st_of(c);
  e.round32 = 1;
  e.flat = i;
  long long n[4] = { c->L.n[0], c->L.n[1], c->L.n[2], c->L.n[3] };
  return (float)dge_eval(&e, (int)c->L.kind, n, c->L.p, i);
}

/* The host envelope's verdict on element i alone. */
static int host_judge(const ecase *c, int64_t i, double *got, uint8_t *only)
{
  int64_t first;
  only[i] = 1;
  int64_t remain = fuzz_envelope_filter(c->p, c->sizes, c->data, NULL, c->out, got, c->want, only, NULL, c->n,
                                        dg_problem_tol(c->p, c->out), &first, NULL);
  only[i] = 0;
  return remain == 0;
}

/* Element by element: the shared code's verdict = the host's, for kernel
 * values near fp32's own result, past it, NaN, Inf, far off. */
static void shared_vs_host(const char *rel, int *nsamples, int64_t *tot_in, int64_t *tot_out)
{
  ecase c;
  if (!case_make(&c, rel, 7, false)) {
    case_free(&c);
    return;
  }
  ++*nsamples;
  dg_rng r;
  dg_rng_seed(&r, 11);
  double *got = dg_calloc((size_t)c.n + 1, sizeof *got);
  uint8_t *only = dg_calloc((size_t)c.n + 1, 1);
  dg_dtype od = c.p->tensors.v[c.out].dtype;
  dg_tol tol = dg_problem_tol(c.p, c.out);
  int64_t judged = 0, inside = 0, differ = 0, first = -1;
  double fgot = 0;
  for (int k = 0; k < 40 && c.n > 0; k++) {
    int64_t i = (int64_t)dg_rng_below(&r, (uint64_t)c.n);
    if (!c.def[i]) continue;
    double w = c.want[i], r32 = r32_of(&c, i), g;
    switch (k % 8) {
    case 0: g = r32 * (1 + 3e-7); break;
    case 1: g = r32 + 2.5 * (r32 - w) + tol.atol; break;
    case 2: g = NAN; break;
    case 3: g = INFINITY; break;
    case 4: g = w * (1 + 1e-3) + tol.atol * 3; break;
    case 5: g = w * (1 + 4 * tol.rtol) + 2 * tol.atol; break;
    case 6: g = -w - 1; break;
    default: g = w + 1e-7 * fabs(w) + 2 * tol.atol; break;
    }
    g = dg_dtype_round(od, g);
    if (fuzz_elem_check(od, g, w, tol) == FUZZ_ELEM_OK) continue;
    got[i] = g;
    int h = host_judge(&c, i, got, only), dv = dev_judge(&c, i, g);
    judged++;
    inside += h;
    if (h != dv && differ++ == 0) first = i, fgot = g;
  }
  ok(differ == 0 && judged > 0, "%s (%s): shared rule = host envelope on %lld elements (%lld inside)", rel,
     c.p->op_name, (long long)judged, (long long)inside);
  if (differ)
    printf("#   %lld differ; first [%lld]: got %.9g want %.17g, host %d\n", (long long)differ, (long long)first,
           fgot, c.want[first], host_judge(&c, first, got, only));
  *tot_in += inside;
  *tot_out += judged - inside;
  free(got), free(only);
  case_free(&c);
}

/* The evaluations themselves, bit for bit: fp32's and the three perturbed
 * fp64 ones, with the overflow and NaN-input facts, at every
 * element (up to 64) on adversarial and on ordinary inputs. */
/* Case c's evaluations at every element (up to 64) against the host's: the
 * number compared; *differ and what (the first) the ones not bit for bit. */
static int64_t evals_compare(const ecase *c, int64_t *differ, char *what, size_t nwhat)
{
  int64_t step = c->n > 64 ? c->n / 64 : 1, evals = 0;
  long long n[4] = { c->L.n[0], c->L.n[1], c->L.n[2], c->L.n[3] };
  for (int64_t i = 0; i < c->n; i += step)
    for (int k = -2; k < 3; k++) {   /* -2: the absorbing evaluation (dge_absorbs), -1 fp32's */
      fuzz_envelope_facts h;
      if (!fuzz_envelope_eval(c->p, c->sizes, c->data, c->out, i, k, &h)) continue;
      dge_st e = st_of(c);
      e.flat = i;
      if (k >= 0) {   /* the normwise scale, as dge_judge takes it: the round32 pass's largest input */
        e.round32 = 1;
        e.maxin[0] = e.maxin[1] = e.maxin[2] = 0;
        dge_eval(&e, (int)c->L.kind, n, c->L.p, i);
        for (int s = 0; s < 3; s++) e.scale[s] = e.maxin[s];
      }
      e.round32 = k < 0;
      e.absorb = k == -2;
      e.perturb = k >= 0;
      e.k = k < 0 ? 0 : k;
      double v = dge_eval(&e, (int)c->L.kind, n, c->L.p, i);
      evals++;
      bool same = (v == h.value || (isnan(v) && isnan(h.value))) &&
                  !e.overflowed == !h.overflowed && !e.order_overflow == !h.order_overflow &&
                  !e.nan_input == !h.nan_input;
      if (!same && (*differ)++ == 0)
        snprintf(what, nwhat, "[%lld] k=%d: %.17g/%.17g overflowed %d/%d order %d/%d nan %d/%d",
                 (long long)i, k, v, h.value, e.overflowed, h.overflowed, e.order_overflow,
                 h.order_overflow, e.nan_input, h.nan_input);
    }
  return evals;
}

/* The evaluations themselves, bit for bit: fp32's and the three perturbed
 * fp64 ones, with the overflow and NaN-input facts, at every
 * element (up to 64) on adversarial and on ordinary inputs. */
static void evals_vs_host(const char *rel, int *nsamples, int64_t *tot)
{
  for (int mild = 0; mild < 2; mild++) {
    ecase c;
    if (!case_make(&c, rel, 21 + (uint64_t)mild, mild)) {
      case_free(&c);
      return;
    }
    *nsamples += !mild;
    int64_t differ = 0;
    char what[200] = "";
    int64_t evals = evals_compare(&c, &differ, what, sizeof what);
    ok(differ == 0 && evals > 0, "%s (%s), %s inputs: %lld evaluations equal the host's bit for bit%s%s", rel,
       c.p->op_name, mild ? "ordinary" : "adversarial", (long long)evals, differ ? "; differ: " : "", what);
    *tot += evals;
    case_free(&c);
  }
}

/* The loops that load their next 8 reads before using them (gpu_env_dev.h's
 * dge_ld8: rows, reduce, matmul) at lengths around the group: 1, 7, 9, 16
 * and 1025 (groups and a tail, a tail alone, whole groups alone). Each case's last row or column
 * ends its tensor's buffer (allocated to the byte), so a read past it is an
 * error under ASan and valgrind, and one inside it a value the host did not
 * read: the evaluations must equal the host's bit for bit, and the verdicts
 * (kernel values past fp32's bound, decided by the perturbed evaluations). */
static void lengths_vs_host(void)
{
  static const struct { const char *rel, *fmt; } L[] = {
    { "matmul/matmul_tiled", "M=3 N=2 K=%d" },      { "matmul/matmul_tn_naive", "M=3 N=2 K=%d" },
    { "matmul/gemv_warp", "M=2 K=%d" },             { "matmul/bmm_tiled", "B=2 M=2 N=3 K=%d" },
    { "norm/layernorm_block", "N=2 C=%d" },         { "norm/rmsnorm_warp", "N=2 C=%d" },
    { "softmax/softmax_block", "N=2 C=%d" },        { "softmax/log_softmax_warp", "N=2 C=%d" },
    { "reduce/sum_rows_smem", "N=2 C=%d" },         { "reduce/col_sum", "N=%d C=3" },
    { "reduce/l2norm_block", "N=2 C=%d" },          { "reduce/max_rows_pairs", "N=2 C=%d" },
  };
  static const int lens[] = { 1, 7, 9, 16, 1025 };
  for (size_t l = 0; l < sizeof L / sizeof *L; l++)
    for (size_t j = 0; j < sizeof lens / sizeof *lens; j++) {
      char set[64];
      snprintf(set, sizeof set, L[l].fmt, lens[j]);
      int64_t differ = 0, verdicts = 0, vdiffer = 0, evals = 0;
      char what[200] = "";
      bool made = true;
      for (int mild = 0; mild < 2 && made; mild++) {   /* adversarial inputs, then ordinary ones */
        ecase c;
        made = case_make_sized(&c, L[l].rel, 41 + j, mild, set);
        if (!made) {
          case_free(&c);
          break;
        }
        evals += evals_compare(&c, &differ, what, sizeof what);
        double *got = dg_calloc((size_t)c.n + 1, sizeof *got);
        uint8_t *only = dg_calloc((size_t)c.n + 1, 1);
        for (int64_t i = c.n - 1; i >= 0 && i >= c.n - 4; i--) {   /* the last elements: the last rows */
          if (!c.def[i]) continue;
          double r32 = r32_of(&c, i), w = c.want[i];
          double gs[2] = { r32 + 2.5 * (r32 - w) + c.L.atol, w * (1 + 1e-3) + 3 * c.L.atol };
          for (int g = 0; g < 2; g++) {
            double gv = dg_dtype_round(c.p->tensors.v[c.out].dtype, gs[g]);
            if (fuzz_elem_check(c.p->tensors.v[c.out].dtype, gv, w, dg_problem_tol(c.p, c.out)) == FUZZ_ELEM_OK)
              continue;
            got[i] = gv;
            verdicts++;
            vdiffer += host_judge(&c, i, got, only) != dev_judge(&c, i, gv);
          }
        }
        free(got), free(only);
        case_free(&c);
      }
      ok(made && evals > 0 && differ == 0 && vdiffer == 0 && verdicts > 0,
         "%s at %s: %lld evaluations equal the host's bit for bit, %lld verdicts too%s%s", L[l].rel, set,
         (long long)evals, (long long)verdicts, differ ? "; differ: " : "", what);
      if (vdiffer) printf("#   %lld verdicts differ\n", (long long)vdiffer);
    }
}

/* The device's matmul in windows (gpu_env_dev.h's dge_mm_*: dg_env_mm, a
 * warp a candidate, a lane a step's terms, one lane an evaluation's chain)
 * against the evaluation in one thread (dge_eval): every evaluation's value
 * bit for bit (a NaN as a NaN: its sign is the compiler's operand order,
 * -O1 and -O2 differ; the rule reads none) and its facts (maxin, the overflow, order-overflow and
 * NaN-input flags), at lengths around the window of 32 and with B read
 * transposed as well (n3 bit 1, the same buffer); and dge_mm_judge's
 * verdicts against dge_judge's for kernel values inside fp32's bound, past
 * it (the perturbed evaluations decide), far off, NaN and Inf. */
static void mm_windows_vs_eval(void)
{
  static const struct { const char *rel, *fmt; } L[] = {
    { "matmul/matmul_tiled", "M=3 N=5 K=%d" }, { "matmul/matmul_tn_naive", "M=3 N=2 K=%d" },
    { "matmul/gemv_warp", "M=5 K=%d" },        { "matmul/bmm_tiled", "B=2 M=2 N=3 K=%d" },
  };
  static const int lens[] = { 1, 31, 32, 33, 100, 1025 };
  for (size_t l = 0; l < sizeof L / sizeof *L; l++)
    for (size_t j = 0; j < sizeof lens / sizeof *lens; j++) {
      char set[64], what[240] = "";
      snprintf(set, sizeof set, L[l].fmt, lens[j]);
      int64_t evals = 0, differ = 0, verdicts = 0, vdiffer = 0, by_pert = 0;
      bool made = true;
      for (int var = 0; var < 4 && made; var++) {   /* adversarial, ordinary; each as given and with B transposed */
        ecase c;
        made = case_make_sized(&c, L[l].rel, 51 + j, var & 1, set);
        if (!made) {
          case_free(&c);
          break;
        }
        long long n[4] = { c.L.n[0], c.L.n[1], c.L.n[2], c.L.n[3] | (var >> 1 ? 2 : 0) };
        int64_t want = lens[j] > 100 ? 6 : 24;   /* K = 1025: fewer elements (valgrind runs this too) */
        int64_t step = c.n > want ? c.n / want : 1;
        for (int64_t i = 0; i < c.n; i += step) {
          double scale[3] = { 0, 0, 0 };
          for (int k = -1; k < 3; k++) {
            dge_st e = st_of(&c);
            e.flat = i;
            e.round32 = k < 0;
            e.perturb = k >= 0;
            e.k = k < 0 ? 0 : k;
            for (int s = 0; s < 3; s++) e.scale[s] = scale[s];
            dge_st w = e;
            dge_res q;
            double v = dge_eval(&e, 3, n, c.L.p, i);
            bool ran = dge_mm_eval(&w, n, c.L.p, i, &q);
            if (k < 0)
              for (int s = 0; s < 3; s++) scale[s] = e.maxin[s];
            evals++;
            bool same = ran && (!memcmp(&v, &q.r, sizeof v) || (isnan(v) && isnan(q.r))) && !q.overflowed == !e.overflowed &&
                        !q.order_overflow == !e.order_overflow && !q.nan_input == !e.nan_input &&
                        (k >= 0 || !memcmp(q.maxin, e.maxin, sizeof q.maxin));
            if (!same && differ++ == 0)
              snprintf(what, sizeof what, "[%lld] k=%d var %d: %.17g/%.17g maxin %g/%g ovf %d/%d "
                       "oovf %d/%d nan %d/%d", (long long)i, k, var, q.r, v, q.maxin[0],
                       e.maxin[0], q.overflowed, e.overflowed, q.order_overflow, e.order_overflow, q.nan_input,
                       e.nan_input);
          }
          double r32, w64 = c.want[i];
          {
            dge_st e = st_of(&c);
            e.round32 = 1;
            e.flat = i;
            r32 = (float)dge_eval(&e, 3, n, c.L.p, i);
          }
          double gots[6] = { r32 * (1 + 3e-7), r32 + 2.5 * (r32 - w64) + c.L.atol, w64 * (1 + 1e-3) + 3 * c.L.atol,
                             w64 + 1e-5 * fabs(w64) + 2 * c.L.atol, NAN, INFINITY };
          for (int g = 0; g < 6; g++) {
            dge_st x = st_of(&c), y = st_of(&c);
            int vx = dge_judge(&x, 3, n, c.L.p, i, gots[g], w64, (int)c.L.out_dt, c.L.atol, c.L.rtol);
            int vy = dge_mm_judge(&y, n, c.L.p, i, gots[g], w64, (int)c.L.out_dt, c.L.atol, c.L.rtol);
            verdicts++;
            by_pert += x.perturb;
            if (vx != vy && vdiffer++ == 0 && !differ)
              snprintf(what, sizeof what, "[%lld] var %d: verdict %d/%d for %.9g", (long long)i, var, vx, vy,
                       gots[g]);
          }
        }
        case_free(&c);
      }
      ok(made && evals > 0 && differ == 0 && vdiffer == 0,
         "%s at %s: matmul in windows = in one thread, %lld evaluations bit for bit with their facts, %lld verdicts "
         "(%lld reached the perturbed evaluations)%s%s", L[l].rel, set, (long long)evals, (long long)verdicts,
         (long long)by_pert, differ || vdiffer ? "; differ: " : "", what);
    }
}

/* The device's layout (gpu_env.c): the round32 pass and one perturbed
 * evaluation a warp, the three parts joined (dge_judge_part, dge_judge_join)
 * give dge_judge's verdict, on every sample, for kernel values inside
 * fp32's bound, past it (the perturbed evaluations decide), far off, NaN. */
static void parts_vs_whole(const char *rel, int *nsamples, int64_t *tot)
{
  for (int mild = 0; mild < 2; mild++) {
    ecase c;
    if (!case_make(&c, rel, 31 + (uint64_t)mild, mild)) {
      case_free(&c);
      return;
    }
    *nsamples += !mild;
    int64_t step = c.n > 48 ? c.n / 48 : 1, verdicts = 0, differ = 0, by_parts = 0;
    long long n[4] = { c.L.n[0], c.L.n[1], c.L.n[2], c.L.n[3] };
    char what[200] = "";
    for (int64_t i = 0; i < c.n; i += step) {
      double r32 = r32_of(&c, i), w64 = c.want[i];
      double gots[5] = { r32 * (1 + 3e-7), r32 + 2.5 * (r32 - w64) + c.L.atol, w64 * (1 + 1e-3) + 3 * c.L.atol,
                         w64 + 1e-5 * fabs(w64) + 2 * c.L.atol, NAN };
      for (int g = 0; g < 5; g++) {
        dge_st x = st_of(&c), y = st_of(&c);
        int vx = dge_judge(&x, (int)c.L.kind, n, c.L.p, i, gots[g], w64, (int)c.L.out_dt, c.L.atol, c.L.rtol);
        int pv[3];
        double pc[3];
        for (int k = 0; k < 3; k++)
          pv[k] = dge_judge_part(&y, (int)c.L.kind, n, c.L.p, i, gots[g], w64, (int)c.L.out_dt, c.L.atol, c.L.rtol,
                                 k, k, &pc[k]);
        int vy = dge_judge_join(pv, pc, 3, gots[g], w64, (int)c.L.out_dt, c.L.atol, c.L.rtol);
        verdicts++;
        by_parts += pv[0] == 2;
        if (vx != vy && differ++ == 0)
          snprintf(what, sizeof what, "[%lld]: verdict %d/%d for %.9g", (long long)i, vx, vy, gots[g]);
      }
    }
    ok(differ == 0 && verdicts > 0, "%s (%s), %s inputs: %lld verdicts in three parts = whole (%lld decided by the "
       "perturbed evaluations)%s%s", rel, c.p->op_name, mild ? "ordinary" : "adversarial", (long long)verdicts,
       (long long)by_parts, differ ? "; differ: " : "", what);
    *tot += by_parts;
    case_free(&c);
  }
}

/* The non-finite rule (gpu_env_dev.h's dge_order_ovf, session 10) on huge
 * values (fuzz_ctr's `huge` of each input's dtype, |x| in [1/32, 3/32] of its
 * largest finite value), with the generator's signs and with signs
 * alternating element by element (the reference's sequential sums then stay
 * finite where an order adding one sign first overflows): at every element
 * (up to 48) a kernel's Inf and NaN get the host's verdict, and the facts
 * the rule reads (overflowed, order_overflow) equal the host's. Matmul and
 * conv2d read the square roots (|x| near 2^62): their products stay finite
 * and their sums overflow in some orders. Softmax-family
 * ops overflow in no order (x - m <= 0): their Inf/NaN are outside, where the
 * old rule (an intermediate within 64x of FLT_MAX) put them inside. Where
 * fp32's own value is not finite (session 11) finite kernel values and -Inf
 * are judged too; a third set of inputs, an Inf every 13 (alternately + and
 * -), gives fp32 values that are not finite without an overflow. Session
 * 12: finite kernel values are judged wherever fp64's value is not finite
 * (fp32's finite: the centre clamped to the dtype's largest value, or fp32's
 * value and the perturbed evaluations' spread where fp64 is NaN) and on the
 * Inf inputs (perturbed evaluations that read an Inf), and a fourth set, a
 * NaN every 13, gives fp64 NaN where fmaxf-style maxima skip it. Val16
 * (session 12): where fp32's value is not finite and fp64 is NaN, 0 and 1.5
 * are judged (they were NaN: w (1 + 1e-3), -w - 1): outside unless a
 * comparison, max or min read a NaN (leaky_relu, elu, softmax at a NaN
 * input: inside; a sum's NaN: outside). */
static bool huge_inputs(ecase *c, int alternate)
{
  dg_problem *p = c->p;
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_INPUT || ts->has_range) continue;
    int64_t n = dg_problem_numel(p, (int)t, c->sizes);
    fuzz_ctr g = { .key = fuzz_input_key(fuzz_case_seed(1, 2), t), .dist = FUZZ_DIST_HUGE, .dtype = ts->dtype,
                   .positive = ts->positive, .n = n };
    for (int64_t i = 0; i < n; i++) {
      double v = fuzz_ctr_value(&g, i);
      if (c->L.kind >= 3) v = dg_dtype_round(ts->dtype, copysign(sqrt(fabs(v)), v));
      if (alternate == 1 && !ts->positive) v = (i % 2 ? -1 : 1) * fabs(v);
      if (alternate == 2 && i % 13 == 5) v = i % 26 == 5 ? INFINITY : -INFINITY;   /* the inputs' Inf */
      if (alternate == 3 && i % 13 == 5) v = NAN;                                    /* and NaN */
      c->data[t][i] = v;
      dg_dtype_store(ts->dtype, c->raw[t], i, v);
    }
  }
  dg_ref_env env = { .sizes = c->sizes, .data = (const double *const *)c->data };
  char *err = NULL;
  bool ok = dg_problem_ref_eval_all(p, &env, c->out, c->want, c->def, &err) == DG_REF_OK;
  free(err);
  return ok;
}

static void nonfinite_vs_host(const char *rel, int *nsamples, int64_t *tot_in, int64_t *tot_out, int64_t *tot_order)
{
  for (int alt = 0; alt < 4; alt++) {
    ecase c;
    if (!case_make(&c, rel, 51, true) || !huge_inputs(&c, alt)) {
      case_free(&c);
      return;
    }
    *nsamples += !alt;
    double *got = dg_calloc((size_t)c.n + 1, sizeof *got);
    uint8_t *only = dg_calloc((size_t)c.n + 1, 1);
    dg_dtype od = c.p->tensors.v[c.out].dtype;
    dg_tol tol = dg_problem_tol(c.p, c.out);
    int64_t step = c.n > 48 ? c.n / 48 : 1, judged = 0, in = 0, order = 0, differ = 0, r32inf = 0, r64inf = 0;
    int64_t absorbed = 0;
    long long n[4] = { c.L.n[0], c.L.n[1], c.L.n[2], c.L.n[3] };
    char what[200] = "";
    for (int64_t i = 0; i < c.n; i += step) {
      fuzz_envelope_facts h;
      dge_st e = st_of(&c);
      e.round32 = 1;
      e.flat = i;
      double v = dge_eval(&e, (int)c.L.kind, n, c.L.p, i);
      if (!c.def[i] || !fuzz_envelope_eval(c.p, c.sizes, c.data, c.out, i, -1, &h)) continue;
      order += e.order_overflow;
      if (!e.overflowed != !h.overflowed || !e.order_overflow != !h.order_overflow) {
        if (differ++ == 0)
          snprintf(what, sizeof what, "[%lld]: overflowed %d/%d order_overflow %d/%d", (long long)i, e.overflowed,
                   h.overflowed, e.order_overflow, h.order_overflow);
        continue;
      }
      /* fp32's own value not finite (session 11): finite values too, and -Inf */
      bool nf = !isfinite((float)v);
      r32inf += nf;
      /* fp64 not finite in the output dtype where fp32's value is (session 12): fp32's value and one 1e-3 off */
      double w = c.want[i], fw = dg_dtype_round(od, w);
      bool wnf = !nf && !isfinite(fw);
      r64inf += wnf;
      /* fp64 NaN where fp32's value is not finite (val16): 0 and 1.5, finite values (inside only where a
       * comparison, max or min read a NaN: dge_r32_nonfinite) */
      bool wnan = isnan(w);
      /* an overflow where fp32's value is not finite (val17): the absorbing evaluation's value (host k = -2)
       * and one 1e-3 off, inside only at the first */
      fuzz_envelope_facts ha;
      bool ab = nf && (h.overflowed || h.order_overflow) &&
                fuzz_envelope_eval(c.p, c.sizes, c.data, c.out, i, -2, &ha) && isfinite((float)ha.value);
      double ra = ab ? (float)ha.value : 0;
      double gs[7] = { INFINITY, NAN, -INFINITY,
                       wnf ? v * (1 + 1e-3) + 3 * tol.atol : wnan ? 0 : w * (1 + 1e-3) + 3 * tol.atol,
                       wnf ? (float)v : wnan ? 1.5 : -w - 1, ra, ra * (1 + 1e-3) + 3 * tol.atol };
      absorbed += ab;
      for (int g = 0; g < (ab ? 7 : nf || wnf || alt >= 2 ? 5 : 2); g++) {
        if (fuzz_elem_check(od, gs[g], c.want[i], tol) == FUZZ_ELEM_OK) continue;
        got[i] = gs[g];
        int hv = host_judge(&c, i, got, only), dv = dev_judge(&c, i, gs[g]);
        judged++;
        in += hv;
        if (hv != dv && differ++ == 0)
          snprintf(what, sizeof what, "[%lld]: %g host %d device %d", (long long)i, gs[g], hv, dv);
      }
      got[i] = 0;
    }
    ok(differ == 0 && judged + r32inf > 0,
       "%s (%s), huge values%s: %lld kernel values judged as the host does (Inf, NaN; finite ones and -Inf too where "
       "fp32's own value, or fp64's, is not finite and on Inf and NaN inputs; %lld inside; %lld elements with an "
       "order that overflows, %lld where fp32's own value is not finite, %lld where fp64's alone is not, %lld with "
       "the value of an order that absorbs an overflow)%s%s",
       rel, c.p->op_name,
       alt == 1 ? ", alternating signs" : alt == 2 ? ", an Inf every 13 inputs" : alt ? ", a NaN every 13 inputs" : "",
       (long long)judged, (long long)in, (long long)order, (long long)r32inf, (long long)r64inf, (long long)absorbed,
       differ ? "; differ: " : "", what);
    if (c.L.kind == 0 && c.L.n[2] <= 1 && alt < 2)
      ok(in == 0, "  %s: no order of a softmax overflows, every Inf/NaN outside (%lld of %lld)", c.p->op_name,
         (long long)(judged - in), (long long)judged);
    *tot_in += in;
    *tot_out += judged - in;
    *tot_order += order;
    free(got), free(only);
    case_free(&c);
  }
}

/* On ordinary inputs, kernel values one float ulp either side of the rule's
 * bounds (fp32's value +- tolerance and slack): an evaluation that differs
 * from the host's by one rounding moves a bound by an ulp and flips one of
 * these verdicts. f32 outputs. */
static void boundary_vs_host(const char *rel, int *nsamples, int64_t *tot_in, int64_t *tot_out)
{
  ecase c;
  if (!case_make(&c, rel, 9, true) || c.L.out_dt != 0) {
    case_free(&c);
    return;
  }
  ++*nsamples;
  dg_rng r;
  dg_rng_seed(&r, 13);
  double *got = dg_calloc((size_t)c.n + 1, sizeof *got);
  uint8_t *only = dg_calloc((size_t)c.n + 1, 1);
  dg_tol tol = dg_problem_tol(c.p, c.out);
  int64_t judged = 0, inside = 0, differ = 0, first = -1;
  double fgot = 0;
  for (int k = 0; k < 6 && c.n > 0; k++) {
    int64_t i = (int64_t)dg_rng_below(&r, (uint64_t)c.n);
    double w = c.want[i], r32 = r32_of(&c, i), r64 = (float)w;
    if (!isfinite(r32) || !isfinite(r64)) continue;
    double bound = tol.atol + tol.rtol * fabs(r32) + 2 * fabs(r32 - r64);
    /* at the first test's bound and far past it (64x: the perturbed
     * evaluations' verdict, mostly outside) */
    for (int side = -1; side <= 1; side += 2)
      for (int far = 0; far < 2; far++) {
      float g0 = (float)(r32 + side * bound * (far ? 64 : 1));
      float gs[3] = { nextafterf(g0, -INFINITY), g0, nextafterf(g0, INFINITY) };
      for (int j = 0; j < 3; j++) {
        double g = gs[j];
        if (fuzz_elem_check(DG_DT_F32, g, w, tol) == FUZZ_ELEM_OK) continue;
        got[i] = g;
        int h = host_judge(&c, i, got, only), dv = dev_judge(&c, i, g);
        judged++;
        inside += h;
        if (h != dv && differ++ == 0) first = i, fgot = g;
      }
      }
  }
  ok(differ == 0, "%s (%s), ordinary inputs: shared rule = host envelope an ulp either side of its bounds (%lld "
     "elements, %lld inside)", rel, c.p->op_name, (long long)judged, (long long)inside);
  if (differ)
    printf("#   %lld differ; first [%lld]: got %.9g want %.17g\n", (long long)differ, (long long)first, fgot,
           c.want[first]);
  *tot_in += inside;
  *tot_out += judged - inside;
  free(got), free(only);
  case_free(&c);
}

/* The child's entry (gpu_env_kernel_args): the 23 arguments, unpacked as
 * the kernel's parameter list reads them, give the verdicts dev_judge does. */
static int judge_from_args(void *const *a, int64_t j)
{
  dge_st e;
  memset(&e, 0, sizeof e);
  for (int i = 0; i < 3; i++) {
    e.in[i] = *(const void *const *)a[4 + 3 * i];
    e.dt[i] = (int)*(const long long *)a[5 + 3 * i];
    e.tid[i] = *(const long long *)a[6 + 3 * i];
  }
  long long n[4];
  double pp[3];
  for (int i = 0; i < 4; i++) n[i] = *(const long long *)a[13 + i];
  for (int i = 0; i < 3; i++) pp[i] = *(const double *)a[17 + i];
  const double *cand = *(const double *const *)a[1];
  return dge_judge(&e, (int)*(const long long *)a[3], n, pp, (long long)cand[3 * j], cand[3 * j + 1],
                   cand[3 * j + 2], (int)*(const long long *)a[20], *(const double *)a[21], *(const double *)a[22]);
}

static void kernel_args(void)
{
  static const char *const rels[] = { "norm/layernorm_block", "matmul/matmul_tiled", "elementwise/gelu_bf16x2",
                                      "reduce/col_sum" };
  for (size_t r = 0; r < sizeof rels / sizeof *rels; r++) {
    ecase c;
    if (!case_make(&c, rels[r], 3, false)) {
      ok(false, "%s has a device envelope", rels[r]);
      case_free(&c);
      continue;
    }
    int64_t m = c.n < 64 ? c.n : 64, same = 0;
    double *cand = dg_calloc((size_t)m * 3, sizeof *cand);
    for (int64_t j = 0; j < m; j++)
      cand[3 * j] = (double)j, cand[3 * j + 1] = c.want[j] * 1.01 + 1e-3, cand[3 * j + 2] = c.want[j];
    const void *in[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; i++)
      if (c.L.in_t[i] >= 0) in[i] = c.raw[c.L.in_t[i]];
    uint64_t vals[GPU_ENV_NARGS];
    void *ptrs[GPU_ENV_NARGS];
    uint8_t okv[64];
    gpu_env_kernel_args(&c.L, okv, cand, m, in, vals, ptrs);
    for (int64_t j = 0; j < m; j++) same += judge_from_args(ptrs, j) == dev_judge(&c, j, cand[3 * j + 1]);
    ok(same == m && *(const long long *)ptrs[2] == m && *(uint8_t *const *)ptrs[0] == okv,
       "%s: the child's kernel arguments give the same verdicts (%lld elements)", rels[r], (long long)m);
    free(cand);
    case_free(&c);
  }
}

/* ---- the hook's plumbing: a fake backend judging with the shared code ---- */
static const ecase *hook_case;
static int64_t hook_calls, hook_m;
static bool hook_refuse;
static bool fake_envelope(void *self, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                          const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *okv)
{
  (void)self, (void)p, (void)sizes, (void)t, (void)tol, (void)want;
  hook_calls++;
  hook_m = m;
  if (hook_refuse) return false;
  for (int64_t j = 0; j < m; j++) okv[j] = (uint8_t)dev_judge(hook_case, idx[j], got[j]);
  return true;
}

typedef DG_VEC(int64_t) i64s;
static i64s fails_seen;
static void on_fail(void *ud, int tensor, int64_t flat)
{
  (void)ud, (void)tensor;
  dg_vec_push(&fails_seen, flat);
}

static void hook_plumbing(void)
{
  ecase c;
  if (!case_make(&c, "norm/layernorm_block", 5, true)) {
    ok(false, "layernorm_block has a device envelope");
    case_free(&c);
    return;
  }
  hook_case = &c;
  dg_tol tol = dg_problem_tol(c.p, c.out);
  double *got = dg_calloc((size_t)c.n, sizeof *got);
  uint8_t *written = dg_calloc((size_t)c.n, 1);
  fuzz_backend be = { .name = "fake" };
  be.envelope = fake_envelope;
  fuzz_space_ctx ctx = { .on_fail = on_fail };
  for (int round = 0; round < 3; round++) {
    /* round 0: fp32-like values, a few off, one unwritten; 1: everything off
     * (caps); 2: the hook refuses (the host judges) */
    for (int64_t i = 0; i < c.n; i++) {
      got[i] = round == 1 ? c.want[i] + 1 : r32_of(&c, i);
      if (round != 1 && i % 97 == 5) got[i] = c.want[i] * 1.01 + 1;
      written[i] = i != 300;
    }
    hook_refuse = round == 2;
    hook_calls = hook_m = 0;
    int64_t f1, f2;
    fails_seen.n = 0;
    int64_t r1 = fuzz_envelope_filter_on(&be, c.p, c.sizes, c.data, NULL, c.out, got, c.want, c.def, written, c.n,
                                         tol, &f1, &ctx);
    i64s seen1 = fails_seen;
    fails_seen.v = NULL, fails_seen.n = fails_seen.cap = 0;
    int64_t r2 = fuzz_envelope_filter(c.p, c.sizes, c.data, NULL, c.out, got, c.want, c.def, written, c.n, tol,
                                      &f2, &ctx);
    bool same = seen1.n == fails_seen.n && (!seen1.n || !memcmp(seen1.v, fails_seen.v, seen1.n * sizeof *seen1.v));
    ok(r1 == r2 && f1 == f2 && same && hook_calls == 1 && r1 > 0,
       "round %d: the hook's verdicts give the host filter's outcome (%lld left, first %lld, %lld candidates)",
       round, (long long)r1, (long long)f1, (long long)hook_m);
    int64_t off = 0;
    for (int64_t i = 0; i < c.n; i++)
      off += c.def[i] && written[i] && fuzz_elem_check(c.p->tensors.v[c.out].dtype, got[i], c.want[i], tol) != FUZZ_ELEM_OK;
    if (round < 2) ok(hook_m == off, "the candidates are the %lld written elements off the reference", (long long)off);
    dg_vec_free(&seen1);
  }
  dg_vec_free(&fails_seen);
  free(got), free(written);
  case_free(&c);
}

#ifndef DG_MOCK_CUDA
static void compiles(void)
{
  dg_gpu_binary bin;
  dg_diags d = {0};
  dg_gpu_status st = gpu_env_compile("sm_90", &bin, &d);
  if (st == DG_GPU_NO_DEVICE) {
    ok(true, "# SKIP no NVRTC: %s", d.v.n ? d.v.v[0].msg : "?");
    dg_diags_free(&d);
    return;
  }
  dg_buf b = {0};
  if (d.v.n) dg_diag_format(&b, NULL, &d.v.v[0]);
  is_int(st, DG_GPU_OK, "the envelope kernel compiles with NVRTC for sm_90%s%s", b.s ? ": " : "", b.s ? b.s : "");
  dg_buf_free(&b);
  static const char *const names[] = { "dg_env", "dg_env_hash", "dg_env_gather", "dg_env_many", "dg_env_fold",
                                       "dg_env_mm" };
  bool all = st == DG_GPU_OK && bin.nnames == 6 && !strcmp(bin.lowered[0], gpu_env_kernel_name());
  for (int i = 0; all && i < 6; i++) all = !strcmp(bin.lowered[i], names[i]);
  ok(all, "six kernels: dg_env and the pipeline's (gpu_env_pipe_*, dg_env_mm for matmul)");
  ok(st == DG_GPU_OK && bin.image_len > 4 && !memcmp(bin.image, "\177ELF", 4), "a CUBIN came back");
  if (st == DG_GPU_OK) dg_gpu_binary_free(&bin);
  dg_diags_free(&d);
}
#endif

/* ---- campaigns: the device's envelope against the host's, case by case ---- */
typedef struct {
  fuzz_status st;
  int64_t nexplained, nfail, first;
} seen_case;
typedef DG_VEC(seen_case) seen_cases;

static void progress(void *ud, const fuzz_outcome *o)
{
  seen_case s = { o->status, o->nexplained, o->status == FUZZ_FAIL ? o->cmp.nfail : 0,
                  o->status == FUZZ_FAIL ? o->cmp.first_fail : -1 };
  dg_vec_push((seen_cases *)ud, s);
}

#ifdef DG_MOCK_CUDA
#define NCASES 100
#else
#define NCASES 16
#endif
static bool run_campaign(dg_problem *p, const char *strategy, bool device, seen_cases *out, gpu_env_stats *stats,
                         double *secs)
{
  if (device) unsetenv("DIRIGO_GPU_ENVELOPE");
  else setenv("DIRIGO_GPU_ENVELOPE", "0", 1);
  dg_diags d = {0};
  gpu_kernels gk;
  bool ran = false;
  if (gpu_kernels_load(&gk, p, NULL, &d)) {
    fuzz_backend be = fuzz_backend_gpu(&gk);
    fuzz_opts o = { .strategy = fuzz_strategy_find(strategy), .backend = &be, .ncases = NCASES, .seed = 1,
                    .keep_going = true, .budget_s = 4, .progress = progress, .ud = out };
    fuzz_summary s;
    double t0 = dg_now();
    ran = o.strategy && fuzz_campaign(p, NULL, &o, &s, &d);
    *secs = dg_now() - t0;
    *stats = gpu_env_stats_of(&gk);
    if (stats->why) stats->why = NULL;   /* owned by gk */
  }
  if (!ran) dg_diags_print(stdout, &p->sm, &d);
  gpu_kernels_free(&gk);
  dg_diags_free(&d);
  unsetenv("DIRIGO_GPU_ENVELOPE");
  return ran;
}

static void agreement(const char *rel, const char *strategy, double alpha, int64_t *tot_judged)
{
  dg_problem *p = gt_load(rel);
  if (!p) return;
  int a = alpha != 0 ? dg_problem_attr(p, "alpha") : -1;
  if (a >= 0) {   /* alpha * r rounded to float, judged with no tolerance: every rounding is off fp64 */
    p->attrs.v[a].f = alpha;
    p->has_tol = true;
    p->tol = (dg_tol){ 0, 0 };
  }
  int64_t *sizes = dg_calloc(p->sizes.n + 1, sizeof *sizes);
  dg_problem_default_sizes(p, sizes);
  gpu_ref_plan pl;
  bool has = gpu_ref_plan_for(p, sizes, &pl);
  free(sizes);
  if (!has) {
    dg_problem_free(p);
    return;
  }
  seen_cases dev = {0}, host = {0};
  gpu_env_stats sd = {0}, sh = {0};
  double td = 0, th = 0;
  bool ok1 = run_campaign(p, strategy, true, &dev, &sd, &td);
  bool ok2 = run_campaign(p, strategy, false, &host, &sh, &th);
  /* A kernel with a race (a missing barrier, reads of shared memory nothing
   * wrote) can give different outputs on the same inputs from run to run:
   * two campaigns then judge different values, and a difference between them
   * says nothing about the envelopes (which are compared on the same values
   * above). Such a kernel shows itself by a second device campaign that
   * differs from the first, or is one whose seeded bug is a race; its
   * campaigns are still compared, but a difference is reported as the race's. */
  seen_cases again = {0};
  gpu_env_stats sa = {0};
  double ta = 0;
  bool ok3 = run_campaign(p, strategy, true, &again, &sa, &ta);
  int64_t unstable = 0;
  for (size_t i = 0; i < dev.n && i < again.n; i++)
    unstable += dev.v[i].st != again.v[i].st || dev.v[i].nexplained != again.v[i].nexplained ||
                dev.v[i].nfail != again.v[i].nfail || dev.v[i].first != again.v[i].first;
  static const char *const racy_bugs[] = { "missing-syncthreads", "race-on-shared", "uninit-shared",
                                          "missing-atomic" };
  const char *declared = NULL;
  for (size_t i = 0; i < sizeof racy_bugs / sizeof *racy_bugs && p->bug_pattern; i++)
    if (!strcmp(p->bug_pattern, racy_bugs[i])) declared = racy_bugs[i];
  dg_vec_free(&again);
  int64_t differ = 0, fails = 0, expl = 0, firstd = -1;
  for (size_t i = 0; i < dev.n && i < host.n; i++) {
    seen_case a = dev.v[i], b = host.v[i];
    fails += a.st == FUZZ_FAIL;
    expl += a.nexplained;
    if (a.st != b.st || a.nexplained != b.nexplained || a.nfail != b.nfail || a.first != b.first)
      if (differ++ == 0) firstd = (int64_t)i;
  }
  *tot_judged += sd.judged;
  if (differ && (unstable || declared)) {
    ok(ok1 && ok2 && ok3 && dev.n > 0 && host.n > 0,
       "%s %s: %lld of %zu cases differ between the device's and the host's campaigns, as the kernel's race allows "
       "(its outputs vary from run to run: %lld cases differed between two device campaigns%s%s%s)", rel, strategy,
       (long long)differ, dev.n < host.n ? dev.n : host.n, (long long)unstable, declared ? "; its seeded bug is '" : "",
       declared ? declared : "", declared ? "'" : "");
    dg_vec_free(&dev), dg_vec_free(&host);
    dg_problem_free(p);
    return;
  }
  /* (a campaign past its 4 s budget stops early: the cases both ran are compared) */
  ok(ok1 && ok2 && dev.n > 0 && host.n > 0 && differ == 0 && sh.judged == 0,
     "%s %s: %zu cases compared (%zu on the device, %zu on the host within its 4 s budget), device envelope = "
     "host envelope case by case (%lld fail, %lld elements explained; %lld judged on the device in %.3f ms, %lld of "
     "%lld calls left to the host; campaign %.3f s vs %.3f s on the host)",
     rel, strategy, dev.n < host.n ? dev.n : host.n, dev.n, host.n, (long long)fails, (long long)expl,
     (long long)sd.judged, sd.ms, (long long)sd.refused, (long long)sd.calls, td, th);
  if (differ)
    printf("#   %lld cases differ; first case %lld: device %s/%lld/%lld, host %s/%lld/%lld\n", (long long)differ,
           (long long)firstd, fuzz_status_name(dev.v[firstd].st), (long long)dev.v[firstd].nexplained,
           (long long)dev.v[firstd].nfail, fuzz_status_name(host.v[firstd].st),
           (long long)host.v[firstd].nexplained, (long long)host.v[firstd].nfail);
  dg_vec_free(&dev), dg_vec_free(&host);
  dg_problem_free(p);
}

#ifndef DG_MOCK_CUDA
/* The long cancelling reduction the H200 found (session 7): matmul_tiled at
 * 4096^3, adversarial case 6 (sorted values: each row of a ascends from -2
 * to 2, so the sequential partial sums reach -4096 and the results are ~0),
 * replayed as `dirigo replay ... fuzz:adversarial:1:6@M=4096,N=4096,K=4096
 * --backend gpu` does: a correct kernel, so the case must pass, judged by
 * the device's envelope and by the host's (DIRIGO_GPU_ENVELOPE=0) alike,
 * with the same number of elements explained. Before the rule's rounding
 * model (gpu_env_dev.h, dge_perturb_op) c[176,4095] and 11 more of the 4095
 * sampled elements failed. Since session 8 also matmul_warp (32 strided
 * lanes and a tree) under large-offset values (adversarial:1:8), which
 * needs the order term (dge_fins). */
static void long_case(const char *rel, const char *witness, const char *what, int64_t *tot_judged)
{
  dg_problem *p = gt_load(rel);
  if (!p) {
    ok(false, "%s loads", rel);
    return;
  }
  fuzz_outcome o[2];
  bool ran[2] = { false, false };
  gpu_env_stats es[2] = { { 0 }, { 0 } };
  for (int host = 0; host < 2; host++) {
    if (host) setenv("DIRIGO_GPU_ENVELOPE", "0", 1);
    else unsetenv("DIRIGO_GPU_ENVELOPE");
    fuzz_space sp;
    fuzz_space_ctx ctx;
    fuzz_space_init2(&sp, &ctx, p, 100000000, 4096);
    fuzz_case c;
    int64_t k;
    const fuzz_strategy *st;
    uint64_t seed;
    char *err = NULL;
    dg_diags d = {0};
    gpu_kernels gk;
    if (fuzz_witness_parse(witness, &sp, &c, &k, &st, &seed, &err) &&
        gpu_kernels_load(&gk, p, NULL, &d)) {
      fuzz_backend be = fuzz_backend_gpu(&gk);
      fuzz_run_case_on(p, &be, &sp, &ctx, &c, &o[host]);
      es[host] = gpu_env_stats_of(&gk);
      es[host].why = NULL;
      gpu_kernels_free(&gk);
      ran[host] = true;
    } else if (err) printf("# %s\n", err);
    free(err);
    dg_diags_free(&d);
  }
  unsetenv("DIRIGO_GPU_ENVELOPE");
  *tot_judged += es[0].judged;
  ok(ran[0] && o[0].status == FUZZ_PASS && es[0].judged > 0 && es[0].refused == 0,
     "%s: passes with the device's envelope (%lld elements explained, "
     "%lld judged on the device)%s%s", what, ran[0] ? (long long)o[0].nexplained : -1LL, (long long)es[0].judged,
     ran[0] && o[0].status != FUZZ_PASS ? ": " : "", ran[0] && o[0].status != FUZZ_PASS ? o[0].msg : "");
  ok(ran[1] && o[1].status == FUZZ_PASS && ran[0] && o[1].nexplained == o[0].nexplained,
     "the same case with the host's envelope: passes, %lld elements explained as on the device%s%s",
     ran[1] ? (long long)o[1].nexplained : -1LL, ran[1] && o[1].status != FUZZ_PASS ? ": " : "",
     ran[1] && o[1].status != FUZZ_PASS ? o[1].msg : "");
  dg_problem_free(p);
}
#endif

int main(void)
{
  gt_names samples = {0};
  gt_all_samples(&samples);
#ifdef DG_MOCK_CUDA
  (void)shared_vs_host, (void)evals_vs_host, (void)lengths_vs_host, (void)parts_vs_whole, (void)boundary_vs_host, (void)hook_plumbing, (void)kernel_args;
  (void)nonfinite_vs_host;
  (void)mm_windows_vs_eval;
#else
  compiles();
  if (getenv("DG_ENV_T_FROM")) goto device;   /* the rest of a cut device run: its campaigns alone */
  int ns = 0;
  int64_t tin = 0, tout = 0;
  for (size_t i = 0; i < samples.n; i++) shared_vs_host(samples.v[i], &ns, &tin, &tout);
  ok(ns >= 40 && tin > 0 && tout > 0, "%d samples checked: %lld elements inside the envelope, %lld outside", ns,
     (long long)tin, (long long)tout);
  int64_t nev = 0;
  ns = 0;
  for (size_t i = 0; i < samples.n; i++) evals_vs_host(samples.v[i], &ns, &nev);
  ok(ns >= 40, "%d samples: %lld evaluations compared", ns, (long long)nev);
  lengths_vs_host();
  mm_windows_vs_eval();
  nev = 0, ns = 0;
  for (size_t i = 0; i < samples.n; i++) parts_vs_whole(samples.v[i], &ns, &nev);
  ok(ns >= 40 && nev > 100, "%d samples: verdicts in parts compared, %lld decided by the perturbed evaluations", ns,
     (long long)nev);
  ns = 0, tin = tout = 0;
  for (size_t i = 0; i < samples.n; i++) boundary_vs_host(samples.v[i], &ns, &tin, &tout);
  ok(ns >= 30 && tin > 0 && tout > 0, "%d samples at the bounds: %lld elements inside, %lld outside", ns,
     (long long)tin, (long long)tout);
  ns = 0, tin = tout = 0;
  int64_t tord = 0;
  for (size_t i = 0; i < samples.n; i++) nonfinite_vs_host(samples.v[i], &ns, &tin, &tout, &tord);
  ok(ns >= 40 && tin > 0 && tout > 0 && tord > 0, "%d samples at huge values: %lld kernel values inside, %lld outside; "
     "%lld elements whose sums overflow in another order", ns, (long long)tin, (long long)tout, (long long)tord);
  hook_plumbing();
  kernel_args();
device:
#endif
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("# no GPU (%s): the campaigns on the device are not run here\n", why);
  } else {
    printf("# GPU: %s\n", why);
    char tmpl[] = "/tmp/dg-cubin-XXXXXX";
    char *dir = gt_cubin_cache(tmpl);
    int64_t judged = 0;
#ifdef DG_MOCK_CUDA
    agreement("elementwise/residual_add", "adversarial", 0.1, &judged);
    agreement("elementwise/residual_add", "boundary", 0.1, &judged);
#else
    /* DG_ENV_T_FROM=rel: the campaigns from that sample on, and the long cases (a second device call) */
    /* DG_ENV_T_TO=rel: only the samples before it, no long cases (a part of the campaigns) */
    const char *from = getenv("DG_ENV_T_FROM"), *to = getenv("DG_ENV_T_TO");
    for (size_t i = 0; i < samples.n; i++) {
      if ((from && strcmp(samples.v[i], from) < 0) || (to && strcmp(samples.v[i], to) >= 0)) continue;
      agreement(samples.v[i], "boundary", 0, &judged);
      agreement(samples.v[i], "adversarial", 0, &judged);
    }
    if (!to)
      long_case("matmul/matmul_tiled", "fuzz:adversarial:1:6@M=4096,N=4096,K=4096",
                "matmul_tiled 4096^3, adversarial:1:6 (sorted)", &judged);
    /* session 8's order term: a warp's 32 strided lanes over large-offset's
     * alternating rows of b (partial sums ~100x the reference's) */
    if (!to)
      long_case("matmul/matmul_warp", "fuzz:adversarial:1:8@M=1024,N=1024,K=4096",
                "matmul_warp 1024x1024x4096, adversarial:1:8 (large-offset, 32 strided lanes)", &judged);
#endif
    ok(judged > 0, "%lld elements judged by the device envelope in all", (long long)judged);
    gt_cubin_cache_drop(dir);
  }
  free(why);
  for (size_t i = 0; i < samples.n; i++) free(samples.v[i]);
  dg_vec_free(&samples);
  return tap_done();
}
