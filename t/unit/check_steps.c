/* check_steps.c — the writer thread's steps (check_opts.want_steps): a small
 * kernel's trace has the statements in execution order, the variables and
 * elements they set, and their values as terms; loops past the cap are
 * counted; the text and JSON reports carry them. */
#include "check.h"
#include "lua_spec.h"
#include "../tap.h"
#include <unistd.h>

static char tmpdir[64];

static void put(const char *name, const char *text)
{
  char *path = dg_printf("%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
  free(path);
}

typedef struct { dg_problem *p; emu_kernels k; } prob;

static bool load(prob *P, const char *spec)
{
  memset(P, 0, sizeof *P);
  char *path = dg_printf("%s/%s", tmpdir, spec);
  dg_diags d = {0};
  P->p = dg_spec_load(path, &d);
  free(path);
  bool ok = !d.nerrors;
  if (!ok) dg_diags_print(stdout, &P->p->sm, &d);
  dg_diags_free(&d);
  if (ok) {
    ok = emu_kernels_load(&P->k, P->p, &d);
    if (!ok) dg_diags_print(stdout, &P->p->sm, &d);
    dg_diags_free(&d);
  }
  return ok;
}

static void unload(prob *P)
{
  if (P->k.mod) emu_kernels_free(&P->k);
  dg_problem_free(P->p);
}

static const char *src =
  "__device__ float add(float a, float b) { return a + b; }\n"              /* 1 */
  "__global__ void k(float *y, const float *x, int N, int C)\n"             /* 2 */
  "{\n"                                                                     /* 3 */
  "  int n = blockIdx.x * blockDim.x + threadIdx.x;\n"                     /* 4 */
  "  if (n >= N) return;\n"                                                 /* 5 */
  "  float acc = 0.0f;\n"                                                   /* 6 */
  "  for (int c = 0; c < C; c++) acc = add(acc, x[n * C + c]);\n"           /* 7 */
  "  y[n] = acc;\n"                                                         /* 8 */
  "}\n";

static void spec(const char *name, int N, int C)
{
  char *t = dg_printf("return problem {\n  source = \"rows.cu\",\n  op = \"sum\",\n"
                      "  sizes = { N = %d, C = %d },\n  launch = \"k<<<1, 32>>>(y, x, N, C)\",\n}\n", N, C);
  put(name, t);
  free(t);
}

static bool check(prob *P, int64_t row, bool steps, check_result *r)
{
  check_opts o = { .timeout_s = 120, .want_steps = steps };
  check_element(P->p, &P->k, P->p->n_inputs, &row, 1, &o, r);
  printf("# %s: %s\n", check_verdict_name(r->verdict), r->reason ? r->reason : "");
  return r->verdict == CHECK_EQUIVALENT;
}

/* step i is at line `line`, sets `target` (NULL: nothing) to `value` (NULL: none) */
static void step_is(const check_result *r, size_t i, unsigned line, int depth, const char *target, const char *value,
                    const char *what)
{
  const check_step *s = i < r->nsteps ? &r->steps[i] : NULL;
  ok(s && s->span.line == line && s->depth == depth, "step %zu: line %u, depth %d (%s)", i + 1, line, depth, what);
  if (!s) return;
  if (target) is_str(s->target, target, "step %zu sets %s", i + 1, target);
  else ok(!s->target, "step %zu sets nothing", i + 1);
  if (value) is_str(s->value, value, "step %zu: value %s", i + 1, value);
  else ok(!s->value, "step %zu has no value", i + 1);
}

static void test_rows(void)
{
  put("rows.cu", src);
  spec("rows.lua", 2, 3);
  prob P;
  if (!load(&P, "rows.lua")) { ok(0, "rows loads"); unload(&P); return; }
  check_result r;
  ok(check(&P, 1, true, &r), "y[1] is equivalent to the sum");
  is_int((int)r.nsteps, 12, "12 steps: 5 up to the loop init, 2 per iteration of 3, the store");
  is_int((int)r.steps_more, 0, "none past the cap");
  step_is(&r, 0, 4, 1, "n", "1", "the thread's row");
  step_is(&r, 1, 5, 1, NULL, NULL, "the if: no value");
  ok(r.nsteps > 1 && r.steps[1].kind == DG_ST_IF, "step 2 is an if");
  step_is(&r, 2, 6, 1, "acc", "0", "the accumulator");
  step_is(&r, 3, 7, 1, NULL, NULL, "the loop");
  step_is(&r, 4, 7, 1, "c", "0", "the loop's init");
  step_is(&r, 5, 1, 2, "return", "x[3]", "inside add: its return value");
  step_is(&r, 6, 7, 1, "acc", "x[3]", "the first iteration");
  step_is(&r, 8, 7, 1, "acc", "x[3] + x[4]", "the second iteration: a term over two inputs");
  ok(r.nsteps == 12 && r.steps[11].target && !strcmp(r.steps[11].target, "y[1]"), "the store names the element y[1]");
  ok(r.nsteps == 12 && r.steps[11].value && strstr(r.steps[11].value, "x[5]") && strstr(r.steps[11].value, "x[3]"),
     "the stored value is the sum of the row");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "float acc = 0.0f;   -> acc = 0"), "the text shows the declaration from its type on, with its value");
  ok(b.s && strstr(b.s, "    return a + b;   -> return = x[3]"), "a callee's steps are indented");
  ok(b.s && strstr(b.s, "y[n] = acc;   -> y[1] = "), "the store");
  printf("%s", b.s ? b.s : "");
  b.n = 0;
  check_steps_json(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "\"steps\":[{\"file\":") && strstr(b.s, "\"target\":\"acc\",\"value\":\"x[3]\"")
     && strstr(b.s, "\"steps_more\":0"), "JSON: steps with targets and values");
  dg_buf_free(&b);
  check_result_free(&r);

  ok(check(&P, 0, false, &r), "y[0] without steps asked");
  is_int((int)r.nsteps, 0, "no steps unless asked");
  ok(r.nslice > 0, "the slice is still there");
  check_result_free(&r);
  unload(&P);
}

static void test_cap(void)
{
  spec("long.lua", 1, 1100);
  prob P;
  if (!load(&P, "long.lua")) { ok(0, "long loads"); unload(&P); return; }
  check_result r;
  ok(check(&P, 0, true, &r), "a 1100-term row is equivalent");
  is_int((int)r.nsteps, CHECK_STEPS_MAX, "the first CHECK_STEPS_MAX steps are kept");
  is_int((int)r.steps_more, 5 + 2 * 1100 + 1 - CHECK_STEPS_MAX, "the rest are counted");
  ok(r.nsteps == CHECK_STEPS_MAX && r.steps[CHECK_STEPS_MAX - 1].value
     && strlen(r.steps[CHECK_STEPS_MAX - 1].value) < CHECK_STEP_TEXT + 40, "a long value is cut");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "... 206 more steps"), "the text says how many more");
  dg_buf_free(&b);
  check_result_free(&r);
  unload(&P);
}

int main(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/dg_steps_XXXXXX");
  if (!mkdtemp(tmpdir)) { printf("Bail out! mkdtemp\n"); return 1; }
  test_rows();
  test_cap();
  char *cmd = dg_printf("rm -rf '%s'", tmpdir);
  if (system(cmd)) printf("# could not remove %s\n", tmpdir);
  free(cmd);
  return tap_done();
}
