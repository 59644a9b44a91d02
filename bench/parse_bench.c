/* bench/parse_bench.c — front-end speed: preprocess + tree-sitter parse +
 * lowering, for every samples .cu file together and for one generated
 * 5,000-line file (bench/gen_kernels.sh). Median of N runs; target < 100 ms
 * for 5,000 lines. Usage: parse_bench [RUNS] */
#include "fe.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_cuda(void);

static const char *datadir(void) { const char *d = getenv("DG_SRCDIR"); return d ? d : DG_DATADIR; }

typedef DG_VEC(char *) strvec;

static void find_cu(const char *dir, strvec *out, int depth)
{
  DIR *d = opendir(dir);
  if (!d || depth > 8) { if (d) closedir(d); return; }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = dg_printf("%s/%s", dir, e->d_name);
    struct stat st;
    if (!stat(p, &st) && S_ISDIR(st.st_mode)) { find_cu(p, out, depth + 1); free(p); continue; }
    size_t n = strlen(p);
    if (n > 3 && !strcmp(p + n - 3, ".cu")) dg_vec_push(out, p); else free(p);
  }
  closedir(d);
}

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct { double pp, ts, all; long lines; int funcs, errors; } one_run;

/* Loads every file once; pp time measured separately on the side. */
static one_run run_files(char **files, size_t nf)
{
  one_run r = { 0 };
  for (size_t i = 0; i < nf; i++) {
    dg_srcmgr sm;
    dg_srcmgr_init(&sm);
    dg_diags d = { 0 };
    uint32_t f = dg_srcmgr_load(&sm, files[i]);
    if (!f) { dg_srcmgr_free(&sm); continue; }
    for (size_t k = 0; k < sm.files.v[f].len; k++) r.lines += sm.files.v[f].text[k] == '\n';
    double t0 = dg_now();
    pp_result pr = { 0 };
    dg_diags pd = { 0 };
    pp_run(&sm, f, NULL, 0, &pr, &pd);
    double t1 = dg_now();
    TSParser *tp = ts_parser_new();
    ts_parser_set_language(tp, tree_sitter_cuda());
    double ta = dg_now();
    TSTree *tt = pr.text ? ts_parser_parse_string(tp, NULL, pr.text, (uint32_t)pr.len) : NULL;
    r.ts += dg_now() - ta;
    if (tt) ts_tree_delete(tt);
    ts_parser_delete(tp);
    pp_result_free(&pr);
    dg_diags_free(&pd);
    double t2 = dg_now();
    dg_module *m = fe_load_file(&sm, f, NULL, &d);
    double t3 = dg_now();
    r.pp += t1 - t0;
    r.all += t3 - t2;
    if (m) r.funcs += (int)m->funcs.n;
    r.errors += d.nerrors;
    fe_module_free(m);
    dg_diags_free(&d);
    dg_srcmgr_free(&sm);
  }
  return r;
}

static void row(const char *name, char **files, size_t nf, int runs)
{
  double *all = dg_calloc((size_t)runs, sizeof *all), *pp = dg_calloc((size_t)runs, sizeof *pp);
  double *ts = dg_calloc((size_t)runs, sizeof *ts);
  one_run r = { 0 };
  for (int i = 0; i < runs; i++) {
    r = run_files(files, nf);
    all[i] = r.all;
    pp[i] = r.pp;
    ts[i] = r.ts;
  }
  qsort(ts, (size_t)runs, sizeof *ts, cmp_d);
  qsort(all, (size_t)runs, sizeof *all, cmp_d);
  qsort(pp, (size_t)runs, sizeof *pp, cmp_d);
  double med = all[runs / 2], pmed = pp[runs / 2];
  printf("%-22s %6zu %8ld %6d %9.2f %9.2f %9.2f %9.2f %10.0f%s\n", name, nf, r.lines, r.funcs, pmed * 1e3, ts[runs / 2] * 1e3,
         (med - pmed - ts[runs / 2]) * 1e3, med * 1e3, med > 0 ? r.lines / med : 0, r.errors ? "  (errors)" : "");
  free(all);
  free(ts);
  free(pp);
}

int main(int argc, char **argv)
{
  int runs = argc > 1 ? atoi(argv[1]) : 9;
  if (runs < 1) runs = 1;
  strvec files = { 0 };
  char *sdir = dg_printf("%s/samples", datadir());
  find_cu(sdir, &files, 0);
  free(sdir);
  char gen[] = "/tmp/dg_parse_bench_XXXXXX";
  int fd = mkstemp(gen);
  if (fd < 0) { perror("mkstemp"); return 1; }
  char *cmd = dg_printf("sh '%s/bench/gen_kernels.sh' 5000 > '%s'", datadir(), gen);
  int rc = system(cmd);
  free(cmd);
  printf("front end: preprocess + parse + lower, median of %d runs\n", runs);
  printf("%-22s %6s %8s %6s %9s %9s %9s %9s %10s\n", "input", "files", "lines", "funcs", "pp ms", "parse ms", "lower ms", "total ms", "lines/s");
  if (files.n) row("samples/**/*.cu", files.v, files.n, runs);
  char *g = gen;
  if (rc == 0) row("generated 5000 lines", &g, 1, runs);
  else fprintf(stderr, "parse_bench: generator failed\n");
  unlink(gen);
  for (size_t i = 0; i < files.n; i++) free(files.v[i]);
  dg_vec_free(&files);
  return 0;
}
