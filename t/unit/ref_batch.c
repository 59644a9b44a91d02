/* ref_batch.c — the reference's batch path (eval_all, which runs an op's
 * ref_all when it has one) gives what the per-element ref gives, element by
 * element, for every spec under samples/ at its sizes and at other candidate
 * sizes of its op. With arguments it is a timer instead:
 *   ref_batch.t --bench SPEC [spec|realistic] [REPS]
 * prints the median milliseconds of one case's reference: eval_all of every
 * output, or, when an output has more than 4096 elements at realistic sizes,
 * as fuzz_run's sampled validation does: the whole output through the
 * batch path when that is cheaper, else 4096 sampled elements through the
 * per-element path. */
#include "lua_spec.h"
#include "../tap.h"
#include "problem_inputs.h"
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_ELEMS 20000   /* per output in the equality test (the per-element ref is slow) */
#define SAMPLE 4096
/* Under valgrind (check-valgrind sets DG_UNDER_VALGRIND) the per-element ref
 * is compared at some QUICK_ELEMS elements of each output (8 at each end and
 * a stride between), eval_all and eval_all_within in full, at every size of
 * every sample: the same code paths in a third of the CPU (10.1 -> 3.7 s
 * natively; 368 s under valgrind in session 10's CI). The full comparison
 * runs in the plain and the ASan+UBSan stages. */
#define QUICK_ELEMS 64
static bool quick;

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}


static void unflat(const int64_t *dims, int rank, int64_t f, int64_t *idx)
{
  for (int d = rank - 1; d >= 0; d--) {
    idx[d] = dims[d] ? f % dims[d] : 0;
    f = dims[d] ? f / dims[d] : 0;
  }
}

static bool same_num(double a, double b)
{
  return a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* eval_all against eval at every element of every output; false (with a
 * diagnostic line) on the first difference. */
static bool compare_at(const dg_problem *p, const int64_t *sizes, const char *rel, int64_t *nchecked)
{
  dg_rng rng;
  dg_rng_seed(&rng, 7 + (uint64_t)sizes[0]);
  inputs in;
  make_inputs(p, sizes, &in, &rng);
  dg_ref_env env = { .sizes = sizes, .data = (const double *const *)in.data };
  bool good = true;
  for (size_t t = 0; t < p->tensors.n && good; t++) {
    const dg_tensor *tt = &p->tensors.v[t];
    if (tt->role != DG_TENSOR_OUTPUT) continue;
    int64_t n = dg_problem_numel(p, (int)t, sizes), dims[8], idx[8];
    int rank = (int)tt->shape.n;
    dg_problem_shape(p, (int)t, sizes, dims, NULL);
    double *all = dg_calloc((size_t)n + 1, sizeof *all);
    uint8_t *def = dg_calloc((size_t)n + 1, 1);
    char *err = NULL;
    if (dg_problem_ref_eval_all(p, &env, (int)t, all, def, &err) != DG_REF_OK) {
      printf("# %s %s: eval_all: %s\n", rel, tt->name, err ? err : "failed");
      good = false;
    }
    free(err);
    err = NULL;
    double *w = dg_calloc((size_t)n + 1, sizeof *w);
    uint8_t *wdef = dg_calloc((size_t)n + 1, 1);
    dg_ref_status ws = dg_problem_ref_eval_all_within(p, &env, (int)t, 1 << 20, w, wdef, &err);
    if (ws == DG_REF_ERROR || (ws == DG_REF_OK && (memcmp(wdef, def, (size_t)n) || memcmp(w, all, (size_t)n * sizeof *w)))) {
      printf("# %s %s: eval_all_within differs from eval_all %s\n", rel, tt->name, err ? err : "");
      good = false;
    }
    free(err);
    free(w);
    free(wdef);
    int64_t step = quick && n > QUICK_ELEMS ? n / QUICK_ELEMS : 1;
    for (int64_t i = 0; i < n && good; i++) {
      if (step > 1 && i >= 8 && i < n - 8 && i % step) continue;
      unflat(dims, rank, i, idx);
      dg_refval v;
      err = NULL;
      dg_ref_status s = dg_problem_ref_eval(p, &env, (int)t, idx, &v, &err);
      if (s == DG_REF_ERROR || (s == DG_REF_OK) != (def[i] != 0) || (s == DG_REF_OK && !same_num(v.num, all[i]))) {
        printf("# %s %s[%lld]: ref %s %.17g, ref_all %s %.17g %s\n", rel, tt->name, (long long)i,
               s == DG_REF_OK ? "gives" : "leaves", s == DG_REF_OK ? v.num : 0, def[i] ? "gives" : "leaves",
               all[i], err ? err : "");
        good = false;
      }
      free(err);
      (*nchecked)++;
    }
    free(all);
    free(def);
  }
  free_inputs(&in);
  return good;
}

/* Sizes to try: the spec's, then per round one more candidate of every op size. */
static bool next_sizes(const dg_problem *p, int round, int64_t *sizes)
{
  dg_problem_default_sizes(p, sizes);
  if (round == 0) return true;
  bool any = false;
  for (size_t i = 0; i < p->sizes.n; i++) {
    const dg_size *z = &p->sizes.v[i];
    if (!z->from_op || !z->candidates.n) continue;
    size_t k = (size_t)round * 3 % z->candidates.n;
    sizes[i] = z->candidates.v[k];
    any = true;
  }
  dg_diags d = {0};
  bool fits = any && dg_problem_check_sizes(p, sizes, &d);
  dg_diags_free(&d);
  if (!fits) return false;
  for (size_t t = 0; t < p->tensors.n; t++)
    if (p->tensors.v[t].role == DG_TENSOR_OUTPUT && dg_problem_numel(p, (int)t, sizes) > MAX_ELEMS) return false;
  return true;
}

static int nsamples;
static void one_sample(const char *path)
{
  const char *rel = strstr(path, "samples/");
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  nsamples++;
  if (d.nerrors) ok(0, "%s loads", rel);
  else {
    int64_t sizes[32], nchecked = 0;
    int nsizes = 0;
    bool good = true;
    for (int round = 0; round < 5 && good; round++) {
      if (!next_sizes(p, round, sizes)) continue;
      nsizes++;
      good = compare_at(p, sizes, rel, &nchecked);
    }
    ok(good && nsizes > 0, "%s: ref_all == ref at %d sizes (%lld elements)", rel, nsizes, (long long)nchecked);
  }
  dg_problem_free(p);
  dg_diags_free(&d);
}

static void walk(const char *dir, void (*fn)(const char *))
{
  DIR *dd = opendir(dir);
  if (!dd) return;
  DG_VEC(char *) names = {0};
  for (struct dirent *e; (e = readdir(dd)); )
    if (e->d_name[0] != '.') dg_vec_push(&names, dg_printf("%s/%s", dir, e->d_name));
  closedir(dd);
  for (size_t i = 0; i < names.n; i++) {
    struct stat sb;
    const char *n = names.v[i];
    size_t l = strlen(n);
    if (stat(n, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      if (l < 8 || strcmp(n + l - 8, "/scripts")) walk(n, fn);
    }
    else if (l > 4 && !strcmp(n + l - 4, ".lua")) fn(n);
    else if (l > 3 && !strcmp(n + l - 3, ".cu")) {
      size_t len;
      char *text = dg_read_file(n, &len);
      if (text && strstr(text, "dirigo:")) fn(n);
      free(text);
    }
    free(names.v[i]);
  }
  dg_vec_free(&names);
}

/* The batch form's contract: errors with file and line, out closed after the
 * call, ref_all taken from where ref comes from, a bad ref_all refused. */
static void contract(void)
{
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(DG_DATADIR "/t/data/specs/ref_all_bad.lua", &d);
  int64_t sizes[1] = { 4 };
  double x[4] = { 1, 2, 3, 4 }, out[4];
  uint8_t def[4];
  const double *data[2] = { x, NULL };
  dg_ref_env env = { .sizes = sizes, .data = data };
  char *err = NULL;
  ok(!d.nerrors && dg_problem_ref_eval_all(p, &env, 1, out, def, &err) == DG_REF_ERROR, "ref_all error reported");
  has_str(err, "ref_all_bad.lua:10: x: index 4 out of range [0,4) in dim 0", "ref_all error names file and line");
  free(err);
  dg_problem_free(p);
  dg_diags_free(&d);

  p = dg_spec_load(DG_DATADIR "/t/data/specs/ref_all_override.lua", &d);
  err = NULL;
  ok(!d.nerrors && dg_problem_ref_eval_all(p, &env, 1, out, def, &err) == DG_REF_OK && out[3] == 20 && def[0],
     "a spec's ref overrides the op's ref_all too");
  free(err);
  dg_problem_free(p);
  dg_diags_free(&d);

  p = dg_spec_load(DG_DATADIR "/t/data/specs/ref_all_slow.lua", &d);
  err = NULL;
  ok(!d.nerrors && dg_problem_ref_eval_all_within(p, &env, 1, 1000, out, def, &err) == DG_REF_NIL && !err && !def[0],
     "a ref_all past its time budget gives up (the per-element path takes over)");
  ok(dg_problem_ref_eval_all_within(p, &env, 1, 1000, out, def, &err) == DG_REF_NIL && !err,
     "and is not tried again at the same sizes");
  dg_refval v;
  int64_t idx[1] = { 2 };
  ok(dg_problem_ref_eval(p, &env, 1, idx, &v, &err) == DG_REF_OK && v.num == 3, "the state still evaluates ref");
  free(err);
  dg_problem_free(p);
  dg_diags_free(&d);

  p = dg_spec_load(DG_DATADIR "/t/data/specs/ref_all_type.lua", &d);
  dg_buf b = {0};
  for (size_t i = 0; i < d.v.n; i++) dg_diag_format(&b, &p->sm, &d.v.v[i]);
  ok(d.nerrors > 0, "ref_all = 3 is refused");
  has_str(b.s, "ref_all of op 'typo' is a number (a function, or a table of them by output)", "and says why");
  dg_buf_free(&b);
  dg_problem_free(p);
  dg_diags_free(&d);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One case's reference, as validation computes it. */
static double bench_case(const dg_problem *p, const int64_t *sizes, const inputs *in)
{
  dg_ref_env env = { .sizes = sizes, .data = (const double *const *)in->data };
  double t0 = now_ms();
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *tt = &p->tensors.v[t];
    if (tt->role != DG_TENSOR_OUTPUT) continue;
    int64_t n = dg_problem_numel(p, (int)t, sizes), dims[8], idx[8];
    double *all = dg_calloc((size_t)n + 1, sizeof *all);
    uint8_t *def = dg_calloc((size_t)n + 1, 1);
    char *err = NULL;
    if (n <= SAMPLE) dg_problem_ref_eval_all(p, &env, (int)t, all, def, &err);
    else if (dg_problem_ref_eval_all_within(p, &env, (int)t, SAMPLE, all, def, &err) == DG_REF_NIL) {
      dg_problem_shape(p, (int)t, sizes, dims, NULL);
      dg_rng r;
      dg_rng_seed(&r, 1);
      for (int k = 0; k < SAMPLE && !err; k++) {
        int64_t i = k < 64 ? k : k < 128 ? n - 1 - (k - 64) : (int64_t)dg_rng_below(&r, (uint64_t)n);
        unflat(dims, (int)tt->shape.n, i, idx);
        dg_refval v;
        dg_problem_ref_eval(p, &env, (int)t, idx, &v, &err);
      }
    }
    if (err) fprintf(stderr, "%s: %s\n", tt->name, err);
    free(err);
    free(all);
    free(def);
  }
  return now_ms() - t0;
}

static int bench(const char *path, const char *which, int reps)
{
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  int rc = 1;
  if (d.nerrors) fprintf(stderr, "%s does not load\n", path);
  else {
    int64_t sizes[32];
    dg_problem_default_sizes(p, sizes);
    if (!strcmp(which, "realistic"))
      for (size_t i = 0; i < p->sizes.n; i++)
        if (p->sizes.v[i].has_realistic) sizes[i] = p->sizes.v[i].realistic;
    dg_rng rng;
    dg_rng_seed(&rng, 3);
    inputs in;
    make_inputs(p, sizes, &in, &rng);
    double *ms = dg_calloc((size_t)reps, sizeof *ms);
    for (int i = 0; i < reps; i++) ms[i] = bench_case(p, sizes, &in);
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    printf("%s %s:", path, which);
    for (size_t i = 0; i < p->sizes.n; i++) printf(" %s=%lld", p->sizes.v[i].name, (long long)sizes[i]);
    printf(" median %.1f ms (of %d)\n", ms[reps / 2], reps);
    free(ms);
    free_inputs(&in);
    rc = 0;
  }
  dg_problem_free(p);
  dg_diags_free(&d);
  return rc;
}

int main(int argc, char **argv)
{
  setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
  unsetenv("DIRIGO_DATADIR");
  if (argc >= 3 && !strcmp(argv[1], "--bench"))
    return bench(argv[2], argc > 3 ? argv[3] : "spec", argc > 4 ? atoi(argv[4]) : 5);
  quick = getenv("DG_UNDER_VALGRIND") != NULL;
  contract();
  walk(DG_DATADIR "/samples", one_sample);
  ok(nsamples >= 20, "samples found (%d)", nsamples);
  return tap_done();
}
