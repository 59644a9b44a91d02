/* cli_fuzz.c — `dirigo fuzz` (one problem, or --evaluate over a folder) and
 * `dirigo replay` of fuzz witnesses. */
#include "cli.h"
#include "cli_load.h"
#include "fuzz_gpu.h"
#include "lua_spec.h"
#include "lua_fuzz.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  const char *problem, *strategy, *backend, *evaluate, *witness, *sizes, *rows;
  int64_t cases, max_elems;   /* max_elems 0: the default cap (default_cap) */
  int shard_i, shard_n;       /* --evaluate: this shard's problems, i of n (1-based) */
  uint64_t seed;
  double budget;              /* seconds; 0: none (the campaign stops between cases) */
  bool json, verbose, no_shrink;
} fuzz_args;

static int usage(const char *cmd, const char *msg)
{
  fprintf(stderr, "dirigo %s: %s\n", cmd, msg);
  fprintf(stderr, "usage: dirigo fuzz PROBLEM [--strategy NAME] [--backend cpu|gpu] [--sizes spec|realistic]\n"
                  "                    [--cases N] [--seed S] [--budget S] [--json] [-v] [--no-shrink] [--max-elems N]\n"
                  "       dirigo fuzz --evaluate DIR [--cases N] [--seed S] [--strategy NAME] [--shard i/n]\n"
                  "                    [--rows FILE] [--json]\n"
                  "       dirigo replay PROBLEM WITNESS [--backend cpu|gpu] [--sizes spec|realistic] [--max-elems N] [--json]\n"
                  "strategies:");
  for (size_t i = 0; i < fuzz_strategy_count(); i++) fprintf(stderr, " %s", fuzz_strategy_at(i)->name);
  fprintf(stderr, "\n");
  return DG_EXIT_USAGE;
}

static bool parse_num(const char *s, uint64_t *v)
{
  char *end;
  /* strtoull takes "-1" as 2^64-1 and clamps an overflow: both refused */
  if (*s < '0' || *s > '9') return false;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (*end || errno == ERANGE) return false;
  *v = x;
  return true;
}

static int parse_args(int argc, char **argv, fuzz_args *a)
{
  memset(a, 0, sizeof *a);
  a->backend = "cpu";
  a->seed = 1;
  a->shard_i = a->shard_n = 1;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    uint64_t v;
    bool has = i + 1 < argc;
    if (!strcmp(o, "--json")) a->json = true;
    else if (!strcmp(o, "-v") || !strcmp(o, "--verbose")) a->verbose = true;
    else if (!strcmp(o, "--no-shrink")) a->no_shrink = true;
    else if (!strcmp(o, "--strategy") && has) a->strategy = argv[++i];
    else if (!strcmp(o, "--backend") && has) a->backend = argv[++i];
    else if (!strcmp(o, "--evaluate") && has) a->evaluate = argv[++i];
    else if (!strcmp(o, "--sizes") && has) a->sizes = argv[++i];
    else if (!strcmp(o, "--rows") && has) a->rows = argv[++i];
    else if (!strcmp(o, "--shard") && has) {
      if (!cli_parse_shard(argv[++i], &a->shard_i, &a->shard_n))
        return usage(argv[0], "--shard takes i/n with 1 <= i <= n (e.g. --shard 2/4)");
    }
    else if (!strcmp(o, "--cases") && has) {
      if (!parse_num(argv[++i], &v) || v == 0) return usage(argv[0], "--cases takes a positive number");
      a->cases = (int64_t)v;
    } else if (!strcmp(o, "--max-elems") && has) {
      if (!parse_num(argv[++i], &v) || v == 0 || v > ((uint64_t)1 << 40))
        return usage(argv[0], "--max-elems takes a positive number");
      a->max_elems = (int64_t)v;
    } else if (!strcmp(o, "--seed") && has) {
      if (!parse_num(argv[++i], &v)) return usage(argv[0], "--seed takes a number");
      a->seed = v;
    } else if (!strcmp(o, "--budget") && has) {
      char *end;
      a->budget = strtod(argv[++i], &end);
      if (!*argv[i] || *end || !(a->budget > 0) || a->budget > 1e9)
        return usage(argv[0], "--budget takes a positive number of seconds");
    } else if (o[0] == '-') {
      char *m = dg_printf("unknown or incomplete option '%s'", o);
      int rc = usage(argv[0], m);
      free(m);
      return rc;
    } else if (!a->problem) a->problem = o;
    else if (!a->witness) a->witness = o;
    else return usage(argv[0], "too many arguments");
  }
  if (a->strategy && !fuzz_strategy_find(a->strategy)) {
    dg_buf m = {0};
    dg_buf_printf(&m, "unknown strategy '%s'; strategies:", a->strategy);
    for (size_t k = 0; k < fuzz_strategy_count(); k++) dg_buf_printf(&m, " %s", fuzz_strategy_at(k)->name);
    int rc = usage(argv[0], m.s);
    dg_buf_free(&m);
    return rc;
  }
  if (strcmp(a->backend, "cpu") && strcmp(a->backend, "gpu"))
    return usage(argv[0], "--backend is cpu or gpu");
  if (a->sizes && strcmp(a->sizes, "spec") && strcmp(a->sizes, "realistic"))
    return usage(argv[0], "--sizes is spec or realistic");
  return -1;
}


static void progress(void *ud, const fuzz_outcome *o)
{
  const fuzz_args *a = ud;
  if (a->verbose || o->status != FUZZ_PASS)
    printf("  case %-4" PRId64 " %-34s %-8s %s%s(%.3f s)\n", o->k, o->c.label, fuzz_status_name(o->status),
           o->status == FUZZ_PASS ? "" : o->msg, o->status == FUZZ_PASS ? "" : " ", o->secs);
}

static void print_json(const fuzz_args *a, const fuzz_summary *s, const char *witness,
                       const char *min_witness)
{
  dg_buf b = {0};
  dg_buf_puts(&b, "{\"problem\": ");
  dg_buf_json_str(&b, a->problem);
  dg_buf_printf(&b, ", \"strategy\": \"%s\", \"backend\": \"%s\", \"seed\": %" PRIu64
                ", \"cases\": %" PRId64 ", \"pass\": %" PRId64 ", \"fail\": %" PRId64
                ", \"findings\": %" PRId64 ", \"errors\": %" PRId64 ", \"skipped\": %" PRId64
                ", \"seconds\": %.3f, \"max_abs_err\": %.3g, \"max_ulp\": %.3g",
                s->strategy, a->backend, s->seed, s->ncases, s->npass, s->nfail, s->nfinding,
                s->nerror, s->nskip, s->secs, s->max_abs, s->max_ulp);
  if (s->failed) {
    dg_buf_printf(&b, ", \"first_failure\": {\"case\": %" PRId64 ", \"status\": \"%s\", \"shape\": ",
                  s->first.k, fuzz_status_name(s->first.status));
    dg_buf_json_str(&b, s->first.c.label);
    dg_buf_puts(&b, ", \"message\": ");
    dg_buf_json_str(&b, s->first.msg);
    dg_buf_printf(&b, ", \"seconds_to_failure\": %.3f, \"witness\": ", s->t_first);
    dg_buf_json_str(&b, witness);
    if (min_witness) {
      dg_buf_puts(&b, ", \"shrunk_witness\": ");
      dg_buf_json_str(&b, min_witness);
    }
    dg_buf_puts(&b, "}");
  }
  dg_buf_puts(&b, "}\n");
  fputs(b.s, stdout);
  dg_buf_free(&b);
}

/* --sizes realistic: the op's realistic sizes become the spec's (constraints still hold). */
static bool use_realistic(dg_problem *p)
{
  for (size_t i = 0; i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) p->sizes.v[i].value = p->sizes.v[i].realistic;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  dg_diags d = {0};
  bool ok = dg_problem_check_sizes(p, sizes, &d);
  dg_diags_print(stderr, &p->sm, &d);
  dg_diags_free(&d);
  free(sizes);
  return ok;
}

/* The largest tensor a campaign's shapes may have. It steers which shapes a
 * strategy draws, so a witness replays the same case only under the same cap:
 * `dirigo replay` defaults to the emulator's cap, and a GPU campaign prints
 * its own in the replay command. */
static int64_t default_cap(bool gpu, bool realistic)
{
  return gpu ? (int64_t)1 << 28 : realistic ? (int64_t)1 << 24 : 8192;
}

/* The problem's kernels compiled for the GPU; NVRTC's diagnostics on stderr. */
static bool load_gpu(gpu_kernels *gk, dg_problem *p)
{
  dg_diags d = {0};
  bool ok = gpu_kernels_load(gk, p, NULL, &d);
  dg_diags_print(stderr, &p->sm, &d);
  dg_diags_free(&d);
  return ok;
}

static int fuzz_one(const fuzz_args *a)
{
  bool gpu = !strcmp(a->backend, "gpu");
  char *why = NULL;
  if (gpu && !dg_gpu_available(&why)) {
    fprintf(stderr, "dirigo fuzz: the GPU backend is unavailable: %s\n", why ? why : "unknown reason");
    free(why);
    return DG_EXIT_USAGE;
  }
  free(why);
  cli_problem L;
  if (!cli_problem_load(&L, a->problem, false)) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  bool realistic = a->sizes ? !strcmp(a->sizes, "realistic") : false;
  if (realistic && !use_realistic(L.p)) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  gpu_kernels gk;
  fuzz_backend be;
  if (gpu) {
    if (!load_gpu(&gk, L.p)) {
      cli_problem_free(&L);
      return DG_EXIT_USAGE;
    }
    be = fuzz_backend_gpu(&gk);
  }
  fuzz_opts o = { .strategy = a->strategy ? fuzz_strategy_find(a->strategy) : NULL,
                  .backend = gpu ? &be : NULL,
                  .max_elems = a->max_elems ? a->max_elems : default_cap(gpu, realistic),
                  .max_check = gpu || realistic ? 4096 : 0,
                  .ncases = a->cases, .seed = a->seed, .shrink = !a->no_shrink, .budget_s = a->budget,
                  .progress = a->json ? NULL : progress, .ud = (void *)a };
  fuzz_summary s;
  dg_diags d = {0};
  if (!a->json)
    printf("fuzz %s  strategy %s  backend %s  seed %" PRIu64 "\n", a->problem,
           o.strategy ? o.strategy->name : "boundary+adversarial", a->backend, a->seed);
  fuzz_campaign(L.p, &L.k, &o, &s, &d);
  dg_diags_free(&d);
  fuzz_space sp;
  fuzz_space_ctx ctx;
  fuzz_space_init(&sp, &ctx, L.p, o.max_elems);
  char *w = s.failed ? fuzz_witness(&sp, s.strategy, s.seed, s.first.k, &s.first.c, false) : NULL;
  char *mw = s.shrunk ? fuzz_witness(&sp, s.strategy, s.seed, s.min.k, &s.min.c, true) : NULL;
  if (a->json) print_json(a, &s, w, mw);
  else {
    if (s.failed) {
      printf("%s at case %" PRId64 " (%s): %s\n", s.first.status == FUZZ_FAIL ? "FAIL" : "FINDING",
             s.first.k, s.first.c.label, s.first.msg);
      if (s.shrunk) printf("  shrunk to %s: %s\n", s.min.c.label, s.min.msg);
      printf("  replay: dirigo replay %s %s", a->problem, mw ? mw : w);
      if (gpu) printf(" --backend gpu");
      if (realistic) printf(" --sizes realistic");
      if (o.max_elems != default_cap(false, realistic)) printf(" --max-elems %" PRId64, o.max_elems);
      printf("\n");
    }
    printf("%" PRId64 " cases: %" PRId64 " pass, %" PRId64 " fail, %" PRId64 " findings, %" PRId64
           " errors, %" PRId64 " skipped in %.2f s", s.ncases, s.npass, s.nfail, s.nfinding,
           s.nerror, s.nskip, s.secs);
    if (s.failed) printf("; first failure after %.2f s", s.t_first);
    printf("\n");
  }
  free(w);
  free(mw);
  if (gpu) gpu_kernels_free(&gk);
  cli_problem_free(&L);
  if (s.failed) return DG_EXIT_BUGS;
  /* a case that could not be judged (its reference raised, a launch refused)
   * is not "all checked and fine", even beside passing ones */
  return s.nerror ? DG_EXIT_INTERNAL : DG_EXIT_OK;
}

/* ---- --evaluate: every strategy over a folder of problems ------------------ */
static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One row of --rows: problem, its seeded bug's pattern (or "correct"), its op,
 * the strategy, found / missed / fp / quiet, seconds to the first failure
 * (- when none), the first failure's status and case, the error and the
 * skipped cases (a shape the constraints or the size cap refuse). */
static void put_row(FILE *f, const char *spec, const dg_problem *p, const char *strategy,
                    const fuzz_summary *s)
{
  bool buggy = p->bug_pattern != NULL;
  fprintf(f, "%s\t%s\t%s\t%s\t%s\t", spec, buggy ? p->bug_pattern : "correct",
          p->op_name ? p->op_name : "-", strategy,
          s->failed ? (buggy ? "found" : "fp") : (buggy ? "missed" : "quiet"));
  if (s->failed) fprintf(f, "%.4f\t%s\t%" PRId64, s->t_first, fuzz_status_name(s->first.status), s->first.k);
  else fprintf(f, "-\t-\t-");
  fprintf(f, "\t%" PRId64 "\t%" PRId64 "\n", s->nerror, s->nskip);
}

static int evaluate(const fuzz_args *a)
{
  struct { char **v; size_t n; } specs;
  specs.v = cli_find_specs(a->evaluate, &specs.n);
  if (!specs.n) {
    fprintf(stderr, "dirigo fuzz: no problem specs (*.lua, .cu with a dirigo: block) under %s\n", a->evaluate);
    return DG_EXIT_USAGE;
  }
  FILE *rows = NULL;
  if (a->rows && !(rows = fopen(a->rows, "w"))) {
    fprintf(stderr, "dirigo fuzz: cannot write %s: %s\n", a->rows, strerror(errno));
    for (size_t i = 0; i < specs.n; i++) free(specs.v[i]);
    free(specs.v);
    return DG_EXIT_USAGE;
  }
  if (rows) fprintf(rows, "#problem\tpattern\top\tstrategy\tresult\tseconds\tstatus\tcase\terrors\tskipped\n");
  /* the strategies scored: built-ins, then Lua strategies; or the one named */
  int nall = (int)fuzz_strategy_count(), nst = 0;
  const fuzz_strategy **sts = dg_calloc((size_t)nall, sizeof *sts);
  for (int s = 0; s < nall; s++)
    if (!a->strategy || !strcmp(a->strategy, fuzz_strategy_at((size_t)s)->name))
      sts[nst++] = fuzz_strategy_at((size_t)s);
  int64_t bugs = 0, correct = 0, unusable = 0;
  int64_t *tp = dg_calloc((size_t)nst, sizeof *tp), *fp = dg_calloc((size_t)nst, sizeof *fp);
  double **ttf = dg_calloc((size_t)nst, sizeof *ttf);
  for (int s = 0; s < nst; s++) ttf[s] = dg_calloc(specs.n, sizeof **ttf);
  int64_t *nttf = dg_calloc((size_t)nst, sizeof *nttf);
  for (size_t i = 0; i < specs.n; i++) {
    if (!cli_in_shard(i, a->shard_i, a->shard_n)) continue;
    cli_problem L;
    if (!cli_problem_load(&L, specs.v[i], true)) {
      unusable++;
      if (!a->json)
        printf("  %-56s unusable: %s\n", specs.v[i], L.why ? L.why : "the spec or its kernel does not load");
      if (rows) fprintf(rows, "%s\tunusable\t-\t-\tunusable\t-\t-\t-\t0\t0\n", specs.v[i]);
      cli_problem_free(&L);
      continue;
    }
    bool buggy = L.p->bug_pattern != NULL;
    buggy ? bugs++ : correct++;
    if (!a->json) printf("  %-56s %-22s", specs.v[i], buggy ? L.p->bug_pattern : "correct");
    for (int s = 0; s < nst; s++) {
      fuzz_opts o = { .strategy = sts[s], .ncases = a->cases ? a->cases : 24,
                      .seed = a->seed, .budget_s = 10, .max_elems = 2048 };
      fuzz_summary sum;
      dg_diags d = {0};
      fuzz_campaign(L.p, &L.k, &o, &sum, &d);
      dg_diags_free(&d);
      if (sum.failed && buggy) {
        tp[s]++;
        ttf[s][nttf[s]++] = sum.t_first;
      }
      if (sum.failed && !buggy) fp[s]++;
      if (rows) put_row(rows, specs.v[i], L.p, sts[s]->name, &sum);
      if (!a->json) printf(" %c", sum.failed ? (buggy ? '+' : '!') : (buggy ? '-' : '.'));
      fflush(stdout);
    }
    if (!a->json) printf("\n");
    if (rows) fflush(rows);
    cli_problem_free(&L);
  }
  int w = 8;                                   /* the name column fits the longest strategy name */
  for (int s = 0; s < nst; s++) {
    int n = (int)strlen(sts[s]->name);
    if (n > w) w = n;
  }
  if (!a->json) {
    printf("\n(+ bug found, - bug missed, ! false positive, . correct and quiet; columns in table order)\n\n");
    printf("%-*s %8s %8s %14s\n", w, "strategy", "recall", "FP rate", "median t-first");
  } else printf("{\"buggy\": %" PRId64 ", \"correct\": %" PRId64 ", \"unusable\": %" PRId64 ", \"strategies\": [",
                bugs, correct, unusable);
  for (int s = 0; s < nst; s++) {
    qsort(ttf[s], (size_t)nttf[s], sizeof(double), cmp_dbl);
    double med = nttf[s] ? ttf[s][nttf[s] / 2] : 0;
    double rec = bugs ? 100.0 * (double)tp[s] / (double)bugs : 0;
    double fpr = correct ? 100.0 * (double)fp[s] / (double)correct : 0;
    if (a->json)
      printf("%s{\"name\": \"%s\", \"recall\": %.1f, \"fp_rate\": %.1f, \"median_seconds_to_first\": %.3f}",
             s ? ", " : "", sts[s]->name, rec, fpr, med);
    else
      printf("%-*s %7.1f%% %7.1f%% %12.3f s\n", w, sts[s]->name, rec, fpr, med);
  }
  if (a->json) printf("]}\n");
  else printf("\n%" PRId64 " buggy and %" PRId64 " correct problems; %" PRId64 " unusable\n", bugs, correct, unusable);
  for (int s = 0; s < nst; s++) free(ttf[s]);
  free(ttf), free(nttf), free(tp), free(fp), free(sts);
  for (size_t i = 0; i < specs.n; i++) free(specs.v[i]);
  free(specs.v);
  if (rows && fclose(rows)) {
    fprintf(stderr, "dirigo fuzz: cannot write %s: %s\n", a->rows, strerror(errno));
    return DG_EXIT_USAGE;
  }
  return DG_EXIT_OK;
}

static int fuzz_main(int argc, char **argv)
{
  fuzz_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  if (a.evaluate) return evaluate(&a);
  if (!a.problem) return usage(argv[0], "which problem?");
  if (a.witness) return usage(argv[0], "too many arguments");
  return fuzz_one(&a);
}

/* Lua strategies (lua/strategies/, the user's config dir) join the registry
 * first; a broken file is reported and the rest still run. */
int cli_fuzz(int argc, char **argv)
{
  dg_strategies_load_print(stderr);
  int rc = fuzz_main(argc, argv);
  dg_strategies_unload();
  return rc;
}

/* ---- replay ----------------------------------------------------------------- */
static int replay_main(int argc, char **argv);

int cli_replay(int argc, char **argv)
{
  dg_strategies_load_print(stderr);
  int rc = replay_main(argc, argv);
  dg_strategies_unload();
  return rc;
}

static int replay_main(int argc, char **argv)
{
  fuzz_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  if (!a.problem || !a.witness) return usage(argv[0], "replay takes PROBLEM and WITNESS");
  if (strncmp(a.witness, "fuzz:", 5)) {
    struct stat st;
    if (strchr(a.witness, '/') || strstr(a.witness, ".json") || stat(a.witness, &st) == 0)
      /* meant as a check witness file (cli_check_replay takes the ones that exist) */
      fprintf(stderr, "dirigo replay: %s: %s (a witness is a file dirigo check wrote, or fuzz:STRATEGY:SEED:CASE[@SIZES])\n",
              a.witness, stat(a.witness, &st) != 0 ? strerror(errno) : "not a regular file");
    else
      fprintf(stderr, "dirigo replay: '%s' is neither a file nor a fuzz witness (fuzz:STRATEGY:SEED:CASE[@SIZES])\n", a.witness);
    return DG_EXIT_USAGE;
  }
  bool gpu = !strcmp(a.backend, "gpu");
  char *why = NULL;
  if (gpu && !dg_gpu_available(&why)) {
    fprintf(stderr, "dirigo replay: the GPU backend is unavailable: %s\n", why ? why : "unknown reason");
    free(why);
    return DG_EXIT_USAGE;
  }
  free(why);
  cli_problem L;
  if (!cli_problem_load(&L, a.problem, false)) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  bool realistic = a.sizes && !strcmp(a.sizes, "realistic");
  if (realistic && !use_realistic(L.p)) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  int64_t cap = a.max_elems ? a.max_elems : default_cap(false, realistic);
  fuzz_space sp;
  fuzz_space_ctx ctx;
  fuzz_space_init2(&sp, &ctx, L.p, cap, gpu || realistic ? 4096 : 0);
  fuzz_case c;
  int64_t k;
  const fuzz_strategy *st;
  uint64_t seed;
  char *err = NULL;
  if (!fuzz_witness_parse(a.witness, &sp, &c, &k, &st, &seed, &err)) {
    fprintf(stderr, "dirigo replay: %s\n", err);
    free(err);
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  fuzz_outcome o;
  gpu_kernels gk;
  if (gpu) {
    if (!load_gpu(&gk, L.p)) {
      cli_problem_free(&L);
      return DG_EXIT_USAGE;
    }
    fuzz_backend be = fuzz_backend_gpu(&gk);
    fuzz_run_case_on(L.p, &be, &sp, &ctx, &c, &o);
    gpu_kernels_free(&gk);
  } else fuzz_run_case(L.p, &L.k, &sp, &ctx, &c, &o);
  if (a.json) {   /* the fields of dirigo.replay's outcome */
    dg_buf b = {0};
    dg_buf_puts(&b, "{\"problem\":");
    dg_buf_json_str(&b, a.problem);
    dg_buf_puts(&b, ",\"witness\":");
    dg_buf_json_str(&b, a.witness);
    dg_buf_puts(&b, ",\"strategy\":");
    dg_buf_json_str(&b, st->name);
    dg_buf_printf(&b, ",\"seed\":%" PRIu64 ",\"case\":%" PRId64 ",\"backend\":", seed, k);
    dg_buf_json_str(&b, a.backend);
    dg_buf_puts(&b, ",\"shape\":");
    dg_buf_json_str(&b, c.label);
    dg_buf_printf(&b, ",\"status\":\"%s\",\"message\":", fuzz_status_name(o.status));
    dg_buf_json_str(&b, o.status == FUZZ_PASS ? "every checked element within tolerance" : o.msg);
    dg_buf_printf(&b, ",\"digest\":\"%016" PRIx64 "\"", o.input_digest);
    if (o.status == FUZZ_PASS)
      dg_buf_printf(&b, ",\"max_abs_err\":%.17g,\"max_ulp\":%.17g", isfinite(o.cmp.max_abs) ? o.cmp.max_abs : 0,
                    isfinite(o.cmp.max_ulp) ? o.cmp.max_ulp : 0);
    printf("%s}\n", b.s);
    dg_buf_free(&b);
  } else {
    printf("replay %s %s\n  shape %s  strategy %s  seed %" PRIu64 "  case %" PRId64
           "  backend %s  inputs digest %016" PRIx64 "\n", a.problem, a.witness, c.label, st->name, seed, k,
           a.backend, o.input_digest);
    printf("  %s: %s\n", fuzz_status_name(o.status), o.status == FUZZ_PASS ? "every checked element within tolerance" : o.msg);
    if (o.status == FUZZ_PASS) printf("  max abs error %.3g, max ulp %.3g\n", o.cmp.max_abs, o.cmp.max_ulp);
  }
  cli_problem_free(&L);
  /* a skipped case ran nothing and found nothing */
  return o.status == FUZZ_PASS || o.status == FUZZ_SKIPPED ? DG_EXIT_OK
       : o.status == FUZZ_ERROR ? DG_EXIT_INTERNAL : DG_EXIT_BUGS;
}
