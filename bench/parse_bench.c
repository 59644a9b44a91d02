/* bench/parse_bench.c — front-end speed: preprocess + tree-sitter parse +
 * lowering, for every samples .cu file together and for one generated
 * 5,000-line file (bench/gen_kernels.sh). Median of N runs; target < 100 ms
 * for 5,000 lines. Usage: parse_bench [RUNS]
 * Columns: pp and parse are pp_run and tree-sitter alone (as fe_load_file
 * calls them); total is fe_load_file's wall time; lower is total - pp - parse
 * of the same run; cpu is fe_load_file's process CPU time, which a loaded
 * machine disturbs far less than the wall clock (the load is printed). */
#include "fe.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>
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

static double cpu_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct { double pp, ts, all, cpu; long lines; int funcs, errors, syntax; } one_run;

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
    /* fe_load_file blanks #pragma lines before parsing: so does this */
    for (size_t k = 0; pr.text && k < pr.pragmas.n; k++)
      for (size_t o = pr.pragmas.v[k].out_off; o < pr.len && pr.text[o] == '#';)
        while (o < pr.len && pr.text[o] != '\n') pr.text[o++] = ' ';
    TSParser *tp = ts_parser_new();
    ts_parser_set_language(tp, tree_sitter_cuda());
    double ta = dg_now();
    TSTree *tt = pr.text ? ts_parser_parse_string(tp, NULL, pr.text, (uint32_t)pr.len) : NULL;
    r.ts += dg_now() - ta;
    /* an ERROR node sends tree-sitter into error recovery, far slower: a
     * generated file must parse cleanly to measure the normal path */
    if (tt && ts_node_has_error(ts_tree_root_node(tt))) r.syntax++;
    if (tt) ts_tree_delete(tt);
    ts_parser_delete(tp);
    pp_result_free(&pr);
    dg_diags_free(&pd);
    double t2 = dg_now(), c2 = cpu_now();
    dg_module *m = fe_load_file(&sm, f, NULL, &d);
    double t3 = dg_now();
    r.cpu += cpu_now() - c2;
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

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

static void row(const char *name, char **files, size_t nf, int runs)
{
  double *all = dg_calloc((size_t)runs, sizeof *all), *pp = dg_calloc((size_t)runs, sizeof *pp);
  double *ts = dg_calloc((size_t)runs, sizeof *ts), *low = dg_calloc((size_t)runs, sizeof *low);
  double *cpu = dg_calloc((size_t)runs, sizeof *cpu);
  one_run r = { 0 };
  for (int i = 0; i < runs; i++) {
    r = run_files(files, nf);
    all[i] = r.all;
    pp[i] = r.pp;
    ts[i] = r.ts;
    low[i] = r.all - r.pp - r.ts;
    cpu[i] = r.cpu;
  }
  double med = median(all, runs);
  printf("%-22s %6zu %8ld %6d %9.2f %9.2f %9.2f %9.2f %9.2f %10.0f%s\n", name, nf, r.lines, r.funcs, median(pp, runs) * 1e3,
         median(ts, runs) * 1e3, median(low, runs) * 1e3, med * 1e3, median(cpu, runs) * 1e3, med > 0 ? r.lines / med : 0,
         r.errors ? "  (errors)" : "");
  if (r.syntax) printf("%-22s %zu file(s) with syntax errors in tree-sitter's tree (error recovery is in the time)\n", "", (size_t)r.syntax);
  free(all);
  free(ts);
  free(pp);
  free(low);
  free(cpu);
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
  double load[1] = { -1 };
  FILE *la = fopen("/proc/loadavg", "r");
  if (la) { if (fscanf(la, "%lf", &load[0]) != 1) load[0] = -1; fclose(la); }
  printf("front end: preprocess + parse + lower, median of %d runs (load average %.2f on %ld CPUs)\n", runs, load[0],
         sysconf(_SC_NPROCESSORS_ONLN));
  printf("%-22s %6s %8s %6s %9s %9s %9s %9s %9s %10s\n", "input", "files", "lines", "funcs", "pp ms", "parse ms", "lower ms",
         "total ms", "cpu ms", "lines/s");
  if (files.n) row("samples/**/*.cu", files.v, files.n, runs);
  char *g = gen;
  if (rc == 0) row("generated 5000 lines", &g, 1, runs);
  else fprintf(stderr, "parse_bench: generator failed\n");
  unlink(gen);
  for (size_t i = 0; i < files.n; i++) free(files.v[i]);
  dg_vec_free(&files);
  return 0;
}
