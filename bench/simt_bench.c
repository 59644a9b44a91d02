/* simt_bench.c — the SIMT engine's speed: softmax, layernorm, tiled matmul
 * and conv2d, each at a small and a realistic size, run on the emulator
 * (concrete domain, all detections on) and as a plain C loop computing the
 * same op. Prints thread-instructions per second (IR nodes x active lanes),
 * the slowdown against the C loop (medians of several runs) and an FNV-1a
 * hash of the output buffer: a change to the engine must leave the hashes
 * (and the thread-instruction counts) as they were. The last line counts
 * the rows within issue #3's target (20x the C loop). Usage:
 *   simt_bench [--quick] [--runs N] [--ro] [kernel]   (--quick: the small size of each row;
 *   --ro: the inputs read-only, as check and fuzz make a spec's inputs: their loads are not
 *   recorded in the global race shadow, which records loads of the buffers a store may change) */
#include "simt.h"
#include "fe.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this thread: the machine is shared, wall time is not ours. */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char src[] =
  "__global__ void axpb(float *y, const float *x, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) y[i] = x[i] * 2.0f + 1.0f;\n"
  "}\n"
  "__global__ void softmax_warp(float *y, const float *x, int N, int C)\n"
  "{\n"
  "  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;\n"
  "  int lane = threadIdx.x % 32;\n"
  "  if (row >= N) return;\n"
  "  const float *xr = x + (size_t)row * C;\n"
  "  float m = -INFINITY;\n"
  "  for (int c = lane; c < C; c += 32) m = fmaxf(m, xr[c]);\n"
  "  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));\n"
  "  float s = 0.0f;\n"
  "  for (int c = lane; c < C; c += 32) s += expf(xr[c] - m);\n"
  "  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);\n"
  "  for (int c = lane; c < C; c += 32) y[(size_t)row * C + c] = expf(xr[c] - m) / s;\n"
  "}\n"
  "__global__ void layernorm(float *y, const float *x, const float *g, const float *b, int C, float eps)\n"
  "{\n"
  "  __shared__ float red[256];\n"
  "  const float *xr = x + (size_t)blockIdx.x * C;\n"
  "  float s = 0.0f;\n"
  "  for (int c = threadIdx.x; c < C; c += blockDim.x) s += xr[c];\n"
  "  red[threadIdx.x] = s;\n"
  "  __syncthreads();\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  float mean = red[0] / C;\n"
  "  __syncthreads();\n"
  "  float v = 0.0f;\n"
  "  for (int c = threadIdx.x; c < C; c += blockDim.x) { float d = xr[c] - mean; v += d * d; }\n"
  "  red[threadIdx.x] = v;\n"
  "  __syncthreads();\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  float rstd = rsqrtf(red[0] / C + eps);\n"
  "  for (int c = threadIdx.x; c < C; c += blockDim.x)\n"
  "    y[(size_t)blockIdx.x * C + c] = (xr[c] - mean) * rstd * g[c] + b[c];\n"
  "}\n"
  "#define TILE 16\n"
  "__global__ void matmul(float *C, const float *A, const float *B, int M, int N, int K)\n"
  "{\n"
  "  __shared__ float As[TILE][TILE];\n"
  "  __shared__ float Bs[TILE][TILE + 1];\n"
  "  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;\n"
  "  float acc = 0.0f;\n"
  "  for (int k0 = 0; k0 < K; k0 += TILE) {\n"
  "    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;\n"
  "    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;\n"
  "    __syncthreads();\n"
  "    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (row < M && col < N) C[row * N + col] = acc;\n"
  "}\n"
  "__global__ void conv2d(float *y, const float *x, const float *w, int Ci, int H, int W, int Co)\n"
  "{\n"
  "  int ow = blockIdx.x * blockDim.x + threadIdx.x, oh = blockIdx.y;\n"
  "  int n = blockIdx.z / Co, co = blockIdx.z % Co;\n"
  "  int OH = H - 2, OW = W - 2;\n"
  "  if (ow >= OW) return;\n"
  "  float acc = 0.0f;\n"
  "  for (int ci = 0; ci < Ci; ci++)\n"
  "    for (int kh = 0; kh < 3; kh++)\n"
  "      for (int kw = 0; kw < 3; kw++)\n"
  "        acc += x[((n * Ci + ci) * H + oh + kh) * W + ow + kw] * w[((co * Ci + ci) * 3 + kh) * 3 + kw];\n"
  "  y[((n * Co + co) * OH + oh) * OW + ow] = acc;\n"
  "}\n";

/* ---- plain C versions -------------------------------------------------------- */
static void c_axpb(float *y, const float *x, int n)
{
  for (int i = 0; i < n; i++) y[i] = x[i] * 2.0f + 1.0f;
}

static void c_softmax(float *y, const float *x, int N, int C)
{
  for (int r = 0; r < N; r++) {
    const float *xr = x + (size_t)r * C;
    float m = -INFINITY, s = 0;
    for (int c = 0; c < C; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < C; c++) s += expf(xr[c] - m);
    for (int c = 0; c < C; c++) y[(size_t)r * C + c] = expf(xr[c] - m) / s;
  }
}

static void c_layernorm(float *y, const float *x, const float *g, const float *b, int N, int C, float eps)
{
  for (int r = 0; r < N; r++) {
    const float *xr = x + (size_t)r * C;
    float s = 0, v = 0;
    for (int c = 0; c < C; c++) s += xr[c];
    float mean = s / C;
    for (int c = 0; c < C; c++) { float d = xr[c] - mean; v += d * d; }
    float rstd = 1.0f / sqrtf(v / C + eps);
    for (int c = 0; c < C; c++) y[(size_t)r * C + c] = (xr[c] - mean) * rstd * g[c] + b[c];
  }
}

static void c_matmul(float *C, const float *A, const float *B, int M, int N, int K)
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
      C[i * N + j] = acc;
    }
}

static void c_conv2d(float *y, const float *x, const float *w, int Nb, int Ci, int H, int W, int Co)
{
  int OH = H - 2, OW = W - 2;
  for (int n = 0; n < Nb; n++)
    for (int co = 0; co < Co; co++)
      for (int oh = 0; oh < OH; oh++)
        for (int ow = 0; ow < OW; ow++) {
          float acc = 0;
          for (int ci = 0; ci < Ci; ci++)
            for (int kh = 0; kh < 3; kh++)
              for (int kw = 0; kw < 3; kw++)
                acc += x[((n * Ci + ci) * H + oh + kh) * W + ow + kw] * w[((co * Ci + ci) * 3 + kh) * 3 + kw];
          y[((n * Co + co) * OH + oh) * OW + ow] = acc;
        }
}

/* ---- harness ----------------------------------------------------------------------- */
enum { RUNS_MAX = 1000 };
static int RUNS = 5;      /* --runs N: more runs, for a profiler */
static bool RO;           /* --ro: inputs read-only */
static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

typedef struct {
  const char *name, *size;
  const char *kernel;
  uint32_t grid[3], block[3];
  int nbufs;
  int64_t bytes[4];      /* buffer 0 is the output */
  int nints;
  int64_t ints[5];
  bool has_float;
  double fl;
  int ctype;             /* which C loop */
  int64_t dims[6];
} bench_case;

static void fill(float *p, int64_t n, unsigned seed)
{
  for (int64_t i = 0; i < n; i++) p[i] = sinf((float)(i * 13 + seed)) * 2.0f;
}

static double run_c(const bench_case *b, float **h)
{
  const int64_t *d = b->dims;
  double t = cpu_now();
  switch (b->ctype) {
  case 4: c_axpb(h[0], h[1], (int)d[0]); break;
  case 0: c_softmax(h[0], h[1], (int)d[0], (int)d[1]); break;
  case 1: c_layernorm(h[0], h[1], h[2], h[3], (int)d[0], (int)d[1], 1e-5f); break;
  case 2: c_matmul(h[0], h[1], h[2], (int)d[0], (int)d[1], (int)d[2]); break;
  default: c_conv2d(h[0], h[1], h[2], (int)d[0], (int)d[1], (int)d[2], (int)d[3], (int)d[4]); break;
  }
  return cpu_now() - t;
}

/* Returns the slowdown against the C loop (0: not run). */
static double run_case(dg_module *mod, const bench_case *b)
{
  dg_func *k = fe_find(mod, b->kernel);
  if (!k) { printf("%-10s %-14s  kernel missing\n", b->name, b->size); return 0; }
  float *h[4];
  for (int i = 0; i < b->nbufs; i++) {
    h[i] = malloc((size_t)b->bytes[i]);
    fill(h[i], b->bytes[i] / 4, (unsigned)i);
  }
  simt *m = simt_new(NULL);
  simt_arg args[10];
  int na = 0;
  for (int i = 0; i < b->nbufs; i++) {
    int id = simt_buf_new(m, "b", NULL, b->bytes[i], i ? SIMT_BUF_INIT | (RO ? SIMT_BUF_READONLY : 0) : 0);
    if (i) simt_buf_write(m, id, 0, h[i], b->bytes[i]);
    args[na++] = (simt_arg){ .kind = SIMT_ARG_BUF, .buf = id };
  }
  for (int i = 0; i < b->nints; i++) args[na++] = (simt_arg){ .kind = SIMT_ARG_INT, .i = b->ints[i] };
  if (b->has_float) args[na++] = (simt_arg){ .kind = SIMT_ARG_FLOAT, .f = b->fl };
  simt_launch L = { .grid = { b->grid[0], b->grid[1], b->grid[2] }, .block = { b->block[0], b->block[1], b->block[2] } };
  double te[RUNS_MAX], tc[RUNS_MAX];
  uint64_t ops = 0;
  size_t nev = 0;
  for (int r = 0; r < RUNS; r++) {
    double t = cpu_now();
    simt_run(m, k, &L, args, na);
    te[r] = cpu_now() - t;
    ops = simt_last_stats(m).lane_ops;
    simt_events(m, &nev);
  }
  float *ref = malloc((size_t)b->bytes[0]), *got = malloc((size_t)b->bytes[0]);
  float *hc[4] = { ref, h[1], h[2], h[3] };
  for (int r = 0; r < RUNS; r++) tc[r] = run_c(b, hc);
  simt_buf_read(m, 1, 0, got, b->bytes[0]);
  double err = 0;
  for (int64_t i = 0; i < b->bytes[0] / 4; i++) err = fmax(err, fabs((double)got[i] - ref[i]));
  double me = median(te, RUNS), mc = median(tc, RUNS);
  uint32_t hash = 2166136261u;      /* FNV-1a of the output: changes to the engine keep it bit-identical */
  for (int64_t i = 0; i < b->bytes[0]; i++) hash = (hash ^ ((const uint8_t *)got)[i]) * 16777619u;
  printf("%-10s %-16s %10.2f %12.1f %10.1f %10.4f %8.0fx %9.1e %4zu %08x\n", b->name, b->size, me * 1e3,
         (double)ops / 1e6, (double)ops / me / 1e6, mc * 1e3, me / mc, err, nev, hash);
  free(ref), free(got);
  for (int i = 0; i < b->nbufs; i++) free(h[i]);
  simt_free(m);
  return me / mc;
}

int main(int argc, char **argv)
{
  /* --quick: the small sizes only; any other argument: only that kernel */
  bool quick = false;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--ro")) RO = true;
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
      RUNS = atoi(argv[++i]);
      if (RUNS < 1 || RUNS > RUNS_MAX) { fprintf(stderr, "simt_bench: --runs takes 1..%d\n", RUNS_MAX); return 2; }
    }
    else only = argv[i];
  }
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  uint32_t f = dg_srcmgr_add(&sm, "bench.cu", dg_strdup(src), sizeof src - 1);
  dg_diags d = {0};
  dg_module *mod = fe_load_file(&sm, f, NULL, &d);
  if (!mod || d.nerrors) { dg_diags_print(stderr, &sm, &d); return 1; }
  dg_diags_free(&d);
  const bench_case cases[] = {
    { "axpb", "64K", "axpb", { 256, 1, 1 }, { 256, 1, 1 }, 2, { 65536 * 4, 65536 * 4 }, 1, { 65536 }, .ctype = 4, .dims = { 65536 } },
    { "axpb", "4M", "axpb", { 16384, 1, 1 }, { 256, 1, 1 }, 2, { 4194304 * 4, 4194304 * 4 }, 1, { 4194304 }, .ctype = 4, .dims = { 4194304 } },
    { "softmax", "64x256", "softmax_warp", { 16, 1, 1 }, { 128, 1, 1 }, 2, { 64 * 256 * 4, 64 * 256 * 4 }, 2, { 64, 256 }, .ctype = 0, .dims = { 64, 256 } },
    { "softmax", "1024x1024", "softmax_warp", { 256, 1, 1 }, { 128, 1, 1 }, 2, { 1024 * 1024 * 4, 1024 * 1024 * 4 }, 2, { 1024, 1024 }, .ctype = 0, .dims = { 1024, 1024 } },
    { "layernorm", "64x256", "layernorm", { 64, 1, 1 }, { 256, 1, 1 }, 4, { 64 * 256 * 4, 64 * 256 * 4, 256 * 4, 256 * 4 }, 1, { 256 }, true, 1e-5, 1, { 64, 256 } },
    { "layernorm", "1024x1024", "layernorm", { 1024, 1, 1 }, { 256, 1, 1 }, 4, { 1024 * 1024 * 4, 1024 * 1024 * 4, 1024 * 4, 1024 * 4 }, 1, { 1024 }, true, 1e-5, 1, { 1024, 1024 } },
    { "matmul", "64x64x64", "matmul", { 4, 4, 1 }, { 16, 16, 1 }, 3, { 64 * 64 * 4, 64 * 64 * 4, 64 * 64 * 4 }, 3, { 64, 64, 64 }, .ctype = 2, .dims = { 64, 64, 64 } },
    { "matmul", "256x256x256", "matmul", { 16, 16, 1 }, { 16, 16, 1 }, 3, { 256 * 256 * 4, 256 * 256 * 4, 256 * 256 * 4 }, 3, { 256, 256, 256 }, .ctype = 2, .dims = { 256, 256, 256 } },
    { "conv2d", "1x8x18x18->8", "conv2d", { 1, 16, 8 }, { 32, 1, 1 }, 3, { 8 * 16 * 16 * 4, 8 * 18 * 18 * 4, 8 * 8 * 9 * 4 }, 4, { 8, 18, 18, 8 }, .ctype = 3, .dims = { 1, 8, 18, 18, 8 } },
    { "conv2d", "4x32x34x34->32", "conv2d", { 1, 32, 128 }, { 32, 1, 1 }, 3, { 4 * 32 * 32 * 32 * 4, 4 * 32 * 34 * 34 * 4, 32 * 32 * 9 * 4 }, 4, { 32, 34, 34, 32 }, .ctype = 3, .dims = { 4, 32, 34, 34, 32 } },
  };
  printf("SIMT engine benchmark (concrete domain, detections on; median of %d runs, thread CPU time%s)\n", RUNS,
         RO ? "; inputs read-only" : "");
  printf("%-10s %-16s %10s %12s %10s %10s %9s %9s %4s %8s\n", "kernel", "size", "emu ms", "Mthr-instr",
         "Mti/s", "C ms", "slowdown", "max err", "ev", "out hash");
  int rows = 0, within = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if ((quick && i % 2) || (only && strcmp(only, cases[i].name))) continue;
    double sd = run_case(mod, &cases[i]);
    rows += sd > 0, within += sd > 0 && sd <= 20;
  }
  printf("target (issue #3): within 20x of the C loop in %d of %d rows\n", within, rows);
  fe_module_free(mod);
  dg_srcmgr_free(&sm);
  return 0;
}
