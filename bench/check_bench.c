/* check_bench.c — the symbolic check's cost per element: wall time (median
 * and p95 over several elements), terms built, term memory and the process's
 * peak RSS, for sample problems at their spec sizes and at the op library's
 * `realistic` sizes where the emulator can take them (tensors up to
 * DG_BENCH_MAX_ELEMS elements, default 1<<20; larger realistic sizes are
 * scaled down and the table says so). The machine is shared: read the
 * medians, not single runs. */
#include "check.h"
#include "lua_spec.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const char *const problems[] = {
  "samples/elementwise/residual_add.lua",
  "samples/softmax/softmax_warp.lua",
  "samples/softmax/softmax_block.lua",
  "samples/reduce/sum_rows_smem.lua",
  "samples/norm/layernorm_warp.lua",
  "samples/matmul/matmul_tiled.lua",
  NULL,
};

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
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

/* Realistic sizes, halved (each op size in turn) until every tensor fits. */
static bool go_realistic(dg_problem *p, int64_t cap, bool *scaled)
{
  bool any = false;
  for (size_t i = 0; i < p->sizes.n; i++)
    if (p->sizes.v[i].has_realistic) p->sizes.v[i].value = p->sizes.v[i].realistic, any = true;
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

static void bench_one(dg_problem *p, const emu_kernels *k, const char *name, const char *label, int nel)
{
  int t = -1;
  for (size_t i = 0; i < p->tensors.n && t < 0; i++)
    if (p->tensors.v[i].role == DG_TENSOR_OUTPUT) t = (int)i;
  int64_t *sizes = malloc(sizeof *sizes * (p->sizes.n + 1)), dims[8];
  dg_problem_default_sizes(p, sizes);
  int rank = (int)p->tensors.v[t].shape.n;
  if (rank > 8 || !dg_problem_shape(p, t, sizes, dims, NULL)) { free(sizes); return; }
  double *secs = calloc((size_t)nel, sizeof *secs);
  size_t maxbytes = 0, maxterms = 0;
  int verdicts[CHECK__COUNT] = {0};
  dg_rng rng;
  dg_rng_seed(&rng, 42);
  check_opts o = { .timeout_s = 10 };
  for (int e = 0; e < nel; e++) {
    int64_t idx[8];
    for (int d = 0; d < rank; d++)
      idx[d] = e == 0 ? dims[d] - 1 : (int64_t)dg_rng_below(&rng, (uint64_t)(dims[d] > 0 ? dims[d] : 1));
    check_result r;
    check_element(p, k, t, idx, rank, &o, &r);
    secs[e] = r.t_total;
    verdicts[r.verdict]++;
    if (r.term_bytes > maxbytes) maxbytes = r.term_bytes;
    if (r.nterms > maxterms) maxterms = r.nterms;
    check_result_free(&r);
  }
  qsort(secs, (size_t)nel, sizeof *secs, cmpd);
  double p95 = secs[(int)((nel - 1) * 0.95 + 0.5)];
  char sz[96], vs[96];
  sizes_text(p, sz, sizeof sz);
  size_t kk = 0;
  vs[0] = 0;
  for (int v = 0; v < CHECK__COUNT; v++)
    if (verdicts[v]) kk += (size_t)snprintf(vs + kk, sizeof vs - kk, "%s%d %s", kk ? ", " : "", verdicts[v], check_verdict_name((check_verdict)v));
  printf("%-22s %-10s %-22s %8.3f %8.3f %9zu %9.1f %8.1f  %s\n", name, label, sz, secs[nel / 2], p95, maxterms,
         (double)maxbytes / 1048576.0, (double)peak_rss_kb() / 1024.0, vs);
  fflush(stdout);
  free(secs);
  free(sizes);
}

int main(int argc, char **argv)
{
  const char *srcdir = getenv("DG_SRCDIR");
  const char *capenv = getenv("DG_BENCH_MAX_ELEMS");
  int64_t cap = capenv ? atoll(capenv) : (1 << 20);
  int nel = argc > 1 ? atoi(argv[1]) : 5;
  if (nel < 1) nel = 1;
  if (!srcdir) srcdir = DG_DATADIR;
  printf("symbolic check per element: %d elements per row (the last one, then random), solver timeout 10 s\n", nel);
  printf("%-22s %-10s %-22s %8s %8s %9s %9s %8s  %s\n", "problem", "sizes", "", "median s", "p95 s",
         "terms", "term MiB", "RSS MiB", "verdicts");
  for (const char *const *pp = problems; *pp; pp++) {
    char *path = dg_printf("%s/%s", srcdir, *pp);
    const char *name = strrchr(*pp, '/') + 1;
    for (int pass = 0; pass < 2; pass++) {
      dg_diags d = {0};
      dg_problem *p = dg_spec_load(path, &d);
      emu_kernels k;
      bool ok = !d.nerrors && emu_kernels_load(&k, p, &d);
      bool scaled = false;
      if (ok && (pass == 0 || go_realistic(p, cap, &scaled)))
        bench_one(p, &k, name, pass == 0 ? "spec" : scaled ? "realistic/" : "realistic", nel);
      else if (!d.nerrors && pass == 1)
        printf("%-22s %-10s (no realistic sizes in the op library)\n", name, "realistic");
      else if (d.nerrors)
        printf("%-22s %-10s cannot load: %s\n", name, "", d.v.n ? d.v.v[0].msg : "?");
      if (ok || k.mod) emu_kernels_free(&k);
      dg_problem_free(p);
      dg_diags_free(&d);
    }
    free(path);
  }
  printf("realistic/: realistic sizes halved until every tensor has at most %" PRId64 " elements\n", cap);
  return 0;
}
