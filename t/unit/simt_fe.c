/* simt_fe.c — the SIMT engine on real CUDA source through the front end:
 * warp softmax, tiled matmul, float4 GELU with a tail, a block reduction
 * missing a barrier (race at its line), templates, events formatted
 * with file:line:col, and registers that hold one value in every lane only
 * some of the time (the uniform-value fast path must notice every write). */
#include "simt.h"
#include "fe.h"
#include "../tap.h"
#include <math.h>

static dg_srcmgr sm;

static dg_module *load(const char *name, const char *src)
{
  uint32_t f = dg_srcmgr_add(&sm, name, dg_strdup(src), strlen(src));
  dg_diags d = {0};
  dg_module *m = fe_load_file(&sm, f, NULL, &d);
  if (d.nerrors) dg_diags_print(stdout, &sm, &d);
  dg_diags_free(&d);
  return m;
}

static simt_arg abuf(int b) { return (simt_arg){ .kind = SIMT_ARG_BUF, .buf = b }; }
static simt_arg aint(int64_t v) { return (simt_arg){ .kind = SIMT_ARG_INT, .i = v }; }
static int nevents(simt *m) { size_t n; simt_events(m, &n); return (int)n; }
static const simt_event *find_ev(simt *m, simt_evkind k)
{
  size_t n;
  const simt_event *e = simt_events(m, &n);
  for (size_t i = 0; i < n; i++) if (e[i].kind == k) return &e[i];
  return NULL;
}

static const char softmax_src[] =
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
  "}\n";

static void test_softmax(void)
{
  dg_module *mod = load("softmax.cu", softmax_src);
  dg_func *k = mod ? fe_find(mod, "softmax_warp") : NULL;
  ok(k != NULL, "softmax_warp lowered");
  if (!k) { if (mod) fe_module_free(mod); return; }
  enum { N = 7, C = 45 };
  float x[N * C], y[N * C];
  for (int i = 0; i < N * C; i++) x[i] = sinf((float)i) * 4;
  simt *m = simt_new(NULL);
  int yb = simt_buf_new(m, "y", NULL, sizeof y, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { (N + 3) / 4 }, .block = { 128 } };
  simt_arg a[] = { abuf(yb), abuf(xb), aint(N), aint(C) };
  is_int(simt_run(m, k, &L, a, 4), SIMT_OK, "softmax runs");
  simt_buf_read(m, yb, 0, y, sizeof y);
  double err = 0;
  for (int r = 0; r < N; r++) {
    double mx = -INFINITY, s = 0;
    for (int c = 0; c < C; c++) mx = fmax(mx, x[r * C + c]);
    for (int c = 0; c < C; c++) s += exp(x[r * C + c] - mx);
    for (int c = 0; c < C; c++) err = fmax(err, fabs(y[r * C + c] - exp(x[r * C + c] - mx) / s));
  }
  ok(err < 1e-6, "softmax matches the reference (max error %g)", err);
  is_int(nevents(m), 0, "softmax: no events");
  simt_free(m);
  fe_module_free(mod);
}

static const char matmul_src[] =
  "#define TILE 16\n"
  "__global__ void mm(float *C, const float *A, const float *B, int M, int N, int K)\n"
  "{\n"
  "  __shared__ float As[TILE][TILE];\n"
  "  __shared__ float Bs[TILE][TILE + 1];\n"
  "  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;\n"
  "  float acc = 0.0f;\n"
  "  for (int k0 = 0; k0 < K; k0 += TILE) {\n"
  "    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;\n"
  "    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;\n"
  "    __syncthreads();\n"
  "#pragma unroll\n"
  "    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (row < M && col < N) C[row * N + col] = acc;\n"
  "}\n";

static void test_matmul(bool sync)
{
  char *src = dg_strdup(matmul_src);
  char *p = strstr(strstr(src, "__syncthreads") + 1, "__syncthreads");
  if (!sync) memset(p, ' ', 16);      /* drop the barrier after the tile's use */
  dg_module *mod = load(sync ? "mm.cu" : "mm_race.cu", src);
  free(src);
  dg_func *k = mod ? fe_find(mod, "mm") : NULL;
  ok(k != NULL, "tiled matmul lowered");
  if (!k) { if (mod) fe_module_free(mod); return; }
  enum { M = 19, N = 21, K = 35 };
  float A[M * K], Bm[K * N], Cm[M * N];
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 11) - 5;
  for (int i = 0; i < K * N; i++) Bm[i] = (float)((i * 5) % 13) * 0.25f;
  simt *m = simt_new(NULL);
  int cb = simt_buf_new(m, "C", NULL, sizeof Cm, 0), ab = simt_buf_new(m, "A", NULL, sizeof A, SIMT_BUF_INIT);
  int bb = simt_buf_new(m, "B", NULL, sizeof Bm, SIMT_BUF_INIT);
  simt_buf_write(m, ab, 0, A, sizeof A);
  simt_buf_write(m, bb, 0, Bm, sizeof Bm);
  simt_launch L = { .grid = { (N + 15) / 16, (M + 15) / 16 }, .block = { 16, 16 } };
  simt_arg a[] = { abuf(cb), abuf(ab), abuf(bb), aint(M), aint(N), aint(K) };
  simt_run(m, k, &L, a, 6);
  if (sync) {
    simt_buf_read(m, cb, 0, Cm, sizeof Cm);
    bool exact = true;
    for (int r = 0; r < M; r++)
      for (int c = 0; c < N; c++) {
        float acc = 0;
        for (int kk = 0; kk < (K + 15) / 16 * 16; kk++) acc += (kk < K ? A[r * K + kk] : 0) * (kk < K ? Bm[kk * N + c] : 0);
        exact &= acc == Cm[r * N + c];
      }
    ok(exact, "tiled matmul: bit-exact with the same order in C");
    is_int(nevents(m), 0, "tiled matmul: no events");
  } else {
    const simt_event *e = find_ev(m, SIMT_EV_RACE);
    ok(e != NULL, "matmul without the second barrier: race");
    if (e) {
      is_int(e->span.line, 9, "race at the tile store, line 9");
      is_int(e->span2.line, 13, "against the read at line 13");
      dg_buf b = {0};
      simt_event_format(&b, &sm, e);
      has_str(b.s, "mm_race.cu:9:", "formatted with file:line:col");
      dg_buf_free(&b);
    }
  }
  simt_free(m);
  fe_module_free(mod);
}

static const char gelu_src[] =
  "#define GELU_SCALE 0.7978845608028654f\n"
  "__device__ __forceinline__ float gelu_tanh(float x)\n"
  "{\n"
  "    float cube = 0.044715f * x * x * x;\n"
  "    return 0.5f * x * (1.0f + tanhf(GELU_SCALE * (x + cube)));\n"
  "}\n"
  "__global__ void gelu_f4(float* __restrict__ y, const float* __restrict__ x, int N)\n"
  "{\n"
  "    const int nvec = N / 4;\n"
  "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "    if (i < nvec) {\n"
  "        float4 v = reinterpret_cast<const float4*>(x)[i];\n"
  "        v.x = gelu_tanh(v.x); v.y = gelu_tanh(v.y); v.z = gelu_tanh(v.z); v.w = gelu_tanh(v.w);\n"
  "        reinterpret_cast<float4*>(y)[i] = v;\n"
  "    }\n"
  "    if (i < N % 4) { const int j = nvec * 4 + i; y[j] = gelu_tanh(x[j]); }\n"
  "}\n"
  "template <int BS> __global__ void bsum(float *out, const float *x)\n"
  "{\n"
  "  __shared__ float s[BS];\n"
  "  s[threadIdx.x] = x[blockIdx.x * BS + threadIdx.x];\n"
  "  __syncthreads();\n"
  "  for (int k = BS / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (threadIdx.x == 0) out[blockIdx.x] = s[0];\n"
  "}\n";

static float gelu_ref(float x)
{
  float cube = 0.044715f * x * x * x;
  return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + cube)));
}

static void test_gelu_and_template(void)
{
  dg_module *mod = load("gelu.cu", gelu_src);
  dg_func *k = mod ? fe_find(mod, "gelu_f4") : NULL;
  ok(k != NULL, "gelu_f4 lowered");
  if (k) {
    enum { N = 103 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)i / 10 - 5;
    simt *m = simt_new(NULL);
    int yb = simt_buf_new(m, "y", NULL, sizeof y, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
    simt_buf_write(m, xb, 0, x, sizeof x);
    simt_launch L = { .grid = { 1 }, .block = { 32 } };
    simt_arg a[] = { abuf(yb), abuf(xb), aint(N) };
    simt_run(m, k, &L, a, 3);
    simt_buf_read(m, yb, 0, y, sizeof y);
    bool same = true;
    for (int i = 0; i < N; i++) same &= y[i] == gelu_ref(x[i]);
    ok(same, "float4 GELU with tail equals the C computation bit for bit");
    is_int(nevents(m), 0, "gelu: no events");
    simt_free(m);
  }
  dg_diags d = {0};
  dg_func *t = mod ? fe_instantiate(mod, "bsum<64>", &d) : NULL;
  dg_diags_free(&d);
  ok(t != NULL, "template bsum<64> instantiated");
  if (t) {
    float x[128], o[2];
    for (int i = 0; i < 128; i++) x[i] = (float)i;
    simt *m = simt_new(NULL);
    int ob = simt_buf_new(m, "o", NULL, sizeof o, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
    simt_buf_write(m, xb, 0, x, sizeof x);
    simt_launch L = { .grid = { 2 }, .block = { 64 } };
    simt_arg a[] = { abuf(ob), abuf(xb) };
    simt_run(m, t, &L, a, 2);
    simt_buf_read(m, ob, 0, o, sizeof o);
    ok(o[0] == 2016 && o[1] == 6112, "block sums by template kernel");
    is_int(nevents(m), 0, "bsum: no events");
    simt_free(m);
  }
  if (mod) fe_module_free(mod);
}

static const char misc_src[] =
  "#include <cstdio>\n"
  "#include <cassert>\n"
  "__global__ void misc(int *o, const float *x, int lim)\n"
  "{\n"
  "  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
  "  int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n"
  "  int g = b * blockDim.x * blockDim.y * blockDim.z + t;\n"
  "  printf(\"thread %d\\n\", g);\n"
  "  __threadfence();\n"
  "  float v = __ldg(&x[g % 4]);\n"
  "  o[g] = (int)(v * 10) + warpSize * 1000;\n"
  "  assert(g < lim);\n"
  "}\n";

static void test_misc(void)
{
  dg_module *mod = load("misc.cu", misc_src);
  dg_func *k = mod ? fe_find(mod, "misc") : NULL;
  ok(k != NULL, "misc lowered");
  if (!k) { if (mod) fe_module_free(mod); return; }
  float x[4] = { 0.5f, 1.5f, 2.5f, 3.5f };
  int32_t o[192];
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "o", NULL, sizeof o, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { 2, 2, 2 }, .block = { 2, 3, 4 } };
  simt_arg a[] = { abuf(ob), abuf(xb), aint(1000) };
  is_int(simt_run(m, k, &L, a, 3), SIMT_OK, "3-D grid of 3-D blocks runs");
  simt_buf_read(m, ob, 0, o, sizeof o);
  bool good = true;
  for (int g = 0; g < 192; g++) good &= o[g] == (int)(x[g % 4] * 10) + 32000;
  ok(good, "3-D thread and block ids, __ldg, warpSize, printf and fences");
  is_int(nevents(m), 0, "no events");
  a[2] = aint(100);
  simt_run(m, k, &L, a, 3);
  const simt_event *e = find_ev(m, SIMT_EV_ASSERT);
  ok(e && e->span.line == 12 && e->block == 4, "failed assert reported at line 12, first in block 4");
  simt_free(m);
  fe_module_free(mod);
}

/* Registers start uniform and lose it under divergent writes (whole, per
 * field, in loops), a retired lane no longer counts, and uniform values meet
 * per-lane ones in arithmetic, indices and branches. */
static const char uni_src[] =
  "struct One { int v; };\n"
  "__global__ void uni(int *out, const int *tab, int n)\n"
  "{\n"
  "  int s = n * 2;\n"
  "  One o{n};\n"
  "  if (threadIdx.x % 2) { s = n + 4; o.v = threadIdx.x; }\n"
  "  One p = o;\n"
  "  int t = s + n;\n"
  "  for (int i = 0; i < 2; i++) t += s;\n"
  "  if (threadIdx.x % 4 == 1) s = threadIdx.x;\n"
  "  int w = n;\n"
  "  for (int i = 0; i < 3; i++) { if (i == threadIdx.x % 3) break; w += tab[i + n]; }\n"
  "  if (threadIdx.x == 5) return;\n"
  "  int u = n + 1;\n"
  "  u = u * 2;\n"
  "  int v = u > 7 ? tab[u - 8] : -1;\n"
  "  out[threadIdx.x * 5 + 0] = t;\n"
  "  out[threadIdx.x * 5 + 1] = p.v;\n"
  "  out[threadIdx.x * 5 + 2] = u + v;\n"
  "  out[threadIdx.x * 5 + 3] = w;\n"
  "  out[threadIdx.x * 5 + 4] = tab[s % 8];\n"
  "}\n";

static void test_uniform(void)
{
  dg_module *mod = load("uni.cu", uni_src);
  dg_func *k = mod ? fe_find(mod, "uni") : NULL;
  ok(k != NULL, "uniform-value kernel lowered");
  if (!k) { if (mod) fe_module_free(mod); return; }
  enum { T = 12, n = 3 };
  int32_t o[T * 5] = { 0 }, tab[16];
  for (int i = 0; i < 16; i++) tab[i] = 100 * (i + 1);
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "o", NULL, sizeof o, SIMT_BUF_INIT), tb = simt_buf_new(m, "tab", NULL, sizeof tab, SIMT_BUF_INIT);
  simt_buf_write(m, ob, 0, o, sizeof o);
  simt_buf_write(m, tb, 0, tab, sizeof tab);
  simt_launch L = { .grid = { 1 }, .block = { T } };
  simt_arg a[] = { abuf(ob), abuf(tb), aint(n) };
  is_int(simt_run(m, k, &L, a, 3), SIMT_OK, "uniform-value kernel runs");
  simt_buf_read(m, ob, 0, o, sizeof o);
  int bad = -1;
  for (int l = 0; l < T && bad < 0; l++) {
    int s0 = l % 2 ? n + 4 : n * 2, s = l % 4 == 1 ? l : s0, w = n;
    for (int i = 0; i < 3 && i != l % 3; i++) w += tab[i + n];
    int want[5] = { 3 * s0 + n, l % 2 ? l : n, 8 + tab[0], w, tab[s % 8] };
    for (int j = 0; j < 5; j++)
      if (o[l * 5 + j] != (l == 5 ? 0 : want[j])) bad = l * 5 + j;
  }
  ok(bad < 0, "registers written under divergence keep each lane's value (first wrong slot %d)", bad);
  is_int(nevents(m), 0, "uniform-value kernel: no events");
  simt_free(m);
  fe_module_free(mod);
}

int main(void)
{
  dg_srcmgr_init(&sm);
  test_uniform();
  test_misc();
  test_softmax();
  test_matmul(true);
  test_matmul(false);
  test_gelu_and_template();
  dg_srcmgr_free(&sm);
  return tap_done();
}
