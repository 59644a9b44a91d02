/* simt_struct.c — struct values in the SIMT engine, from CUDA source: the
 * online softmax (a struct carried through a warp reduction, each field
 * shuffled), byte-exact layout in memory (padding, doubles, chars) read back
 * through reinterpret_cast, copies through shared memory, structs through
 * device functions by value and by reference, dynamically indexed local
 * arrays of structs and struct members, races and uninitialised reads per
 * field, and both-way branches merged slot by slot under guards (a domain
 * that answers DOM_BOTH everywhere must give the concrete results, and no
 * struct type ever reaches a domain). */
#include "simt.h"
#include "fe.h"
#include "../tap.h"
#include <math.h>
#include <stddef.h>

static dg_srcmgr sm;

static dg_module *load(const char *name, const char *src)
{
  uint32_t f = dg_srcmgr_add(&sm, name, dg_strdup(src), strlen(src));
  dg_diags d = {0};
  dg_module *m = fe_load_file(&sm, f, NULL, &d);
  if (d.v.n) dg_diags_print(stdout, &sm, &d);
  dg_diags_free(&d);
  return m;
}

static simt_arg abuf(int b) { return (simt_arg){ .kind = SIMT_ARG_BUF, .buf = b }; }
static simt_arg aint(int64_t v) { return (simt_arg){ .kind = SIMT_ARG_INT, .i = v }; }
static int count_ev(simt *m, simt_evkind k)
{
  size_t n;
  const simt_event *e = simt_events(m, &n);
  int c = 0;
  for (size_t i = 0; i < n; i++) if (e[i].kind == k) c++;
  return c;
}
static int nevents(simt *m) { size_t n; simt_events(m, &n); return (int)n; }

/* ---- online softmax ------------------------------------------------------------- */
static const char online_src[] =
  "struct MD { float m, d; };\n"
  "__device__ MD md_merge(MD a, MD b) {\n"
  "  const float m = fmaxf(a.m, b.m);\n"
  "  const float da = a.m == -INFINITY ? 0.0f : a.d * expf(a.m - m);\n"
  "  const float db = b.m == -INFINITY ? 0.0f : b.d * expf(b.m - m);\n"
  "  return MD{m, da + db};\n"
  "}\n"
  "__global__ void softmax_online(float *y, const float *x, int N, int C) {\n"
  "  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;\n"
  "  if (row >= N) return;\n"
  "  const float *xr = x + (size_t)row * C;\n"
  "  MD acc{-INFINITY, 0.0f};\n"
  "  for (int c = lane; c < C; c += 32) acc = md_merge(acc, {xr[c], 1.0f});\n"
  "  for (int o = 16; o > 0; o >>= 1) {\n"
  "    MD other;\n"
  "    other.m = __shfl_xor_sync(0xffffffffu, acc.m, o);\n"
  "    other.d = __shfl_xor_sync(0xffffffffu, acc.d, o);\n"
  "    acc = md_merge(acc, other);\n"
  "  }\n"
  "  for (int c = lane; c < C; c += 32) y[(size_t)row * C + c] = expf(xr[c] - acc.m) / acc.d;\n"
  "}\n";

static void test_online_softmax(void)
{
  dg_module *mod = load("online.cu", online_src);
  dg_func *k = mod ? fe_find(mod, "softmax_online") : NULL;
  ok(k != NULL, "softmax_online lowered");
  if (!k) { fe_module_free(mod); return; }
  enum { N = 5, C = 70 };
  float x[N * C], y[N * C];
  for (int i = 0; i < N * C; i++) x[i] = sinf((float)i * 0.7f) * 6;
  simt *m = simt_new(NULL);
  int yb = simt_buf_new(m, "y", NULL, sizeof y, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { N }, .block = { 32 } };
  simt_arg a[] = { abuf(yb), abuf(xb), aint(N), aint(C) };
  is_int(simt_run(m, k, &L, a, 4), SIMT_OK, "softmax_online runs");
  simt_buf_read(m, yb, 0, y, sizeof y);
  double err = 0;
  for (int r = 0; r < N; r++) {
    double mx = -INFINITY, s = 0;
    for (int c = 0; c < C; c++) mx = fmax(mx, x[r * C + c]);
    for (int c = 0; c < C; c++) s += exp(x[r * C + c] - mx);
    for (int c = 0; c < C; c++) err = fmax(err, fabs(y[r * C + c] - exp(x[r * C + c] - mx) / s));
  }
  ok(err < 1e-6, "online softmax matches the two-pass reference (max error %g)", err);
  is_int(nevents(m), 0, "online softmax: no events");
  simt_free(m);
  fe_module_free(mod);
}

/* ---- layout in memory ------------------------------------------------------------------ */
typedef struct { char c; double x; float f; int16_t s; } hrec;   /* as nvcc lays out struct R */
typedef struct { float m, d; } hmd;

static const char layout_src[] =
  "struct R { char c; double x; float f; short s; };\n"
  "struct MD { float m, d; };\n"
  "__global__ void fill(R *out, float *back, int n) {\n"
  "  int i = threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  R r = {(char)(i + 1), 0.5 * i, 2.0f * i, (short)(-i)};\n"
  "  out[i] = r;\n"
  "  const MD *p = reinterpret_cast<const MD *>(back);\n"
  "  MD v = p[i];\n"
  "  back[2 * n + i] = v.m * 10.0f + v.d;\n"
  "  R *q = &out[n + i];\n"
  "  q->c = r.c; q->x = r.x; q->f = r.f; q->s = r.s;\n"
  "  R z = *q;\n"
  "  out[i].f += z.f - r.f;\n"
  "}\n";

static void test_layout(void)
{
  dg_module *mod = load("layout.cu", layout_src);
  dg_func *k = mod ? fe_find(mod, "fill") : NULL;
  ok(k != NULL, "layout kernel lowered");
  if (!k) { fe_module_free(mod); return; }
  ok(mod->structs.n == 2 && dg_type_size(mod->structs.v[0]) == (int64_t)sizeof(hrec), "struct R is %zu bytes as on the host", sizeof(hrec));
  enum { n = 6 };
  float back[3 * n];
  hmd src[n];
  for (int i = 0; i < n; i++) src[i] = (hmd){ (float)i, 0.25f * i };
  memcpy(back, src, sizeof src);
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "out", NULL, 2 * n * sizeof(hrec), 0);
  int bb = simt_buf_new(m, "back", NULL, sizeof back, 0);
  simt_buf_write(m, bb, 0, back, 2 * n * sizeof(float));
  simt_launch L = { .grid = { 1 }, .block = { 32 } };
  simt_arg a[] = { abuf(ob), abuf(bb), aint(n) };
  is_int(simt_run(m, k, &L, a, 3), SIMT_OK, "layout kernel runs");
  hrec out[2 * n];
  simt_buf_read(m, ob, 0, out, sizeof out);
  bool same = true;
  for (int i = 0; i < n; i++) {
    same &= out[i].c == i + 1 && out[i].x == 0.5 * i && out[i].f == 2.0f * i && out[i].s == -i;
    same &= !memcmp(&out[i].c, &out[n + i].c, 1) && out[n + i].x == out[i].x && out[n + i].f == out[i].f && out[n + i].s == out[i].s;
  }
  ok(same, "whole-struct and field-by-field stores put every field at nvcc's offset");
  ok(simt_buf_is_init(m, ob, offsetof(hrec, x)) && !simt_buf_is_init(m, ob, 1) && !simt_buf_is_init(m, ob, sizeof(hrec) - 1),
     "a whole-struct store writes fields, not padding");
  simt_buf_read(m, bb, 0, back, sizeof back);
  bool rd = true;
  for (int i = 0; i < n; i++) rd &= back[2 * n + i] == 10.0f * i + 0.25f * i;
  ok(rd, "floats read back as structs through reinterpret_cast");
  is_int(nevents(m), 0, "layout: no events (copying a struct skips its padding)");
  simt_free(m);
  fe_module_free(mod);
}

/* narrow members: a half, a bool and a char packed in 4 bytes */
static void test_narrow(void)
{
  dg_module *mod = load("narrow.cu",
    "struct HB { __half h; bool b; signed char c; };\n"
    "__global__ void k(HB *out, const HB *in) {\n"
    "  HB v = in[threadIdx.x];\n"
    "  HB w = {__float2half(__half2float(v.h) * 2.0f), !v.b, (signed char)(v.c - 1)};\n"
    "  out[threadIdx.x] = w;\n"
    "}\n");
  dg_func *k = mod ? fe_find(mod, "k") : NULL;
  ok(k && mod->structs.n == 1 && dg_type_size(mod->structs.v[0]) == 4, "struct of a half, a bool and a char is 4 bytes");
  if (!k) { fe_module_free(mod); return; }
  uint8_t in[8] = { 0x00, 0x3e, 1, 5, 0x00, 0xc0, 0, 0x80 };   /* {1.5, true, 5}, {-2, false, -128} */
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "out", NULL, 8, 0), ib = simt_buf_new(m, "in", NULL, 8, SIMT_BUF_INIT);
  simt_buf_write(m, ib, 0, in, 8);
  simt_launch L = { .grid = { 1 }, .block = { 2 } };
  simt_arg a[] = { abuf(ob), abuf(ib) };
  is_int(simt_run(m, k, &L, a, 2), SIMT_OK, "narrow-member kernel runs");
  uint8_t out[8];
  simt_buf_read(m, ob, 0, out, 8);
  static const uint8_t want[8] = { 0x00, 0x42, 0, 4, 0x00, 0xc4, 1, 0x7f };   /* {3, false, 4}, {-4, true, 127} */
  ok(!memcmp(out, want, 8), "f16 bits, bool and char at their offsets (got %02x %02x %02x %02x %02x %02x %02x %02x)",
     out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]);
  simt_free(m);
  fe_module_free(mod);
}

/* ---- copies, calls, references, local arrays ---------------------------------------------------- */
static const char calls_src[] =
  "struct W { float mean, m2; int n; };\n"
  "struct H { float v[4]; int k; };\n"
  "__device__ W push(W a, float x) { a.n++; float d = x - a.mean; a.mean += d / a.n; a.m2 += d * (x - a.mean); return a; }\n"
  "__device__ void twice(W &w) { w.mean *= 2; w.n = w.n * 2; }\n"
  "__device__ float sum(const H &h) { float s = 0; for (int i = 0; i < 4; i++) s += h.v[i]; return s + h.k; }\n"
  "__global__ void k(float *y, const float *x, int n) {\n"
  "  __shared__ W s[64];\n"
  "  int t = threadIdx.x;\n"
  "  W w = {};\n"
  "  for (int i = 0; i < n; i++) w = push(w, x[t * n + i]);\n"
  "  s[t] = w;\n"
  "  __syncthreads();\n"
  "  W o = s[t ^ 1];\n"
  "  twice(o);\n"
  "  W arr[3] = {{1, 2, 3}, {4, 5, 6}};\n"
  "  arr[t % 3].m2 += 1;\n"
  "  H h;\n"
  "  for (int i = 0; i < 4; i++) h.v[(i + t) % 4] = i * t;\n"
  "  h.k = t;\n"
  "  y[t * 6 + 0] = w.mean;\n"
  "  y[t * 6 + 1] = w.m2 / (w.n - 1);\n"
  "  y[t * 6 + 2] = o.mean;\n"
  "  y[t * 6 + 3] = o.n + push(w, 0.0f).n - (n + 1) + W{1, 2, 3}.n - 3;\n"
  "  y[t * 6 + 4] = arr[t % 3].m2 + arr[2].n;\n"
  "  y[t * 6 + 5] = sum(h);\n"
  "}\n";

static void test_calls(void)
{
  dg_module *mod = load("calls.cu", calls_src);
  dg_func *k = mod ? fe_find(mod, "k") : NULL;
  ok(k != NULL, "Welford kernel lowered");
  if (!k) { fe_module_free(mod); return; }
  enum { T = 64, n = 5 };
  float x[T * n], y[T * 6];
  for (int i = 0; i < T * n; i++) x[i] = cosf((float)i) * 3 + (float)(i % 7);
  simt *m = simt_new(NULL);
  int yb = simt_buf_new(m, "y", NULL, sizeof y, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { 1 }, .block = { T } };
  simt_arg a[] = { abuf(yb), abuf(xb), aint(n) };
  is_int(simt_run(m, k, &L, a, 3), SIMT_OK, "Welford kernel runs");
  is_int(nevents(m), 0, "Welford kernel: no events");
  simt_buf_read(m, yb, 0, y, sizeof y);
  double emean = 0, evar = 0;
  bool okcopy = true, okarr = true, oksum = true;
  for (int t = 0; t < T; t++) {
    double mu = 0, v = 0;
    for (int i = 0; i < n; i++) mu += x[t * n + i];
    mu /= n;
    for (int i = 0; i < n; i++) v += (x[t * n + i] - mu) * (x[t * n + i] - mu);
    v /= n - 1;
    emean = fmax(emean, fabs(y[t * 6] - mu));
    evar = fmax(evar, fabs(y[t * 6 + 1] - v));
    okcopy &= y[t * 6 + 2] == 2 * y[(t ^ 1) * 6] && y[t * 6 + 3] == 2 * n;
    float m2s[3] = { 2, 5, 0 };
    okarr &= y[t * 6 + 4] == m2s[t % 3] + 1 + 0;
    oksum &= y[t * 6 + 5] == (float)(6 * t + t);
  }
  ok(emean < 1e-5 && evar < 1e-4, "Welford through a struct returned by value (mean error %g, variance error %g)", emean, evar);
  ok(okcopy, "struct copied through shared memory, then changed through a reference");
  ok(okarr, "local array of structs: initialiser list, zero tail, dynamic index");
  ok(oksum, "struct with an array member, indexed dynamically, passed by const reference");
  simt_free(m);
  fe_module_free(mod);
}

/* ---- templates over structs; typedef'd structs ---------------------------------------------- */
static const char tmpl_src[] =
  "typedef struct { float v; int i; } VI;\n"
  "template <typename T> __device__ T better(const T &a, const T &b) { return b.v > a.v ? b : a; }\n"
  "template <typename T> __global__ void argmax(int *out, const float *x, int n) {\n"
  "  T best = {x[threadIdx.x], (int)threadIdx.x};\n"
  "  for (int j = threadIdx.x + 32; j < n; j += 32) best = better<T>(best, T{x[j], j});\n"
  "  for (int o = 16; o > 0; o >>= 1) {\n"
  "    T other = {__shfl_down_sync(0xffffffffu, best.v, o), __shfl_down_sync(0xffffffffu, best.i, o)};\n"
  "    best = better(best, other);\n"
  "  }\n"
  "  if (threadIdx.x == 0) out[0] = best.i;\n"
  "}\n";

static void test_template(void)
{
  dg_module *mod = load("tmpl.cu", tmpl_src);
  dg_diags d = { 0 };
  dg_func *k = mod ? fe_instantiate(mod, "argmax<VI>", &d) : NULL;
  dg_diags_free(&d);
  ok(k != NULL, "argmax<VI> instantiated over a typedef'd struct");
  if (!k) { fe_module_free(mod); return; }
  enum { n = 100 };
  float x[n];
  for (int i = 0; i < n; i++) x[i] = sinf(i * 1.3f) * 10;
  int want = 0;
  for (int i = 1; i < n; i++) if (x[i] > x[want]) want = i;
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "out", NULL, 4, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { 1 }, .block = { 32 } };
  simt_arg a[] = { abuf(ob), abuf(xb), aint(n) };
  is_int(simt_run(m, k, &L, a, 3), SIMT_OK, "argmax<VI> runs");
  int got = -1;
  simt_buf_read(m, ob, 0, &got, 4);
  is_int(got, want, "argmax through a templated struct compare and per-field shuffles");
  simt_free(m);
  fe_module_free(mod);
}

/* ---- atomics on members ---------------------------------------------------------------------- */
static const char atom_src[] =
  "struct Acc { float sum; int n; unsigned int hist[4]; };\n"
  "__global__ void acc(Acc *a, const float *x) {\n"
  "  __shared__ Acc s;\n"
  "  if (threadIdx.x == 0) s = Acc{};\n"
  "  __syncthreads();\n"
  "  float v = x[threadIdx.x];\n"
  "  atomicAdd(&s.sum, v);\n"
  "  atomicAdd(&s.n, 1);\n"
  "  atomicAdd(&s.hist[threadIdx.x % 4], 1u);\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x == 0) *a = s;\n"
  "}\n";

static void test_atomics(void)
{
  dg_module *mod = load("atom.cu", atom_src);
  dg_func *k = mod ? fe_find(mod, "acc") : NULL;
  ok(k != NULL, "atomics kernel lowered");
  if (!k) { fe_module_free(mod); return; }
  enum { T = 64 };
  float x[T], want = 0;
  for (int i = 0; i < T; i++) x[i] = (float)(i % 9), want += x[i];
  simt *m = simt_new(NULL);
  struct { float sum; int32_t n; uint32_t hist[4]; } got;
  int ab = simt_buf_new(m, "a", NULL, sizeof got, 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { 1 }, .block = { T } };
  simt_arg a[] = { abuf(ab), abuf(xb) };
  is_int(simt_run(m, k, &L, a, 2), SIMT_OK, "atomics kernel runs");
  is_int(nevents(m), 0, "atomics on members of a shared struct: no events");
  simt_buf_read(m, ab, 0, &got, sizeof got);
  ok(got.sum == want && got.n == T && got.hist[0] == T / 4 && got.hist[3] == T / 4,
     "atomicAdd on a float member, an int member and an array member element");
  simt_free(m);
  fe_module_free(mod);
}

/* ---- races and uninitialised reads, per field --------------------------------------------- */
static const char race_src[] =
  "struct MD { float m, d; };\n"
  "__global__ void fields(float *y) {\n"
  "  __shared__ MD s[2];\n"
  "  int t = threadIdx.x;\n"
  "  if (t == 0) s[0].m = 1.0f;\n"
  "  if (t == 1) s[0].d = 2.0f;\n"
  "  __syncthreads();\n"
  "  if (t == 0) y[0] = s[0].m + s[0].d;\n"
  "}\n"
  "__global__ void same(float *y) {\n"
  "  __shared__ MD s[2];\n"
  "  int t = threadIdx.x;\n"
  "  s[0].d = (float)t;\n"
  "  __syncthreads();\n"
  "  y[t] = s[0].d;\n"
  "}\n"
  "__global__ void half(float *y) {\n"
  "  __shared__ MD s[32];\n"
  "  s[threadIdx.x].m = 1.0f;\n"
  "  __syncthreads();\n"
  "  MD v = s[threadIdx.x];\n"
  "  y[threadIdx.x] = v.m;\n"
  "}\n";

static void test_races(void)
{
  dg_module *mod = load("race.cu", race_src);
  dg_func *f1 = mod ? fe_find(mod, "fields") : NULL, *f2 = mod ? fe_find(mod, "same") : NULL, *f3 = mod ? fe_find(mod, "half") : NULL;
  ok(f1 && f2 && f3, "race kernels lowered");
  if (!f1 || !f2 || !f3) { fe_module_free(mod); return; }
  simt *m = simt_new(NULL);
  int yb = simt_buf_new(m, "y", NULL, 32 * sizeof(float), 0);
  simt_launch L = { .grid = { 1 }, .block = { 32 } };
  simt_arg a[] = { abuf(yb) };
  is_int(simt_run(m, f1, &L, a, 1), SIMT_OK, "two threads write two fields of one struct");
  is_int(count_ev(m, SIMT_EV_RACE), 0, "different fields of one element do not race");
  float y0;
  simt_buf_read(m, yb, 0, &y0, 4);
  ok(y0 == 3.0f, "both fields landed");
  simt_run(m, f2, &L, a, 1);
  is_int(count_ev(m, SIMT_EV_RACE), 1, "threads writing the same field race");
  simt_run(m, f3, &L, a, 1);
  is_int(count_ev(m, SIMT_EV_UNINIT), 1, "copying a struct with an unwritten field reads uninitialised memory");
  simt_free(m);
  fe_module_free(mod);
}

/* ---- both-way branches: selects of structs, slot by slot ---------------------------------- */
/* The concrete domain, but every branch answers DOM_BOTH, and any type that
 * is not a scalar or pointer reaching the domain is counted. */
static dom both;
static int nonscalar, nboth;
static bool scalar_ty(const dg_type *t) { return t->kind > DG_TY_VOID && t->kind <= DG_TY_PTR; }
static void b_select(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const dom_val *c, const dom_val *a, const dom_val *b)
{
  nonscalar += !scalar_ty(t);
  dom_concrete()->select(d, t, n, m, dst, c, a, b);
}
static void b_branch(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *c, uint8_t *out)
{
  (void)d, (void)t, (void)c;
  for (int i = 0; i < n; i++) if (m[i]) out[i] = DOM_BOTH, nboth++;
}
static void b_load(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, dom_mem *const *mem, const int64_t *off)
{
  nonscalar += !scalar_ty(t);
  dom_concrete()->load(d, t, n, m, dst, mem, off);
}
static void b_store(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src, dom_mem *const *mem, const int64_t *off)
{
  nonscalar += !scalar_ty(t);
  dom_concrete()->store(d, t, n, m, src, mem, off);
}
static void b_const_int(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const int64_t *src)
{
  nonscalar += !scalar_ty(t);
  dom_concrete()->const_int(d, t, n, m, dst, src);
}
static void b_const_float(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, double f)
{
  nonscalar += !scalar_ty(t);
  dom_concrete()->const_float(d, t, n, m, dst, f);
}

static const char merge_src[] =
  "struct P { float a; int b; double c; };\n"
  "__device__ P swapped(P p) { return P{(float)p.b, (int)p.a, -p.c}; }\n"
  "__global__ void k(float *y, const float *x, P *out) {\n"
  "  int t = threadIdx.x;\n"
  "  P p = {x[t], t, 0.5 * t};\n"
  "  P q = {};\n"
  "  if (x[t] > 0.0f) q = p; else q = swapped(p);\n"
  "  P r = x[t] < 1.0f ? q : P{1.0f, 2, 3.0};\n"
  "  if (t % 3 == 0) out[t] = r; else out[t].b = -1;\n"
  "  y[t] = r.a + r.b + (float)r.c + q.a;\n"
  "}\n";

typedef struct { float a; int32_t b; double c; } hp;

static void run_merge(dom *d, dg_func *k, float *y, hp *out)
{
  enum { T = 32 };
  float x[T];
  for (int i = 0; i < T; i++) x[i] = (float)(i % 5) - 2.0f + 0.25f * (float)(i % 2);
  simt *m = simt_new(d);
  int yb = simt_buf_new(m, "y", NULL, T * sizeof(float), 0), xb = simt_buf_new(m, "x", NULL, sizeof x, SIMT_BUF_INIT);
  int ob = simt_buf_new(m, "out", NULL, T * sizeof(hp), SIMT_BUF_INIT);
  simt_buf_write(m, xb, 0, x, sizeof x);
  simt_launch L = { .grid = { 1 }, .block = { T } };
  simt_arg a[] = { abuf(yb), abuf(xb), abuf(ob) };
  is_int(simt_run(m, k, &L, a, 3), SIMT_OK, "%s: merge kernel runs", d ? "both-way domain" : "concrete");
  is_int(nevents(m), 0, "%s: no events", d ? "both-way domain" : "concrete");
  simt_buf_read(m, yb, 0, y, T * sizeof(float));
  simt_buf_read(m, ob, 0, out, T * sizeof(hp));
  simt_free(m);
}

static void test_merge(void)
{
  dg_module *mod = load("merge.cu", merge_src);
  dg_func *k = mod ? fe_find(mod, "k") : NULL;
  ok(k != NULL, "merge kernel lowered");
  if (!k) { fe_module_free(mod); return; }
  both = *dom_concrete();
  both.name = "both";
  both.branch = b_branch, both.select = b_select, both.load = b_load, both.store = b_store;
  both.const_int = b_const_int, both.const_float = b_const_float;
  both.free = NULL;
  float yc[32], yb[32];
  hp oc[32], ob[32];
  run_merge(NULL, k, yc, oc);
  run_merge(&both, k, yb, ob);
  ok(nboth > 0, "the domain answered DOM_BOTH (%d lanes)", nboth);
  ok(!memcmp(yc, yb, sizeof yc), "struct values merged under guards equal the concrete run");
  bool same = true;
  for (int i = 0; i < 32; i++) same &= oc[i].a == ob[i].a && oc[i].b == ob[i].b && oc[i].c == ob[i].c;
  ok(same, "guarded struct stores equal the concrete run, field by field");
  bool ref = true;                 /* the kernel by hand */
  for (int t = 0; t < 32; t++) {
    float x = (float)(t % 5) - 2.0f + 0.25f * (float)(t % 2);
    hp p = { x, t, 0.5 * t }, q = x > 0.0f ? p : (hp){ (float)p.b, (int)p.a, -p.c };
    hp r = x < 1.0f ? q : (hp){ 1.0f, 2, 3.0 };
    ref &= yc[t] == r.a + (float)r.b + (float)r.c + q.a;
    if (t % 3 == 0) ref &= oc[t].a == r.a && oc[t].b == r.b && oc[t].c == r.c;
    else ref &= oc[t].a == 0 && oc[t].b == -1 && oc[t].c == 0;
  }
  ok(ref, "and both equal the kernel computed by hand");
  is_int(nonscalar, 0, "no struct type reached the domain");
  fe_module_free(mod);
}

int main(void)
{
  dg_srcmgr_init(&sm);
  test_online_softmax();
  test_layout();
  test_narrow();
  test_calls();
  test_template();
  test_atomics();
  test_races();
  test_merge();
  dg_srcmgr_free(&sm);
  return tap_done();
}
