/* mockcuda.c — a CUDA runtime stand-in for t/gpu/mock.c: device memory is
 * host memory, "kernels" are C functions named like those of
 * fixtures/kernels.cu, and a fault is sticky as on a real context. Linked
 * into the test ahead of libcudart, so the child's calls land here. */
#include <cuda_runtime_api.h>
#include "fuzz.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cudaError_t sticky;
static cudaError_t last;

typedef cudaError_t (*mock_fn)(dim3 g, dim3 b, void **args);
#define FOR_THREADS(g, b) \
  for (unsigned long i = 0; i < (unsigned long)g.x * b.x; i++)

static cudaError_t fill_even(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0];
  int n = *(int *)a[1];
  FOR_THREADS(g, b) if ((long)i < n && i % 2 == 0) y[i] = (float)i;
  return cudaSuccess;
}

static cudaError_t scale3(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0], *x = *(float **)a[1];
  int n = *(int *)a[2];
  FOR_THREADS(g, b) if ((long)i < n) y[i] = x[i] * 3.0f;
  return cudaSuccess;
}

static cudaError_t oob_write(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0];
  int n = *(int *)a[1];
  FOR_THREADS(g, b) if ((long)i <= n) y[i] = 1.0f;
  return cudaSuccess;
}

static cudaError_t oob_before(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0];
  y[-1] = 2.0f;
  return cudaSuccess;
}

static cudaError_t bad_address(dim3 g, dim3 b, void **a)
{
  sticky = cudaErrorIllegalAddress;
  return cudaSuccess;   /* reported at the synchronize, as on a GPU */
}

/* fixtures/kernels.cu's stray: y = 3 x; x[0] -1: y[n] written, -2: a
 * fault, -3: never ends (until the watchdog's SIGKILL) */
static cudaError_t stray(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0], *x = *(float **)a[1];
  int n = *(int *)a[2];
  FOR_THREADS(g, b) if ((long)i < n) y[i] = x[i] * 3.0f;
  if (x[0] == -1.0f) y[n] = 1.0f;
  if (x[0] == -2.0f) sticky = cudaErrorIllegalAddress;
  while (x[0] == -3.0f) pause();
  return cudaSuccess;
}

static cudaError_t say(dim3 g, dim3 b, void **a)
{
  printf("kernel says %d\n", *(int *)a[1]);   /* device printf lands on stdout */
  return cudaSuccess;
}

/* samples/elementwise/residual_add.cu, for t/gpu/problem.c: y = x + alpha r */
static cudaError_t residual_add(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0], *x = *(float **)a[1], *r = *(float **)a[2];
  float alpha = *(float *)a[3];
  int n = *(int *)a[4];
  FOR_THREADS(g, b) if ((long)i < n) y[i] = alpha * r[i] + x[i];
  return cudaSuccess;
}

/* t/gpu/fixtures/oob_add.cu: y = alpha r + x, and y[n] written when x[0] > 0 */
static cudaError_t oob_add(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0], *x = *(float **)a[1], *r = *(float **)a[2];
  float alpha = *(float *)a[3];
  int n = *(int *)a[4];
  FOR_THREADS(g, b) if ((long)i < n) y[i] = alpha * r[i] + x[i];
  if (n > 0 && x[0] > 0.0f) y[n] = 1.0f;
  return cudaSuccess;
}

/* t/gpu/fixtures/clobber_add.cu: x doubled in place, y = alpha r + 2x */
static cudaError_t clobber_add(dim3 g, dim3 b, void **a)
{
  float *y = *(float **)a[0], *x = *(float **)a[1], *r = *(float **)a[2];
  float alpha = *(float *)a[3];
  int n = *(int *)a[4];
  FOR_THREADS(g, b) if ((long)i < n) x[i] = 2.0f * x[i], y[i] = alpha * r[i] + x[i];
  return cudaSuccess;
}

/* gpu_ref.c's elementwise reference, mode 0 (residual_add) of f32 inputs
 * only: y = x + alpha r in double; other modes leave y alone (the f64
 * poison then says "undefined") */
static cudaError_t ref_map(dim3 g, dim3 b, void **a)
{
  double *y = *(double **)a[0];
  const float *x = *(const float **)a[1], *r = *(const float **)a[3];
  long long n = *(long long *)a[7], mode = *(long long *)a[8];
  double alpha = *(double *)a[11];
  if (mode == 0 && *(int *)a[2] == 0 && *(int *)a[4] == 0)
    for (long long i = 0; i < n; i++) y[i] = (double)x[i] + alpha * (double)r[i];
  return cudaSuccess;
}

/* gpu_ref.c's sampled reference (dg_ref_at), kind 2 mode 0 of f32 inputs
 * only, as ref_map: y[idx[j]] = x + alpha r */
static cudaError_t ref_at(dim3 g, dim3 b, void **a)
{
  double *y = *(double **)a[0];
  const float *x = *(const float **)a[1], *r = *(const float **)a[3];
  long long n = *(long long *)a[7], mode = *(long long *)a[8];
  double alpha = *(double *)a[11];
  const long long *idx = *(const long long **)a[14];
  long long m = *(long long *)a[15];
  if (*(int *)a[16] == 2 && mode == 0 && *(int *)a[2] == 0 && *(int *)a[4] == 0)
    for (long long j = 0; j < m && j < (long long)g.x * b.x; j++)
      if (idx[j] >= 0 && idx[j] < n) y[idx[j]] = (double)x[idx[j]] + alpha * (double)r[idx[j]];
  return cudaSuccess;
}

/* gpu_guard.c's guard check: per region, changed bytes and the first one */
static cudaError_t guard_check(dim3 g, dim3 b, void **a)
{
  static const unsigned char canary[8] = { 0xca, 0xfe, 0xf0, 0x0d, 0x5a, 0xfe, 0x6a, 0x4d };
  unsigned char *const *regions = *(unsigned char *const **)a[0];
  unsigned long long len = *(unsigned long long *)a[1], n = *(unsigned long long *)a[2];
  unsigned long long *out = *(unsigned long long **)a[3];
  for (unsigned r = 0; r < g.y; r++)
    for (unsigned long long k = 0; k < len; k++)
      if (regions[r][k] != canary[k & 7]) {
        out[r]++;
        if (k < out[n + r]) out[n + r] = k;
      }
  return cudaSuccess;
}

/* gpu_cmp.c's dg_cmp_pick: the reference at the sample's elements */
static cudaError_t cmp_pick(dim3 g, dim3 b, void **a)
{
  const double *ref = *(const double **)a[0];
  double *dst = *(double **)a[1];
  const long long *idx = *(const long long **)a[2];
  long long m = *(long long *)a[3];
  for (long long j = 0; j < m && j < (long long)g.x * b.x; j++) dst[idx[j]] = ref[idx[j]];
  return cudaSuccess;
}

/* gpu_cmp.c's comparison, written with the host validator's own functions
 * (the kernel's rule is checked against them on a GPU: t/gpu/cmp.c) */
static cudaError_t cmp(dim3 g, dim3 b, void **a)
{
  static const dg_dtype dts[4] = { DG_DT_F32, DG_DT_F64, DG_DT_F16, DG_DT_BF16 };
  const unsigned char *got = *(const unsigned char **)a[0];
  const double *want = *(const double **)a[1];
  long long n = *(long long *)a[2];
  dg_dtype dt = dts[*(int *)a[3] & 3];
  dg_tol tol = { *(double *)a[4], *(double *)a[5] };
  unsigned long long poison = *(unsigned long long *)a[6], ref_poison = *(unsigned long long *)a[7];
  unsigned long long *sum = *(unsigned long long **)a[8];
  int es = dg_dtypes[dt].size;
  for (long long i = 0; i < n; i++) {
    unsigned long long rb, bits = 0;
    memcpy(&rb, &want[i], 8);
    if (rb == ref_poison) continue;
    sum[0]++;
    memcpy(&bits, got + i * es, (size_t)es);
    double gv = dg_dtype_load(dt, got, i), w = dg_dtype_round(dt, want[i]);
    fuzz_elem k = bits == poison ? FUZZ_ELEM_UNWRITTEN : fuzz_elem_check(dt, gv, want[i], tol);
    if (bits == poison) sum[2]++;
    else if (isfinite(gv) && isfinite(w)) {
      double e = fabs(gv - w), u = dg_dtype_ulps(dt, gv, w), m;
      memcpy(&m, &sum[4], 8);
      if (e > m) memcpy(&sum[4], &e, 8);
      memcpy(&m, &sum[5], 8);
      if (u > m) memcpy(&sum[5], &u, 8);
    } else if (k == FUZZ_ELEM_OK) sum[3]++;
    if (k != FUZZ_ELEM_OK) {
      sum[1]++;
      if ((unsigned long long)i < sum[6]) sum[6] = (unsigned long long)i;
    }
  }
  return cudaSuccess;
}

/* gpu_fused.c's hash of an input's element i (sz bytes), as the device's */
static unsigned long long fz_hash(const void *p, int sz, long long i)
{
  unsigned long long z = 0;
  memcpy(&z, (const unsigned char *)p + i * sz, (size_t)sz);
  if (sz == 8) return z * (unsigned long long)(2 * i + 1);
  return z * (unsigned)(2 * i + 1) + (unsigned long long)sz;
}

/* gpu_fused.c's dg_fused_hash: every input element's hash added to sum[7] */
static cudaError_t fused_hash(dim3 g, dim3 b, void **a)
{
  long long sizes = *(long long *)a[6];
  unsigned long long *sum = *(unsigned long long **)a[7];
  for (int t = 0; t < 3; t++) {
    const void *p = *(const void **)a[t];
    int sz = (int)(sizes >> (8 * t)) & 255;
    for (long long i = 0; p && sz && i < *(long long *)a[3 + t]; i++) sum[7] += fz_hash(p, sz, i);
  }
  return cudaSuccess;
}

/* gpu_fused.c's dg_fused_map (and dg_fused_rows), for what ref_map computes (elementwise mode 0 of
 * f32 inputs; every other element's reference undefined): the reference
 * into a scratch array, the comparison as cmp above, the inputs' hash
 * subtracted from sum[7] */
static cudaError_t fused(dim3 g, dim3 b, void **a)
{
  const float *x = *(const float **)a[1], *r = *(const float **)a[3];
  long long n = *(long long *)a[7], mode = *(long long *)a[8], sizes = *(long long *)a[15];
  double alpha = *(double *)a[11], poison;
  unsigned long long rp = *(unsigned long long *)a[20], *sum = *(unsigned long long **)a[21];
  memcpy(&poison, &rp, 8);
  int kind = *(int *)a[14];
  bool ok = kind == 2 && mode == 0 && *(int *)a[2] == 0 && *(int *)a[4] == 0;
  double *want = malloc(sizeof *want * (size_t)(n > 0 ? n : 1));
  for (long long i = 0; i < n; i++) want[i] = ok ? (double)x[i] + alpha * (double)r[i] : poison;
  for (int t = 0; kind == 2 && t < 2; t++) {
    const void *p = *(const void **)a[1 + 2 * t];
    int sz = (int)(sizes >> (8 * t)) & 255;
    for (long long i = 0; p && sz && i < n; i++) sum[7] -= fz_hash(p, sz, i);
  }
  void *ca[9] = { a[0], &want, &n, a[16], a[17], a[18], a[19], a[20], a[21] };
  cmp(g, b, ca);
  free(want);
  return cudaSuccess;
}

/* gpu_env.c's envelope: the rule's shared code (gpu_env_dev.h) compiled here */
#define DG_ENV_EMIT(...) __VA_ARGS__
#define DG_DEV static inline
#include "gpu_env_dev.h"
#undef DG_DEV
#undef DG_ENV_EMIT
/* dg_env's and dg_env_mm's arguments 4-19 (gpu_env.c's batch_args): the
 * inputs, their dtypes and tensors, the sizes and the op's parameters */
static void env_unpack(void **a, dge_st *e, long long n[4], double p[3])
{
  memset(e, 0, sizeof *e);
  for (int i = 0; i < 3; i++) {
    e->in[i] = *(const void **)a[4 + 3 * i];
    e->dt[i] = (int)*(long long *)a[5 + 3 * i];
    e->tid[i] = *(long long *)a[6 + 3 * i];
  }
  for (int i = 0; i < 4; i++) n[i] = *(long long *)a[13 + i];
  for (int i = 0; i < 3; i++) p[i] = *(double *)a[17 + i];
}
static cudaError_t env_judge(dim3 g, dim3 b, void **a)
{
  unsigned char *ok = *(unsigned char **)a[0];
  const double *cand = *(const double **)a[1];
  long long m = *(long long *)a[2], kind = *(long long *)a[3], n[4];
  double p[3];
  dge_st e;
  env_unpack(a, &e, n, p);
  for (long long j = 0; j < m; j++) {   /* the device's: a part a warp (k = 0, 1, 2), joined */
    int v[3];
    double c[3];
    for (int w = 0; w < 3; w++)
      v[w] = dge_judge_part(&e, (int)kind, n, p, (long long)cand[3 * j], cand[3 * j + 1], cand[3 * j + 2],
                            (int)*(long long *)a[20], *(double *)a[21], *(double *)a[22], w, w, &c[w]);
    ok[j] = (unsigned char)dge_judge_join(v, c, 3, cand[3 * j + 1], cand[3 * j + 2], (int)*(long long *)a[20],
                                          *(double *)a[21], *(double *)a[22]);
  }
  return cudaSuccess;
}

/* gpu_env.c's pipeline kernels (gpu_env_pipe_*), whole launches at once */
typedef unsigned long long u64;
static u64 hash_in(const void *p, long long nb, long long t)
{
  const unsigned char *b = p;
  u64 h = 0, salt = dge_mix(0x6a09e667f3bcc909ull + (u64)t);
  long long nw = nb >> 2;
  for (long long w = 0; w < nw; w++) {
    unsigned x;
    memcpy(&x, b + 4 * w, 4);
    h += dge_mix(dge_mix(salt ^ (u64)w) ^ x);
  }
  for (long long k = nw * 4; k < nb; k++) h += dge_mix(salt ^ ((u64)k << 8 | b[k]) ^ 1ull << 63);
  return h;
}
static u64 hash3(void **a)
{
  u64 h = 0;
  for (int i = 0; i < 3; i++) {
    const void *p = *(const void **)a[2 * i];
    if (p) h += hash_in(p, *(long long *)a[2 * i + 1], i);
  }
  return h;
}
static cudaError_t env_hash(dim3 g, dim3 b, void **a)
{
  (*(u64 **)a[0])[0] += hash3(a + 1);
  return cudaSuccess;
}
static cudaError_t env_gather(dim3 g, dim3 b, void **a)
{
  static const dg_dtype dts[4] = { DG_DT_F32, DG_DT_F64, DG_DT_F16, DG_DT_BF16 };
  u64 *sum = *(u64 **)a[0], *work = *(u64 **)a[1];
  double *cand = *(double **)a[2];
  const unsigned char *got = *(const unsigned char **)a[3];
  const double *want = *(const double **)a[4];
  long long n = *(long long *)a[5], cap = *(long long *)a[10];
  dg_dtype dt = dts[*(long long *)a[6] & 3];
  dg_tol tol = { *(double *)a[7], *(double *)a[8] };
  u64 ref_poison = *(u64 *)a[9], nf = sum[1] > 0 && sum[1] <= (u64)cap && sum[2] == 0 ? sum[1] : 0, cnt = 0;
  for (long long i = sum[6] < (u64)n ? (long long)sum[6] : 0; i < n && cnt < nf; i++) {
    u64 rb;
    memcpy(&rb, &want[i], 8);
    double gv = dg_dtype_load(dt, got, i);
    if (rb == ref_poison || fuzz_elem_check(dt, gv, want[i], tol) == FUZZ_ELEM_OK) continue;
    cand[3 * cnt] = (double)i, cand[3 * cnt + 1] = gv, cand[3 * cnt + 2] = want[i];
    cnt++;
  }
  work[1] = nf && cnt == nf ? cnt : 0;
  work[2] = nf && cnt == nf;
  return cudaSuccess;
}
static cudaError_t env_judge(dim3 g, dim3 b, void **a);
static cudaError_t env_many(dim3 g, dim3 b, void **a)
{
  const u64 *work = *(const u64 **)a[2];
  long long m = work[2] ? (long long)work[1] : 0;
  void *aa[23];
  for (int i = 0; i < 23; i++) aa[i] = a[i];
  aa[2] = &m;
  return env_judge(g, b, aa);
}
/* dg_env_mm (matmul, a warp a candidate on the device): dge_mm_judge, the
 * device's windows and lanes one after the other */
static cudaError_t env_mm(dim3 g, dim3 b, void **a)
{
  (void)g, (void)b;
  const u64 *work = *(const u64 **)a[2];
  long long m = work[2] ? (long long)work[1] : 0, n[4];
  unsigned char *ok = *(unsigned char **)a[0];
  const double *cand = *(const double **)a[1];
  double p[3];
  dge_st e;
  env_unpack(a, &e, n, p);
  for (long long j = 0; j < m; j++)
    ok[j] = (unsigned char)dge_mm_judge(&e, n, p, (long long)cand[3 * j], cand[3 * j + 1], cand[3 * j + 2],
                                        (int)*(long long *)a[20], *(double *)a[21], *(double *)a[22]);
  return cudaSuccess;
}
static cudaError_t env_fold(dim3 g, dim3 b, void **a)
{
  u64 *sum = *(u64 **)a[0], *work = *(u64 **)a[1];
  const unsigned char *ok = *(const unsigned char **)a[2];
  long long m = work[2] ? (long long)work[1] : 0;
  bool all = m > 0;
  for (long long j = 0; j < m; j++) all = all && ok[j];
  if (all && hash3(a + 3) == work[0]) sum[7] = sum[1], sum[1] = 0, sum[6] = ~0ull;
  work[0] = work[1] = work[2] = 0;
  return cudaSuccess;
}

/* gpu_gen.c's generator, written with the host's definition (fuzz_ctr_value,
 * dg_dtype_store): bit identity with the CUDA one is t/gpu/gen.c's, on a GPU */
static cudaError_t gen_fill(dim3 g, dim3 b, void **a)
{
  unsigned char *out = *(unsigned char **)a[0];
  fuzz_ctr c = { .key = *(unsigned long long *)a[1], .dist = (fuzz_dist) * (int *)a[2],
                 .dtype = (dg_dtype) * (int *)a[3], .row = *(long long *)a[5], .n = *(long long *)a[6],
                 .lo = *(long long *)a[7], .hi = *(long long *)a[8] };
  int flags = *(int *)a[4];
  c.has_range = flags & 1;
  c.positive = (flags & 2) != 0;
  long long first = *(long long *)a[9], count = *(long long *)a[10];
  for (long long i = first; i < first + count; i++) dg_dtype_store(c.dtype, out, i, fuzz_ctr_value(&c, i));
  return cudaSuccess;
}

/* gpu_gen.c's dg_gen_many: the tasks of its table, as its source says */
static cudaError_t gen_many(dim3 g, dim3 b, void **a)
{
  const unsigned long long *tab = *(const unsigned long long **)a[0];
  long long ntask = *(long long *)a[1];
  for (long long t = 0; t < ntask; t++) {
    const unsigned long long *w = tab + 8 * t;
    unsigned long long h = w[0];
    unsigned char *out = *(unsigned char **)a[2 + ((h >> 8) & 7)];
    if ((h & 255) == 0) {
      int flags = (int)(h >> 48);
      fuzz_ctr c = { .key = w[1], .dist = (fuzz_dist)((h >> 16) & 0xffff), .dtype = (dg_dtype)((h >> 32) & 0xffff),
                     .row = (long long)w[2], .n = (long long)w[3], .lo = (long long)w[4], .hi = (long long)w[5],
                     .has_range = flags & 1, .positive = (flags & 2) != 0 };
      for (long long i = 0; i < c.n; i++) dg_dtype_store(c.dtype, out, i, fuzz_ctr_value(&c, i));
    } else {
      for (long long i = 0; i < (long long)w[3]; i++) out[i] = (unsigned char)(w[1] >> (8 * (i & 7)));
    }
  }
  return cudaSuccess;
}

static cudaError_t spin(dim3 g, dim3 b, void **a)
{
  for (;;) pause();   /* until the watchdog's SIGKILL */
  return cudaSuccess;
}

typedef struct { const char *name; mock_fn fn; int nparams; size_t sizes[24]; } mock_kernel;
static const mock_kernel kernels[] = {
  { "fill_even", fill_even, 2, { 8, 4 } }, { "scale_k_f3", scale3, 3, { 8, 8, 4 } },
  { "oob_write", oob_write, 2, { 8, 4 } }, { "oob_before", oob_before, 2, { 8, 4 } },
  { "bad_address", bad_address, 2, { 8, 4 } }, { "spin", spin, 1, { 8 } },
  { "say", say, 2, { 8, 4 } }, { "stray", stray, 3, { 8, 8, 4 } },
  { "_Z19residual_add_kernelPfPKfS1_fi", residual_add, 5, { 8, 8, 8, 4, 4 } },
  { "_Z18clobber_add_kernelPfS_PKffi", clobber_add, 5, { 8, 8, 8, 4, 4 } },
  { "_Z14oob_add_kernelPfPKfS1_fi", oob_add, 5, { 8, 8, 8, 4, 4 } },
  { "dg_guard_check", guard_check, 4, { 8, 8, 8, 8 } },
  { "dg_ref_map", ref_map, 14, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_ref_rows", ref_map, 14, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_ref_reduce", ref_map, 14, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_cmp", cmp, 9, { 8, 8, 8, 4, 8, 8, 8, 8, 8 } },
  { "dg_cmp_pick", cmp_pick, 4, { 8, 8, 8, 8 } },
  { "dg_in_hash", env_hash, 7, { 8, 8, 8, 8, 8, 8, 8 } },   /* (the same job: a hash of three inputs added) */
  { "dg_fused_hash", fused_hash, 8, { 8, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_fused_map", fused, 22, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8, 4, 8, 4, 8, 8, 8, 8, 8 } },
  { "dg_fused_rows", fused, 22, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8, 4, 8, 4, 8, 8, 8, 8, 8 } },
  { "dg_gen_fill", gen_fill, 11, { 8, 8, 4, 4, 4, 8, 8, 8, 8, 8, 8 } },
  { "dg_gen_many", gen_many, 10, { 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_env", env_judge, 23, { 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_ref_matmul", ref_map, 14, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_ref_conv", ref_map, 14, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8 } },   /* (no conv kernel here) */
  { "dg_ref_at", ref_at, 17, { 8, 8, 4, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4 } },
  { "dg_env_hash", env_hash, 7, { 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_env_gather", env_gather, 11, { 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_env_many", env_many, 23, { 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_env_fold", env_fold, 9, { 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
  { "dg_env_mm", env_mm, 23, { 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
};

static const struct { cudaError_t e; const char *name, *text; } errs[] = {
  { cudaSuccess, "cudaSuccess", "no error" },
  { cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument" },
  { cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered" },
  { cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
};

#define RET(x) do { cudaError_t r_ = sticky ? sticky : (x); if (r_) last = r_; return r_; } while (0)

const char *cudaGetErrorString(cudaError_t e)
{
  for (size_t i = 0; i < sizeof errs / sizeof *errs; i++) if (errs[i].e == e) return errs[i].text;
  return "unknown error";
}
const char *cudaGetErrorName(cudaError_t e)
{
  for (size_t i = 0; i < sizeof errs / sizeof *errs; i++) if (errs[i].e == e) return errs[i].name;
  return "cudaErrorUnknown";
}
/* Streams (the GPU child's lanes): work queued on a created stream waits
 * there until a synchronisation, a synchronous call or work on the legacy
 * stream 0 (which waits for every stream, as CUDA's does); then the queues
 * run interleaved, one op of each stream in turn, so two lanes sharing a
 * buffer overwrite each other's inputs between their launches (t/gpu/mock.c
 * and cmp_mock.t see it). Order within a stream is kept. */
#define MOCK_STREAMS 16
/* An event: where it was recorded (stream q > 0: after its first pos ops of
 * flush round epoch; q 0: everything before it had run). */
typedef struct { int q; size_t pos; unsigned epoch; bool in_cap; double t; } mock_event;
static unsigned epoch;

typedef struct {
  bool launch;
  bool wait;               /* cudaStreamWaitEvent: the queue stops here until ev has happened */
  mock_event ev;
  void *d;                 /* copy: destination, source, bytes */
  const void *s;
  size_t n;
  const mock_kernel *k;    /* launch: the kernel, dims, argument values */
  dim3 g, b;
  unsigned char *vals;
  void *argv[24];
} mock_op;
static struct { mock_op *v; size_t n, cap, at; } queue[MOCK_STREAMS];
static int nstreams;

static bool happened(const mock_event *e)
{
  return e->q <= 0 || e->epoch != epoch || queue[e->q].at >= e->pos;
}

static void run_op(mock_op *o)
{
  if (o->wait) return;
  if (o->launch) {
    if (!sticky) {
      cudaError_t e = o->k->fn(o->g, o->b, o->argv);
      if (e) last = e;
    }
    free(o->vals);
  } else if (!sticky) {
    memcpy(o->d, o->s, o->n);
  }
}

static void flush(void)
{
  for (bool any = true; any;) {
    any = false;
    for (int q = MOCK_STREAMS - 1; q >= 0; q--)   /* the last lane's op first: any order would do */
      if (queue[q].at < queue[q].n && !(queue[q].v[queue[q].at].wait && !happened(&queue[q].v[queue[q].at].ev))) {
        run_op(&queue[q].v[queue[q].at++]);
        any = true;
      }
  }
  for (int q = 0; q < MOCK_STREAMS; q++)   /* waits that can never be met (a bug): the rest in order */
    for (; queue[q].at < queue[q].n; queue[q].at++) run_op(&queue[q].v[queue[q].at]);
  for (int q = 0; q < MOCK_STREAMS; q++) queue[q].n = queue[q].at = 0;
  epoch++;
}

/* Stream capture (the GPU child's graphs; mockgraph.h says how): work on a
 * stream of the capture stays queued until cudaStreamEndCapture takes it. */
static struct { bool on, invalid; int origin; size_t start[MOCK_STREAMS]; bool joined[MOCK_STREAMS]; } cap;
static long graphs_made, graphs_launched;

/* During a capture: true (and the capture invalidated) when work on stream
 * q may not be queued. */
static bool cap_refuses(intptr_t q)
{
  if (!cap.on) return false;
  if (q <= 0 || q >= MOCK_STREAMS || !cap.joined[q]) cap.invalid = true;
  return cap.invalid;
}
#define CAP_SYNC() do { if (cap.on) { cap.invalid = true; RET(cudaErrorStreamCaptureUnsupported); } } while (0)

/* NULL when op goes on the legacy stream (everything queued runs first). */
static mock_op *enqueue(cudaStream_t st)
{
  intptr_t q = (intptr_t)st;
  if (q <= 0 || q >= MOCK_STREAMS) {
    flush();
    return NULL;
  }
  if (queue[q].n == queue[q].cap) {
    queue[q].cap = queue[q].cap ? 2 * queue[q].cap : 64;
    queue[q].v = realloc(queue[q].v, queue[q].cap * sizeof *queue[q].v);
  }
  mock_op *o = &queue[q].v[queue[q].n++];
  memset(o, 0, sizeof *o);
  return o;
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
  if (nstreams + 1 >= MOCK_STREAMS) RET(cudaErrorInvalidValue);
  *s = (cudaStream_t)(intptr_t)++nstreams;
  RET(cudaSuccess);
}
cudaError_t cudaMemGetInfo(size_t *fr, size_t *tot)
{
  *fr = (size_t)1 << 29;   /* half of the mock's 1 GiB */
  *tot = (size_t)1 << 30;
  RET(cudaSuccess);
}
cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { RET(cudaSuccess); }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
  memset(p, 0, sizeof *p);
  strcpy(p->name, "Mock GPU");
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 4;
  p->totalGlobalMem = 1 << 30;
  RET(cudaSuccess);
}
cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) { return cudaStreamCreate(s); }
cudaError_t cudaStreamDestroy(cudaStream_t s) { RET(cudaSuccess); }
cudaError_t cudaEventCreate(cudaEvent_t *e)
{
  *e = (cudaEvent_t)calloc(1, sizeof(mock_event));
  RET(cudaSuccess);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) { return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
  free(e);
  RET(cudaSuccess);
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
  mock_event *ev = (mock_event *)e;
  intptr_t q = (intptr_t)s;
  if (cap_refuses(q)) RET(cudaErrorStreamCaptureImplicit);
  if (q <= 0 || q >= MOCK_STREAMS) flush(), q = 0;
  ev->q = (int)q, ev->pos = q ? queue[q].n : 0, ev->epoch = epoch, ev->in_cap = cap.on, ev->t = dg_now();
  RET(cudaSuccess);
}
/* The child's wait for a batch in flight (gpu_child_batch.c): with
 * MOCK_EVENT_LAG_MS set an event reads not ready for that long after its
 * record, as a real graph's would while it runs, so that a request written
 * behind the batch is read first (two batches in flight, t/gpu/flight.h);
 * then everything queued runs. */
cudaError_t cudaEventQuery(cudaEvent_t e)
{
  const char *lag = getenv("MOCK_EVENT_LAG_MS");
  if (!sticky && lag && (dg_now() - ((mock_event *)e)->t) * 1e3 < atof(lag)) {
    last = cudaErrorNotReady;
    return cudaErrorNotReady;
  }
  flush();
  RET(cudaSuccess);
}
cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
  CAP_SYNC();
  flush();
  RET(cudaSuccess);
}
cudaError_t cudaPeekAtLastError(void) { return sticky ? sticky : last; }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned flags) { return cudaEventRecord(e, s); }
/* stream s waits for e (on the legacy stream: everything ran already); in
 * a capture, for an event of the capture, s joins it */
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
  intptr_t q = (intptr_t)s;
  const mock_event *ev = (const mock_event *)e;
  if (cap.on && q > 0 && q < MOCK_STREAMS && !cap.joined[q] && ev->in_cap && ev->epoch == epoch)
    cap.joined[q] = true, cap.start[q] = queue[q].n;
  if (cap_refuses(q)) RET(cudaErrorStreamCaptureIsolation);
  if (cap.on && !(ev->in_cap && ev->epoch == epoch)) {   /* an event from outside the capture */
    cap.invalid = true;
    RET(cudaErrorStreamCaptureIsolation);
  }
  mock_op *o = enqueue(s);
  if (o) o->wait = true, o->ev = *(mock_event *)e;
  RET(cudaSuccess);
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = 0.01f; RET(cudaSuccess); }
cudaError_t cudaMalloc(void **p, size_t n)
{
  CAP_SYNC();
  flush();
  if (sticky) RET(sticky);
  *p = malloc(n ? n : 1);
  memset(*p, 0xab, n);
  RET(cudaSuccess);
}
cudaError_t cudaFree(void *p)
{
  CAP_SYNC();
  flush();
  free(p);
  RET(cudaSuccess);
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
  CAP_SYNC();
  flush();
  if (sticky) RET(sticky);
  memcpy(d, s, n);
  RET(cudaSuccess);
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st)
{
  if (cap_refuses((intptr_t)st)) RET(cudaErrorStreamCaptureImplicit);
  mock_op *o = enqueue(st);
  if (!o) return cudaMemcpy(d, s, n, k);
  if (sticky) RET(sticky);
  o->d = d, o->s = s, o->n = n;
  RET(cudaSuccess);
}
cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
  CAP_SYNC();
  flush();
  RET(cudaSuccess);
}
cudaError_t cudaMallocHost(void **p, size_t n) { *p = malloc(n ? n : 1); RET(cudaSuccess); }
cudaError_t cudaFreeHost(void *p) { free(p); RET(cudaSuccess); }
cudaError_t cudaGetLastError(void)
{
  cudaError_t e = sticky ? sticky : last;
  last = cudaSuccess;
  return e;
}
cudaError_t cudaDeviceSynchronize(void)
{
  CAP_SYNC();
  flush();
  RET(cudaSuccess);
}
cudaError_t cudaFuncSetAttribute(const void *f, enum cudaFuncAttribute a, int v) { RET(cudaSuccess); }
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *f)
{
  memset(a, 0, sizeof *a);   /* no static shared memory */
  RET(cudaSuccess);
}
cudaError_t cudaLibraryLoadData(cudaLibrary_t *lib, const void *code, enum cudaJitOption *o, void **ov,
                                unsigned int no, enum cudaLibraryOption *lo, void **lov, unsigned int nlo)
{
  *lib = (cudaLibrary_t)1;
  RET(memcmp(code, "MOCK", 4) && memcmp(code, "\177ELF", 4) ? cudaErrorInvalidValue : cudaSuccess);
}
cudaError_t cudaLibraryGetKernel(cudaKernel_t *k, cudaLibrary_t lib, const char *name)
{
  for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
    if (!strcmp(kernels[i].name, name)) {
      *k = (cudaKernel_t)&kernels[i];
      RET(cudaSuccess);
    }
  RET(cudaErrorInvalidValue);
}
cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s)
{
  if (sticky) RET(sticky);
  if (b.x * b.y * b.z > 1024 || !g.x) RET(cudaErrorInvalidConfiguration);
  if (cap_refuses((intptr_t)s)) RET(cudaErrorStreamCaptureImplicit);
  const mock_kernel *k = f;
  mock_op *o = enqueue(s);
  if (!o) RET(k->fn(g, b, args));
  size_t at = 0;   /* the argument values copied (the caller's go away), each 8-aligned */
  for (int i = 0; i < k->nparams; i++) at += (k->sizes[i] + 7) & ~(size_t)7;
  o->launch = true, o->k = k, o->g = g, o->b = b, o->vals = malloc(at ? at : 1);
  at = 0;
  for (int i = 0; i < k->nparams; i++) {
    memcpy(o->vals + at, args[i], k->sizes[i]);
    o->argv[i] = o->vals + at;
    at += (k->sizes[i] + 7) & ~(size_t)7;
  }
  RET(cudaSuccess);
}
cudaError_t cudaFuncGetParamInfo(const void *f, size_t i, size_t *off, size_t *size)
{
  const mock_kernel *k = f;
  if (i >= (size_t)k->nparams) RET(cudaErrorInvalidValue);
  *off = 8 * i;
  *size = k->sizes[i];
  RET(cudaSuccess);
}

#include "mockgraph.h"
