/* check_bench.c — the symbolic check's cost per element: wall time (median
 * and p95 over several elements), terms built, term memory and the process's
 * peak RSS, for sample problems at their spec sizes and at the op library's
 * `realistic` sizes where the emulator can take them (tensors up to
 * DG_BENCH_MAX_ELEMS elements, default 1<<24; larger realistic sizes are
 * scaled down and the table says so), and a closing line against issue
 * #4's targets (median <= 1 s, p95 <= 10 s, under 2 GiB) over every
 * realistic-size check. Each row runs in its own process (its own peak
 * RSS). Usage: check_bench [ELEMENTS [PROBLEM-SUBSTRING]]. The machine is
 * shared: read the medians, not single runs. */
#include "check.h"
#include "lua_spec.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The problems, and sizes that replace the op's realistic ones where the
 * realistic batch is more than one check needs (conv2d: one image of the
 * ResNet-50 conv2_x 3x3 layer, N=1 C=64 H=W=56 K=64). */
static const struct { const char *path, *realistic_override; } problems[] = {
  { "samples/elementwise/residual_add.lua", NULL },
  { "samples/softmax/softmax_warp.lua", NULL },
  { "samples/softmax/softmax_block.lua", NULL },
  { "samples/reduce/sum_rows_smem.lua", NULL },
  { "samples/norm/layernorm_warp.lua", NULL },
  { "samples/matmul/matmul_tiled.lua", NULL },
  { "samples/conv/conv2d_k3.lua", "N=1" },
  { NULL, NULL },
};

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double cpu_seconds(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static int64_t max_numel(const dg_problem *p)
{
  int64_t *sizes = malloc(sizeof *sizes * (p->sizes.n + 1)), m = 0;
  dg_problem_default_sizes(p, sizes);
  for (size_t t = 0; t < p->tensors.n; t++) {
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    if (n > m) m = n;
  }
  free(sizes);
  return m;
}

/* Realistic sizes (then the override "NAME=V,..."), halved (the largest
 * size in turn) until every tensor fits. */
static bool go_realistic(dg_problem *p, const char *override, int64_t cap, bool *scaled)
{
  bool any = false;
  for (size_t i = 0; i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) p->sizes.v[i].value = p->sizes.v[i].realistic, any = true;
  for (size_t i = 0; override && i < p->sizes.n; i++) {
    size_t n = strlen(p->sizes.v[i].name);
    for (const char *at = override; (at = strstr(at, p->sizes.v[i].name)); at += n)
      if ((at == override || at[-1] == ',') && at[n] == '=') p->sizes.v[i].value = atoll(at + n + 1);
  }
  *scaled = false;
  for (int guard = 0; any && max_numel(p) > cap && guard < 64; guard++) {
    size_t big = 0;
    for (size_t i = 0; i < p->sizes.n; i++)
      if (p->sizes.v[i].value > p->sizes.v[big].value) big = i;
    p->sizes.v[big].value = (p->sizes.v[big].value + 1) / 2;
    *scaled = true;
  }
  dg_diags d = {0};
  int64_t *sizes = malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  bool ok = any && dg_problem_check_sizes(p, sizes, &d);
  free(sizes);
  dg_diags_free(&d);
  return ok;
}

static void sizes_text(const dg_problem *p, char *buf, size_t n)
{
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < p->sizes.n && k < n; i++)
    if (p->sizes.v[i].from_op)
      k += (size_t)snprintf(buf + k, n - k, "%s%s=%" PRId64, k ? "," : "", p->sizes.v[i].name, p->sizes.v[i].value);
}

/* Checks nel elements of the first output (the last one, then seeded random
 * ones); prints the row; secs gets the times. */
static void bench_one(dg_problem *p, const emu_kernels *k, const char *name, const char *label, int nel,
                      double *secs)
{
  int t = -1;
  for (size_t i = 0; i < p->tensors.n && t < 0; i++)
    if (p->tensors.v[i].role == DG_TENSOR_OUTPUT) t = (int)i;
  int64_t *sizes = malloc(sizeof *sizes * (p->sizes.n + 1)), dims[8];
  dg_problem_default_sizes(p, sizes);
  int rank = (int)p->tensors.v[t].shape.n;
  if (rank > 8 || !dg_problem_shape(p, t, sizes, dims, NULL)) { free(sizes); return; }
  size_t maxbytes = 0, maxterms = 0;
  int verdicts[CHECK__COUNT] = {0};
  double concrete = 0, symbolic = 0, solver = 0, *cpu = malloc(sizeof *cpu * (size_t)nel);
  dg_rng rng;
  dg_rng_seed(&rng, 42);
  check_opts o = { .timeout_s = 10 };
  for (int e = 0; e < nel; e++) {
    int64_t idx[8];
    for (int d = 0; d < rank; d++)
      idx[d] = e == 0 ? dims[d] - 1 : (int64_t)dg_rng_below(&rng, (uint64_t)(dims[d] > 0 ? dims[d] : 1));
    check_result r;
    double c0 = cpu_seconds();
    check_element(p, k, t, idx, rank, &o, &r);
    cpu[e] = secs[nel + e] = cpu_seconds() - c0;
    secs[e] = r.t_total;
    concrete += r.t_concrete, symbolic += r.t_symbolic, solver += r.t_solver;
    verdicts[r.verdict]++;
    if (r.term_bytes > maxbytes) maxbytes = r.term_bytes;
    if (r.nterms > maxterms) maxterms = r.nterms;
    check_result_free(&r);
  }
  double *sorted = malloc(sizeof *sorted * (size_t)nel);
  memcpy(sorted, secs, sizeof *sorted * (size_t)nel);
  qsort(sorted, (size_t)nel, sizeof *sorted, cmpd);
  double p95 = sorted[(int)((nel - 1) * 0.95 + 0.5)];
  qsort(cpu, (size_t)nel, sizeof *cpu, cmpd);
  char sz[96], vs[96];
  sizes_text(p, sz, sizeof sz);
  size_t kk = 0;
  vs[0] = 0;
  for (int v = 0; v < CHECK__COUNT; v++)
    if (verdicts[v]) kk += (size_t)snprintf(vs + kk, sizeof vs - kk, "%s%d %s", kk ? ", " : "", verdicts[v], check_verdict_name((check_verdict)v));
  printf("%-19s %-10s %-32s %8.3f %8.3f %7.3f %6.2f %6.2f %6.2f %9zu %8.1f %8.1f  %s\n", name, label, sz, sorted[nel / 2],
         p95, cpu[nel / 2], concrete / nel, symbolic / nel, solver / nel, maxterms, (double)maxbytes / 1048576.0, (double)peak_rss_kb() / 1024.0, vs);
  fflush(stdout);
  free(sorted);
  free(cpu);
  free(sizes);
}

/* One row in a child process, so that its peak RSS is its own; the times
 * come back through a pipe (NAN: the row did not run). */
static void row(const char *path, const char *name, const char *override, int pass, int64_t cap, int nel,
                double *secs)
{
  int fd[2];
  for (int e = 0; e < 2 * nel; e++) secs[e] = NAN;
  if (pipe(fd)) return;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    dg_diags d = {0};
    dg_problem *p = dg_spec_load(path, &d);
    emu_kernels k;
    bool ok = !d.nerrors && emu_kernels_load(&k, p, &d);
    bool scaled = false;
    if (ok && (pass == 0 || go_realistic(p, override, cap, &scaled)))
      bench_one(p, &k, name, pass == 0 ? "spec" : scaled ? "realistic/" : "realistic", nel, secs);
    else if (!d.nerrors && pass == 1)
      printf("%-19s %-10s (no realistic sizes in the op library)\n", name, "realistic");
    else if (d.nerrors)
      printf("%-19s %-10s cannot load: %s\n", name, "", d.v.n ? d.v.v[0].msg : "?");
    fflush(stdout);
    ssize_t w = write(fd[1], secs, sizeof *secs * (size_t)(2 * nel));
    (void)w;
    _exit(0);
  }
  close(fd[1]);
  if (pid > 0) {
    size_t got = 0, want = sizeof *secs * (size_t)(2 * nel);
    ssize_t r;
    while (got < want && (r = read(fd[0], (char *)secs + got, want - got)) > 0) got += (size_t)r;
    if (got < want) for (int e = 0; e < 2 * nel; e++) secs[e] = NAN;
    waitpid(pid, NULL, 0);
  }
  close(fd[0]);
}

int main(int argc, char **argv)
{
  const char *srcdir = getenv("DG_SRCDIR");
  const char *capenv = getenv("DG_BENCH_MAX_ELEMS");
  int64_t cap = capenv ? atoll(capenv) : (1 << 24);
  int nel = argc > 1 ? atoi(argv[1]) : 5;
  const char *only = argc > 2 ? argv[2] : NULL;
  if (nel < 1) nel = 1;
  if (!srcdir) srcdir = DG_DATADIR;
  printf("symbolic check per element: %d elements per row (the last one, then random), solver timeout 10 s\n", nel);
  printf("%-19s %-10s %-32s %8s %8s %7s %6s %6s %6s %9s %8s %8s  %s\n", "problem", "sizes", "", "median s", "p95 s",
         "cpu med", "find", "sym", "smt", "terms", "term MiB", "RSS MiB", "verdicts");
  DG_VEC(double) real = {0}, realcpu = {0};
  double *secs = malloc(sizeof *secs * (size_t)(2 * nel));
  long rss_max = 0;
  for (int i = 0; problems[i].path; i++) {
    if (only && !strstr(problems[i].path, only)) continue;
    char *path = dg_printf("%s/%s", srcdir, problems[i].path);
    const char *name = strrchr(problems[i].path, '/') + 1;
    for (int pass = 0; pass < 2; pass++) {
      row(path, name, problems[i].realistic_override, pass, cap, nel, secs);
      for (int e = 0; pass == 1 && e < nel; e++)
        if (!isnan(secs[e])) dg_vec_push(&real, secs[e]), dg_vec_push(&realcpu, secs[nel + e]);
    }
    free(path);
  }
  struct rusage ru;
  if (!getrusage(RUSAGE_CHILDREN, &ru)) rss_max = ru.ru_maxrss;
  printf("realistic/: realistic sizes halved until every tensor has at most %" PRId64 " elements; "
         "median/p95: wall seconds per element; cpu med: its CPU seconds (the machine is shared); find/sym/smt: mean wall "
         "seconds of the writer search, the symbolic run, the solver; RSS: the row's process peak\n", cap);
  if (real.n) {
    qsort(real.v, real.n, sizeof *real.v, cmpd);
    double med = real.v[real.n / 2], p95 = real.v[(size_t)((double)(real.n - 1) * 0.95 + 0.5)];
    double rss = (double)rss_max / 1024.0;
    qsort(realcpu.v, realcpu.n, sizeof *realcpu.v, cmpd);
    bool met = med <= 1 && p95 <= 10 && rss < 2048;
    printf("realistic sizes, all %zu checks: median %.3f s (target <= 1 s), p95 %.3f s (target <= 10 s), "
           "peak RSS %.0f MiB (target < 2048 MiB): %s; CPU seconds per check: median %.3f, p95 %.3f\n", real.n, med,
           p95, rss, met ? "targets met" : "targets missed", realcpu.v[realcpu.n / 2],
           realcpu.v[(size_t)((double)(realcpu.n - 1) * 0.95 + 0.5)]);
  }
  dg_vec_free(&real);
  dg_vec_free(&realcpu);
  free(secs);
  return 0;
}
