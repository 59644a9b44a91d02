/* check.c — the symbolic check end to end: small kernels and specs written to
 * a temp folder, one element checked, the verdict and its evidence tested. */
#include "check.h"
#include "lua_spec.h"
#include "../tap.h"
#include <math.h>
#include <unistd.h>

static char tmpdir[64];

static void put(const char *name, const char *text)
{
  char *path = dg_printf("%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
  free(path);
}

typedef struct { dg_problem *p; emu_kernels k; bool ok; } prob;

static bool load(prob *P, const char *spec)
{
  memset(P, 0, sizeof *P);
  char *path = dg_printf("%s/%s", tmpdir, spec);
  dg_diags d = {0};
  P->p = dg_spec_load(path, &d);
  free(path);
  if (d.nerrors) dg_diags_print(stdout, &P->p->sm, &d);
  bool ok = !d.nerrors;
  dg_diags_free(&d);
  if (ok) {
    ok = emu_kernels_load(&P->k, P->p, &d);
    if (!ok) { dg_diags_print(stdout, &P->p->sm, &d); emu_kernels_print_diags(stdout, &P->k); }
    dg_diags_free(&d);
  }
  P->ok = ok;
  return ok;
}

static void unload(prob *P)
{
  if (P->k.mod) emu_kernels_free(&P->k);
  dg_problem_free(P->p);
}

/* Checks output 0 at idx; prints the reason as a TAP comment. */
static check_verdict run(prob *P, const int64_t *idx, int rank, check_result *r)
{
  check_opts o = { .timeout_s = 120, .want_smtlib = true };   /* generous: valgrind slows Z3 20x */
  int out = P->p->n_inputs;
  check_element(P->p, &P->k, out, idx, rank, &o, r);
  printf("# %s: %s\n", check_verdict_name(r->verdict), r->reason ? r->reason : "");
  return r->verdict;
}

static const char *scale_spec =
  "return problem {\n"
  "  source = \"%s\",\n"
  "  op = \"residual_add\",\n"
  "  attrs = { alpha = 0.5 },\n"
  "  sizes = { N = 300 },\n"
  "  launch = \"k<<<(N + 127) / 128, 128>>>(y, x, r, alpha, N)\",\n"
  "}\n";

static void spec(const char *name, const char *fmt, const char *src)
{
  char *t = dg_printf(fmt, src);
  put(name, t);
  free(t);
}

static void test_elementwise(void)
{
  put("ra.cu", "__global__ void k(float *y, const float *x, const float *r, float alpha, int N)\n"
               "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
               "  if (i < N) y[i] = x[i] + alpha * r[i];\n}\n");
  spec("ra.lua", scale_spec, "ra.cu");
  prob P;
  if (!load(&P, "ra.lua")) { ok(0, "residual_add loads"); unload(&P); return; }
  check_result r;
  int64_t idx = 299;
  is_int(run(&P, &idx, 1, &r), CHECK_EQUIVALENT, "elementwise kernel: y[299] equivalent");
  ok(r.nslice > 0, "the slice lists the lines the writer ran");
  has_str(r.kernel_term, "x[299]", "kernel term names x[299]");
  has_str(r.smtlib, "assert", "SMT-LIB text kept");
  is_int(r.writer_block, 2, "writer block found by the concrete run");
  check_result_free(&r);
  idx = 300;
  is_int(run(&P, &idx, 1, &r), CHECK_ERROR, "index outside the tensor is an error");
  check_result_free(&r);
  unload(&P);
}

static void test_missing_scale(void)
{
  put("ra_bug.cu", "__global__ void k(float *y, const float *x, const float *r, float alpha, int N)\n"
                   "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < N) y[i] = x[i] + r[i];\n}\n");
  spec("ra_bug.lua", scale_spec, "ra_bug.cu");
  prob P;
  if (!load(&P, "ra_bug.lua")) { ok(0, "buggy residual_add loads"); unload(&P); return; }
  check_result r;
  int64_t idx = 17;
  is_int(run(&P, &idx, 1, &r), CHECK_BUG, "missing scale: bug");
  ok(r.have_values && fabs(r.kernel_value - r.ref_value) > 1e-3, "bug shows two different numbers");
  ok(r.inputs && r.inputs[1], "the witness holds the inputs");
  /* the witness replays: y = x + r against x + 0.5 r */
  if (r.inputs && r.inputs[0] && r.inputs[1]) {
    double x = r.inputs[0][17], rr = r.inputs[1][17];
    ok(fabs(r.kernel_value - (double)((float)x + (float)rr)) < 1e-6, "kernel value is x + r of the witness");
    ok(fabs(r.ref_value - (x + 0.5 * rr)) < 1e-6, "reference value is x + 0.5 r of the witness");
  }
  has_str(r.reason, "replayed", "the reason says the witness replayed");
  has_str(r.witness_text, "r[17] = ", "the witness text names the inputs that matter");
  check_result_free(&r);
  unload(&P);
}

/* ---- softmax-style reductions ------------------------------------------------ */
static const char *softmax_spec =
  "return problem {\n"
  "  source = \"%s\",\n"
  "  op = \"softmax\",\n"
  "  sizes = { N = 3, C = %d },\n"
  "  constraints = { \"C <= 64\" },\n"
  "  launch = \"k<<<N, 32>>>(y, x, N, C)\",\n"
  "}\n";

/* one warp per row, two values per lane in registers; SHIFT is subtracted
 * before exp, PAD is what lanes past C hold (and add to the sum) */
static char *softmax_src(const char *shift, const char *pad)
{
  return dg_printf(
    "__global__ void k(float *y, const float *x, int N, int C)\n"
    "{\n"
    "  const float *xr = x + blockIdx.x * C;\n"
    "  int lane = threadIdx.x;\n"
    "  float v[2];\n"
    "  for (int j = 0; j < 2; j++) v[j] = j * 32 + lane < C ? xr[j * 32 + lane] : %s;\n"
    "  float m = fmaxf(v[0], v[1]);\n"
    "  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));\n"
    "  float shift = %s;\n"
    "  float s = 0.0f;\n"
    "  for (int j = 0; j < 2; j++) s += expf(v[j] - shift);\n"
    "  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);\n"
    "  for (int j = 0; j < 2; j++)\n"
    "    if (j * 32 + lane < C) y[blockIdx.x * C + j * 32 + lane] = expf(v[j] - shift) / s;\n"
    "}\n", pad, shift);
}

static check_verdict softmax_case(const char *name, const char *shift, const char *pad, int C, int64_t row,
                                  int64_t col, check_result *r)
{
  char *src = softmax_src(shift, pad), *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  char *sp = dg_printf(softmax_spec, cu, C);
  put(lua, sp);
  free(sp);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  if (load(&P, lua)) {
    int64_t idx[2] = { row, col };
    v = run(&P, idx, 2, r);
  }
  unload(&P);
  free(src), free(cu), free(lua);
  return v;
}

static void test_softmax(void)
{
  check_result r;
  is_int(softmax_case("sm_max", "m", "-INFINITY", 37, 1, 5, &r), CHECK_EQUIVALENT, "warp softmax (max shift, -inf padding) equivalent");
  check_result_free(&r);
  /* shifting by the row's first element instead of its max: the same
   * function over the reals (exp(a - b) = exp(a) / exp(b)), which the real
   * model proves; but in f32 x[c] - x[0] passes 88.7 when the row spans
   * more than that, expf is infinite and the sum with it: the f32 exp
   * check pushes x[0] to -100 and the emulator gives NaN */
  is_int(softmax_case("sm_shift", "xr[0]", "-INFINITY", 37, 2, 36, &r), CHECK_BUG,
         "shift-invariant softmax variant (x[0] instead of the max): equal over the reals, overflows in f32");
  has_str(r.reason, "found by the f32 exp check", "...found by the f32 exp check");
  ok(r.have_values && isnan(r.kernel_value) && isfinite(r.ref_value), "...NaN against a finite reference, replayed");
  check_result_free(&r);
  /* the tail lanes pad with 0 and add exp(0 - m) to the sum */
  is_int(softmax_case("sm_tail", "m", "0.0f", 37, 2, 36, &r), CHECK_BUG, "tail padded with 0: bug at the tail element");
  ok(r.have_values && r.inputs, "tail bug comes with a witness");
  check_result_free(&r);
}

/* ---- a shared-memory tree reduction against the sequential loop reference ----- */
static const char *sum_spec =
  "return problem {\n"
  "  source = \"%s\",\n"
  "  op = \"sum\",\n"
  "  sizes = { N = 2, C = 100 },\n"
  "  launch = \"k<<<N, 64>>>(y, x, C)\",\n"
  "}\n";

static check_verdict sum_case(const char *name, const char *sync, check_result *r)
{
  char *src = dg_printf(
    "__global__ void k(float *y, const float *x, int C)\n"
    "{\n"
    "  __shared__ float sm[64];\n"
    "  int t = threadIdx.x;\n"
    "  float a = 0.0f;\n"
    "  for (int c = t; c < C; c += 64) a += x[blockIdx.x * C + c];\n"
    "  sm[t] = a;\n"
    "  __syncthreads();\n"
    "  for (int s = 32; s > 0; s >>= 1) {\n"
    "    if (t < s) sm[t] += sm[t + s];\n"
    "    %s\n"
    "  }\n"
    "  if (t == 0) y[blockIdx.x] = sm[0];\n"
    "}\n", sync);
  char *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  spec(lua, sum_spec, cu);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  if (load(&P, lua)) {
    int64_t idx = 1;
    v = run(&P, &idx, 1, r);
  }
  unload(&P);
  free(src), free(cu), free(lua);
  return v;
}

static void test_reduction(void)
{
  check_result r;
  is_int(sum_case("tree", "__syncthreads();", &r), CHECK_EQUIVALENT, "tree reduction equivalent to the loop reference");
  check_result_free(&r);
  is_int(sum_case("tree_race", "", &r), CHECK_RACE, "tree reduction without the barrier: race");
  ok(r.have_event && r.event.kind == SIMT_EV_RACE, "the race comes with the engine's event");
  has_str(r.reason, "tree_race.cu:", "the race names the kernel file and line");
  check_result_free(&r);
}

/* ---- out of bounds, data-dependent addresses ------------------------------------- */
static check_verdict ra_case(const char *name, const char *body, int64_t idx, check_result *r)
{
  char *src = dg_printf("__global__ void k(float *y, const float *x, const float *r, float alpha, int N)\n"
                        "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  %s\n}\n", body);
  char *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  spec(lua, scale_spec, cu);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  if (load(&P, lua)) v = run(&P, &idx, 1, r);
  unload(&P);
  free(src), free(cu), free(lua);
  return v;
}

static void test_findings(void)
{
  check_result r;
  is_int(ra_case("oob", "if (i <= N) y[i] = x[i] + alpha * r[i];", 5, &r), CHECK_OOB, "i <= N: out-of-bounds");
  has_str(r.reason, "oob.cu:4:", "out-of-bounds names the line");
  check_result_free(&r);
  is_int(ra_case("datadep", "if (i < N) y[i] = x[i] + alpha * r[((int)fabsf(x[i])) % N];", 5, &r), CHECK_UNKNOWN,
         "an address computed from input data: unknown");
  has_str(r.reason, "data", "the reason says data-dependent");
  has_str(r.reason, "datadep.cu:4:", "and names the line");
  check_result_free(&r);
  is_int(ra_case("unwritten", "if (i < N - 1) y[i] = x[i] + alpha * r[i];", 299, &r), CHECK_BUG,
         "an element no thread writes: bug");
  check_result_free(&r);
  is_int(ra_case("fine_other", "if (i < N - 1) y[i] = x[i] + alpha * r[i];", 3, &r), CHECK_EQUIVALENT,
         "the same kernel is fine at an element it writes");
  check_result_free(&r);
}

/* ---- branches on input data: both sides run, merged with ite -------------------- */
static check_verdict relu_case(const char *name, const char *body, check_result *r)
{
  char *src = dg_printf("__global__ void k(float *y, const float *x, int N)\n"
                        "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= N) return;\n  %s\n}\n", body);
  char *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  char *sp = dg_printf("return problem { source = \"%s\", op = \"relu\", sizes = { N = 100 },\n"
                       "  launch = \"k<<<(N + 63) / 64, 64>>>(y, x, N)\" }\n", cu);
  put(lua, sp);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  if (load(&P, lua)) {
    int64_t idx = 77;
    v = run(&P, &idx, 1, r);
  }
  unload(&P);
  free(src), free(cu), free(lua), free(sp);
  return v;
}

static void test_branches(void)
{
  check_result r;
  is_int(relu_case("relu_if", "float v = x[i];\n  if (v > 0.0f) y[i] = v; else y[i] = 0.0f;", &r), CHECK_EQUIVALENT,
         "relu with if/else on the input value: equivalent");
  check_result_free(&r);
  is_int(relu_case("relu_sel", "float v = x[i];\n  y[i] = v > 0.0f ? v : 0.0f;", &r), CHECK_EQUIVALENT,
         "relu as v > 0 ? v : 0: equivalent");
  has_str(r.kernel_term, "max(", "a hand-written max becomes the n-ary max");
  check_result_free(&r);
  is_int(relu_case("relu_ge", "float v = x[i];\n  y[i] = v >= 0.0f ? v : -v;", &r), CHECK_BUG,
         "|x| instead of relu (a data-dependent ?:): bug");
  ok(r.have_values && r.ref_value == 0 && r.kernel_value > 0, "witness: a negative input, kernel |x| vs reference 0");
  check_result_free(&r);
}

/* ---- the bit-precise model ----------------------------------------------------- */
static check_verdict scale_ieee(const char *name, const char *op, const char *expr, check_result *r)
{
  char *src = dg_printf("__global__ void k(float *y, const float *x, int N)\n"
                        "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < N) y[i] = %s;\n}\n", expr);
  char *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  char *sp = dg_printf("return problem { source = \"%s\", op = \"%s\", sizes = { N = 50 },\n"
                       "  launch = \"k<<<1, 64>>>(y, x, N)\" }\n", cu, op);
  put(lua, sp);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  if (load(&P, lua)) {
    check_opts o = { .timeout_s = 120, .model = TERM_MODEL_IEEE };
    int64_t idx = 7;
    check_element(P.p, &P.k, P.p->n_inputs, &idx, 1, &o, r);
    printf("# %s: %s\n", check_verdict_name(r->verdict), r->reason ? r->reason : "");
    v = r->verdict;
  }
  unload(&P);
  free(src), free(cu), free(lua), free(sp);
  return v;
}

static void test_ieee(void)
{
  check_result r;
  /* (alpha * x is not: on denormals the f32 product rounds, and scale's
   * tolerance is rtol 1e-6 with atol 0 — a real, if tiny, difference) */
  is_int(scale_ieee("sc_ok", "relu", "x[i] > 0.0f ? x[i] : 0.0f", &r), CHECK_EQUIVALENT, "IEEE model: relu equivalent");
  has_str(r.reason, "IEEE", "the verdict names the float model");
  check_result_free(&r);
  is_int(scale_ieee("sc_bug", "scale", "x[i]", &r), CHECK_BUG, "IEEE model: missing scale is a replayed bug");
  check_result_free(&r);
}

/* ---- pipelines: an element of a later launch depends on an earlier one ---------- */
static check_verdict pipe_case(const char *name, const char *k1, const char *k2, check_result *r)
{
  char *src = dg_printf("__global__ void k1(float *t, const float *x, int N)\n"
                        "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < N) %s;\n}\n"
                        "__global__ void k2(float *y, const float *t, int N)\n"
                        "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < N) %s;\n}\n", k1, k2);
  char *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  char *sp = dg_printf("return problem { source = \"%s\", op = \"scale\", attrs = { alpha = 0.5 }, sizes = { N = 70 },\n"
                       "  scratch = { tmp = { shape = { \"N\" }, dtype = \"f32\" } },\n"
                       "  launch = { \"k1<<<(N + 31) / 32, 32>>>(tmp, x, N)\", \"k2<<<(N + 31) / 32, 32>>>(y, tmp, N)\" } }\n", cu);
  put(lua, sp);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  if (load(&P, lua)) {
    int64_t idx = 69;
    v = run(&P, &idx, 1, r);
  }
  unload(&P);
  free(src), free(cu), free(lua), free(sp);
  return v;
}

static void test_pipeline(void)
{
  check_result r;
  is_int(pipe_case("pipe_ok", "t[i] = 2.0f * x[i]", "y[i] = 0.25f * t[i]", &r), CHECK_EQUIVALENT,
         "two launches through a scratch buffer: equivalent");
  is_int(r.writer_launch, 1, "the writer is the second launch");
  check_result_free(&r);
  is_int(pipe_case("pipe_bug", "t[i] = 2.0f * x[i]", "y[i] = 0.5f * t[i]", &r), CHECK_BUG,
         "a wrong factor in the second launch: bug");
  check_result_free(&r);
  is_int(pipe_case("pipe_uninit", "t[i] += x[i]", "y[i] = 0.5f * t[i]", &r), CHECK_UNINIT,
         "accumulating into scratch nobody zeroed: uninitialised-read");
  has_str(r.reason, "pipe_uninit.cu:4:", "at the line of the +=");
  check_result_free(&r);
}

/* ---- samples of the tree (nothing is written beside them: engine only) --------- */
/* ---- f16 rounding the real model does not see ------------------------------------ */
static const char *rms_spec =
  "return problem {\n"
  "  source = \"%s\",\n"
  "  op = \"rmsnorm\",\n"
  "  dtype = \"f16\",\n"
  "  sizes = { N = 2, C = 8 },\n"
  "  launch = \"k<<<N, 1>>>(y, x, w, C, eps)\",\n"
  "}\n";

static check_verdict rms_case(const char *name, const char *acc_t, const char *step, check_result *r)
{
  char *src = dg_printf("#include <cuda_fp16.h>\n"
                        "__global__ void k(__half *y, const __half *x, const __half *w, int C, float eps)\n"
                        "{\n  const __half *xr = x + blockIdx.x * C;\n  %s ss = 0;\n"
                        "  for (int c = 0; c < C; c++) %s;\n"
                        "  float r = rsqrtf((float)ss / C + eps);\n"
                        "  for (int c = 0; c < C; c++) y[blockIdx.x * C + c] = __float2half(__half2float(xr[c]) * r * __half2float(w[c]));\n}\n",
                        acc_t, step);
  char *cu = dg_printf("%s.cu", name), *lua = dg_printf("%s.lua", name);
  put(cu, src);
  spec(lua, rms_spec, cu);
  prob P;
  check_verdict v = CHECK_ERROR;
  memset(r, 0, sizeof *r);
  int64_t idx[2] = { 1, 3 };
  if (load(&P, lua)) v = run(&P, idx, 2, r);
  unload(&P);
  free(src), free(cu), free(lua);
  return v;
}

/* The real model computes an fp16 sum of squares exactly: equal to the
 * reference. The range check asks whether a value rounded to f16 can pass
 * 65504 (|x| <= 100 suffices for 8 squares) and replays those inputs. */
static void test_half_range(void)
{
  check_result r;
  is_int(rms_case("rms_hacc", "__half", "ss = __hfma(xr[c], xr[c], ss)", &r), CHECK_BUG,
         "fp16 accumulation of squares: a bug (the sum overflows to inf)");
  has_str(r.reason, "f16 range check", "found by the f16 range check");
  ok(r.have_values && r.inputs && fabs(r.kernel_value - r.ref_value) > 0.1, "with a replayed witness: kernel %g vs reference %g",
     r.kernel_value, r.ref_value);
  double big = 0;
  for (int64_t i = 8; r.inputs && r.inputs[0] && i < 16; i++) big = fmax(big, fabs(r.inputs[0][i]));
  ok(big <= 100, "inputs that look like data (largest |x| in the row %g)", big);
  check_result_free(&r);
  is_int(rms_case("rms_facc", "float", "ss = fmaf(__half2float(xr[c]), __half2float(xr[c]), ss)", &r), CHECK_EQUIVALENT,
         "fp32 accumulation of the same squares: equivalent");
  check_result_free(&r);
}

/* A range check that cannot ask (the budget spent as it starts: the phase
 * callback sleeps past it) leaves the real model's equivalence open: the
 * verdict is unknown, not equivalent (session 11: a range query that timed
 * out left rms_hacc "equivalent" under valgrind at load, where it is a bug). */
typedef struct { double until; bool saw; } range_sleep;

static void sleep_at_range(void *ud, const char *phase)
{
  range_sleep *rs = ud;
  if (strcmp(phase, "range check")) return;
  rs->saw = true;
  while (dg_now() < rs->until) usleep(20000);
}

static void test_half_range_cut(void)
{
  const char *src = "#include <cuda_fp16.h>\n"
                    "__global__ void k(__half *y, const __half *x, const __half *w, int C, float eps)\n"
                    "{\n  const __half *xr = x + blockIdx.x * C;\n  __half ss = 0;\n"
                    "  for (int c = 0; c < C; c++) ss = __hfma(xr[c], xr[c], ss);\n"
                    "  float r = rsqrtf((float)ss / C + eps);\n"
                    "  for (int c = 0; c < C; c++) y[blockIdx.x * C + c] = __float2half(__half2float(xr[c]) * r * "
                    "__half2float(w[c]));\n}\n";
  put("rms_hcut.cu", src);
  spec("rms_hcut.lua", rms_spec, "rms_hcut.cu");
  prob P;
  check_result r;
  memset(&r, 0, sizeof r);
  int64_t idx[2] = { 1, 3 };
  range_sleep rs = { dg_now() + 4, false };
  check_opts o = { .timeout_s = 120, .budget_s = 4, .phase = sleep_at_range, .phase_ud = &rs };
  if (load(&P, "rms_hcut.lua")) check_element(P.p, &P.k, P.p->n_inputs, idx, 2, &o, &r);
  printf("# %s: %s\n", check_verdict_name(r.verdict), r.reason ? r.reason : "");
  ok(r.verdict == CHECK_UNKNOWN && (!rs.saw || (r.reason && strstr(r.reason, "range check"))),
     "fp16 sum of squares, the budget spent as the range check starts: unknown, not equivalent (%s%s)",
     check_verdict_name(r.verdict), rs.saw ? "" : "; the earlier stages outlasted the budget here");
  check_result_free(&r);
  unload(&P);
}

static void test_samples(void)
{
  static const struct { const char *spec; int64_t idx[4]; int rank; check_verdict want; const char *what; bool heavy; } cases[] = {
    { "softmax/softmax_online.lua", {2, 33}, 2, CHECK_EQUIVALENT,
      "online softmax (struct state, -inf guards, warp merge) equivalent", true },
    { "attention/attention_naive.lua", {1, 1, 6, 7}, 4, CHECK_EQUIVALENT,
      "causal attention: 1.0f / sqrtf(D) meets the reference's 1 / math.sqrt(D)" },
    { "embedding/embedding_gather.lua", {5, 2}, 2, CHECK_EQUIVALENT,
      "embedding gather (index-valued input fixed in range) equivalent" },
  };
  /* under valgrind Z3 runs some 50 times slower: a 1 s proof outlasts any timeout */
  const char *pre = getenv("LD_PRELOAD");
  bool valgrind = pre && strstr(pre, "vgpreload");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (cases[i].heavy && valgrind) {
      ok(1, "%s # SKIP Z3 under valgrind is too slow for this proof", cases[i].what);
      continue;
    }
    prob P;
    memset(&P, 0, sizeof P);
    char *path = dg_printf("%s/samples/%s", DG_DATADIR, cases[i].spec);
    dg_diags d = {0};
    P.p = dg_spec_load(path, &d);
    bool okl = !d.nerrors && emu_kernels_load(&P.k, P.p, &d);
    dg_diags_free(&d);
    check_result r;
    memset(&r, 0, sizeof r);
    if (okl) run(&P, cases[i].idx, cases[i].rank, &r);
    is_int(okl ? (long long)r.verdict : -1, cases[i].want, "%s", cases[i].what);
    if (strstr(cases[i].spec, "embedding"))
      has_str(r.reason, "index-valued inputs fixed", "the proof says the indices were fixed");
    check_result_free(&r);
    unload(&P);
    free(path);
  }
}

int main(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/dg_check_XXXXXX");
  if (!mkdtemp(tmpdir)) { printf("Bail out! mkdtemp\n"); return 1; }
  test_elementwise();
  test_missing_scale();
  test_softmax();
  test_reduction();
  test_findings();
  test_branches();
  test_ieee();
  test_pipeline();
  test_half_range();
  test_half_range_cut();
  test_samples();
  char *cmd = dg_printf("rm -rf '%s'", tmpdir);
  if (system(cmd)) printf("# could not remove %s\n", tmpdir);
  free(cmd);
  return tap_done();
}
