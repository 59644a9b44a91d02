/* agree.c — the emulator and the GPU on the same fuzz cases, sample by sample.
 *
 *   agree.t [--cases N] [--seed S] [--strategy NAME] [--realistic N] [--budget S] [SPEC.lua ...]
 *
 * For every problem spec (default: every samples/ file that is one), case k of
 * the strategy is built once (the same space, size cap and seed for both
 * backends, so the same shapes and inputs: the input digests must match) and
 * run on the emulator and on the GPU, each validated against the reference.
 * Every case runs (no stop at the first failure). A sample's verdict on a
 * backend is its first failure (fail or finding), else error, else pass.
 *
 * TAP, one test per sample: the digests agree on every case, and on a correct
 * sample (no seeded_bug) both backends pass (both failing it alike is the
 * validator's false positive, not a backend's: reported as TODO). --budget S
 * stops starting cases after S seconds (default 20; slow references); the table says
 * how many ran. Seeded-bug samples where one
 * backend misses what the other finds are reported, not failed: the reason
 * column says why (an emulator finding such as a race or an uninitialised
 * shared read that the GPU's values do not show). With --realistic N, the GPU
 * also runs N adversarial cases at the op's realistic sizes (no emulator
 * there: it is what only the GPU can reach, int32 overflow included).
 *
 * Each sample also prints machine-readable rows (t/gpu/agree-all.sh makes the
 * markdown table of doc/gpu-agreement.md from them):
 *   # row<TAB>sample<TAB>bug<TAB>cpu<TAB>gpu<TAB>agree<TAB>cases<TAB>reason<TAB>cpu_s<TAB>gpu_s
 *   # realistic<TAB>sample<TAB>verdict [shape, seconds]      (with --realistic)
 * Without a GPU: 1..0 # SKIP, exit 0. Built again as agree_mock.t on the
 * mocked CUDA runtime (t/gpu/mockcuda.c), on the two residual_add samples. */
#include "fuzz_gpu.h"
#include "lua_spec.h"
#include "../tap.h"
#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>

typedef struct {
  double budget_s;         /* stop starting spec cases after this long (0: none) */
  int64_t cases, realistic;
  uint64_t seed;
  const fuzz_strategy *st;
} agree_opts;

typedef DG_VEC(char *) strvec;

#ifndef DG_MOCK_CUDA
/* Problem specs under dir: *.lua files that `return problem {`. */
static void find_specs(const char *dir, strvec *out)
{
  DIR *D = opendir(dir);
  if (!D) return;
  struct dirent *e;
  while ((e = readdir(D))) {
    if (e->d_name[0] == '.') continue;
    char *path = dg_printf("%s/%s", dir, e->d_name);
    struct stat st;
    size_t n = strlen(e->d_name);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      find_specs(path, out);
      free(path);
      continue;
    }
    size_t len = 0;
    char *text = n > 4 && !strcmp(e->d_name + n - 4, ".lua") ? dg_read_file(path, &len) : NULL;
    if (text && strstr(text, "return problem")) dg_vec_push(out, path);
    else free(path);
    free(text);
  }
  closedir(D);
}
#endif

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* pass < error < fail/finding: the worst outcome of a backend names it. */
static int rank(fuzz_status s)
{
  return s == FUZZ_FAIL || s == FUZZ_FINDING ? 3 : s == FUZZ_ERROR ? 2 : s == FUZZ_PASS ? 1 : 0;
}
static bool buggy(fuzz_status s) { return s == FUZZ_FAIL || s == FUZZ_FINDING; }

typedef struct {
  fuzz_outcome worst;      /* the first outcome of the highest rank */
  int64_t n;
  double secs;
} tally;

static void tally_add(tally *t, const fuzz_outcome *o)
{
  if (!t->n++ || rank(o->status) > rank(t->worst.status)) t->worst = *o;
  t->secs += o->secs;
}

/* "pass", "finding: race ..." cut to fit a table cell; tabs and pipes out. */
static char *verdict(const tally *t)
{
  if (!t->n) return dg_strdup("-");
  const fuzz_outcome *o = &t->worst;
  char *v = o->status == FUZZ_PASS ? dg_strdup("pass")
          : dg_printf("%s (case %" PRId64 "): %.110s", fuzz_status_name(o->status), o->k, o->msg);
  for (char *q = v; *q; q++)
    if (*q == '\t' || *q == '|' || *q == '\n') *q = ' ';
  return v;
}

/* Why two verdicts differ, from what each backend saw. */
static char *reason(const dg_problem *p, const tally *c, const tally *g)
{
  const fuzz_outcome *oc = &c->worst, *og = &g->worst;
  if (oc->status == FUZZ_ERROR && !buggy(og->status))
    return dg_printf("the emulator cannot run it: %.100s", oc->msg);
  if (og->status == FUZZ_ERROR && !buggy(oc->status))
    return dg_printf("the GPU cannot run it: %.100s", og->msg);
  if (oc->status == FUZZ_FINDING && !buggy(og->status)) {
    const char *kind = simt_event_name(oc->ev.kind);
    return dg_printf("the emulator flags %s (%s); on the GPU the values happen to come out right",
                     kind, oc->ev.kind == SIMT_EV_RACE || oc->ev.kind == SIMT_EV_UNINIT ||
                     oc->ev.kind == SIMT_EV_BARRIER_DIVERGENCE
                         ? "undefined behaviour the hardware's schedule and memory do not expose"
                         : "a fault the hardware did not trip on");
  }
  if (oc->status == FUZZ_FAIL && !buggy(og->status))
    return dg_printf("wrong values on the emulator only%s", p->bug_pattern
                     ? " (the emulator's schedule or uninitialised memory exposes the bug; the GPU's does not)"
                     : ": an emulator false positive");
  if (buggy(og->status) && !buggy(oc->status))
    return dg_printf("GPU only%s: %.100s", og->status == FUZZ_FINDING ? " (caught by the hardware)" : "",
                     og->msg);
  if (buggy(oc->status) && buggy(og->status) && oc->status != og->status)
    return dg_printf("both catch it, differently: the emulator as a %s, the GPU as a %s",
                     fuzz_status_name(oc->status), fuzz_status_name(og->status));
  return dg_strdup("");
}

/* The op's realistic sizes become the spec's; false if the op has none or they
 * break the spec's constraints. */
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

/* Case k of st in space s, as fuzz_campaign builds it. */
static bool make_case(const agree_opts *o, const fuzz_strategy *st, const fuzz_space *s, int64_t k,
                      fuzz_case *c)
{
  memset(c, 0, sizeof *c);
  c->seed = fuzz_case_seed(o->seed, k);
  dg_rng r;
  dg_rng_seed(&r, c->seed);
  if (!fuzz_strategy_gen(st, s, k, &r, c)) return false;
  fuzz_case_label(s, c);
  return true;
}

/* GPU-only cases at realistic sizes: "pass (2)", "fail (case 0): ...", "-". */
static char *realistic_column(dg_problem *p, gpu_kernels *gk, const agree_opts *o)
{
  if (!o->realistic || !use_realistic(p)) return dg_strdup("-");
  fuzz_backend be = fuzz_backend_gpu(gk);
  fuzz_space s;
  fuzz_space_ctx ctx;
  fuzz_space_init2(&s, &ctx, p, (int64_t)1 << 28, 4096);
  tally t = {0};
  const fuzz_strategy *adv = fuzz_strategy_find("adversarial");
  for (int64_t k = 0; k < o->realistic; k++) {
    fuzz_case c;
    if (!make_case(o, adv, &s, k, &c)) continue;
    fuzz_outcome out;
    fuzz_run_case_on(p, &be, &s, &ctx, &c, &out);
    out.k = k;
    tally_add(&t, &out);
  }
  char *v = verdict(&t);
  char *r = t.n ? dg_printf("%s [%s, %.2f s]", v, t.worst.c.label, t.secs) : dg_strdup("-");
  free(v);
  return r;
}

static void one(const char *path, const char *name, const agree_opts *o)
{
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  if (!p || d.nerrors) {
    ok(false, "%s: the spec loads", name);
    if (p) dg_diags_print(stdout, &p->sm, &d);
    dg_diags_free(&d);
    if (p) dg_problem_free(p);
    return;
  }
  emu_kernels ek;
  bool eok = emu_kernels_load(&ek, p, &d);
  gpu_kernels gk;
  bool gok = gpu_kernels_load(&gk, p, &(dg_gpu_opts){ .launch_timeout_s = 20 }, &d);
  if (!gok) {
    printf("# %s: ", name);
    dg_diags_print(stdout, &p->sm, &d);
  }
  fuzz_backend cpu = fuzz_backend_emu(&ek), gpu = fuzz_backend_gpu(&gk);
  fuzz_space s;
  fuzz_space_ctx ctx;
  fuzz_space_init2(&s, &ctx, p, 0, 0);   /* the emulator's cap for both: the same cases */
  tally tc = {0}, tg = {0};
  int64_t same = 0, ncase = 0, digest_bad = 0;
  double t0 = dg_now();
  for (int64_t k = 0; k < o->cases; k++) {
    if (o->budget_s > 0 && dg_now() - t0 > o->budget_s) break;
    fuzz_case c;
    if (!make_case(o, o->st, &s, k, &c)) continue;
    fuzz_case c2 = c;
    fuzz_outcome oc, og;
    if (eok) fuzz_run_case_on(p, &cpu, &s, &ctx, &c, &oc);
    else {
      memset(&oc, 0, sizeof oc);
      oc.status = FUZZ_ERROR;
      snprintf(oc.msg, sizeof oc.msg, "the emulator cannot load the kernels");
    }
    if (gok) fuzz_run_case_on(p, &gpu, &s, &ctx, &c2, &og);
    else {
      memset(&og, 0, sizeof og);
      og.status = FUZZ_ERROR;
      snprintf(og.msg, sizeof og.msg, "the GPU cannot load the kernels");
    }
    oc.k = og.k = k;
    ncase++;
    if (eok && gok && oc.input_digest != og.input_digest) digest_bad++;
    if (buggy(oc.status) == buggy(og.status) && (oc.status == FUZZ_ERROR) == (og.status == FUZZ_ERROR))
      same++;
    tally_add(&tc, &oc);
    tally_add(&tg, &og);
  }
  bool agree = buggy(tc.worst.status) == buggy(tg.worst.status) &&
               (tc.worst.status == FUZZ_ERROR) == (tg.worst.status == FUZZ_ERROR);
  char *vc = verdict(&tc), *vg = verdict(&tg), *why = reason(p, &tc, &tg);
  bool correct = !p->bug_pattern;
  bool both_pass = tc.worst.status == FUZZ_PASS && tg.worst.status == FUZZ_PASS;
  /* a correct kernel failed the same way on both: the validator, not a backend */
  bool validator_fp = correct && agree && buggy(tc.worst.status);
  bool pass = digest_bad == 0 && eok && gok && (!correct || both_pass);
  if (validator_fp && !why[0]) {
    free(why);
    why = dg_strdup("a correct kernel fails the same element on both backends: a validator false positive, not a backend difference");
  }
  ok(pass, "%s: same inputs on both backends (%" PRId64 " of %" PRId64 " digests differ)%s; %s%s", name,
     digest_bad, ncase, correct ? ", both pass (correct kernel)" : "",
     agree ? "verdicts agree" : "verdicts differ",
     !pass && validator_fp && digest_bad == 0 ? " # TODO the validator flags a correct kernel on both backends" : "");
  if (!pass || !agree) printf("#   emulator: %s\n#   GPU:      %s\n#   %s\n", vc, vg, why);
  printf("# row\t%s\t%s\t%s\t%s\t%s\t%" PRId64 "/%" PRId64 "\t%s\t%.2f\t%.2f\n", name,
         p->bug_pattern ? p->bug_pattern : "-", vc, vg, agree ? "yes" : "no", same, ncase, why,
         tc.secs, tg.secs);
  fflush(stdout);   /* the row stands even if the realistic cases run out of time */
  if (gok && o->realistic) {
    char *real = realistic_column(p, &gk, o);
    printf("# realistic\t%s\t%s\n", name, real);
    free(real);
  }
  free(vc), free(vg), free(why);
  if (gok) gpu_kernels_free(&gk);
  emu_kernels_free(&ek);
  dg_diags_free(&d);
  dg_problem_free(p);
}

int main(int argc, char **argv)
{
  agree_opts o = { .cases = 16, .seed = 1, .budget_s = 20 };   /* make check: minutes, not tens */
  const char *stname = "boundary+adversarial";
  strvec specs = {0};
  for (int i = 1; i < argc; i++) {
    bool has = i + 1 < argc;
    if (!strcmp(argv[i], "--cases") && has) o.cases = strtoll(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--seed") && has) o.seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--strategy") && has) stname = argv[++i];
    else if (!strcmp(argv[i], "--realistic") && has) o.realistic = strtoll(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--budget") && has) o.budget_s = strtod(argv[++i], NULL);
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: agree.t [--cases N] [--seed S] [--strategy NAME] [--realistic N] [--budget S] [SPEC.lua ...]\n");
      return 2;
    } else dg_vec_push(&specs, dg_strdup(argv[i]));
  }
  char *why = NULL;
  if (!dg_gpu_available(&why)) {
    printf("1..0 # SKIP no GPU: %s\n", why ? why : "unknown reason");
    free(why);
    for (size_t i = 0; i < specs.n; i++) free(specs.v[i]);
    dg_vec_free(&specs);
    return 0;
  }
  printf("# GPU: %s; strategy %s, seed %" PRIu64 ", %" PRId64 " cases per sample\n", why, stname, o.seed, o.cases);
  free(why);
  o.st = fuzz_strategy_find(stname);
  if (!o.st || o.cases < 1) {
    fprintf(stderr, "agree.t: unknown strategy '%s' or no cases\n", stname);
    return 2;
  }
  const char *src = getenv("DG_SRCDIR");
  char *root = dg_printf("%s/samples", src ? src : "..");
  if (!specs.n) {
#ifdef DG_MOCK_CUDA   /* the mocked runtime knows residual_add_kernel only */
    dg_vec_push(&specs, dg_printf("%s/elementwise/residual_add.lua", root));
    dg_vec_push(&specs, dg_printf("%s/elementwise/residual_add_gridfloor.lua", root));
#else
    find_specs(root, &specs);
#endif
    qsort(specs.v, specs.n, sizeof *specs.v, cmp_str);
  }
  for (size_t i = 0; i < specs.n; i++) {
    const char *slash = strstr(specs.v[i], "samples/");
    char *name = dg_strdup(slash ? slash + 8 : specs.v[i]);
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, ".lua")) name[n - 4] = 0;
    one(specs.v[i], name, &o);
    free(name);
    free(specs.v[i]);
  }
  dg_vec_free(&specs);
  free(root);
  return tap_done();
}
