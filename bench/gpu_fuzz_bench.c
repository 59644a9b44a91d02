/* gpu_fuzz_bench.c — fuzz cases per second on the GPU backend, at the spec's
 * sizes and at the op's realistic sizes, with the time of a case split into
 * the GPU run (gpu_run: buffers, upload, launches, download), the kernels
 * alone (events) and the rest (input generation, reference, validation).
 * The emulator's rate at spec sizes is given beside it.
 *
 *   gpu_fuzz_bench [--json FILE] [--cases N] [--real-cases N] [--realistic-only] [--no-issue] [SPEC.lua ...]
 *
 * --real-cases N: N cases a realistic row (default --cases / 20 + 2: 12 of
 * 200, 4 with fuzz-device.sh --quick's 40). --no-issue: no matmul 4096^3 row.
 *
 * Default problems: softmax_block, matmul_tiled, layernorm_block,
 * residual_add, conv2d_k3 (realistic: ResNet-50's conv2_x 3x3 layer).
 * --realistic-only: the GPU rows at realistic (and the issue's) sizes alone
 * (a second measurement in the same device call, e.g. with
 * DIRIGO_GPU_REF_SAMPLED=0). Strategy `adversarial` (the spec's shapes, varied values), as
 * bench/torch_harness.py does; realistic sizes validate a sample of 4096
 * elements per output, as `dirigo fuzz --sizes realistic` does. Without a GPU
 * the GPU rows say so and the emulator rows still run.
 *
 * Lanes (DIRIGO_GPU_STREAMS; doc/gpu.md §3, session 6): cases of a request
 * run concurrently, so a kernel's own event time can grow (it shares the
 * SMs). The kernel column and /kernel use the kernel's time ALONE: each GPU
 * row runs first with DIRIGO_GPU_STREAMS=1 (one stream, the same cases) and
 * keeps that run's kernel ms; the row's own event time on the lanes is
 * printed beside it. With DIRIGO_GPU_STREAMS=1 set, the row's own run is it.
 * That run has no side streams either (DIRIGO_GPU_OVERLAP unset there:
 * the reference beside the kernel would share the SMs with it too). */
#include "fuzz_gpu.h"
#include "lua_spec.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const defaults[] = {
  "softmax/softmax_block", "matmul/matmul_tiled", "norm/layernorm_block", "elementwise/residual_add",
  "conv/conv2d_k3",
};

typedef struct {
  int64_t cases;
  double secs, run_s, kernel_ms, ref_ms;
  double alone_ms;          /* kernel ms per case of the same row on one stream (0: not measured) */
  int lanes;                /* the lanes its requests ran on */
  bool untimed;             /* its requests of several cases ran untimed (as dirigo fuzz runs them) */
  int64_t npass, nbad, ref_runs, many, dev_judged, env_passed;
  char label[96];
  char first[400];          /* the first failure's message, when any */
} row;

/* The issue's own matmul size (KernelBench level 1: 4096^2 x 4096), for ops
 * with sizes M, N and K: false for others. */
static bool use_issue_size(dg_problem *p)
{
  int have = 0;
  for (size_t i = 0; i < p->sizes.n; i++)
    if (!strcmp(p->sizes.v[i].name, "M") || !strcmp(p->sizes.v[i].name, "N") || !strcmp(p->sizes.v[i].name, "K"))
      p->sizes.v[i].value = 4096, have++;
  if (have != 3 || !p->op_name || strcmp(p->op_name, "matmul")) return false;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  dg_diags d = {0};
  bool ok = dg_problem_check_sizes(p, sizes, &d);
  dg_diags_free(&d);
  free(sizes);
  return ok;
}

static bool use_realistic(dg_problem *p)
{
  bool any = false;
  for (size_t i = 0; i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) p->sizes.v[i].value = p->sizes.v[i].realistic, any = true;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  dg_diags d = {0};
  bool ok = any && dg_problem_check_sizes(p, sizes, &d);
  dg_diags_free(&d);
  free(sizes);
  return ok;
}

/* n cases of `adversarial` on backend be (NULL: the emulator). */
static void campaign(dg_problem *p, emu_kernels *ek, const fuzz_backend *be, int64_t n,
                     int64_t cap, int64_t check, double budget, row *r)
{
  fuzz_opts o = { .strategy = fuzz_strategy_find("adversarial"), .backend = be, .ncases = n,
                  .seed = 1, .max_elems = cap, .max_check = check, .keep_going = true,
                  .budget_s = budget };
  fuzz_summary s;
  dg_diags d = {0};
  fuzz_campaign(p, ek, &o, &s, &d);
  dg_diags_free(&d);
  r->cases = s.ncases;
  r->secs = s.secs;
  r->npass = s.npass;
  r->nbad = s.nfail + s.nfinding + s.nerror;
  if (s.failed || s.nerror) snprintf(r->first, sizeof r->first, "%s", s.first.msg);
  fuzz_space sp;
  fuzz_space_ctx ctx;
  fuzz_space_init2(&sp, &ctx, p, cap, check);
  fuzz_case c = {0};
  dg_rng rng;
  dg_rng_seed(&rng, 1);
  if (fuzz_strategy_gen(o.strategy, &sp, 0, &rng, &c)) {
    fuzz_case_label(&sp, &c);
    char *sp_ = strrchr(c.label, ' ');   /* the shape only */
    if (sp_) *sp_ = 0;
    snprintf(r->label, sizeof r->label, "%s", c.label);
  }
}

static void print_row(FILE *json, const char *name, const char *sizes, const char *backend,
                      const row *r, bool *first)
{
  double per = r->cases ? r->secs / (double)r->cases : 0;
  double kms = r->alone_ms > 0 ? r->alone_ms : r->cases ? r->kernel_ms / (double)r->cases : 0;
  double run = r->cases ? r->run_s / (double)r->cases : 0;
  printf("%-26s %-9s %-22s %-4s %5" PRId64 " %9.1f %10.3f", name, sizes, r->label, backend, r->cases,
         per > 0 ? 1 / per : 0, per * 1e3);
  if (r->run_s > 0)
    printf(" %9.3f %9.4f %9.3f %8.1fx %s", run * 1e3, kms, (per - run) * 1e3, kms > 0 ? per * 1e3 / kms : 0,
           r->ref_runs ? "gpu" : "lua");
  if (r->run_s > 0)
    printf(" [kernel ms %s; %d lane(s)]", r->alone_ms > 0 ? "alone: a one-stream run of the row" : "events of this run",
           r->lanes > 1 ? r->lanes : 1);
  if (r->run_s > 0 && r->alone_ms > 0 && r->cases && r->untimed)
    printf(" [its requests untimed, as dirigo fuzz runs them]");
  else if (r->run_s > 0 && r->alone_ms > 0 && r->cases)
    printf(" [its events on the lanes: %.4f ms]", r->kernel_ms / (double)r->cases);
  printf("   %" PRId64 "/%" PRId64 " pass", r->npass, r->cases);
  if (r->run_s > 0)
    printf(" (%" PRId64 " judged on the device, %" PRId64 " of them several a request, %" PRId64
           " of those off the reference and passed by the envelope there; reference kernel %.4f ms)",
           r->dev_judged, r->many, r->env_passed, r->ref_runs ? r->ref_ms / (double)r->ref_runs : 0);
  printf("\n");
  if (r->nbad && r->first[0]) printf("  (first of %" PRId64 " not passing: %s)\n", r->nbad, r->first);
  if (json)
    fprintf(json, "%s{\"problem\": \"%s\", \"sizes\": \"%s\", \"shape\": \"%s\", \"backend\": \"%s\", "
            "\"cases\": %" PRId64 ", \"cases_per_s\": %.3f, \"ms_per_case\": %.4f, \"run_ms\": %.4f, "
            "\"kernel_ms\": %.5f, \"pass\": %" PRId64 ", \"ref\": \"%s\", \"ref_ms\": %.5f, "
            "\"dev_judged\": %" PRId64 ", \"grouped\": %" PRId64 ", \"env_passed\": %" PRId64 ", "
            "\"lanes\": %d, \"kernel_events_ms\": %.5f}",
            *first ? "" : ",\n ", name, sizes, r->label, backend, r->cases, per > 0 ? 1 / per : 0,
            per * 1e3, run * 1e3, kms, r->npass, r->ref_runs ? "gpu" : backend,
            r->ref_runs ? r->ref_ms / (double)r->ref_runs : 0, r->dev_judged, r->many, r->env_passed, r->lanes,
            r->cases ? r->kernel_ms / (double)r->cases : 0);
  *first = false;
}

/* The GPU child's graph counts so far (DIRIGO_GPU_GRAPH_STATS: its last
 * line; gpu_child_graph.c), after a row. */
static void print_graphs(void)
{
  const char *p = getenv("DIRIGO_GPU_GRAPH_STATS");
  FILE *f = p ? fopen(p, "r") : NULL;
  char line[256], last[256] = "";
  while (f && fgets(line, sizeof line, f)) memcpy(last, line, sizeof last);
  if (f) fclose(f);
  if (last[0]) printf("  CUDA graphs, this child so far (DIRIGO_GPU_GRAPH=%s): %s", getenv("DIRIGO_GPU_GRAPH") ?
                      getenv("DIRIGO_GPU_GRAPH") : "default", last);
}

int main(int argc, char **argv)
{
  const char *json_path = NULL;
  int64_t ncases = 200, real_cases = 0;
  bool real_only = false, no_issue = false;
  DG_VEC(const char *) specs = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else if (!strcmp(argv[i], "--cases") && i + 1 < argc) ncases = strtoll(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--real-cases") && i + 1 < argc) real_cases = strtoll(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--realistic-only")) real_only = true;
    else if (!strcmp(argv[i], "--no-issue")) no_issue = true;
    else dg_vec_push(&specs, argv[i]);
  }
  if (real_cases < 1) real_cases = ncases / 20 + 2;
  const char *src = getenv("DG_SRCDIR");
  DG_VEC(char *) paths = {0};
  if (specs.n)
    for (size_t i = 0; i < specs.n; i++) dg_vec_push(&paths, dg_strdup(specs.v[i]));
  else
    for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++)
      dg_vec_push(&paths, dg_printf("%s/samples/%s.lua", src ? src : "..", defaults[i]));
  char graph_stats[] = "/tmp/dg-bench-graphs-XXXXXX";
  int gfd = getenv("DIRIGO_GPU_GRAPH_STATS") ? -1 : mkstemp(graph_stats);
  if (gfd >= 0) close(gfd), setenv("DIRIGO_GPU_GRAPH_STATS", graph_stats, 1);
  char *why = NULL;
  bool have_gpu = dg_gpu_available(&why);
  printf("dirigo fuzz throughput — GPU: %s; strategy adversarial, seed 1\n", why ? why : "?");
  free(why);
  printf("%-26s %-9s %-22s %-4s %5s %9s %10s %9s %9s %9s %9s %s\n", "problem", "sizes", "shape", "on",
         "cases", "cases/s", "ms/case", "run ms", "kernel ms", "rest ms", "/kernel", "ref");
  FILE *json = json_path ? fopen(json_path, "w") : NULL;
  if (json) fprintf(json, "[");
  bool first = true;
  for (size_t i = 0; i < paths.n; i++) {
    const char *slash = strstr(paths.v[i], "samples/");
    char name[64];
    snprintf(name, sizeof name, "%s", slash ? slash + 8 : paths.v[i]);
    char *dot = strrchr(name, '.');
    if (dot) *dot = 0;
    dg_diags d = {0};
    dg_problem *p = dg_spec_load(paths.v[i], &d);
    emu_kernels ek;
    bool loaded = p && !d.nerrors;
    bool ok = loaded && emu_kernels_load(&ek, p, &d);
    if (!ok) {
      printf("%-26s cannot load\n", name);
      if (p) dg_diags_print(stdout, &p->sm, &d);
    }
    if (ok && !real_only) {   /* the emulator, at spec sizes only */
      row r = {0};
      campaign(p, &ek, NULL, ncases / 4 > 0 ? ncases / 4 : 1, 0, 0, 5, &r);
      print_row(json, name, "spec", "cpu", &r, &first);
    }
    gpu_kernels gk = {0};
    bool gok = ok && have_gpu && gpu_kernels_load(&gk, p, NULL, &d);
    if (ok && have_gpu && !gok) {
      printf("%-26s the GPU cannot load it:\n", name);
      dg_diags_print(stdout, &p->sm, &d);
    }
    fuzz_gpu_timed t = { .gk = &gk };
    fuzz_backend be = {0};
    if (gok) be = fuzz_backend_gpu_timed(&t);
    if (gok) {   /* two cases first: the GPU child starts, the kernels load (the
                    grouped path's too: a request of several cases loads the envelope) */
      row warm = {0};
      campaign(p, &ek, &be, 2, 8192, 0, 0, &warm);
    }
    for (int real = real_only; gok && real < 3; real++) {
      if (real == 1 && !use_realistic(p)) {
        printf("%-26s realistic  (the op has no realistic sizes)\n", name);
        break;
      }
      if (real == 2 && (no_issue || !use_issue_size(p))) break;   /* matmul at 4096^3 only */
      const char *lanes_env = getenv("DIRIGO_GPU_STREAMS");
      char *lanes_keep = lanes_env ? dg_strdup(lanes_env) : NULL;
      bool side = gpu_run_overlap();
      bool alone_run = !lanes_env || strcmp(lanes_env, "1") || side;
      if (real) {   /* the row's cases first at these sizes: the device buffers (and the lanes' copies,
                       made for the most lanes a request asks for) are allocated once */
        row warm = {0};
        t.untimed_many = alone_run && !getenv("DIRIGO_GPU_LAUNCH_EVENTS");   /* (as the row runs: its graphs are other ones) */
        /* three times: a request's CUDA graph is captured at its second
           sight (DIRIGO_GPU_GRAPH's default) in each of the two flights (a
           group sent while the one before runs goes in the other), so the
           row measures what a campaign of hundreds of cases runs after its
           first requests */
        for (int w = 0; w < 3; w++) campaign(p, &ek, &be, real_cases, (int64_t)1 << 28, 4096, 0, &warm);
        t.untimed_many = false;
      }
      double alone = 0;
      if (alone_run) {   /* the kernel's time alone: the same cases on one stream */
        setenv("DIRIGO_GPU_STREAMS", "1", 1);
        unsetenv("DIRIGO_GPU_OVERLAP");
        t.kernel_ms = 0;
        row r1 = {0};
        campaign(p, &ek, &be, real ? real_cases : ncases, real ? (int64_t)1 << 28 : 8192,
                 real ? 4096 : 0, real ? 15 : 8, &r1);
        alone = r1.cases ? t.kernel_ms / (double)r1.cases : 0;
        if (lanes_keep) setenv("DIRIGO_GPU_STREAMS", lanes_keep, 1);
        else unsetenv("DIRIGO_GPU_STREAMS");
        if (side) setenv("DIRIGO_GPU_OVERLAP", "1", 1);
      }
      free(lanes_keep);
      memset(&gk.prof, 0, sizeof gk.prof);
      t.runs = 0, t.run_s = 0, t.kernel_ms = 0, t.ref_runs = 0, t.ref_ms = 0, t.dev_judged = 0, t.many = 0, t.env_passed = 0;
      /* the row as `dirigo fuzz` runs it: its requests of several cases
         untimed (no event records; the kernel's time is the one-stream run's) */
      t.untimed_many = alone > 0 && !getenv("DIRIGO_GPU_LAUNCH_EVENTS");   /* (set: the child times as it says) */
      row r = {0};
      r.alone_ms = alone;
      campaign(p, &ek, &be, real ? real_cases : ncases, real ? (int64_t)1 << 28 : 8192,
               real ? 4096 : 0, real ? 15 : 8, &r);
      r.run_s = t.run_s;
      r.kernel_ms = t.kernel_ms;
      r.ref_runs = t.ref_runs;
      r.ref_ms = t.ref_ms;
      r.dev_judged = t.dev_judged;
      r.many = t.many;
      r.env_passed = t.env_passed;
      r.lanes = gk.prof.lanes;
      r.untimed = t.untimed_many;
      t.untimed_many = false;
      print_row(json, name, real == 2 ? "issue" : real ? "realistic" : "spec", "gpu", &r, &first);
      print_graphs();
      const struct gpu_many_prof *pf = &gk.prof;
      if (pf->cases) {   /* where a grouped case's time went */
        double c = (double)pf->cases;
        printf("  grouped: %" PRId64 " cases in %" PRId64 " requests; per case: host %.3f ms building, request %.3f ms ",
               pf->cases, pf->requests, pf->prep_s * 1e3 / c, pf->run_s * 1e3 / c);
        /* dirigo's own launches have times only when every launch is timed
           (DIRIGO_GPU_LAUNCH_EVENTS=all or shared; gpu_child_batch.c) */
        bool split = pf->ms[0] + pf->ms[1] + pf->ms[2] + pf->ms[4] + pf->ms[5] + pf->ms[6] > 0;
        if (split)
          printf("(events: drawing %.4f, hash %.4f, reference %.4f, kernels %.4f, comparison %.4f, envelope %.4f, "
                 "fused reference+comparison %.4f ms)\n", pf->ms[0] / c, pf->ms[1] / c, pf->ms[2] / c, pf->ms[3] / c,
                 pf->ms[4] / c, pf->ms[5] / c, pf->ms[6] / c);
        else
          printf("(kernels %.4f ms; DIRIGO_GPU_LAUNCH_EVENTS=all times every launch for the split)\n", pf->ms[3] / c);
        if (pf->overlapped)
          printf("  references on side streams beside the kernels (DIRIGO_GPU_OVERLAP=1): %" PRId64 " requests; %" PRId64
                 " cases whose inputs changed under the kernel ran again alone\n", pf->overlapped, pf->ov_changed);
        if (pf->rsampled)
          printf("  the reference at the validator's sample alone (dg_ref_at; the case judged on that sample in "
                 "the first request): %" PRId64 " cases\n", pf->rsampled);
        if (pf->sampled)
          printf("  judged on the validator's sample inside a request (more than %d elements off the whole "
                 "reference, as the host would): %" PRId64 " passed\n", FUZZ_ENVELOPE_JUDGED, pf->sampled);
        if (pf->left[0] + pf->left[1] + pf->left[2] + pf->left[3])
          printf("  left to the host (run again alone): %" PRId64 " with more elements off the reference than the "
                 "envelope judges in the request (%d), %" PRId64 " with unwritten elements, %" PRId64 " off the "
                 "reference and not explained in the request, %" PRId64 " not judged\n",
                 pf->left[0], FUZZ_ENVELOPE_JUDGED, pf->left[1], pf->left[2], pf->left[3]);
      }
    }
    if (gok) gpu_kernels_free(&gk);
    if (loaded) emu_kernels_free(&ek);
    dg_diags_free(&d);
    if (p) dg_problem_free(p);
    fflush(stdout);
  }
  if (json) {
    fprintf(json, "]\n");
    fclose(json);
  }
  printf("(run ms: the GPU requests per case — inputs drawn on the device, poison, the reference kernel\n"
         " when ref is gpu, the launches, guard checks, the comparison on the device (passing cases bring back\n"
         " a 64-byte summary), several same-shape cases a request where they pass; rest: the host's part\n"
         " (case generation, failing cases judged on the host with the envelope); /kernel: case time over\n"
         " kernel time)\n");
  for (size_t i = 0; i < paths.n; i++) free(paths.v[i]);
  dg_vec_free(&paths);
  if (gfd >= 0) unlink(graph_stats);
  dg_vec_free(&specs);
  return 0;
}
