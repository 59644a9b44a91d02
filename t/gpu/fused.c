/* fused.c — the reference fused into the comparison (gpu_fused.c). Built two ways:
 *  fused.t: the fused program compiles with NVRTC (no GPU needed); on a GPU,
 *    for the row and elementwise samples at sizes with tails, input dtypes
 *    f32/f16/bf16/f64 and outputs f32/f64/f16/bf16, inputs with NaN and Inf
 *    and outputs crafted from the reference (exact, inside and just past the
 *    tolerance, NaN, Inf, unwritten), dg_fused's summary equals dg_cmp's over
 *    the materialised reference (dg_ref_*) word for word, at tolerance 0 too
 *    (an f64 output equal to the reference: one ulp of drift fails it); the
 *    inputs' hash is 0 unless an input changed between the two launches; a
 *    fused rule with the dtype rounding dropped is caught; campaigns give
 *    the same outcome case for case with DIRIGO_GPU_FUSED=0 and =1 (unset:
 *    off);
 *  fused_mock.t (DG_MOCK_CUDA): the same on the mocked runtime (its dg_fused
 *    is its reference and dg_cmp in C: residual_add of f32 inputs), the
 *    plumbing — two launches in a case, the summary's slot, the hash that
 *    sends a kernel writing into its input to a request unfused. */
#include "fuzz_gpu.h"
#include "gpu_fused.h"
#include "lua_spec.h"
#include "../tap.h"
#include "samples.h"
#include <math.h>

typedef struct {
  dg_gpu *g;
  dg_gpu_binary rb, cb, fb, bb;
  dg_gpu_kernel ref[GPU_REF_NKERNELS], cmp[3], fz[3], bad[3];   /* cmp: gpu_cmp_compile's 3 kernels */
  bool have_bad;
  int caught, drift_cases;   /* the drifted rule: cases where its summary differs */
} kit;

/* Input element i of tensor t: ordinary values, a NaN and an infinity here and there */
static double input_value(dg_rng *r, int t, int64_t i, int64_t row_len, bool specials)
{
  double v = (dg_rng_unit(r) - 0.5) * 8;
  if (t == 0 && specials) {
    int64_t row = row_len ? i / row_len : i / 97, k = row_len ? i % row_len : i % 97;
    if (row % 5 == 3 && k == row % 7) v = NAN;
    if (row % 5 == 4 && k == row % 11) v = row % 2 ? INFINITY : -INFINITY;
  }
  return v;
}

static bool same_sum(const uint64_t *a, const uint64_t *b) { return !memcmp(a, b, 7 * sizeof *a); }

/* The fused pass against dg_cmp over the materialised reference, for
 * sample rel with size `name` set to v (none: its spec sizes), inputs of
 * dtype in_dt, output out_dt; zero_tol: tolerance 0 and the output the
 * reference rounded (unwritten every 16th element). */
static void direct(kit *K, const char *rel, const char *name, int64_t v, dg_dtype in_dt, dg_dtype out_dt,
                   bool zero_tol)
{
  dg_problem *p = gt_load(rel);
  if (!p) {
    ok(false, "%s loads", rel);
    return;
  }
  int64_t sizes[16] = {0};
  dg_problem_default_sizes(p, sizes);
  for (size_t i = 0; name && i < p->sizes.n && i < 16; i++)
    if (!strcmp(p->sizes.v[i].name, name)) sizes[i] = v;
  if (zero_tol) p->has_tol = true, p->tol = (dg_tol){ 0, 0 };
  gpu_ref_plan pl;
  bool planned = gpu_ref_plan_for(p, sizes, &pl) && gpu_ref_fusable(&pl);
  for (int i = 0; planned && i < 3; i++)
    if (pl.in[i] >= 0) p->tensors.v[pl.in[i]].dtype = in_dt;
  if (planned) p->tensors.v[pl.out].dtype = out_dt;
  char what[160];
  snprintf(what, sizeof what, "%s %s=%lld in %s out %s%s", rel, name ? name : "spec", (long long)v,
           dg_dtypes[in_dt].name, dg_dtypes[out_dt].name, zero_tol ? " tol 0" : "");
  if (!planned) {
    ok(false, "%s: a fused plan", what);
    dg_problem_free(p);
    return;
  }
  size_t nt = p->tensors.n;
  dg_gpu_buf *bufs = dg_calloc(nt, sizeof *bufs), refb = 0, sumb = 0;
  int64_t nout = dg_problem_numel(p, pl.out, sizes), row = pl.kind == 0 ? pl.n[1] : 0;
  int es = dg_dtypes[out_dt].size;
  char *msg = NULL;
  dg_gpu_status st = DG_GPU_OK;
  uint8_t *raw[16] = {0};
  dg_rng r;
  dg_rng_seed(&r, 11 + (uint64_t)nout + (uint64_t)in_dt * 7 + (uint64_t)out_dt * 131);
  for (size_t t = 0; t < nt && st == DG_GPU_OK; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    st = dg_gpu_alloc(K->g, (size_t)n * dg_dtypes[ts->dtype].size + 1, dg_gpu_poison_for(dg_dtypes[ts->dtype].name),
                      &bufs[t], &msg);
    if (ts->role != DG_TENSOR_INPUT || t >= 16) continue;
    raw[t] = dg_malloc((size_t)n * dg_dtypes[ts->dtype].size + 1);
    for (int64_t i = 0; i < n; i++)
      dg_dtype_store(ts->dtype, raw[t], i, input_value(&r, (int)t == pl.in[0] ? 0 : 1, i, row, true));
    if (st == DG_GPU_OK) st = dg_gpu_upload(K->g, bufs[t], 0, raw[t], (size_t)n * dg_dtypes[ts->dtype].size, &msg);
  }
  if (st == DG_GPU_OK) st = dg_gpu_alloc(K->g, (size_t)nout * 8, dg_gpu_poison_for("f64"), &refb, &msg);
  if (st == DG_GPU_OK) st = dg_gpu_alloc(K->g, 3 * GPU_CMP_WORDS * 8, dg_gpu_poison_for("i64"), &sumb, &msg);
  /* the reference, materialised */
  double *ref = dg_malloc(sizeof *ref * (size_t)nout);
  dg_gpu_batch b = {0};
  dg_gpu_batch_result res = {0};
  dg_gpu_arg ra[14];
  int nra = gpu_ref_args(p, &pl, refb, bufs, ra);
  dg_gpu_batch_launch_unguarded(&b, K->ref[pl.kind], pl.grid, pl.block, pl.shmem, ra, nra);
  dg_gpu_batch_download(&b, refb, 0, ref, (size_t)nout * 8);
  if (st == DG_GPU_OK) st = dg_gpu_batch_run(K->g, &b, &res);
  ok(st == DG_GPU_OK, "%s: the reference runs (%s)", what, msg ? msg : res.msg ? res.msg : "ok");
  /* the output, crafted from it */
  dg_tol tol = dg_problem_tol(p, pl.out);
  dg_gpu_pattern pat = dg_gpu_poison_for(dg_dtypes[out_dt].name);
  uint8_t *got = dg_malloc((size_t)nout * es + 1);
  for (int64_t i = 0; i < nout; i++) {
    double rw = dg_dtype_round(out_dt, ref[i]), lim = tol.atol + tol.rtol * fabs(rw), g = rw;
    int cls = zero_tol ? (i % 16 == 8 ? 8 : 0) : (int)(i % 16);
    switch (cls) {
    case 6: g = rw + 0.5 * lim; break;
    case 7: g = rw + 1.01 * lim; break;
    case 9: g = NAN; break;
    case 10: g = INFINITY; break;
    case 11: g = rw * (1 + ldexp(1.0, -20)); break;
    case 12: g = -rw; break;
    case 13: g = ref[i]; break;   /* the f64 value, rounded by the store */
    }
    if (cls == 8) memcpy(got + i * es, pat.b, (size_t)es);
    else dg_dtype_store(out_dt, got, i, g);
  }
  gpu_fused_launch fl;
  bool prep = gpu_fused_prepare(p, &pl, bufs, sumb, &fl);
  uint64_t sum[3 * GPU_CMP_WORDS];
  for (int s = 0; s < 3; s++) gpu_cmp_init(sum + s * GPU_CMP_WORDS);
  dg_gpu_arg ca[9];
  dg_gpu_dim3 cg, cbk;
  int nca = gpu_cmp_args(out_dt, bufs[pl.out], refb, nout, tol, sumb, ca);
  gpu_cmp_dims(nout, &cg, &cbk);
  dg_gpu_batch_clear(&b);
  dg_gpu_batch_result_free(&res);
  memset(&res, 0, sizeof res);
  dg_gpu_batch_upload(&b, bufs[pl.out], 0, got, (size_t)nout * es);
  dg_gpu_batch_upload(&b, sumb, 0, sum, sizeof sum);
  dg_gpu_batch_launch_unguarded(&b, K->cmp[0], cg, cbk, 0, ca, nca);
  fl.ha[GPU_FUSED_HASH_NARGS - 1].buf_off = fl.fa[GPU_FUSED_NARGS - 1].buf_off = GPU_CMP_WORDS * 8;
  dg_gpu_batch_launch_unguarded(&b, K->fz[0], fl.hg, fl.hb, 0, fl.ha, GPU_FUSED_HASH_NARGS);
  dg_gpu_batch_launch_unguarded(&b, K->fz[fl.kern], fl.fg, fl.fb, fl.fshmem, fl.fa, GPU_FUSED_NARGS);
  /* slot 2: an input element changed between the hash and the fused pass */
  int t0 = pl.in[0];
  int64_t at = nout / 2 < dg_problem_numel(p, t0, sizes) ? nout / 2 : 0;
  int is = dg_dtypes[in_dt].size;
  uint8_t one[8];
  fl.ha[GPU_FUSED_HASH_NARGS - 1].buf_off = fl.fa[GPU_FUSED_NARGS - 1].buf_off = 2 * GPU_CMP_WORDS * 8;
  dg_gpu_batch_launch_unguarded(&b, K->fz[0], fl.hg, fl.hb, 0, fl.ha, GPU_FUSED_HASH_NARGS);
  dg_dtype_store(in_dt, one, 0, dg_dtype_load(in_dt, raw[t0], at) == 3 ? 5 : 3);
  dg_gpu_batch_upload(&b, bufs[t0], (size_t)at * is, one, (size_t)is);
  dg_gpu_batch_launch_unguarded(&b, K->fz[fl.kern], fl.fg, fl.fb, fl.fshmem, fl.fa, GPU_FUSED_NARGS);
  dg_gpu_batch_upload(&b, bufs[t0], (size_t)at * is, raw[t0] + at * is, (size_t)is);
  dg_gpu_batch_download(&b, sumb, 0, sum, sizeof sum);
  if (st == DG_GPU_OK && prep) st = dg_gpu_batch_run(K->g, &b, &res);
  ok(st == DG_GPU_OK && prep, "%s: the fused pass runs (%s)", what, msg ? msg : res.msg ? res.msg : "ok");
  fuzz_cmp c0, c1;
  uint64_t s0[GPU_CMP_WORDS];
  memcpy(s0, sum, sizeof s0);
  gpu_cmp_decode(sum, nout, &c0);
  gpu_cmp_decode(sum + GPU_CMP_WORDS, nout, &c1);
  ok(st == DG_GPU_OK && same_sum(sum, sum + GPU_CMP_WORDS) && sum[GPU_CMP_WORDS + 7] == 0 && c0.checked > 0,
     "%s: dg_fused's summary is dg_cmp's over the materialised reference (checked %lld/%lld, failing %lld/%lld, "
     "unwritten %lld/%lld, nan agreeing %lld/%lld, first %lld/%lld, max abs %.17g/%.17g, max ulp %.17g/%.17g; "
     "hash %llu)", what, (long long)c1.checked, (long long)c0.checked, (long long)c1.nfail, (long long)c0.nfail,
     (long long)c1.nunwritten, (long long)c0.nunwritten, (long long)c1.nnan_agree, (long long)c0.nnan_agree,
     (long long)c1.first_fail, (long long)c0.first_fail, c1.max_abs, c0.max_abs, c1.max_ulp, c0.max_ulp,
     (unsigned long long)sum[GPU_CMP_WORDS + 7]);
  ok(st == DG_GPU_OK && (!zero_tol || c0.nfail == c0.nunwritten) && (zero_tol || c0.nfail > c0.nunwritten),
     "%s: the crafted output %s (failing %lld, unwritten %lld)", what,
     zero_tol ? "fails at its unwritten elements alone" : "has elements off the reference", (long long)c0.nfail,
     (long long)c0.nunwritten);
  ok(st == DG_GPU_OK && sum[2 * GPU_CMP_WORDS + 7] != 0,
     "%s: an input element changed between the hash and the fused pass shows in word 7", what);
  if (K->have_bad && st == DG_GPU_OK) {   /* the rule with the dtype rounding dropped */
    for (int s = 0; s < 3; s++) gpu_cmp_init(sum + s * GPU_CMP_WORDS);
    dg_gpu_batch_clear(&b);
    dg_gpu_batch_result_free(&res);
    memset(&res, 0, sizeof res);
    fl.ha[GPU_FUSED_HASH_NARGS - 1].buf_off = fl.fa[GPU_FUSED_NARGS - 1].buf_off = GPU_CMP_WORDS * 8;
    dg_gpu_batch_upload(&b, sumb, 0, sum, sizeof sum);
    dg_gpu_batch_launch_unguarded(&b, K->bad[fl.kern], fl.fg, fl.fb, fl.fshmem, fl.fa, GPU_FUSED_NARGS);
    dg_gpu_batch_download(&b, sumb, 0, sum, sizeof sum);
    if (dg_gpu_batch_run(K->g, &b, &res) == DG_GPU_OK && out_dt != DG_DT_F64) {
      K->drift_cases++;
      K->caught += !same_sum(sum + GPU_CMP_WORDS, s0);
    }
  }
  dg_gpu_batch_result_free(&res);
  dg_gpu_batch_free(&b);
  free(msg);
  for (size_t t = 0; t < nt; t++) {
    if (bufs[t]) dg_gpu_free(K->g, bufs[t], NULL);
    if (t < 16) free(raw[t]);
  }
  if (refb) dg_gpu_free(K->g, refb, NULL);
  if (sumb) dg_gpu_free(K->g, sumb, NULL);
  free(bufs), free(ref), free(got);
  dg_problem_free(p);
}

static bool kit_open(kit *K)
{
  memset(K, 0, sizeof *K);
  K->g = dg_gpu_open(NULL, NULL);
  if (!K->g) return false;
  const char *arch = dg_gpu_info_of(K->g)->arch;
  dg_diags d = {0};
  char *msg = NULL;
  bool up = gpu_ref_compile(arch, &K->rb, &d) == DG_GPU_OK && gpu_cmp_compile(arch, &K->cb, &d) == DG_GPU_OK &&
            gpu_fused_compile(arch, &K->fb, &d) == DG_GPU_OK && dg_gpu_load(K->g, &K->rb, K->ref, &msg) == DG_GPU_OK &&
            dg_gpu_load(K->g, &K->cb, K->cmp, &msg) == DG_GPU_OK && dg_gpu_load(K->g, &K->fb, K->fz, &msg) == DG_GPU_OK;
  ok(up, "the reference, comparison and fused kernels load (%s)", msg ? msg : "ok");
  free(msg);
  msg = NULL;
#ifndef DG_MOCK_CUDA
  if (up) {   /* the fused program with dg_cmp_one's rounding to the output dtype dropped */
    char *text = dg_printf("%s%s%s", gpu_ref_source(), gpu_cmp_source(), gpu_fused_source());
    char *at = strstr(text, "double w = round_to(dt, wr);");
    if (at) memcpy(at, "double w = wr;              ", strlen("double w = round_to(dt, wr);"));
    static const char *const names[] = { "dg_fused_hash", "dg_fused_map", "dg_fused_rows" };
    K->have_bad = at && dg_gpu_compile_own("drifted fused", text, strlen(text), names, 3, arch, &K->bb, &d) ==
                            DG_GPU_OK && dg_gpu_load(K->g, &K->bb, K->bad, &msg) == DG_GPU_OK;
    if (!at) free(text);
    ok(K->have_bad, "a fused program with the rounding dropped loads (%s)", msg ? msg : "ok");
  }
#endif
  free(msg);
  dg_diags_free(&d);
  return up;
}

static void kit_close(kit *K)
{
  dg_gpu_binary_free(&K->rb), dg_gpu_binary_free(&K->cb), dg_gpu_binary_free(&K->fb), dg_gpu_binary_free(&K->bb);
  dg_gpu_close(K->g);
}

/* ---- whole campaigns, DIRIGO_GPU_FUSED=0 and =1 -------------------------- */
typedef DG_VEC(fuzz_outcome) outcomes;
static void record(void *ud, const fuzz_outcome *o) { dg_vec_push((outcomes *)ud, *o); }

static bool run_campaign(dg_problem *p, bool fused, const char *strategy, bool realistic, outcomes *out,
                         fuzz_gpu_timed *tm, int *state)
{
  setenv("DIRIGO_GPU_FUSED", fused ? "1" : "0", 1);
  gpu_kernels gk;
  dg_diags d = {0};
  fuzz_summary s;
  bool ok_ = gpu_kernels_load(&gk, p, NULL, &d);
  memset(tm, 0, sizeof *tm);
  if (ok_) {
    tm->gk = &gk;
    fuzz_backend be = fuzz_backend_gpu_timed(tm);
    fuzz_opts o = { .strategy = fuzz_strategy_find(strategy), .backend = &be,
                    .ncases = realistic ? 3 : 40, .seed = 9, .keep_going = true, .shrink = true,
                    .max_elems = realistic ? (int64_t)1 << 28 : 0, .max_check = realistic ? 4096 : 0,
                    .progress = record, .ud = out };
    ok_ = fuzz_campaign(p, NULL, &o, &s, &d);
    *state = gk.fused_state == 1 && gk.fused_gen != 0 ? 1 : gk.fused_state;
    gpu_kernels_free(&gk);
  }
  dg_diags_free(&d);
  unsetenv("DIRIGO_GPU_FUSED");
  return ok_;
}

static bool same_outcome(const fuzz_outcome *a, const fuzz_outcome *b)
{
  return a->status == b->status && !strcmp(a->msg, b->msg) && a->tensor == b->tensor &&
         a->cmp.nfail == b->cmp.nfail && a->cmp.checked == b->cmp.checked &&
         a->cmp.first_fail == b->cmp.first_fail && a->cmp.max_abs == b->cmp.max_abs &&
         a->cmp.max_ulp == b->cmp.max_ulp && a->nexplained == b->nexplained && a->sampled == b->sampled &&
         a->input_digest == b->input_digest;
}

static void campaigns(const char *rel, const char *strategy, int64_t big, bool zero_tol)
{
  dg_problem *p = gt_load(rel);
  if (!p) {
    ok(false, "%s loads", rel);
    return;
  }
  if (zero_tol) p->has_tol = true, p->tol = (dg_tol){ 0, 0 };
  for (size_t i = 0; big && i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) p->sizes.v[i].value = big > 1 ? big : p->sizes.v[i].realistic;
  outcomes o[2] = {{0}};
  fuzz_gpu_timed tm[2];
  int state[2] = {0};
  bool ran = run_campaign(p, false, strategy, big != 0, &o[0], &tm[0], &state[0]) &&
             run_campaign(p, true, strategy, big != 0, &o[1], &tm[1], &state[1]);
  size_t same = 0, npass = 0;
  for (size_t i = 0; ran && i < o[0].n && i < o[1].n; i++) {
    bool eq = same_outcome(&o[0].v[i], &o[1].v[i]);
    same += eq;
    npass += o[1].v[i].status == FUZZ_PASS;
    if (!eq)
      printf("# case %zu: fused '%s' (%s) / unfused '%s' (%s)\n", i, o[1].v[i].msg,
             fuzz_status_name(o[1].v[i].status), o[0].v[i].msg, fuzz_status_name(o[0].v[i].status));
  }
  ok(ran && o[0].n == o[1].n && same == o[0].n && o[0].n > 0 && state[0] != 1 && state[1] == 1 &&
     (tm[1].many > 0 || npass == 0),
     "%s %s%s%s: %zu/%zu outcomes equal with DIRIGO_GPU_FUSED=0 and =1 (%zu passing, %lld of them several a "
     "request; fused pass loaded %d/%d)", rel, strategy, big ? " (realistic)" : "", zero_tol ? " (tolerance 0)" : "",
     same, o[0].n, npass, (long long)tm[1].many, state[1], state[0]);
  for (int m = 0; m < 2; m++) dg_vec_free(&o[m]);
  dg_problem_free(p);
}

int main(void)
{
#ifndef DG_MOCK_CUDA
  dg_gpu_binary bin = {0};
  dg_diags d = {0};
  dg_gpu_status cst = gpu_fused_compile(NULL, &bin, &d);
  if (cst == DG_GPU_NO_DEVICE)   /* built without CUDA */
    ok(true, "# SKIP no NVRTC: %s", d.v.n ? d.v.v[0].msg : "?");
  else
    ok(cst == DG_GPU_OK && bin.image && bin.nnames == 3, "the fused program compiles (NVRTC)");
  if (cst != DG_GPU_NO_DEVICE) dg_diags_print(stdout, NULL, &d);
  dg_diags_free(&d);
  dg_gpu_binary_free(&bin);
#endif
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("# no GPU (%s): the fused pass is not run here\n", why);
    free(why);
    return tap_done();
  }
  printf("# GPU: %s\n", why);
  free(why);
  char tmpl[] = "/tmp/dg-cubin-XXXXXX";
  char *dir = gt_cubin_cache(tmpl);
  kit K;
  if (kit_open(&K)) {
    direct(&K, "elementwise/residual_add", NULL, 0, DG_DT_F32, DG_DT_F32, false);
    direct(&K, "elementwise/residual_add", "N", 70001, DG_DT_F32, DG_DT_F64, true);
    direct(&K, "elementwise/residual_add", "N", 4099, DG_DT_F32, DG_DT_F16, false);
    direct(&K, "elementwise/residual_add", "N", 4099, DG_DT_F32, DG_DT_BF16, false);
#ifndef DG_MOCK_CUDA
    static const struct { const char *rel, *name; int64_t v; } cases[] = {
      { "elementwise/residual_add", "N", 70001 }, { "elementwise/gelu_bf16x2", NULL, 0 },
      { "elementwise/silu_half2", "N", 4099 }, { "elementwise/elu_template", NULL, 0 },
      { "softmax/softmax_block", NULL, 0 }, { "softmax/softmax_block", "C", 100 },
      { "softmax/softmax_block", "C", 5000 }, { "softmax/log_softmax_warp", NULL, 0 },
      { "softmax/log_softmax_warp", "C", 3001 }, { "norm/layernorm_block", NULL, 0 },
      { "norm/layernorm_block", "C", 777 }, { "norm/rmsnorm_half", NULL, 0 }, { "norm/rmsnorm_half", "C", 1030 },
    };
    static const dg_dtype io[][2] = {
      { DG_DT_F32, DG_DT_F32 }, { DG_DT_F16, DG_DT_F16 }, { DG_DT_BF16, DG_DT_BF16 }, { DG_DT_F64, DG_DT_F64 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      for (size_t j = 0; j < sizeof io / sizeof *io; j++)
        direct(&K, cases[i].rel, cases[i].name, cases[i].v, io[j][0], io[j][1], false);
      direct(&K, cases[i].rel, cases[i].name, cases[i].v, DG_DT_F32, DG_DT_F64, true);
      direct(&K, cases[i].rel, cases[i].name, cases[i].v, DG_DT_BF16, DG_DT_F64, true);
    }
    /* (on the H200, 41 of 42: a case can have its summary's maxima and
       counts at elements the output dtype represents exactly) */
    ok(K.have_bad && K.drift_cases > 0 && K.caught >= K.drift_cases - K.drift_cases / 10,
       "the fused rule with the rounding dropped differs from dg_cmp's in %d of %d cases with f32/f16/bf16 outputs",
       K.caught, K.drift_cases);
#endif
  }
  kit_close(&K);
  {   /* off by default: the reference and dg_cmp */
    dg_problem *p = gt_load("elementwise/residual_add");
    outcomes o = {0};
    fuzz_gpu_timed tm;
    int state = 0;
    unsetenv("DIRIGO_GPU_FUSED");
    gpu_kernels gk;
    dg_diags d = {0};
    bool ran = p && gpu_kernels_load(&gk, p, NULL, &d);
    if (ran) {
      tm = (fuzz_gpu_timed){ .gk = &gk };
      fuzz_backend be = fuzz_backend_gpu_timed(&tm);
      fuzz_summary sm;
      fuzz_opts op = { .strategy = fuzz_strategy_find("adversarial"), .backend = &be, .ncases = 8, .seed = 3,
                       .keep_going = true, .progress = record, .ud = &o };
      ran = fuzz_campaign(p, NULL, &op, &sm, &d);
      state = gk.fused_gen != 0;
      gpu_kernels_free(&gk);
    }
    ok(ran && o.n == 8 && tm.many > 0 && state == 0,
       "elementwise/residual_add, DIRIGO_GPU_FUSED unset: %zu cases, %lld several a request, the fused pass not loaded",
       o.n, ran ? (long long)tm.many : -1LL);
    dg_diags_free(&d);
    dg_vec_free(&o);
    if (p) dg_problem_free(p);
  }
  campaigns("elementwise/residual_add", "adversarial", 0, false);
  campaigns("elementwise/residual_add", "boundary+adversarial", 0, false);
  campaigns("elementwise/residual_add", "adversarial", 0, true);
  campaigns("elementwise/residual_add_gridfloor", "adversarial", 0, false);
  campaigns("t/gpu/fixtures/clobber_add", "adversarial", 0, true);
  campaigns("elementwise/residual_add", "adversarial", 300000, false);
  campaigns("t/gpu/fixtures/round_twice", "adversarial", 300000, true);
#ifndef DG_MOCK_CUDA
  static const char *const more[] = {
    "softmax/softmax_block", "softmax/log_softmax_warp", "norm/layernorm_block", "norm/rmsnorm_half",
    "elementwise/gelu_bf16x2", "elementwise/silu_half2",
  };
  for (size_t i = 0; i < sizeof more / sizeof *more; i++) campaigns(more[i], "adversarial", 0, false);
  campaigns("softmax/softmax_block", "adversarial", 1, false);
  campaigns("norm/layernorm_block", "adversarial", 1, false);
  campaigns("elementwise/residual_add", "adversarial", 1, false);
#endif
  gt_cubin_cache_drop(dir);
  return tap_done();
}
