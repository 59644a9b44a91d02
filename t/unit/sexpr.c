/* sexpr.c — tests for size/constraint expressions. */
#include "sexpr.h"
#include "../tap.h"

static const char *names[] = { "N", "C", "M", "n", "big", "zero" };
static const int64_t vals[] = { 64, 1000, 7, 16, INT64_MAX, 0 };
static const dg_symtab st = { names, vals, 6 };

/* value of text, or INT64_MIN-1 sentinel on any error (message into last_err) */
static dg_sexpr_err last_err;
static bool evalx(const char *text, int64_t *v)
{
  dg_sexpr *e = dg_sexpr_parse(text, &last_err);
  if (!e) return false;
  bool ok = dg_sexpr_eval(e, &st, v, &last_err);
  dg_sexpr_free(e);
  return ok;
}

static void val(const char *text, int64_t want)
{
  int64_t v = 0;
  bool good = evalx(text, &v);
  if (!ok(good && v == want, "%s == %lld", text, (long long)want))
    printf("#   got %lld (%s)\n", (long long)v, good ? "ok" : last_err.msg);
}

static void bad(const char *text, size_t pos, const char *msg)
{
  int64_t v;
  bool good = evalx(text, &v);
  ok(!good && last_err.pos == pos && strstr(last_err.msg, msg), "error in '%s' at %zu: %s", text, pos, msg);
  if (!good && (last_err.pos != pos || !strstr(last_err.msg, msg)))
    printf("#   got pos %zu: %s\n", last_err.pos, last_err.msg);
}

int main(void)
{
  val("1 + 2 * 3", 7);
  val("(N+3)/4", 16);
  val("(N + 255) / 256", 1);
  val("ceil(C/256)", 4);
  val("ceil(1024/256)", 4);
  val("ceil(-7/2)", -3);
  val("ceil(N)", 64);
  val("min(N, C)", 64);
  val("max(N, C) - min(3, M)", 997);
  val("C % 4 == 0", 1);
  val("C % 3 == 0", 0);
  val("(n & (n - 1)) == 0", 1);
  val("(M & (M - 1)) == 0", 0);
  val("1 << 10 | 3", 1027);
  val("-N >> 2", -16);
  val("~0", -1);
  val("!0 + !5", 1);
  val("5 ^ 3", 6);
  val("N == 64 && C > 10 || 0", 1);
  val("0 && 1 / zero", 0);         /* short circuit: no division */
  val("1 || 1 / zero", 1);
  val("M > 5 ? N : C", 64);
  val("M > 9 ? N : M > 5 ? 1 : 2", 1);
  val("1 + 2 < 4", 1);              /* precedence: + above < */
  val("2 * 3 % 4", 2);              /* left to right */
  val("10 - 3 - 2", 5);
  val("-7 / 2", -3);                /* C truncation */
  val("-7 % 2", -1);
  val("0x10 + 010", 24);
  val("32u + 1L", 33);
  val("true + false", 1);
  val("N <= 64 && N >= 64 && N != 63", 1);

  bad("N / zero", 2, "division by zero");
  bad("N % (M - 7)", 2, "division by zero");
  bad("ceil(N/zero)", 6, "division by zero");
  bad("big + 1", 4, "overflow");
  bad("big * 2", 4, "overflow");
  bad("-big - 2", 5, "overflow");
  bad("1 << 64", 2, "shift count");
  bad("big << 1", 4, "overflow");
  bad("N + Q", 4, "unknown name 'Q'");
  bad("N +", 3, "expression expected");
  bad("(N + 1", 6, "expected ')'");
  bad("N + 1)", 5, "unbalanced");
  bad("N $ 2", 2, "unexpected '$'");
  bad("foo(N)", 0, "unknown function 'foo'");
  bad("min(N)", 5, "expected ','");
  bad("1.5 * N", 0, "not an integer");
  bad("99999999999999999999", 0, "out of range");
  bad("", 0, "expression expected");

  dg_sexpr_err err;
  dg_sexpr *e = dg_sexpr_parse("(H + 2*padding - dilation*(R-1) - 1)/stride + H", &err);
  ok(e != NULL, "parse conv shape");
  const char *syms[8];
  size_t k = dg_sexpr_symbols(e, syms, 8);
  is_int(k, 5, "five distinct symbols");
  is_str(syms[0], "H", "first symbol H");
  is_str(syms[4], "stride", "last symbol stride");
  is_int(dg_sexpr_symbol_pos(e, "R"), 27, "position of R");
  /* evaluate many times with different tables */
  const char *cn[] = { "H", "padding", "dilation", "R", "stride" };
  int64_t cv[] = { 8, 1, 1, 3, 1 };
  dg_symtab ct = { cn, cv, 5 };
  int64_t v;
  ok(dg_sexpr_eval(e, &ct, &v, &err) && v == 15, "conv shape at H=8");
  cv[0] = 9; cv[4] = 2;
  ok(dg_sexpr_eval(e, &ct, &v, &err) && v == 13, "conv shape at H=9 stride 2");
  dg_sexpr_free(e);

  e = dg_sexpr_parse(" N ", &err);
  const char *nm = NULL;
  ok(e && dg_sexpr_is_symbol(e, &nm) && !strcmp(nm, "N"), "bare symbol");
  dg_sexpr_free(e);
  e = dg_sexpr_parse("42", &err);
  ok(e && dg_sexpr_is_const(e, &v) && v == 42, "bare literal");
  dg_sexpr_free(e);
  return tap_done();
}
