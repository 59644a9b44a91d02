/* check_steps.c — the writer thread's steps (check_opts.want_steps): a small
 * kernel's trace has the statements in execution order, the variables and
 * elements they set, and their values as terms; a for loop's update and each
 * decided condition (taken, not taken, both sides when data-dependent) are
 * steps of their own; break / continue / return say where control went;
 * loops past the cap are counted; the text and JSON reports carry them. */
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
  is_int((int)r.nsteps, 20, "20 steps: 6 up to the loop init, 4 per iteration of 3, the exit, the store");
  is_int((int)r.steps_more, 0, "none past the cap");
  step_is(&r, 0, 4, 1, "n", "1", "the thread's row");
  step_is(&r, 1, 5, 1, NULL, NULL, "the if: no value");
  ok(r.nsteps > 1 && r.steps[1].kind == DG_ST_IF && r.steps[1].what == SIMT_STEP_STMT, "step 2 is an if");
  step_is(&r, 2, 5, 1, NULL, "false: not taken", "the if's decision");
  ok(r.nsteps > 2 && r.steps[2].what == SIMT_STEP_COND && r.steps[2].span.col == 7, "at its condition");
  step_is(&r, 3, 6, 1, "acc", "0", "the accumulator");
  step_is(&r, 4, 7, 1, NULL, NULL, "the loop");
  step_is(&r, 5, 7, 1, "c", "0", "the loop's init");
  step_is(&r, 6, 7, 1, NULL, "true: taken", "the loop's test: another iteration");
  ok(r.nsteps > 6 && r.steps[6].what == SIMT_STEP_COND && r.steps[6].span.col == 19, "at the test");
  step_is(&r, 7, 1, 2, "return", "x[3]", "inside add: its return value");
  step_is(&r, 8, 7, 1, "acc", "x[3]", "the first iteration");
  step_is(&r, 9, 7, 1, "c", "1", "the loop's update: the new value");
  ok(r.nsteps > 9 && r.steps[9].what == SIMT_STEP_UPDATE && r.steps[9].span.col == 26, "at the update");
  step_is(&r, 12, 7, 1, "acc", "x[3] + x[4]", "the second iteration: a term over two inputs");
  step_is(&r, 17, 7, 1, "c", "3", "the last update");
  step_is(&r, 18, 7, 1, NULL, "false: not taken", "the test that ends the loop");
  ok(r.nsteps == 20 && r.steps[19].target && !strcmp(r.steps[19].target, "y[1]"), "the store names the element y[1]");
  ok(r.nsteps == 20 && r.steps[19].value && strstr(r.steps[19].value, "x[5]") && strstr(r.steps[19].value, "x[3]"),
     "the stored value is the sum of the row");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "float acc = 0.0f;   -> acc = 0"), "the text shows the declaration from its type on, with its value");
  ok(b.s && strstr(b.s, "    return a + b;   -> return = x[3]"), "a callee's steps are indented");
  ok(b.s && strstr(b.s, "y[n] = acc;   -> y[1] = "), "the store");
  ok(b.s && strstr(b.s, "   7:19  c < C   -> true: taken\n"), "a decision shows its condition's text only");
  ok(b.s && strstr(b.s, "   7:26  c++   -> c = 1\n"), "an update shows its expression and the new value");
  printf("%s", b.s ? b.s : "");
  b.n = 0;
  check_steps_json(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "\"steps\":[{\"file\":") && strstr(b.s, "\"target\":\"acc\",\"value\":\"x[3]\"")
     && strstr(b.s, "\"steps_more\":0"), "JSON: steps with targets and values");
  ok(b.s && strstr(b.s, "\"what\":\"condition\",\"source\":\"c < C\",\"target\":null,\"value\":\"true: taken\"")
     && strstr(b.s, "\"what\":\"update\",\"source\":\"c++\",\"target\":\"c\",\"value\":\"1\"")
     && strstr(b.s, "\"depth\":1,\"what\":\"statement\""), "JSON: what each step is");
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
  is_int((int)r.steps_more, 6 + 4 * 1100 + 2 - CHECK_STEPS_MAX, "the rest are counted");
  ok(r.nsteps == CHECK_STEPS_MAX && r.steps[CHECK_STEPS_MAX - 1].value
     && strlen(r.steps[CHECK_STEPS_MAX - 1].value) < CHECK_STEP_TEXT + 40, "a long value is cut");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "... 2408 more steps"), "the text says how many more");
  dg_buf_free(&b);
  check_result_free(&r);
  unload(&P);
}

static const char *src_br =
  "__global__ void k(float *y, const float *x, int N, int C)\n"             /* 1 */
  "{\n"                                                                     /* 2 */
  "  int n = threadIdx.x;\n"                                                /* 3 */
  "  if (n >= N) return;\n"                                                 /* 4 */
  "  float acc = 0.0f;\n"                                                   /* 5 */
  "  for (int c = 0; ; c += 1) {\n"                                         /* 6 */
  "    if (c >= C) break;\n"                                                /* 7 */
  "    if (c == 0) { acc += x[n * C]; continue; }\n"                        /* 8 */
  "    float v = x[n * C + c];\n"                                           /* 9 */
  "    if (v > 0.0f) acc += v; else acc = acc + v;\n"                       /* 10 */
  "  }\n"                                                                   /* 11 */
  "  y[n] = acc;\n"                                                         /* 12 */
  "}\n";

/* step i (0-based) is at line:col with value (NULL: none) */
static void at_is(const check_result *r, size_t i, unsigned line, unsigned col, const char *value, const char *what)
{
  const check_step *s = i < r->nsteps ? &r->steps[i] : NULL;
  ok(s && s->span.line == line && s->span.col == col && (value ? s->value && !strcmp(s->value, value) : !s->value),
     "step %zu at %u:%u: %s (%s)", i + 1, line, col, value ? value : "no value", what);
  if (s && !(s->span.line == line && s->span.col == col && (value ? s->value && !strcmp(s->value, value) : !s->value)))
    printf("#   got %u:%u %s\n", s->span.line, s->span.col, s->value ? s->value : "(none)");
}

/* Decisions: an early return not taken, a condition-less for loop left by a
 * break, a continue, and an if on the input run both ways. */
static void test_branches(void)
{
  put("br.cu", src_br);
  put("br.lua", "return problem {\n  source = \"br.cu\",\n  op = \"sum\",\n  sizes = { N = 1, C = 3 },\n"
                "  launch = \"k<<<1, 32>>>(y, x, N, C)\",\n}\n");
  prob P;
  if (!load(&P, "br.lua")) { ok(0, "br loads"); unload(&P); return; }
  check_result r;
  ok(check(&P, 0, true, &r), "y[0] of the branching row sum is equivalent");
  is_int((int)r.nsteps, 37, "37 steps");
  at_is(&r, 1, 4, 3, NULL, "the early return's if");
  at_is(&r, 2, 4, 7, "false: not taken", "the thread does not return");
  at_is(&r, 6, 7, 5, NULL, "the break's if");
  at_is(&r, 7, 7, 9, "false: not taken", "c < C: no break");
  at_is(&r, 9, 8, 9, "true: taken", "c == 0 in the first iteration");
  at_is(&r, 10, 8, 19, "x[0]", "acc += x[n * C]");
  at_is(&r, 11, 8, 36, "to the loop's next iteration", "the continue");
  ok(r.nsteps > 11 && r.steps[11].kind == DG_ST_CONTINUE && !r.steps[11].target, "a continue sets nothing");
  at_is(&r, 12, 6, 21, "1", "the update after the continue");
  ok(r.nsteps > 12 && r.steps[12].target && !strcmp(r.steps[12].target, "c"), "it sets c");
  at_is(&r, 16, 8, 9, "false: not taken", "c == 0 in the second iteration");
  at_is(&r, 17, 9, 11, "x[1]", "v");
  ok(r.nsteps > 19 && r.steps[19].what == SIMT_STEP_COND && r.steps[19].span.line == 10 && r.steps[19].span.col == 9
     && r.steps[19].value && !strncmp(r.steps[19].value, "both sides (data-dependent): ", 29)
     && strstr(r.steps[19].value, "x[1]"), "an if on the input: both sides, with the condition as a term");
  if (r.nsteps > 19 && r.steps[19].value) printf("# %s\n", r.steps[19].value);
  ok(r.nsteps > 21 && r.steps[20].span.line == 10 && r.steps[21].span.line == 10
     && r.steps[20].target && !strcmp(r.steps[20].target, "acc") && r.steps[21].target && !strcmp(r.steps[21].target, "acc"),
     "then both of its sides run");
  at_is(&r, 22, 6, 21, "2", "the second update");
  at_is(&r, 34, 7, 9, "true: taken", "c >= C at the end");
  at_is(&r, 35, 7, 17, "out of the loop", "the break");
  ok(r.nsteps == 37 && r.steps[36].span.line == 12 && r.steps[36].target && !strcmp(r.steps[36].target, "y[0]"),
     "the store last");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  ok(b.s && strstr(b.s, "   7:9   c >= C   -> false: not taken\n") && strstr(b.s, "   8:9   c == 0   -> true: taken\n")
     && strstr(b.s, "   6:21  c += 1   -> c = 1\n") && strstr(b.s, "  10:9   v > 0.0f   -> both sides (data-dependent): ")
     && strstr(b.s, "   7:17  break;   -> out of the loop\n"), "the text: conditions, the update, the break");
  printf("%s", b.s ? b.s : "");
  ok(b.s && strstr(b.s, "-> acc = let t1 = 0 < x[1] ? x[0] + x[1] : x[0]; 0 < x[1] ? t1 : x[1] + t1\n"),
     "a term's let lines joined with \"; \"");
  dg_buf_free(&b);
  check_result_free(&r);
  unload(&P);
}

static const char *src_jump =
  "__device__ void add(float *a, float v, int skip)\n"                     /* 1 */
  "{\n"                                                                     /* 2 */
  "  if (skip) return;\n"                                                   /* 3 */
  "  *a += v;\n"                                                            /* 4 */
  "}\n"                                                                     /* 5 */
  "__global__ void k(float *y, const float *x, int N, int C)\n"             /* 6 */
  "{\n"                                                                     /* 7 */
  "  int n = threadIdx.x;\n"                                                /* 8 */
  "  if (n >= N) return;\n"                                                 /* 9 */
  "  float acc = 0.0f;\n"                                                   /* 10 */
  "  for (int c = 0; c < C; c++) {\n"                                       /* 11 */
  "    switch (c) { case 1: acc += x[n * C + c]; break; default: add(&acc, x[n * C + c], 0); }\n" /* 12 */
  "  }\n"                                                                   /* 13 */
  "  add(&acc, 1.0f, 1);\n"                                                 /* 14 */
  "  y[n] = acc;\n"                                                         /* 15 */
  "}\n";

/* the first step at line:col from `from` on (0-based), or -1 */
static long find(const check_result *r, size_t from, unsigned line, unsigned col)
{
  for (size_t i = from; i < r->nsteps; i++)
    if (r->steps[i].span.line == line && r->steps[i].span.col == col) return (long)i;
  return -1;
}

static const char *value_at(const check_result *r, long i) { return i >= 0 && r->steps[i].value ? r->steps[i].value : ""; }

/* Where break and return go: out of a switch (not the loop), back to the caller. */
static void test_jumps(void)
{
  put("jump.cu", src_jump);
  put("jump.lua", "return problem {\n  source = \"jump.cu\",\n  op = \"sum\",\n  sizes = { N = 1, C = 2 },\n"
                  "  launch = \"k<<<1, 32>>>(y, x, N, C)\",\n}\n");
  prob P;
  if (!load(&P, "jump.lua")) { ok(0, "jump loads"); unload(&P); return; }
  check_result r;
  ok(check(&P, 0, true, &r), "y[0] through a switch and a device function is equivalent");
  long brk = find(&r, 0, 12, 47);
  is_str(value_at(&r, brk), "out of the switch", "a break in a switch leaves the switch");
  long upd = find(&r, brk < 0 ? 0 : (size_t)brk, 11, 26);
  ok(brk >= 0 && upd == brk + 1, "the loop's update comes next");
  is_str(value_at(&r, upd), "2", "c = 2");
  long c1 = find(&r, 0, 3, 7), c2 = c1 >= 0 ? find(&r, (size_t)c1 + 1, 3, 7) : -1;
  is_str(value_at(&r, c1), "false: not taken", "add's if, skip 0: not taken");
  ok(c1 >= 0 && r.steps[c1].depth == 2, "at depth 2");
  is_str(value_at(&r, c2), "true: taken", "add's if, skip 1: taken");
  long ret = c2 >= 0 ? find(&r, (size_t)c2, 3, 13) : -1;
  ok(ret == c2 + 1 && !r.steps[ret].target, "then the return, setting nothing");
  is_str(value_at(&r, ret), "back to the caller", "a value-less return in a callee goes back to the caller");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  printf("%s", b.s ? b.s : "");
  dg_buf_free(&b);
  check_result_free(&r);
  unload(&P);
}

/* a step in an included header names its file: its line is not the kernel file's */
static void test_header(void)
{
  put("add.cuh", "__device__ float add(float a, float b)\n{\n  return a + b;\n}\n");
  put("inc.cu", "#include \"add.cuh\"\n"
                "__global__ void k(float *y, const float *x, int N, int C)\n"
                "{\n  int n = threadIdx.x;\n  if (n < N) y[n] = add(x[n * C], x[n * C + 1]);\n}\n");
  put("inc.lua", "return problem {\n  source = \"inc.cu\",\n  op = \"sum\",\n"
                 "  sizes = { N = 2, C = 2 },\n  launch = \"k<<<1, 32>>>(y, x, N, C)\",\n}\n");
  prob P;
  if (!load(&P, "inc.lua")) { ok(0, "inc loads"); unload(&P); return; }
  check_result r;
  ok(check(&P, 1, true, &r), "y[1] through a header's add is equivalent");
  dg_buf b = {0};
  check_steps_format(&b, &P.k, &r);
  ok(b.s && strstr(b.s, " add.cuh:3:3     return a + b;   -> return = "), "a step in the header names add.cuh");
  ok(b.s && strstr(b.s, "   5:3   if (n < N)"), "the kernel file's steps keep line:col alone");
  printf("%s", b.s ? b.s : "");
  dg_buf_free(&b);
  check_result_free(&r);
  unload(&P);
}

int main(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/dg_steps_XXXXXX");
  if (!mkdtemp(tmpdir)) { printf("Bail out! mkdtemp\n"); return 1; }
  test_rows();
  test_branches();
  test_jumps();
  test_cap();
  test_header();
  char *cmd = dg_printf("rm -rf '%s'", tmpdir);
  if (system(cmd)) printf("# could not remove %s\n", tmpdir);
  free(cmd);
  return tap_done();
}
