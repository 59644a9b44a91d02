/* check_div.c — integer division by zero end to end (t/data/divzero/): the
 * engine's event on the emulator, the symbolic domain's divisors, the
 * checker's solver query and its replay. A C test so that the new paths run
 * under valgrind too (t/check/divzero.sh tests the command line). */
#include "check.h"
#include "dom_sym.h"
#include "lua_spec.h"
#include "../tap.h"

typedef struct { dg_problem *p; emu_kernels k; bool ok; } prob;

static bool load(prob *P, const char *spec)
{
  memset(P, 0, sizeof *P);
  const char *src = getenv("DG_SRCDIR");
  char *path = dg_printf("%s/t/data/divzero/%s", src ? src : ".", spec);
  dg_diags d = {0};
  P->p = dg_spec_load(path, &d);
  free(path);
  bool ok = P->p && !d.nerrors;
  dg_diags_free(&d);
  if (ok) {
    ok = emu_kernels_load(&P->k, P->p, &d);
    dg_diags_free(&d);
  }
  P->ok = ok;
  return ok;
}

static void unload(prob *P)
{
  if (P->k.mod) emu_kernels_free(&P->k);
  if (P->p) dg_problem_free(P->p);
}

static check_verdict run(prob *P, int64_t at, check_result *r)
{
  check_opts o = { .timeout_s = 120 };      /* generous: valgrind slows Z3 20x */
  check_element(P->p, &P->k, P->p->n_inputs, &at, 1, &o, r);
  printf("# %s: %s\n", check_verdict_name(r->verdict), r->reason ? r->reason : "");
  return r->verdict;
}

/* The emulator at the spec's sizes: the first finding's kind, or -1. */
static int emulate(prob *P)
{
  int64_t *sizes = dg_malloc(sizeof *sizes * (P->p->sizes.n + 1));
  dg_problem_default_sizes(P->p, sizes);
  emu_io io;
  emu_result res = {0};
  dg_diags d = {0};
  int kind = -1;
  if (emu_io_init(&io, P->p, sizes, &d)) {
    for (size_t t = 0; t < P->p->tensors.n; t++)      /* every input 0: every divisor too */
      if (io.data[t]) memset(io.data[t], 0, sizeof(double) * (size_t)io.numel[t]);
    if (emu_run(P->p, &P->k, sizes, &io, NULL, &res, &d))
      for (size_t i = 0; i < res.events.n && kind < 0; i++)
        if (emu_event_is_finding(res.events.v[i].kind)) kind = (int)res.events.v[i].kind;
    emu_result_free(&res);
    emu_io_free(&io);
  }
  dg_diags_free(&d);
  free(sizes);
  return kind;
}

int main(void)
{
  prob P;
  check_result r;

  is_str(simt_event_name(SIMT_EV_DIV_ZERO), "division-by-zero", "the event's name");
  ok(emu_event_is_finding(SIMT_EV_DIV_ZERO), "and it is a finding");

  if (ok(load(&P, "ratio_divmod.lua"), "ratio_divmod loads")) {
    is_int(emulate(&P), SIMT_EV_DIV_ZERO, "ratio_divmod, zero inputs: the emulator reports division-by-zero");
    is_int(run(&P, 7, &r), CHECK_FINDING, "ratio_divmod y[7]: a finding");
    ok(r.have_event && r.event.kind == SIMT_EV_DIV_ZERO, "whose event is the division by zero");
    is_int(r.event.tidx[0], 7, "in the writer's own thread (the other divisors replayed at 1)");
    int den = dg_problem_tensor(P.p, "den");
    ok(den >= 0 && r.inputs && r.inputs[den] && r.inputs[den][7] == 0, "the witness keeps den[7] = 0");
    has_str(r.reason, "the solver found inputs that make the division undefined", "the reason says how");
    has_str(r.witness_text, "den[7] = 0", "the witness text names the divisor");
    check_result_free(&r);
  }
  unload(&P);

  if (ok(load(&P, "ratio_guard0.lua"), "ratio_guard0 loads")) {
    is_int(run(&P, 5, &r), CHECK_FINDING, "ratio_guard0 y[5]: a finding (zero guarded, -1 not)");
    has_str(r.reason, "integer division overflows: -2147483648 / -1 (int)", "INT_MIN / -1, replayed");
    check_result_free(&r);
  }
  unload(&P);

  /* (ratio_guarded.lua's check, no finding, is in t/check/divzero.sh: its value
   * query runs to the timeout) */
  if (ok(load(&P, "ratio_guarded.lua"), "ratio_guarded loads"))
    is_int(emulate(&P), -1, "ratio_guarded, zero inputs: no finding on the emulator");
  unload(&P);

  if (ok(load(&P, "sum_chunks0.lua"), "sum_chunks0 loads")) {
    is_int(emulate(&P), SIMT_EV_DIV_ZERO, "sum_chunks0: len /= 0 on the emulator");
    is_int(run(&P, 39, &r), CHECK_FINDING, "sum_chunks0 y[39]: a finding");
    check_result_free(&r);
  }
  unload(&P);

  if (ok(load(&P, "sum_chunks4.lua"), "sum_chunks4 loads")) {
    is_int(emulate(&P), -1, "sum_chunks4: no finding on the emulator");
    is_int(run(&P, 39, &r), CHECK_EQUIVALENT, "sum_chunks4 y[39]: equivalent");
    check_result_free(&r);
  }
  unload(&P);
  return tap_done();
}
