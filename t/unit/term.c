/* term.c — tests of the term DAG: hash-consing, every normalisation rule,
 * tree-vs-loop reductions, memory growth, printing and concrete evaluation. */
#include "term.h"
#include "ir.h"
#include "../tap.h"
#include <math.h>

static term_ctx *C;

static dg_term X(int i)
{
  term_varinfo vi = { TERM_VAR_INPUT, "x", i, DG_TY_F32, NULL };
  return term_var(C, term_float_sort(C, DG_TY_F32), &vi);
}
static dg_term R(double v) { return term_real(C, v); }

static void test_hashcons(void)
{
  dg_term a = X(0), b = X(1);
  is_int(X(0), a, "the same input element is the same variable");
  ok(a != b, "different elements differ");
  is_int(term_add(C, a, b), term_add(C, b, a), "a+b and b+a are one term");
  is_int(term_mul(C, a, b), term_mul(C, b, a), "a*b and b*a are one term");
  term_varinfo u = { TERM_VAR_UNINIT, "x", 0, DG_TY_F32, NULL };
  ok(term_var(C, TERM_S_REAL, &u) != a, "uninitialised x[0] is not the input x[0]");
  long o = term_var_ordinal(C, b);
  const term_varinfo *vi = term_var_info(C, (size_t)o);
  ok(vi && vi->kind == TERM_VAR_INPUT && !strcmp(vi->tensor, "x") && vi->index == 1 &&
     vi->dtype == DG_TY_F32, "variable metadata kept");
  is_str(vi->name, "x[1]", "default display name");
  is_int(term_var_term(C, (size_t)o), b, "ordinal maps back to the term");
  is_int(term_var_ordinal(C, term_add(C, a, b)), -1, "a sum is not a variable");
  size_t nv;
  dg_term *vs = term_vars_of(C, term_mul(C, term_exp(C, b), term_add(C, a, term_real(C, 2))), &nv);
  ok(nv == 2 && vs[0] == a && vs[1] == b, "term_vars_of lists the variables in ordinal order");
  free(vs);
}

static void test_rules(void)
{
  dg_term x = X(0), y = X(1), z = X(2);
  dg_term t = term_true(C), f = term_false(C);
  dg_term bx = term_lt(C, x, y);
  is_int(term_add(C, x, R(0)), x, "x + 0 = x");
  is_int(term_mul(C, x, R(1)), x, "x * 1 = x");
  is_int(term_mul(C, x, R(0)), R(0), "x * 0 = 0 (reals)");
  is_int(term_add(C, R(2), R(3)), R(5), "2 + 3 folds");
  is_int(term_mul(C, term_add(C, x, R(2)), R(3)), term_add(C, term_mul(C, R(3), x), R(6)),
         "constants distribute over sums");
  is_int(term_max(C, x, x), x, "max(x, x) = x");
  is_int(term_min(C, term_min(C, x, y), x), term_min(C, x, y), "min idempotent through nesting");
  is_int(term_max(C, R(1), R(4)), R(4), "max of constants folds");
  is_int(term_neg(C, term_neg(C, x)), x, "-(-x) = x");
  is_int(term_not(C, term_not(C, bx)), bx, "!!b = b");
  is_int(term_ite(C, bx, x, x), x, "ite(c, a, a) = a");
  is_int(term_ite(C, t, x, y), x, "ite(true, a, b) = a");
  is_int(term_ite(C, f, x, y), y, "ite(false, a, b) = b");
  is_int(term_ite(C, term_not(C, bx), x, y), term_ite(C, bx, y, x), "ite(!c, a, b) = ite(c, b, a)");
  is_int(term_sub(C, x, y), term_add(C, x, term_mul(C, R(-1), y)), "a - b = a + (-1)*b");
  is_int(term_sub(C, x, x), R(0), "x - x = 0");
  is_int(term_div(C, x, R(4)), term_mul(C, x, R(0.25)), "x / 4 = x * 0.25");
  is_int(term_add(C, term_mul(C, R(2), x), x), term_mul(C, R(3), x), "2*x + x = 3*x");
  is_int(term_add(C, term_mul(C, x, y), term_mul(C, y, x)), term_mul(C, R(2), term_mul(C, x, y)),
         "x*y + y*x = 2*(x*y)");
  is_int(term_mul(C, x, x), term_pow(C, x, R(2)), "x*x = pow(x, 2)");
  dg_term ea = term_exp(C, x), eb = term_exp(C, y);
  is_int(term_mul(C, ea, eb), term_exp(C, term_add(C, x, y)), "exp(a)*exp(b) = exp(a+b)");
  is_int(term_div(C, ea, eb), term_exp(C, term_sub(C, x, y)), "exp(a)/exp(b) = exp(a-b)");
  is_int(term_mul(C, term_exp(C, term_neg(C, x)), ea), R(1), "exp(-a)*exp(a) = 1");
  is_int(term_div(C, z, term_mul(C, R(2), eb)), term_mul(C, term_mul(C, z, R(0.5)), term_exp(C, term_neg(C, y))),
         "z / (2*exp(b)) = 0.5*z*exp(-b)");
  is_int(term_exp(C, R(0)), R(1), "exp(0) = 1");
  is_int(term_fn1(C, TERM_FN_LOG, term_exp(C, x)), x, "log(exp(x)) = x");
  dg_term m = term_max(C, x, y);
  is_int(term_sub(C, m, R(3)), term_max(C, term_sub(C, x, R(3)), term_sub(C, y, R(3))),
         "max(a, b) - 3 = max(a - 3, b - 3)");
  is_int(term_abs(C, term_neg(C, x)), term_abs(C, x), "|-x| = |x|");
  is_int(term_abs(C, term_abs(C, x)), term_abs(C, x), "||x|| = |x|");
  is_int(term_floor(C, term_floor(C, x)), term_floor(C, x), "floor(floor(x)) = floor(x)");
  is_int(term_fma(C, x, y, z), term_add(C, term_mul(C, x, y), z), "fma is a*b+c in reals");
  is_int(term_and(C, bx, term_not(C, bx)), f, "b && !b = false");
  is_int(term_cmp(C, TERM_CMP_GT, x, y), term_lt(C, y, x), "a > b = b < a");
  is_int(term_lt(C, x, x), f, "x < x = false");
  is_int(term_le(C, R(1), R(2)), t, "1 <= 2 folds");
  is_int(term_fn1(C, TERM_FN_SQRT, R(1)), R(1), "sqrt(1) = 1");
  dg_term ninf = R(-INFINITY), pinf = R(INFINITY);
  is_int(term_max(C, ninf, x), x, "max(-inf, x) = x");
  is_int(term_max(C, term_max(C, ninf, x), y), term_max(C, x, y), "a max loop started at -inf");
  is_int(term_min(C, x, ninf), ninf, "min(x, -inf) = -inf");
  is_int(term_lt(C, ninf, x), t, "-inf < x for a real x");
  is_int(term_cmp(C, TERM_CMP_GE, x, pinf), f, "x >= +inf is false");
  is_int(term_exp(C, ninf), R(0), "exp(-inf) = 0");
  dg_term xi = term_add(C, x, ninf);
  ok(xi != ninf && term_sort_of(C, xi) == TERM_S_REAL, "x + -inf is kept, not folded");
  is_int(term_add(C, pinf, R(1)), pinf, "inf + 1 folds");

  /* bit-vectors */
  term_varinfo iv = { TERM_VAR_INPUT, "idx", 0, DG_TY_I32, NULL };
  dg_term i = term_var(C, TERM_S_I32, &iv);
  dg_term k127 = term_int(C, TERM_S_I8, 127);
  int64_t v;
  ok(term_const_int(C, term_add(C, k127, term_int(C, TERM_S_I8, 1)), &v) && v == -128, "int8 127 + 1 wraps to -128");
  is_int(term_add(C, i, term_int(C, TERM_S_I32, 0)), i, "i + 0 = i");
  is_int(term_mul(C, term_int(C, TERM_S_I32, 0), i), term_int(C, TERM_S_I32, 0), "0 * i = 0");
  is_int(term_bxor(C, i, i), term_int(C, TERM_S_I32, 0), "i ^ i = 0");
  is_int(term_add(C, term_int(C, TERM_S_I32, 5), i), term_add(C, i, term_int(C, TERM_S_I32, 5)), "int + commutes");
  ok(term_const_int(C, term_idiv(C, term_int(C, TERM_S_I32, -7), term_int(C, TERM_S_I32, 2), true), &v) && v == -3,
     "signed division truncates");
  ok(term_const_int(C, term_idiv(C, term_int(C, TERM_S_I32, -7), term_int(C, TERM_S_I32, 2), false), &v) &&
     v == 2147483644,
     "unsigned division of -7");
  ok(term_const_int(C, term_shr(C, term_int(C, TERM_S_I32, -8), term_int(C, TERM_S_I32, 1), true), &v) && v == -4,
     "arithmetic shift right");
  ok(term_const_int(C, term_convert(C, term_int(C, TERM_S_I8, -1), TERM_S_I32, false), &v) && v == 255,
     "zero extension of int8 -1");
  ok(term_const_int(C, term_convert(C, term_int(C, TERM_S_I8, -1), TERM_S_I32, true), &v) && v == -1,
     "sign extension of int8 -1");
  ok(term_const_int(C, term_convert(C, R(-2.7), TERM_S_I32, true), &v) && v == -2, "real to int truncates");
  double d;
  ok(term_const_double(C, term_convert(C, term_int(C, TERM_S_I32, -3), TERM_S_REAL, true), &d) && d == -3,
     "int to real");
}

/* sum of v[lo..hi) as a butterfly (pairwise tree) */
static dg_term tree_sum(dg_term *v, int lo, int hi, bool is_max)
{
  if (hi - lo == 1) return v[lo];
  int mid = (lo + hi) / 2;
  dg_term a = tree_sum(v, lo, mid, is_max), b = tree_sum(v, mid, hi, is_max);
  return is_max ? term_max(C, a, b) : term_add(C, a, b);
}

static void test_reductions(void)
{
  enum { N = 1024 };
  dg_term v[N], w[N];
  for (int i = 0; i < N; i++) v[i] = X(i);
  dg_term seq = v[0], mseq = v[0];
  for (int i = 1; i < N; i++) { seq = term_add(C, seq, v[i]); mseq = term_max(C, mseq, v[i]); }
  is_int(tree_sum(v, 0, N, false), seq, "1024-element sum: butterfly = sequential loop");
  is_int(tree_sum(v, 0, N, true), mseq, "1024-element max: butterfly = sequential loop");
  /* a warp-style reduction: 32 lanes stride over the row, then xor-butterfly */
  dg_term lane[32];
  for (int l = 0; l < 32; l++) {
    lane[l] = R(0);
    for (int i = l; i < N; i += 32) lane[l] = term_add(C, lane[l], v[i]);
  }
  for (int off = 16; off >= 1; off /= 2) {
    dg_term nl[32];
    for (int l = 0; l < 32; l++) nl[l] = term_add(C, lane[l], lane[l ^ off]);
    memcpy(lane, nl, sizeof nl);
  }
  is_int(lane[0], seq, "strided lanes + xor shuffle butterfly = sequential loop");
  ok(lane[0] == lane[31], "every lane of the butterfly holds the same term");
  /* softmax denominators built in two orders */
  dg_term s1 = R(0), s2;
  for (int i = 0; i < N; i++) s1 = term_add(C, s1, term_exp(C, term_sub(C, v[i], mseq)));
  for (int i = 0; i < N; i++) w[i] = term_exp(C, term_sub(C, v[N - 1 - i], mseq));
  s2 = tree_sum(w, 0, N, false);
  is_int(s1, s2, "sum of exp(x_i - m): reversed tree = loop");
  is_int(term_sub(C, seq, v[5]), term_add(C, tree_sum(v, 0, 5, false), tree_sum(v, 6, N, false)),
         "a sum minus one operand = the sum without it");
}

/* A warp's xor butterfly has lane l and lane l^off form the same sum; the
 * second one must come from the computed table, not from redoing the union
 * (that was half of a realistic softmax_warp check). Counted in table
 * lookups, not time. */
static void test_union_memo(void)
{
  term_ctx *saved = C;
  C = term_ctx_new(TERM_MODEL_REAL);
  enum { N = 4096 };
  dg_term lane[32];
  for (int l = 0; l < 32; l++) {
    lane[l] = R(0);
    for (int i = l; i < N; i += 32) lane[l] = term_add(C, lane[l], X(i));
  }
  size_t first = 0, mirror = 0;
  for (int off = 16; off >= 1; off /= 2) {
    dg_term nl[32];
    for (int l = 0; l < 32; l++) {
      size_t n0 = term_ctx_lookups(C);
      nl[l] = term_add(C, lane[l], lane[l ^ off]);
      *(l < (l ^ off) ? &first : &mirror) += term_ctx_lookups(C) - n0;
    }
    memcpy(lane, nl, sizeof nl);
  }
  ok(first > (size_t)N, "the butterfly's distinct unions do real work (%zu lookups)", first);
  ok(mirror < 32 * 5 * 8, "the mirrored unions (lane l^off) come from the computed table: %zu lookups", mirror);
  ok(lane[0] == lane[31], "every lane holds the same sum");
  size_t n0 = term_ctx_lookups(C);
  dg_term again = term_add(C, lane[3], term_real(C, 0));
  ok(again == lane[3] && term_ctx_lookups(C) - n0 < 4, "adding constant 0 costs no table work");
  term_ctx_free(C);
  C = saved;
}

static void test_memory(void)
{
  term_ctx *saved = C;
  C = term_ctx_new(TERM_MODEL_REAL);
  enum { N = 16384 };
  dg_term s = R(0), m = X(0);
  for (int i = 0; i < N; i++) { dg_term x = X(i); s = term_add(C, s, x); m = term_max(C, m, x); }
  size_t bytes = term_ctx_bytes(C);
  ok(bytes < (size_t)64 << 20, "16384-element sequential sum+max: %zu KiB (persistent sets, no quadratic copy)",
     bytes >> 10);
  ok(term_ctx_count(C) < (size_t)N * 80, "term count %zu grows n log n", term_ctx_count(C));
  is_int(term_dag_size(C, s), N + 1 + 1, "the sum has its 16384 operands (plus the node and a coefficient)");
  term_ctx_free(C);
  C = saved;
}

static void test_print(void)
{
  dg_term x = X(0), y = X(1);
  char *s = term_print(C, term_sub(C, term_mul(C, R(2), x), y), 0);
  ok(!strcmp(s, "2*x[0] - x[1]") || !strcmp(s, "-x[1] + 2*x[0]"), "a - b printed with a minus: %s", s);
  free(s);
  s = term_print(C, term_add(C, term_mul(C, R(2), x), R(-1)), 0);
  has_str(s, "2*x[0] - 1", "infix with coefficients and a constant");
  free(s);
  dg_term m = term_max(C, x, y);
  dg_term e = term_exp(C, term_sub(C, x, term_mul(C, m, term_abs(C, y))));
  s = term_print(C, term_div(C, e, term_add(C, e, term_exp(C, y))), 0);
  has_str(s, "let t1 = exp(", "a shared subterm becomes a let-binding");
  has_str(s, "max(x[0], x[1])", "max printed as a call");
  free(s);
  dg_term big = R(0);
  for (int i = 0; i < 500; i++) big = term_add(C, big, X(i));
  s = term_print(C, big, 80);
  ok(strlen(s) <= 83 && strstr(s, "..."), "printing stops near max_len (%zu bytes)", strlen(s));
  free(s);
  term_varinfo b = { TERM_VAR_FREE, "flag", 0, DG_TY_BOOL, NULL };
  s = term_print(C, term_ite(C, term_var(C, TERM_S_BOOL, &b), x, term_neg(C, y)), 0);
  is_str(s, "flag ? x[0] : -x[1]", "ite printed as ?:");
  free(s);
}

static void test_eval(void)
{
  dg_term x = X(0), y = X(1);
  dg_term t = term_div(C, term_exp(C, term_sub(C, x, term_max(C, x, y))), term_add(C, R(1), term_abs(C, y)));
  term_value vals[4096] = { { 0, 0 } };
  vals[term_var_ordinal(C, x)].f = 1.5;
  vals[term_var_ordinal(C, y)].f = -2;
  term_value r = term_eval(C, t, vals, NULL);
  ok(fabs(r.f - exp(1.5 - 1.5) / 3) < 1e-15, "eval of exp(x - max(x,y)) / (1 + |y|): %g", r.f);

  term_ctx *I = term_ctx_new(TERM_MODEL_IEEE);
  term_varinfo va = { TERM_VAR_INPUT, "a", 0, DG_TY_F32, NULL }, vb = va, vc = va;
  vb.index = 1; vc.index = 2;
  term_sort f32 = term_float_sort(I, DG_TY_F32);
  is_int(f32, TERM_S_F32, "IEEE model: f32 is a float sort");
  dg_term a = term_var(I, f32, &va), b = term_var(I, f32, &vb), c = term_var(I, f32, &vc);
  dg_term l = term_add(I, term_add(I, a, b), c), rr = term_add(I, a, term_add(I, b, c));
  ok(l != rr, "IEEE: (a+b)+c and a+(b+c) are different terms");
  term_value v3[3] = { { 1e8, 0 }, { -1e8, 0 }, { 1, 0 } };
  double el = term_eval(I, l, v3, NULL).f, er = term_eval(I, rr, v3, NULL).f;
  ok(el == 1 && er == 0, "IEEE eval rounds to f32 after each op: %g vs %g", el, er);
  ok(term_add(I, term_fp(I, f32, 0.1), term_fp(I, f32, 0.2)) == term_fp(I, f32, (float)((float)0.1 + (float)0.2)),
     "f32 constants fold with f32 rounding");
  ok(term_mul(I, a, term_fp(I, f32, 0)) != term_fp(I, f32, 0), "IEEE: x*0 is not folded (NaN, -0)");
  dg_term h = term_convert(I, term_fp(I, f32, 1.0 / 3), TERM_S_F16, false);
  double hv = 0;
  bool hc = term_const_double(I, h, &hv);
  ok(hc && hv == 0.333251953125, "f32 -> f16 rounds to nearest (%.12g)", hv);
  term_ctx_free(I);

  term_varinfo vi = { TERM_VAR_INPUT, "n", 0, DG_TY_I32, NULL };
  dg_term n = term_var(C, TERM_S_I32, &vi);
  dg_term e = term_irem(C, term_mul(C, n, term_int(C, TERM_S_I32, 3)), term_int(C, TERM_S_I32, 7), true);
  memset(vals, 0, sizeof vals);
  vals[term_var_ordinal(C, n)].i = -5;
  r = term_eval(C, e, vals, NULL);
  is_int((int32_t)r.i, -1, "eval of (n*3) %% 7 at n = -5");
  bool err = false;
  term_eval(C, term_idiv(C, term_int(C, TERM_S_I32, 1), n, true), (term_value[4096]){ { 0, 0 } }, &err);
  ok(err, "integer division by zero is reported");
}

int main(void)
{
  C = term_ctx_new(TERM_MODEL_REAL);
  test_hashcons();
  test_rules();
  test_reductions();
  test_memory();
  test_union_memo();
  test_print();
  test_eval();
  term_ctx_free(C);
  return tap_done();
}
