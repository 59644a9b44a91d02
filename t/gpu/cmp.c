/* cmp.c — the comparison on the device (gpu_cmp.c). Built two ways:
 *  cmp.t: the kernel compiles with NVRTC (no GPU needed); on a GPU, its
 *    summary against fuzz_compare (the host validator) on crafted outputs of
 *    every dtype it takes (exact, within and just past the tolerance, NaN
 *    and Inf on either side, unwritten, undefined reference, values the
 *    dtype rounds or overflows, subnormals), and whole campaigns (correct
 *    and buggy samples) giving the same outcome case for case with the
 *    comparison on the device and on the host (DIRIGO_GPU_CMP=0);
 *  cmp_mock.t (DG_MOCK_CUDA): the same on the mocked runtime, whose dg_cmp
 *    is the host rule itself: the plumbing (summary upload, launch, decode,
 *    a failing case fetching its outputs) without a GPU. */
#include "fuzz_gpu.h"
#include "lua_spec.h"
#include "../tap.h"
#include "samples.h"
#include <math.h>
#include <unistd.h>


/* Element i's (got, want) of a crafted case: a class by i % 20. */
static void craft(dg_dtype dt, dg_tol tol, dg_rng *r, int64_t i, double *got, double *want, int *kind)
{
  double w = (dg_rng_unit(r) - 0.5) * ldexp(1.0, (int)dg_rng_below(r, 16) - 8);
  double rw = dg_dtype_round(dt, w), lim = tol.atol + tol.rtol * fabs(rw);
  *kind = 0;   /* 1: unwritten, 2: reference undefined */
  *want = w;
  switch (i % 20) {
  case 0: *got = rw; break;
  case 1: *got = rw + 0.5 * lim; break;
  case 2: *got = rw + 1.01 * lim; break;
  case 3: *got = rw - 3 * lim; break;
  case 4: *got = NAN, *want = NAN; break;
  case 5: *got = NAN; break;
  case 6: *got = rw, *want = NAN; break;
  case 7: *got = INFINITY, *want = INFINITY; break;
  case 8: *got = -INFINITY, *want = INFINITY; break;
  case 9: *got = 1, *want = -INFINITY; break;
  case 10: *got = INFINITY; break;
  case 11: *kind = 1; *got = 0; break;
  case 12: *kind = 2; *got = rw; break;
  case 13: *got = INFINITY, *want = 1e300; break;    /* overflows the dtype: rounds to inf but f64 */
  case 14: *got = 0, *want = 1e-300; break;          /* underflows to 0 */
  case 15: *got = ldexp(1.0, -140), *want = ldexp(1.5, -140); break;   /* subnormal (f32) */
  case 16: *got = ldexp(3.0, -26), *want = ldexp(2.5, -26); break;     /* f16 subnormal tie */
  case 17: *got = 1, *want = 1 + ldexp(1.0, -11); break;              /* f16: the tie to even */
  case 18: *got = 1, *want = 1 + ldexp(1.0, -8) + ldexp(1.0, -30); break;   /* bf16: past the tie */
  default: *got = rw * (1 + ldexp(1.0, -20)); break;
  }
}

/* The kernel on crafted outputs of dtype dt against fuzz_compare. */
static void rule(dg_gpu *g, dg_gpu_kernel k, dg_dtype dt)
{
  const int64_t n = 5000;
  int es = dg_dtypes[dt].size;
  dg_tol tol = { dt == DG_DT_F64 ? 1e-12 : dt == DG_DT_F32 ? 1e-5 : 1e-2, dt == DG_DT_F64 ? 1e-12 : dt == DG_DT_F32 ? 1e-5 : 1e-2 };
  uint8_t *raw = dg_malloc((size_t)n * es);
  double *want = dg_malloc(sizeof *want * n), *got = dg_malloc(sizeof *got * n);
  uint8_t *written = dg_malloc((size_t)n), *defined = dg_malloc((size_t)n);
  dg_gpu_pattern pat = dg_gpu_poison_for(dg_dtypes[dt].name), fpat = dg_gpu_poison_for("f64");
  dg_rng r;
  dg_rng_seed(&r, 7 + (uint64_t)dt);
  for (int64_t i = 0; i < n; i++) {
    double gv, wv;
    int kind;
    craft(dt, tol, &r, i, &gv, &wv, &kind);
    if (kind == 1) memcpy(raw + i * es, pat.b, (size_t)es);
    else dg_dtype_store(dt, raw, i, gv);
    got[i] = dg_dtype_load(dt, raw, i);
    written[i] = kind != 1;
    want[i] = wv;
    defined[i] = kind != 2;
  }
  fuzz_cmp host;
  fuzz_compare(dt, got, want, defined, written, n, tol, &host);
  for (int64_t i = 0; i < n; i++)
    if (!defined[i]) memcpy(&want[i], fpat.b, 8);
  dg_gpu_buf bo = 0, bw = 0, bs = 0;
  char *msg = NULL;
  dg_gpu_status st = dg_gpu_alloc(g, (size_t)n * es, pat, &bo, &msg);
  if (st == DG_GPU_OK) st = dg_gpu_alloc(g, (size_t)n * 8, fpat, &bw, &msg);
  if (st == DG_GPU_OK) st = dg_gpu_alloc(g, GPU_CMP_WORDS * 8, dg_gpu_poison_for("i64"), &bs, &msg);
  uint64_t sum[GPU_CMP_WORDS];
  gpu_cmp_init(sum);
  dg_gpu_arg args[9];
  dg_gpu_dim3 grid, block;
  gpu_cmp_dims(n, &grid, &block);
  dg_gpu_batch b = {0};
  dg_gpu_batch_upload(&b, bo, 0, raw, (size_t)n * es);
  dg_gpu_batch_upload(&b, bw, 0, want, (size_t)n * 8);
  dg_gpu_batch_upload(&b, bs, 0, sum, sizeof sum);
  dg_gpu_batch_launch_unguarded(&b, k, grid, block, 0, args, gpu_cmp_args(dt, bo, bw, n, tol, bs, args));
  dg_gpu_batch_download(&b, bs, 0, sum, sizeof sum);
  dg_gpu_batch_result res = {0};
  if (st == DG_GPU_OK) st = dg_gpu_batch_run(g, &b, &res);
  fuzz_cmp dev;
  gpu_cmp_decode(sum, n, &dev);
  const char *name = dg_dtypes[dt].name;
  ok(st == DG_GPU_OK, "%s: the comparison runs (%s)", name, msg ? msg : res.msg ? res.msg : "ok");
  ok(dev.checked == host.checked && dev.nfail == host.nfail && dev.nunwritten == host.nunwritten &&
     dev.nnan_agree == host.nnan_agree && dev.first_fail == host.first_fail,
     "%s: counts as the host's (checked %lld/%lld, failing %lld/%lld, unwritten %lld/%lld, nan agreeing %lld/%lld, "
     "first %lld/%lld)", name, (long long)dev.checked, (long long)host.checked, (long long)dev.nfail,
     (long long)host.nfail, (long long)dev.nunwritten, (long long)host.nunwritten, (long long)dev.nnan_agree,
     (long long)host.nnan_agree, (long long)dev.first_fail, (long long)host.first_fail);
  ok(dev.max_abs == host.max_abs && dev.max_ulp == host.max_ulp,
     "%s: max abs %.17g / %.17g, max ulp %.17g / %.17g (bit for bit)", name, dev.max_abs, host.max_abs,
     dev.max_ulp, host.max_ulp);
  dg_gpu_batch_result_free(&res);
  dg_gpu_batch_free(&b);
  free(msg);
  if (bo) dg_gpu_free(g, bo, NULL);
  if (bw) dg_gpu_free(g, bw, NULL);
  if (bs) dg_gpu_free(g, bs, NULL);
  free(raw), free(want), free(got), free(written), free(defined);
}

static void rules(void)
{
  dg_gpu *g = dg_gpu_open(NULL, NULL);
  dg_gpu_binary bin = {0};
  dg_diags d = {0};
  dg_gpu_kernel k[3] = {0};   /* dg_cmp, dg_cmp_pick, dg_in_hash */
  char *msg = NULL;
  bool ok_ = g && gpu_cmp_compile(dg_gpu_info_of(g)->arch, &bin, &d) == DG_GPU_OK &&
             dg_gpu_load(g, &bin, k, &msg) == DG_GPU_OK;
  ok(ok_, "the comparison kernel loads (%s)", msg ? msg : "ok");
  static const dg_dtype dts[] = { DG_DT_F32, DG_DT_F64, DG_DT_F16, DG_DT_BF16 };
  for (size_t i = 0; ok_ && i < sizeof dts / sizeof *dts; i++) rule(g, k[0], dts[i]);
  free(msg);
  dg_diags_free(&d);
  dg_gpu_binary_free(&bin);
  dg_gpu_close(g);
}

/* ---- whole campaigns, the comparison on the device and on the host -------- */
typedef DG_VEC(fuzz_outcome) outcomes;
static void record(void *ud, const fuzz_outcome *o) { dg_vec_push((outcomes *)ud, *o); }

/* mode 0: inputs drawn and compared on the host; 1: drawn and compared on
 * the device, a request a case; 2: the same, several cases a request (the
 * default) on one stream (DIRIGO_GPU_STREAMS=1); 3: the same on 4 lanes
 * (concurrent streams, each with its buffers; the mock runs their queues
 * interleaved, so lanes sharing a buffer would change outcomes); 4: 4 lanes
 * with each case's reference on its lane's side stream (DIRIGO_GPU_OVERLAP=1:
 * the mock runs the side queues interleaved too, the last made first, so a
 * reference not waiting for its lane's draws reads the last case's inputs).
 * *drew: inputs were drawn on the device. */
static int lanes_seen;   /* the most lanes a mode-3 request ran on */
static int64_t side_seen;   /* requests of mode 4 with references on side streams */
static int64_t side_changed;   /* the last mode-4 campaign's cases whose inputs changed under the kernel */
#define NMODES 5
static int64_t ncases_set;   /* > 0: a spec campaign's cases (else 40) */
static bool run_campaign(dg_problem *p, int mode, const char *strategy, bool realistic, outcomes *out,
                         fuzz_gpu_timed *tm, fuzz_summary *s, bool *drew)
{
  if (mode == 0) setenv("DIRIGO_GPU_CMP", "0", 1), setenv("DIRIGO_GPU_GEN", "0", 1);
  if (mode < 2) setenv("DIRIGO_GPU_MANY", "0", 1);
  setenv("DIRIGO_GPU_STREAMS", mode >= 3 ? "4" : "1", 1);
  if (mode == 4) setenv("DIRIGO_GPU_OVERLAP", "1", 1);
  gpu_kernels gk;
  dg_diags d = {0};
  bool ok_ = gpu_kernels_load(&gk, p, NULL, &d);
  memset(tm, 0, sizeof *tm);
  if (ok_) {
    tm->gk = &gk;
    fuzz_backend be = fuzz_backend_gpu_timed(tm);
    fuzz_opts o = { .strategy = fuzz_strategy_find(strategy), .backend = &be,
                    .ncases = realistic ? 3 : ncases_set > 0 ? ncases_set : 40, .seed = 5, .keep_going = true, .shrink = true,
                    .max_elems = realistic ? (int64_t)1 << 28 : 0, .max_check = realistic ? 4096 : 0,
                    .progress = record, .ud = out };
    ok_ = fuzz_campaign(p, NULL, &o, s, &d);
    *drew = gk.dgen_state == 1 && gk.dgen_gen != 0;
    if (mode == 3 && gk.prof.lanes > lanes_seen) lanes_seen = gk.prof.lanes;
    if (mode == 4) side_seen += gk.prof.overlapped, side_changed = gk.prof.ov_changed;
    gpu_kernels_free(&gk);
    tm->gk = NULL;
  }
  dg_diags_free(&d);
  unsetenv("DIRIGO_GPU_CMP");
  unsetenv("DIRIGO_GPU_MANY");
  unsetenv("DIRIGO_GPU_GEN");
  unsetenv("DIRIGO_GPU_STREAMS");
  unsetenv("DIRIGO_GPU_OVERLAP");
  return ok_;
}

static bool same_outcome(const fuzz_outcome *a, const fuzz_outcome *b)
{
  return a->status == b->status && !strcmp(a->msg, b->msg) && a->tensor == b->tensor &&
         a->cmp.nfail == b->cmp.nfail && a->cmp.checked == b->cmp.checked &&
         a->cmp.first_fail == b->cmp.first_fail && a->cmp.max_abs == b->cmp.max_abs &&
         a->cmp.max_ulp == b->cmp.max_ulp && a->nexplained == b->nexplained && a->sampled == b->sampled &&
         a->input_digest == b->input_digest && a->nidx == b->nidx &&
         !memcmp(a->index, b->index, sizeof a->index);
}

static int64_t big_n;   /* > 0: "realistic" is this size (the mock's) */
static bool zero_tol;   /* the tolerance 0: elements off the reference the envelope explains */
static int64_t env_passed_all;
static int64_t sampled_all;   /* cases judged on a sample inside a request, grouped campaigns */
static int64_t pass_m[NMODES], pass_sampled_m[NMODES];
static int64_t oob_fails;   /* mode 0's outcomes naming a guard (out of bounds) */   /* passing outcomes per mode, and those judged on a sample */

static void campaigns(const char *rel, const char *strategy, bool realistic)
{
  dg_problem *p = gt_load(rel);
  if (!p) {
    ok(false, "%s loads", rel);
    return;
  }
  if (zero_tol) p->has_tol = true, p->tol = (dg_tol){ 0, 0 };
  if (realistic)
    for (size_t i = 0; i < p->sizes.n; i++)
      if (p->sizes.v[i].has_realistic) p->sizes.v[i].value = big_n > 0 ? big_n : p->sizes.v[i].realistic;
  outcomes o[NMODES] = {{0}};
  fuzz_gpu_timed tm[NMODES];
  fuzz_summary sm[NMODES];
  bool ran = true, drew[NMODES] = {0};
  for (int m = 0; m < NMODES; m++)
    ran = ran && run_campaign(p, m, strategy, realistic, &o[m], &tm[m], &sm[m], &drew[m]);
  const char *sz = realistic ? " (realistic)" : zero_tol ? " (tolerance 0)" : "";
  for (int m = 0; m < NMODES; m++)
    for (size_t i = 0; i < o[m].n; i++) {
      pass_m[m] += o[m].v[i].status == FUZZ_PASS;
      pass_sampled_m[m] += o[m].v[i].status == FUZZ_PASS && o[m].v[i].sampled;
    }
  for (int m = 1; m < NMODES; m++) {
    size_t same = 0, nfail = 0;
    for (size_t i = 0; ran && i < o[m].n && i < o[0].n; i++) {
      bool eq = same_outcome(&o[m].v[i], &o[0].v[i]);
      same += eq;
      nfail += o[m].v[i].status != FUZZ_PASS;
      if (!eq)
        printf("# case %zu: device '%s' (%s) / host '%s' (%s)\n", i, o[m].v[i].msg,
               fuzz_status_name(o[m].v[i].status), o[0].v[i].msg, fuzz_status_name(o[0].v[i].status));
    }
    const char *how = m == 1   ? "a request a case"
                      : m == 2 ? "several cases a request"
                      : m == 3 ? "several cases a request on 4 lanes"
                               : "several cases a request on 4 lanes, references on side streams";
    ok(ran && o[m].n == o[0].n && same == o[m].n && o[m].n > 0 && drew[m] && !drew[0],
       "%s %s%s: %zu/%zu cases with the outcome of inputs drawn and compared on the host, drawn and compared "
       "on the device, %s (%zu not passing)", rel, strategy, sz, same, o[m].n, how, nfail);
    ok(ran && sm[m].failed == sm[0].failed && (!sm[m].failed || same_outcome(&sm[m].first, &sm[0].first)) &&
       sm[m].shrunk == sm[0].shrunk && (!sm[m].shrunk || same_outcome(&sm[m].min, &sm[0].min)),
       "%s %s%s, %s: the same first failure and shrunk case (%s)", rel, strategy, sz, how,
       sm[m].failed ? sm[m].first.msg : "none");
  }
  ok(ran && tm[0].dev_judged == 0 && (tm[1].dev_judged > 0 || sm[1].npass == 0 || (realistic && zero_tol)) &&
     tm[1].many == 0,
     "%s %s%s: %lld passing cases judged on the device alone, one a request (host run: %lld)", rel, strategy, sz,
     (long long)tm[1].dev_judged, (long long)tm[0].dev_judged);
  bool grouped = !strcmp(strategy, "adversarial");
  ok(ran && (!grouped || tm[2].many > 0 || sm[2].npass == 0),
     "%s %s%s: %lld passing cases judged several a request", rel, strategy, sz, (long long)tm[2].many);
  {   /* the envelope inside the request passed cases off the reference, and only there */
    int64_t expl = 0;
    for (size_t i = 0; i < o[0].n; i++) expl += o[0].v[i].status == FUZZ_PASS && o[0].v[i].nexplained > 0;
    ok(ran && tm[0].env_passed == 0 && tm[1].env_passed == 0 && tm[2].env_passed <= expl &&
       (!grouped || realistic || tm[2].env_passed == expl),
       "%s %s%s: %lld cases off the reference passed by the envelope inside the request (the host's run: %lld "
       "passing with elements explained)", rel, strategy, sz, (long long)tm[2].env_passed, (long long)expl);
    env_passed_all += tm[2].env_passed;
  }
  {   /* judged on the validator's sample: the host's cases, and grouped ones there */
    int64_t hs = 0, gs = 0;
    for (size_t i = 0; i < o[0].n; i++) hs += o[0].v[i].sampled && o[0].v[i].status == FUZZ_PASS;
    for (size_t i = 0; i < o[2].n; i++) gs += o[2].v[i].sampled && o[2].v[i].status == FUZZ_PASS;
    sampled_all += tm[2].sampled;
    ok(ran && tm[2].sampled <= gs && gs == hs && (!realistic || !zero_tol || !grouped || tm[2].sampled == hs),
       "%s %s%s: %lld of %lld passing cases judged on the sample were judged so inside a request", rel, strategy,
       sz, (long long)tm[2].sampled, (long long)hs);
  }
  /* (a write into a guard is named at the writer's case on lanes too:
   * gpu_child_batch.c async_records; as many cases judged in the request) */
  int64_t nguard = 0;
  for (size_t i = 0; i < o[0].n; i++) nguard += strstr(o[0].v[i].msg, "guard") != NULL;
  oob_fails += nguard;
  bool guard_hit = nguard > 0;
  ok(ran && tm[3].many == tm[2].many &&
     tm[3].env_passed == tm[2].env_passed && tm[3].sampled == tm[2].sampled,
     "%s %s%s: on 4 lanes as on one stream %lld/%lld cases judged several a request%s, %lld/%lld passed by the "
     "envelope there, %lld/%lld on the sample", rel, strategy, sz, (long long)tm[3].many, (long long)tm[2].many,
     guard_hit ? " (some cases writing into a guard)" : "",
     (long long)tm[3].env_passed, (long long)tm[2].env_passed, (long long)tm[3].sampled, (long long)tm[2].sampled);
  /* (a kernel writing into its input: those cases run again alone there) */
  ok(ran && (side_changed ? tm[4].many <= tm[2].many : tm[4].many == tm[2].many) &&
     tm[4].env_passed <= tm[2].env_passed && (side_changed || tm[4].env_passed == tm[2].env_passed) &&
     tm[4].sampled <= tm[2].sampled && (side_changed || tm[4].sampled == tm[2].sampled),
     "%s %s%s: references on side streams as on one stream %lld/%lld cases judged several a request, %lld/%lld "
     "passed by the envelope there, %lld/%lld on the sample (%lld cases with inputs changed under the kernel, run "
     "again alone)", rel, strategy, sz, (long long)tm[4].many, (long long)tm[2].many, (long long)tm[4].env_passed,
     (long long)tm[2].env_passed, (long long)tm[4].sampled, (long long)tm[2].sampled, (long long)side_changed);
  if (!strstr(rel, "clobber"))
    ok(side_changed == 0, "%s %s%s: no case's inputs changed under the kernel with the reference beside it (%lld)",
       rel, strategy, sz, (long long)side_changed);
  for (int m = 0; m < NMODES; m++) dg_vec_free(&o[m]);
  dg_problem_free(p);
}

/* The replays of CUDA graphs in the children that wrote path (the last
 * line of each pid, gpu_child_graph.c), summed. */
static long graph_replays(const char *path)
{
  FILE *f = fopen(path, "r");
  long pids[256], reps[256], n = 0, sum = 0;
  char line[160];
  while (f && fgets(line, sizeof line, f)) {
    long pid, c, r, d, x;
    if (sscanf(line, "pid %ld captured %ld replayed %ld direct %ld failed %ld", &pid, &c, &r, &d, &x) != 5) continue;
    long i = 0;
    while (i < n && pids[i] != pid) i++;
    if (i == n && n < 256) n++;
    if (i < 256) pids[i] = pid, reps[i] = r;
  }
  if (f) fclose(f);
  for (long i = 0; i < n; i++) sum += reps[i];
  return sum;
}

/* Campaigns of 72 cases (requests of 32, 32 and 8) grouped on 4 lanes with
 * every CUDA graph captured at its first sight (DIRIGO_GPU_GRAPH=1: the
 * second request replays the first's graph, gpu_child_graph.c), every
 * outcome, the first failure and the shrunk case as the host's one by one. */
static void graph_campaigns(const char *rel)
{
  char stats[] = "/tmp/dg-cmp-graphs-XXXXXX";
  int fd = mkstemp(stats);
  if (fd >= 0) close(fd);
  setenv("DIRIGO_GPU_GRAPH_STATS", stats, 1);
  setenv("DIRIGO_GPU_GRAPH", "1", 1);
  dg_problem *p = gt_load(rel);
  outcomes o[2] = {{0}};
  fuzz_gpu_timed tm[2];
  fuzz_summary sm[2];
  bool drew[2], ran = p != NULL;
  ncases_set = 72;
  ran = ran && run_campaign(p, 0, "adversarial", false, &o[0], &tm[0], &sm[0], &drew[0]);
  ran = ran && run_campaign(p, 3, "adversarial", false, &o[1], &tm[1], &sm[1], &drew[1]);
  ncases_set = 0;
  size_t same = 0, nfail = 0;
  for (size_t i = 0; ran && i < o[0].n && i < o[1].n; i++) {
    same += same_outcome(&o[0].v[i], &o[1].v[i]);
    nfail += o[1].v[i].status != FUZZ_PASS;
  }
  long reps = graph_replays(stats);
  ok(ran && o[1].n == 72 && o[0].n == 72 && same == 72 && reps > 0 && tm[1].many > 0,
     "%s, 72 cases on 4 lanes with CUDA graphs: %zu/72 outcomes as the host's (%zu not passing), %lld judged "
     "several a request, %ld requests replayed a graph", rel, same, nfail, (long long)tm[1].many, reps);
  ok(ran && sm[1].failed == sm[0].failed && (!sm[1].failed || same_outcome(&sm[1].first, &sm[0].first)) &&
     sm[1].shrunk == sm[0].shrunk && (!sm[1].shrunk || same_outcome(&sm[1].min, &sm[0].min)),
     "%s, with CUDA graphs: the same first failure and shrunk case (%s)", rel, sm[1].failed ? sm[1].first.msg : "none");
  dg_vec_free(&o[0]), dg_vec_free(&o[1]);
  if (p) dg_problem_free(p);
  unsetenv("DIRIGO_GPU_GRAPH_STATS");
  unsetenv("DIRIGO_GPU_GRAPH");
  unlink(stats);
}

int main(void)
{
#ifndef DG_MOCK_CUDA
  dg_gpu_binary bin = {0};
  dg_diags d = {0};
  dg_gpu_status cst = gpu_cmp_compile(NULL, &bin, &d);
  if (cst == DG_GPU_NO_DEVICE)   /* built without CUDA */
    ok(true, "# SKIP no NVRTC: %s", d.v.n ? d.v.v[0].msg : "?");
  else
    ok(cst == DG_GPU_OK && bin.image, "the comparison kernel compiles (NVRTC)");
  if (cst != DG_GPU_NO_DEVICE) dg_diags_print(stdout, NULL, &d);
  dg_diags_free(&d);
  dg_gpu_binary_free(&bin);
#endif
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("# no GPU (%s): the comparison on the device is not run here\n", why);
    free(why);
    return tap_done();
  }
  printf("# GPU: %s\n", why);
  free(why);
  char tmpl[] = "/tmp/dg-cubin-XXXXXX";
  char *dir = gt_cubin_cache(tmpl);
  rules();
  campaigns("elementwise/residual_add", "adversarial", false);
  campaigns("elementwise/residual_add", "boundary+adversarial", false);
  campaigns("elementwise/residual_add_gridfloor", "adversarial", false);
  zero_tol = true;
  campaigns("elementwise/residual_add", "adversarial", false);
  campaigns("elementwise/residual_add", "boundary+adversarial", false);
  campaigns("elementwise/residual_add_gridfloor", "adversarial", false);
  zero_tol = false;
  {   /* DIRIGO_GPU_ENV_MANY=0: grouped, the envelope back on the host, the same outcomes */
    dg_problem *p = gt_load("elementwise/residual_add");
    outcomes o[2] = {{0}};
    fuzz_gpu_timed tm[2];
    fuzz_summary sm[2];
    bool drew[2], ran = p != NULL;
    if (p) p->has_tol = true, p->tol = (dg_tol){ 0, 0 };
    ran = ran && run_campaign(p, 0, "adversarial", false, &o[0], &tm[0], &sm[0], &drew[0]);
    setenv("DIRIGO_GPU_ENV_MANY", "0", 1);
    ran = ran && run_campaign(p, 2, "adversarial", false, &o[1], &tm[1], &sm[1], &drew[1]);
    unsetenv("DIRIGO_GPU_ENV_MANY");
    size_t same = 0;
    for (size_t i = 0; ran && i < o[0].n && i < o[1].n; i++) same += same_outcome(&o[0].v[i], &o[1].v[i]);
    ok(ran && o[1].n == o[0].n && same == o[0].n && tm[1].env_passed == 0 && tm[1].many > 0,
       "DIRIGO_GPU_ENV_MANY=0: %zu/%zu outcomes as the host's, %lld passed by the envelope inside a request",
       same, o[0].n, ran ? (long long)tm[1].env_passed : -1LL);
    dg_vec_free(&o[0]), dg_vec_free(&o[1]);
    if (p) dg_problem_free(p);
  }
  int64_t before = env_passed_all;   /* a kernel that writes into its input: never passed there */
  zero_tol = true;
  campaigns("t/gpu/fixtures/clobber_add", "adversarial", false);
  zero_tol = false;
  ok(env_passed_all == before, "t/gpu/fixtures/clobber_add: no case passed by the envelope inside a request");
  /* with the reference beside the kernel (DIRIGO_GPU_OVERLAP=1) it could read
   * the clobbered input and pass the case: the hashes before and after the
   * kernel send every case to run alone (without them, mode 4's outcomes
   * differ from the host's: checked) */
  ok(side_changed > 0, "t/gpu/fixtures/clobber_add, references on side streams: %lld of 40 cases seen changing "
     "their input and run again alone", (long long)side_changed);
  /* a kernel writing past its output in about half the cases: grouped on one
   * stream and on 4 lanes, the cases from the request's first failed launch
   * on run again alone, and every outcome is the one-by-one campaign's (a
   * failure named at a later case than the one that wrote would pass that one) */
  oob_fails = 0;
  campaigns("t/gpu/fixtures/oob_add", "adversarial", false);
  ok(oob_fails > 0 && oob_fails < 40, "t/gpu/fixtures/oob_add: %lld of 40 cases wrote outside y on the host's run "
     "(some, not all)", (long long)oob_fails);
  /* requests replaying a CUDA graph: passing cases, and writes into a guard
   * inside a replay (named at their case: those cases run again alone) */
  graph_campaigns("elementwise/residual_add");
  graph_campaigns("t/gpu/fixtures/oob_add");

  big_n = 300000;   /* 3.6 MB of tensors: grouped only because the inputs are drawn on the device */
  campaigns("elementwise/residual_add", "adversarial", true);
  /* at tolerance 0 most elements are off (the kernel rounds twice): more
   * than the envelope judges whole, so the validator's 4096-element sample
   * is judged, on the host and inside the request alike */
  zero_tol = true;
  sampled_all = 0;
  campaigns("t/gpu/fixtures/round_twice", "adversarial", true);
  ok(sampled_all > 0, "%lld realistic cases judged on the validator's sample inside a request (as on the host)",
     (long long)sampled_all);
  zero_tol = false;
  /* the reference at the validator's sample alone (dg_ref_at; the default
   * for matmul, forced here for the elementwise op the mock has): every case
   * judged on the sample, in the first request, as on the host */
  setenv("DIRIGO_GPU_REF_SAMPLED", "1", 1);
  memset(pass_m, 0, sizeof pass_m), memset(pass_sampled_m, 0, sizeof pass_sampled_m);
  campaigns("elementwise/residual_add", "adversarial", true);
  campaigns("elementwise/residual_add_gridfloor", "adversarial", true);
  zero_tol = true;
  campaigns("t/gpu/fixtures/round_twice", "adversarial", true);
  zero_tol = false;
  unsetenv("DIRIGO_GPU_REF_SAMPLED");
  ok(pass_m[0] > 0 && pass_m[0] == pass_m[1] && pass_m[0] == pass_m[2] && pass_sampled_m[0] == pass_m[0] &&
     pass_sampled_m[1] == pass_m[1] && pass_sampled_m[2] == pass_m[2],
     "DIRIGO_GPU_REF_SAMPLED=1: every passing case judged on the sample in all three modes (%lld/%lld, %lld/%lld, "
     "%lld/%lld)", (long long)pass_sampled_m[0], (long long)pass_m[0], (long long)pass_sampled_m[1],
     (long long)pass_m[1], (long long)pass_sampled_m[2], (long long)pass_m[2]);
  big_n = 0;
#ifndef DG_MOCK_CUDA
  /* matmul at its realistic size (1024^3): the sampled reference by default */
  memset(pass_m, 0, sizeof pass_m), memset(pass_sampled_m, 0, sizeof pass_sampled_m);
  campaigns("matmul/matmul_tiled", "adversarial", true);
  campaigns("matmul/matmul_tiled", "boundary+adversarial", true);
  campaigns("conv/conv2d_k3", "adversarial", true);
  ok(pass_m[2] > 0 && pass_sampled_m[0] == pass_m[0] && pass_sampled_m[1] == pass_m[1] &&
     pass_sampled_m[2] == pass_m[2],
     "matmul_tiled and conv2d_k3 realistic: every passing case judged on the sample (%lld/%lld grouped)",
     (long long)pass_sampled_m[2], (long long)pass_m[2]);
  static const char *const more[] = {
    "softmax/softmax_block", "matmul/matmul_tiled", "conv/conv2d_k3", "softmax/softmax_halfwarp_offset",
    "norm/layernorm_block", "elementwise/gelu_bf16x2", "elementwise/silu_half2", "conv/conv2d_nostride",
  };
  /* DG_GPU_TEST_QUICK=1 (a short device call): the first three alone */
  size_t nmore = getenv("DG_GPU_TEST_QUICK") ? 3 : sizeof more / sizeof *more;
  for (size_t i = 0; i < nmore; i++) {
    campaigns(more[i], "adversarial", false);
    campaigns(more[i], "boundary+adversarial", false);
  }
  campaigns("softmax/softmax_block", "adversarial", true);
  campaigns("elementwise/residual_add", "adversarial", true);
#endif
  /* the mock: residual_add at tolerance 0 (its kernel rounds twice); an H200:
   * layernorm_block and matmul_tiled (9 and 3 of 40 adversarial cases) */
  ok(env_passed_all > 0, "%lld cases passed by the envelope inside a request in all", (long long)env_passed_all);
  ok(lanes_seen == 4, "DIRIGO_GPU_STREAMS=4: requests ran on %d lanes", lanes_seen);
  ok(side_seen > 0, "DIRIGO_GPU_OVERLAP=1: %lld requests with references on side streams", (long long)side_seen);
  gt_cubin_cache_drop(dir);
  return tap_done();
}
