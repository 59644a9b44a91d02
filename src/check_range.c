/* check_range.c — what the real model cannot see, asked of Z3 after it says
 * `equivalent` (or gives no answer): a value the kernel rounds to f16/bf16
 * past the dtype's range, and an f32 exp whose argument is past the point
 * where expf overflows to infinity (softmax without its max shift: inf/inf
 * is NaN). A model is a candidate witness, replayed on the emulator like
 * any other before it is called a bug. */
#include "check_int.h"
#include "dom_sym.h"
#include "smt.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* expf(a) is an infinity past log(FLT_MAX) = 88.7228...; exp2f past 128.
 * The question asks a little further, where no rounding of a or of exp's
 * result can keep it finite. */
#define EXP_F32_PAST 89.0
#define EXP2_F32_PAST 128.5
/* ... and 0 below log(2^-150) = -103.97...; exp2f below -150 */
#define EXP_F32_UNDER -104.0
#define EXP2_F32_UNDER -150.5
#define EXP_UNDER_PUSH 200.0
enum { EXP_TRIES = 4 };

/* per term id: a variable of t */
static uint8_t *vars_mask(term_ctx *tc, dg_term t)
{
  size_t nk;
  dg_term *kv = term_vars_of(tc, t, &nk);
  uint8_t *mine = dg_calloc(term_ctx_count(tc) + 1, 1);
  for (size_t i = 0; i < nk; i++) mine[kv[i]] = 1;
  free(kv);
  return mine;
}

/* t is over some of mine's variables only (the AC normaliser flattens
 * partial sums, so this element's points are not sub-terms of kt) */
static bool over(term_ctx *tc, dg_term t, const uint8_t *mine)
{
  size_t nv;
  dg_term *pv = term_vars_of(tc, t, &nv);
  bool sub = nv > 0;
  for (size_t j = 0; j < nv && sub; j++) sub = mine[pv[j]];
  free(pv);
  return sub;
}

/* The real model computes what the kernel rounds to f16/bf16 exactly; on
 * the GPU such a value past the dtype's largest finite one is an infinity
 * (an fp16 sum of squares, say). Asks for inputs (finite values of their
 * dtypes) that push a rounding point the element depends on past it, and
 * replays them: true (verdict set) when that differs from the reference. */
static bool half_check(chk *c, dg_term kt, dg_term rt)
{
  size_t n;
  const dom_sym_narrow *np = dom_sym_narrow_points(c->sym, &n);
  if (!n) return false;
  /* the points of this element's computation: over its variables only (the
   * AC normaliser flattens partial sums, so they are not sub-terms of kt) */
  term_ctx *tc = c->tc;
  uint8_t *mine = vars_mask(tc, kt), *done = dg_calloc(term_ctx_count(tc) + 1, 1);
  dg_term any = term_false(tc);
  int kind = -1;
  for (size_t i = 0; i < n; i++) {
    dg_term t = np[i].t;
    /* the stored value itself: its rounding is the output dtype's, which the
     * replay's validator applies to the reference as well */
    if (done[t] || t == kt || term_is_const(tc, t)) continue;
    done[t] = 1;
    if (!over(tc, t, mine)) continue;
    if (kind < 0 || np[i].tykind == DG_TY_F16) kind = np[i].tykind;
    dg_term lim = term_real(tc, check_dtype_max(np[i].tykind));
    any = term_or(tc, any, term_lt(tc, lim, term_abs(tc, t)));
  }
  free(mine);
  free(done);
  if (kind < 0) return false;
  /* a witness that looks like data first: inputs up to 100 and a reference
   * clear of 0 (an overflowed kernel tends to give 0, inf or NaN); then
   * inputs up to 100; then the dtypes' range */
  dg_tol tol = dg_problem_tol(c->p, c->t);
  dg_term away = term_lt(tc, term_real(tc, 10 * tol.atol + 1e-3), term_abs(tc, rt));
  bool found = false;
  /* answered: the solver's "no such input" over the dtypes' whole range (the
   * last pass), or a model of it that replays the same as the reference */
  c->range_open = "the f16/bf16 range check's queries did not finish";
  for (int pass = 0; pass < 3 && !found; pass++) {
    if (check_out_of_time(c)) {
      c->range_open = "the check's budget was spent before the f16/bf16 range check could ask";
      break;
    }
    /* a side question: 3 s a pass, a tenth of a longer solver timeout
     * (valgrind's check.t gives 120 s: 12) */
    smt_opts so = { .timeout_ms = check_side_ms(c, 10, 3000), .deadline = c->deadline };
    dg_term bnd = check_bounds(c, pass == 2 ? 0 : 100);
    if (!bnd) {
      c->range_open = "the check's budget was spent building the f16/bf16 range check's bounds";
      break;
    }
    smt_solver *s = smt_new(tc, &so);
    smt_assume(s, bnd);
    smt_result res = {0};
    smt_verdict v = smt_sat(s, pass ? any : term_and(tc, any, away), &res);
    c->r->t_solver += res.seconds;
    smt_free(s);
    found = v == SMT_SAT && check_try_model(c, &res, kt, kt);
    if (pass == 2 && v != SMT_UNKNOWN) c->range_open = NULL;
    smt_result_free(&res);
  }
  if (found) {
    c->range_open = NULL;
    check_say(c->r, CHECK_BUG, "kernel %.9g vs reference %.9g (witness replayed on the emulator; found by the %s range "
              "check: for these inputs a value the kernel rounds to %s exceeds %g, which the real model does not see)",
              c->r->kernel_value, c->r->ref_value, kind == DG_TY_F16 ? "f16" : "bf16", kind == DG_TY_F16 ? "f16" : "bf16",
              check_dtype_max(kind));
  }
  return found;
}


/* f32 exp overflow. Z3 is not asked: a disjunction over a softmax row's
 * arguments (x_c - max) took it past 3 s, each alone 0.05-0.15 s, and a
 * correct kernel would pay that on every element. An argument is pushed
 * instead, by evaluating it (in the real model, exactly) on inputs that
 * move its variables to +-100 — all of them, then one at a time over the
 * concrete run's values. x - max(.., x, ..) never passes 0 that way (no
 * replay, no cost but the evaluations); expf(x) passes at x = 100. An
 * input that pushes one past the overflow point is replayed, and only a
 * replay that differs is a bug. Arguments are taken from both ends of the
 * order they were computed in (the stored value's own exp, a softmax's
 * numerator, is last; the first term of its sum is first). */
enum { EXP_ARGS = 8, EXP_VARS = 8 };
#define EXP_PUSH 100.0

/* vals: the concrete run's input values (the infinity markers as such);
 * false when an input is not held (huge, lazy: no replay either) */
static bool base_values(chk *c, term_value *vals, size_t nv)
{
  for (size_t i = 0; i < nv; i++) {
    const term_varinfo *vi = term_var_info(c->tc, i);
    int t = vi->kind == TERM_VAR_INPUT ? dg_problem_tensor(c->p, vi->tensor) : -1;
    double v = 0;
    if (t >= 0 && !c->io.data[t]) return false;
    if (t >= 0 && vi->index >= 0 && vi->index < c->io.numel[t]) v = c->io.data[t][vi->index];
    else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "+inf")) v = INFINITY;
    else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "-inf")) v = -INFINITY;
    vals[i].f = v, vals[i].i = (int64_t)v;
  }
  return true;
}

static bool pushable(term_ctx *tc, dg_term v)
{
  long o = term_var_ordinal(tc, v);
  return o >= 0 && term_var_info(tc, (size_t)o)->kind == TERM_VAR_INPUT && term_sort_of(tc, v) == TERM_S_REAL;
}

/* Some input that takes t past lim into vals (from base); false: none of the tries */
static bool push_past(chk *c, dg_term t, double lim, const term_value *base, term_value *vals, size_t nv, dg_buf *text)
{
  term_ctx *tc = c->tc;
  size_t nvar;
  dg_term *v = term_vars_of(tc, t, &nvar);
  bool hit = false;
  for (int k = 0; k < 2 + 2 * EXP_VARS && !hit; k++) {
    double to = k & 1 ? -EXP_PUSH : EXP_PUSH;
    size_t only = k < 2 ? SIZE_MAX : (size_t)(k - 2) / 2;     /* all, then one at a time */
    if (only != SIZE_MAX && only >= nvar) break;
    memcpy(vals, base, sizeof *vals * nv);
    for (size_t j = 0; j < nvar; j++)
      if ((only == SIZE_MAX || j == only) && pushable(tc, v[j])) vals[term_var_ordinal(tc, v[j])].f = to;
    bool err = false;
    double x = term_eval(tc, t, vals, &err).f;
    hit = !err && x > lim;
    if (hit) {
      dg_buf_printf(text, "%s %g (an argument of expf at %.6g, past %g): ", only == SIZE_MAX ? "its variables at" : "one at",
                    to, x, lim);
      for (size_t j = 0, shown = 0; j < nvar; j++) {
        if (!(only == SIZE_MAX || j == only) || !pushable(tc, v[j])) continue;
        if (shown++ == 8) { dg_buf_puts(text, ", ..."); break; }
        char *nm = term_print(tc, v[j], 0);
        dg_buf_printf(text, "%s%s = %g", shown > 1 ? ", " : "", nm, to);
        free(nm);
      }
    }
  }
  free(v);
  return hit;
}

/* Every variable of kt at to (from base) into vals; then: does one of the
 * arguments args[0..na) pass its overflow limit lims[i]? (softmax without
 * the shift: a row at 100 makes every exp infinite, whichever element is
 * checked) */
static bool push_all(chk *c, dg_term kt, double to, const dg_term *args, const double *lims, size_t na,
                     const term_value *base, term_value *vals, size_t nv)
{
  term_ctx *tc = c->tc;
  size_t nk;
  dg_term *kv = term_vars_of(tc, kt, &nk);
  memcpy(vals, base, sizeof *vals * nv);
  for (size_t j = 0; j < nk; j++)
    if (pushable(tc, kv[j])) vals[term_var_ordinal(tc, kv[j])].f = to;
  free(kv);
  for (size_t i = 0; i < na; i++) {
    bool err = false;
    double x = term_eval(tc, args[i], vals, &err).f;
    if (!err && x > lims[i]) return true;
  }
  return false;
}

/* Underflow: the element's inputs at +-200, one sign per input tensor (up
 * to UNDER_TENSORS tensors, the rest with the last one's sign: every
 * combination, 16 at most). A sum of exponentials that all underflow is 0:
 * a softmax whose running max started at 0 instead of -inf divides 0 by 0
 * on a row of large negative values; attention's scores q.k are large
 * negative only when q and k have opposite signs (q at 200, k at -200),
 * which a push of every input to one value never gives. A max-shifted
 * softmax keeps its row maximum's argument at 0 under every push (no
 * replay). The combinations are ranked by (every argument below its
 * underflow point, the number below) and the best UNDER_REPLAYS with one
 * below at least are replayed: an online softmax started at 0 has its
 * rescaling exp(m_old - m_new) at exp(0) on such a row, so "every one
 * below" alone missed it. Deterministic: no clock, no randomness. */
enum { UNDER_TENSORS = 4, UNDER_REPLAYS = 2 };
typedef struct { unsigned mask; size_t below; bool all; } under_try;

static int by_under(const void *a, const void *b)
{
  const under_try *x = a, *y = b;
  if (x->all != y->all) return x->all ? -1 : 1;
  if (x->below != y->below) return x->below > y->below ? -1 : 1;
  return x->mask < y->mask ? -1 : x->mask > y->mask;     /* all negative (mask 0) first among equals */
}

/* kt's pushable variables at +-EXP_UNDER_PUSH by tensor, the sign of tensor
 * slot s from bit s of mask; the tensors in first-seen order into names */
static void under_vals(chk *c, dg_term kt, unsigned mask, const term_value *base, term_value *vals, size_t nv,
                       const char **names, int *nt)
{
  term_ctx *tc = c->tc;
  size_t nk;
  dg_term *kv = term_vars_of(tc, kt, &nk);
  memcpy(vals, base, sizeof *vals * nv);
  *nt = 0;
  for (size_t j = 0; j < nk; j++) {
    if (!pushable(tc, kv[j])) continue;
    long o = term_var_ordinal(tc, kv[j]);
    const char *tn = term_var_info(tc, (size_t)o)->tensor;
    int s = 0;
    while (s < *nt && strcmp(names[s], tn)) s++;
    if (s == *nt && *nt < UNDER_TENSORS) names[(*nt)++] = tn;
    if (s >= UNDER_TENSORS) s = UNDER_TENSORS - 1;
    vals[o].f = mask >> s & 1 ? EXP_UNDER_PUSH : -EXP_UNDER_PUSH;
  }
  free(kv);
}

static bool under_check(chk *c, dg_term kt, const dg_term *args, const double *unders, size_t na,
                        const term_value *base, term_value *vals, size_t nv, bool *every)
{
  const char *names[UNDER_TENSORS];
  int nt = 0;
  under_vals(c, kt, 0, base, vals, nv, names, &nt);
  under_try tries[1u << UNDER_TENSORS];
  unsigned ntries = 0;
  for (unsigned mask = 0; nt && mask < 1u << nt; mask++) {
    under_vals(c, kt, mask, base, vals, nv, names, &nt);
    size_t below = 0;
    for (size_t i = 0; i < na; i++) {
      bool err = false;
      double x = term_eval(c->tc, args[i], vals, &err).f;
      below += !err && x < unders[i];
    }
    if (below) tries[ntries++] = (under_try){ mask, below, below == na };
  }
  qsort(tries, ntries, sizeof *tries, by_under);
  bool found = false;
  for (unsigned k = 0; k < ntries && k < UNDER_REPLAYS && !found && !check_out_of_time(c); k++) {
    under_vals(c, kt, tries[k].mask, base, vals, nv, names, &nt);
    dg_buf text = {0};
    if (nt == 1) dg_buf_printf(&text, "every input of this element at %g", tries[k].mask & 1 ? EXP_UNDER_PUSH : -EXP_UNDER_PUSH);
    else {
      dg_buf_puts(&text, "the inputs of this element by tensor:");
      for (int s = 0; s < nt; s++)
        dg_buf_printf(&text, "%s %s at %g", s ? "," : "", names[s], tries[k].mask >> s & 1 ? EXP_UNDER_PUSH : -EXP_UNDER_PUSH);
    }
    if (tries[k].all) dg_buf_puts(&text, " (every argument of expf below the point where it underflows to 0)");
    else dg_buf_printf(&text, " (%zu of %zu arguments of expf below the point where they underflow to 0)", tries[k].below, na);
    *every = tries[k].all;
    found = check_try_values(c, vals, nv, text.s);
    dg_buf_free(&text);
  }
  return found;
}

static bool exp_check(chk *c, dg_term kt, dg_term rt)
{
  (void)rt;
  size_t n, nv = term_var_count(c->tc);
  const dom_sym_exp_arg *ea = dom_sym_exp_args(c->sym, &n);
  if (!n || !nv) return false;
  term_ctx *tc = c->tc;
  term_value *base = dg_calloc(nv, sizeof *base), *vals = dg_calloc(nv, sizeof *vals);
  uint8_t *mine = vars_mask(tc, kt), *done = dg_calloc(term_ctx_count(tc) + 1, 1);
  bool found = false, held = base_values(c, base, nv);
  dg_term args[EXP_ARGS];
  double lims[EXP_ARGS], unders[EXP_ARGS];
  size_t na = 0;
  for (size_t k = 0; held && k < n && na < EXP_ARGS; k++) {
    size_t i = k & 1 ? k / 2 : n - 1 - k / 2;              /* last, first, second last, ... */
    dg_term t = ea[i].arg;
    if (done[t] || term_is_const(tc, t)) continue;
    done[t] = 1;
    if (!over(tc, t, mine)) continue;
    lims[na] = ea[i].base2 ? EXP2_F32_PAST : EXP_F32_PAST;
    unders[na] = ea[i].base2 ? EXP2_F32_UNDER : EXP_F32_UNDER;
    args[na++] = t;
  }
  for (int s = 0; s < 2 && na && !found && !check_out_of_time(c); s++)
    if (push_all(c, kt, s ? -EXP_PUSH : EXP_PUSH, args, lims, na, base, vals, nv))
      found = check_try_values(c, vals, nv, s ? "every input of this element at -100 (an argument of expf past its "
                                                "overflow point)"
                                              : "every input of this element at 100 (an argument of expf past its "
                                                "overflow point)");
  bool under = false, every = false;
  if (na && !found && !check_out_of_time(c))
    under = found = under_check(c, kt, args, unders, na, base, vals, nv, &every);
  int replays = 0;
  for (size_t i = 0; i < na && replays < EXP_TRIES && !found && !check_out_of_time(c); i++) {
    dg_buf text = {0};
    if (push_past(c, args[i], lims[i], base, vals, nv, &text)) {
      replays++;
      found = check_try_values(c, vals, nv, text.s);
    }
    dg_buf_free(&text);
  }
  free(base);
  free(vals);
  free(mine);
  free(done);
  if (found)
    check_say(c->r, CHECK_BUG, "kernel %.9g vs reference %.9g (witness replayed on the emulator; found by the f32 exp "
              "check: for these inputs %s in f32, which the real model does not see)", c->r->kernel_value,
              c->r->ref_value, !under ? "an argument of expf or exp2f passes the point where it overflows to infinity"
              : every ? "every argument of expf or exp2f falls below the point where it underflows to 0"
                      : "arguments of expf or exp2f fall below the point where they underflow to 0");
  return found;
}

/* ---- inputs only one side reads ---------------------------------------------- */
/* A kernel that reads an element the reference does not (rmsnorm's `c <= C`
 * adds the next row's first value to a row's sum of squares) differs from
 * it by that value's effect, which at normal values is often within the
 * tolerance (1 of 200 squares); the solver's nonlinear query ran out of the
 * budget on it (20 s) and the structured distributions never make that one
 * element large. Those inputs (and those only the reference reads) are
 * pushed to +-100 on the concrete run's values, both terms evaluated, and a
 * difference beyond the tolerance is replayed: a few evaluations when the
 * two read the same inputs, as every correct kernel's terms do. */
enum { EXTRA_SHOWN = 4 };

bool check_push_extra(chk *c, dg_term kt, dg_term rt)
{
  term_ctx *tc = c->tc;
  size_t nv = term_var_count(tc);
  if (!nv || term_ctx_model(tc) == TERM_MODEL_IEEE) return false;
  uint8_t *km = vars_mask(tc, kt), *rm = vars_mask(tc, rt);
  size_t n = 0, cnt = term_ctx_count(tc) + 1;
  dg_term *extra = dg_calloc(nv, sizeof *extra);
  for (size_t i = 0; i < nv; i++) {
    dg_term v = term_var_term(tc, i);
    if ((size_t)v < cnt && km[v] != rm[v] && pushable(tc, v)) extra[n++] = v;
  }
  free(km);
  free(rm);
  term_value *base = dg_calloc(nv, sizeof *base), *vals = dg_calloc(nv, sizeof *vals);
  const dg_tensor *out = &c->p->tensors.v[c->t];
  dg_tol tol = dg_problem_tol(c->p, c->t);
  bool found = false;
  if (n && base_values(c, base, nv))
    for (int s = 0; s < 2 && !found && !check_out_of_time(c); s++) {
      double to = s ? -EXP_PUSH : EXP_PUSH;
      memcpy(vals, base, sizeof *vals * nv);
      for (size_t j = 0; j < n; j++) vals[term_var_ordinal(tc, extra[j])].f = to;
      bool e1 = false, e2 = false;
      double kv = term_eval(tc, kt, vals, &e1).f, rv = term_eval(tc, rt, vals, &e2).f;
      if (e1 || e2 || fuzz_elem_check(out->dtype, kv, rv, tol) == FUZZ_ELEM_OK) continue;
      dg_buf text = {0};
      dg_buf_puts(&text, "the concrete run's inputs, with those only one side reads at ");
      dg_buf_printf(&text, "%g: ", to);
      for (size_t j = 0; j < n && j < EXTRA_SHOWN; j++) {
        char *nm = term_print(tc, extra[j], 0);
        dg_buf_printf(&text, "%s%s", j ? ", " : "", nm);
        free(nm);
      }
      if (n > EXTRA_SHOWN) dg_buf_printf(&text, ", ... (%zu in all)", n);
      found = check_try_values(c, vals, nv, text.s);
      dg_buf_free(&text);
    }
  free(extra);
  free(base);
  free(vals);
  if (found)
    check_say(c->r, CHECK_BUG, "kernel %.9g vs reference %.9g (witness replayed on the emulator; found by pushing "
              "the inputs that one side reads and the other does not to +-%g)", c->r->kernel_value, c->r->ref_value,
              EXP_PUSH);
  return found;
}

bool check_range(chk *c, dg_term kt, dg_term rt)
{
  c->range_open = NULL;
  return half_check(c, kt, rt) || exp_check(c, kt, rt);
}
