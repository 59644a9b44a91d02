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
  check_opts o = { .timeout_s = 10, .want_smtlib = true };
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
  check_result_free(&r);
  unload(&P);
}

int main(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/dg_check_XXXXXX");
  if (!mkdtemp(tmpdir)) { printf("Bail out! mkdtemp\n"); return 1; }
  test_elementwise();
  test_missing_scale();
  char *cmd = dg_printf("rm -rf '%s'", tmpdir);
  if (system(cmd)) printf("# could not remove %s\n", tmpdir);
  free(cmd);
  return tap_done();
}
