/* term_ops.c — the public constructors: dispatch on the operands' sort to the
 * REAL normaliser (term_real.c), IEEE floats (built as written: only constant
 * folding, which rounds exactly as the hardware, and -(-x) = x), bit-vectors
 * (wrapping constant folding, x+0, x*1, x*0, x-x, x^x, x&0, x|0, operands of
 * commutative ops sorted by id), booleans, comparisons, ite and conversions. */
#include "term_priv.h"
#include <math.h>

static term_sort sort2(term_ctx *c, dg_term a, dg_term b, const char *what)
{
  term_sort s = term_sort_of(c, a);
  if (term_sort_of(c, b) != s)
    term_die("%s of %s and %s", what, term_sort_name(s), term_sort_name(term_sort_of(c, b)));
  return s;
}

static bool cnum(term_ctx *c, dg_term t, double *v) { return term_const_double(c, t, v); }
static bool cbits(term_ctx *c, dg_term t, uint64_t *v)
{
  if (!term_is_const(c, t)) return false;
  *v = term_bits_val(c, t);
  return true;
}

static dg_term node2(term_ctx *c, term_op op, term_sort s, dg_term a, dg_term b, bool comm)
{
  if (comm && a > b) { dg_term t = a; a = b; b = t; }
  return term_intern(c, op, s, 0, a, b, 0, 0);
}

/* ---- IEEE floats ------------------------------------------------------------ */
static dg_term fp_bin(term_ctx *c, term_op op, term_sort s, dg_term a, dg_term b)
{
  double x, y, r;
  if (cnum(c, a, &x) && cnum(c, b, &y)) {
    /* f32/f16/bf16 computed in double then rounded once: exact for + - * / */
    switch (op) {
    case TOP_FADD: r = x + y; break;
    case TOP_FSUB: r = x - y; break;
    case TOP_FMUL: r = x * y; break;
    case TOP_FDIV: r = x / y; break;
    case TOP_FMAX: r = fmax(x, y); break;
    default: r = fmin(x, y); break;
    }
    return term_fp(c, s, r);
  }
  return node2(c, op, s, a, b, op == TOP_FADD || op == TOP_FMUL);
}

static dg_term fp_un(term_ctx *c, term_op op, term_sort s, dg_term a)
{
  double x;
  if (cnum(c, a, &x)) return term_fp(c, s, op == TOP_FNEG ? -x : fabs(x));
  term_op inner = term_op_of(c, a);
  if (op == TOP_FNEG && inner == TOP_FNEG) return term_node_of(c, a)->a;
  if (op == TOP_FABS && (inner == TOP_FABS || inner == TOP_FNEG))
    return op == TOP_FABS && inner == TOP_FABS ? a : fp_un(c, TOP_FABS, s, term_node_of(c, a)->a);
  return term_intern(c, op, s, 0, a, 0, 0, 0);
}

/* ---- bit-vectors ------------------------------------------------------------- */
static dg_term bv_bin(term_ctx *c, term_op op, term_sort s, dg_term a, dg_term b)
{
  uint64_t x = 0, y = 0, m = term_mask(s), r;
  int w = term_sort_bits(s);
  bool ka = cbits(c, a, &x), kb = cbits(c, b, &y);
  bool comm = op == TOP_BADD || op == TOP_BMUL || op == TOP_BAND || op == TOP_BOR || op == TOP_BXOR;
  if (ka && kb) {
    int64_t sx = term_sext(s, x), sy = term_sext(s, y);
    switch (op) {
    case TOP_BADD: r = x + y; break;
    case TOP_BSUB: r = x - y; break;
    case TOP_BMUL: r = x * y; break;
    case TOP_UDIV: if (!y) goto keep; r = x / y; break;
    case TOP_UREM: if (!y) goto keep; r = x % y; break;
    case TOP_SDIV: if (!y || (sy == -1 && sx == term_sext(s, (m >> 1) + 1))) goto keep;
      r = (uint64_t)(sx / sy); break;
    case TOP_SREM: if (!y || sy == -1) { if (!y) goto keep; r = 0; break; }
      r = (uint64_t)(sx % sy); break;
    case TOP_SHL: r = y >= (uint64_t)w ? 0 : x << y; break;
    case TOP_LSHR: r = y >= (uint64_t)w ? 0 : x >> y; break;
    case TOP_ASHR: r = (uint64_t)(sx >> (y >= (uint64_t)w ? w - 1 : (int)y)); break;
    case TOP_BAND: r = x & y; break;
    case TOP_BOR: r = x | y; break;
    default: r = x ^ y; break;
    }
    return term_int(c, s, (int64_t)(r & m));
  }
  if (comm && ka) { dg_term t = a; a = b; b = t; y = x; kb = true; ka = false; }
  if (kb) {   /* b is the constant */
    if (y == 0 && (op == TOP_BADD || op == TOP_BSUB || op == TOP_BOR || op == TOP_BXOR ||
                   op == TOP_SHL || op == TOP_LSHR || op == TOP_ASHR)) return a;
    if (y == 0 && (op == TOP_BMUL || op == TOP_BAND)) return b;
    if (y == 1 && (op == TOP_BMUL || op == TOP_UDIV || op == TOP_SDIV)) return a;
    if (y == m && op == TOP_BAND) return a;
  }
  if (a == b && (op == TOP_BSUB || op == TOP_BXOR)) return term_int(c, s, 0);
  if (a == b && (op == TOP_BAND || op == TOP_BOR)) return a;
keep:
  return node2(c, op, s, a, b, comm);
}

/* ---- arithmetic --------------------------------------------------------------- */
typedef struct { term_op fp, bv; } opmap;

static dg_term arith(term_ctx *c, dg_term a, dg_term b, opmap m, const char *what)
{
  term_sort s = sort2(c, a, b, what);
  if (TERM_SK(s) == TERM_SK_FP && m.fp) return fp_bin(c, m.fp, s, a, b);
  if (TERM_SK(s) == TERM_SK_INT && m.bv) return bv_bin(c, m.bv, s, a, b);
  term_die("%s of %s", what, term_sort_name(s));
}

dg_term term_add(term_ctx *c, dg_term a, dg_term b)
{
  if (sort2(c, a, b, "+") == TERM_S_REAL) return term_r_add(c, a, b);
  return arith(c, a, b, (opmap){ TOP_FADD, TOP_BADD }, "+");
}

dg_term term_sub(term_ctx *c, dg_term a, dg_term b)
{
  if (sort2(c, a, b, "-") == TERM_S_REAL) return term_r_add(c, a, term_r_scale(c, b, -1));
  return arith(c, a, b, (opmap){ TOP_FSUB, TOP_BSUB }, "-");
}

dg_term term_mul(term_ctx *c, dg_term a, dg_term b)
{
  if (sort2(c, a, b, "*") == TERM_S_REAL) return term_r_mul(c, a, b);
  return arith(c, a, b, (opmap){ TOP_FMUL, TOP_BMUL }, "*");
}

dg_term term_div(term_ctx *c, dg_term a, dg_term b)
{
  if (sort2(c, a, b, "/") == TERM_S_REAL) return term_r_div(c, a, b);
  return arith(c, a, b, (opmap){ TOP_FDIV, 0 }, "/ (ints: term_idiv)");
}

dg_term term_neg(term_ctx *c, dg_term a)
{
  term_sort s = term_sort_of(c, a);
  if (s == TERM_S_REAL) return term_r_scale(c, a, -1);
  if (TERM_SK(s) == TERM_SK_FP) return fp_un(c, TOP_FNEG, s, a);
  if (TERM_SK(s) != TERM_SK_INT) term_die("neg of %s", term_sort_name(s));
  uint64_t x;
  if (cbits(c, a, &x)) return term_int(c, s, (int64_t)(0 - x));
  if (term_op_of(c, a) == TOP_BNEG) return term_node_of(c, a)->a;
  return term_intern(c, TOP_BNEG, s, 0, a, 0, 0, 0);
}

dg_term term_min(term_ctx *c, dg_term a, dg_term b)
{
  term_sort s = sort2(c, a, b, "min");
  if (s == TERM_S_REAL) return term_r_minmax(c, a, b, false);
  if (TERM_SK(s) == TERM_SK_INT) return term_iminmax(c, a, b, true, false);
  return arith(c, a, b, (opmap){ TOP_FMIN, 0 }, "min");
}

dg_term term_max(term_ctx *c, dg_term a, dg_term b)
{
  term_sort s = sort2(c, a, b, "max");
  if (s == TERM_S_REAL) return term_r_minmax(c, a, b, true);
  if (TERM_SK(s) == TERM_SK_INT) return term_iminmax(c, a, b, true, true);
  return arith(c, a, b, (opmap){ TOP_FMAX, 0 }, "max");
}

dg_term term_abs(term_ctx *c, dg_term a)
{
  term_sort s = term_sort_of(c, a);
  if (s == TERM_S_REAL) return term_r_abs(c, a);
  if (TERM_SK(s) == TERM_SK_FP) return fp_un(c, TOP_FABS, s, a);
  if (TERM_SK(s) != TERM_SK_INT) term_die("abs of %s", term_sort_name(s));
  return term_ite(c, term_icmp(c, TERM_CMP_LT, a, term_int(c, s, 0), true), term_neg(c, a), a);
}

dg_term term_fma(term_ctx *c, dg_term a, dg_term b, dg_term d)
{
  term_sort s = sort2(c, a, b, "fma");
  sort2(c, a, d, "fma");
  if (TERM_SK(s) != TERM_SK_FP) return term_add(c, term_mul(c, a, b), d);
  return term_intern(c, TOP_FMA, s, 0, a, b, d, 0);
}

/* ---- integers -------------------------------------------------------------------- */
static term_sort int2(term_ctx *c, dg_term a, dg_term b, const char *what)
{
  term_sort s = sort2(c, a, b, what);
  if (TERM_SK(s) != TERM_SK_INT) term_die("%s of %s", what, term_sort_name(s));
  return s;
}

dg_term term_idiv(term_ctx *c, dg_term a, dg_term b, bool sg)
{
  return bv_bin(c, sg ? TOP_SDIV : TOP_UDIV, int2(c, a, b, "idiv"), a, b);
}
dg_term term_irem(term_ctx *c, dg_term a, dg_term b, bool sg)
{
  return bv_bin(c, sg ? TOP_SREM : TOP_UREM, int2(c, a, b, "irem"), a, b);
}
dg_term term_shl(term_ctx *c, dg_term a, dg_term b) { return bv_bin(c, TOP_SHL, int2(c, a, b, "<<"), a, b); }
dg_term term_shr(term_ctx *c, dg_term a, dg_term b, bool sg)
{
  return bv_bin(c, sg ? TOP_ASHR : TOP_LSHR, int2(c, a, b, ">>"), a, b);
}
dg_term term_band(term_ctx *c, dg_term a, dg_term b) { return bv_bin(c, TOP_BAND, int2(c, a, b, "&"), a, b); }
dg_term term_bor(term_ctx *c, dg_term a, dg_term b) { return bv_bin(c, TOP_BOR, int2(c, a, b, "|"), a, b); }
dg_term term_bxor(term_ctx *c, dg_term a, dg_term b) { return bv_bin(c, TOP_BXOR, int2(c, a, b, "^"), a, b); }

dg_term term_bnot(term_ctx *c, dg_term a)
{
  term_sort s = term_sort_of(c, a);
  if (TERM_SK(s) != TERM_SK_INT) term_die("~ of %s", term_sort_name(s));
  return bv_bin(c, TOP_BXOR, s, a, term_int(c, s, -1));
}

dg_term term_iminmax(term_ctx *c, dg_term a, dg_term b, bool sg, bool is_max)
{
  int2(c, a, b, "min/max");
  if (a == b) return a;
  dg_term lt = term_icmp(c, TERM_CMP_LT, a, b, sg);
  return is_max ? term_ite(c, lt, b, a) : term_ite(c, lt, a, b);
}

/* ---- comparisons ------------------------------------------------------------------- */
dg_term term_icmp(term_ctx *c, term_cmpop op, dg_term a, dg_term b, bool sg)
{
  term_sort s = sort2(c, a, b, "comparison");
  if (op == TERM_CMP_GT) return term_icmp(c, TERM_CMP_LT, b, a, sg);
  if (op == TERM_CMP_GE) return term_icmp(c, TERM_CMP_LE, b, a, sg);
  if (op == TERM_CMP_NE) return term_not(c, term_icmp(c, TERM_CMP_EQ, a, b, sg));
  bool fp = TERM_SK(s) == TERM_SK_FP, in = TERM_SK(s) == TERM_SK_INT;
  if (a == b && !fp) return term_bool(c, op != TERM_CMP_LT);
  if (term_is_const(c, a) && term_is_const(c, b)) {
    if (in || s == TERM_S_BOOL) {
      uint64_t x = term_bits_val(c, a), y = term_bits_val(c, b);
      int64_t sx = term_sext(s, x), sy = term_sext(s, y);
      bool signd = sg && in;
      if (op == TERM_CMP_EQ) return term_bool(c, x == y);
      if (op == TERM_CMP_LT) return term_bool(c, signd ? sx < sy : x < y);
      return term_bool(c, signd ? sx <= sy : x <= y);
    }
    double x = term_real_val(c, a), y = term_real_val(c, b);
    return term_bool(c, op == TERM_CMP_EQ ? x == y : op == TERM_CMP_LT ? x < y : x <= y);
  }
  if (s == TERM_S_REAL) {   /* an infinite constant against a real: decided */
    double x;
    bool ia = term_const_double(c, a, &x) && isinf(x), ib = !ia && term_const_double(c, b, &x) && isinf(x);
    if (ia || ib) {
      if (op == TERM_CMP_EQ) return term_false(c);
      return term_bool(c, ia ? x < 0 : x > 0);   /* -inf < b ; a < +inf */
    }
  }
  if (op == TERM_CMP_EQ) return node2(c, fp ? TOP_FEQ : TOP_EQ, TERM_S_BOOL, a, b, true);
  if (s == TERM_S_BOOL) term_die("ordering of bools");
  term_op o = op == TERM_CMP_LT ? (in && !sg ? TOP_ULT : TOP_LT) : (in && !sg ? TOP_ULE : TOP_LE);
  return term_intern(c, o, TERM_S_BOOL, 0, a, b, 0, 0);
}

dg_term term_cmp(term_ctx *c, term_cmpop op, dg_term a, dg_term b) { return term_icmp(c, op, a, b, true); }
dg_term term_eq(term_ctx *c, dg_term a, dg_term b) { return term_cmp(c, TERM_CMP_EQ, a, b); }
dg_term term_lt(term_ctx *c, dg_term a, dg_term b) { return term_cmp(c, TERM_CMP_LT, a, b); }
dg_term term_le(term_ctx *c, dg_term a, dg_term b) { return term_cmp(c, TERM_CMP_LE, a, b); }

/* ---- booleans ------------------------------------------------------------------------ */
static void need_bool(term_ctx *c, dg_term a, const char *what)
{
  if (term_sort_of(c, a) != TERM_S_BOOL) term_die("%s of %s", what, term_sort_name(term_sort_of(c, a)));
}

static dg_term andor(term_ctx *c, dg_term a, dg_term b, bool is_and)
{
  bool v;
  need_bool(c, a, "and/or");
  need_bool(c, b, "and/or");
  if (term_const_bool(c, a, &v)) return v == is_and ? b : a;
  if (term_const_bool(c, b, &v)) return v == is_and ? a : b;
  if (a == b) return a;
  if ((term_op_of(c, a) == TOP_NOT && term_node_of(c, a)->a == b) ||
      (term_op_of(c, b) == TOP_NOT && term_node_of(c, b)->a == a))
    return term_bool(c, !is_and);
  return node2(c, is_and ? TOP_AND : TOP_OR, TERM_S_BOOL, a, b, true);
}

dg_term term_and(term_ctx *c, dg_term a, dg_term b) { return andor(c, a, b, true); }
dg_term term_or(term_ctx *c, dg_term a, dg_term b) { return andor(c, a, b, false); }

dg_term term_not(term_ctx *c, dg_term a)
{
  bool v;
  need_bool(c, a, "not");
  if (term_const_bool(c, a, &v)) return term_bool(c, !v);
  if (term_op_of(c, a) == TOP_NOT) return term_node_of(c, a)->a;
  return term_intern(c, TOP_NOT, TERM_S_BOOL, 0, a, 0, 0, 0);
}

dg_term term_ite(term_ctx *c, dg_term cond, dg_term a, dg_term b)
{
  bool v;
  need_bool(c, cond, "ite condition");
  term_sort s = sort2(c, a, b, "ite");
  if (term_const_bool(c, cond, &v)) return v ? a : b;
  if (a == b) return a;
  if (term_op_of(c, cond) == TOP_NOT) return term_ite(c, term_node_of(c, cond)->a, b, a);
  if (s == TERM_S_BOOL && term_const_bool(c, a, &v)) /* c ? true : b = c || b */
    return v ? term_or(c, cond, b) : term_and(c, term_not(c, cond), b);
  if (s == TERM_S_BOOL && term_const_bool(c, b, &v))
    return v ? term_or(c, term_not(c, cond), a) : term_and(c, cond, a);
  return term_intern(c, TOP_ITE, s, 0, cond, a, b, 0);
}

dg_term term_isnan(term_ctx *c, dg_term a)
{
  double x;
  term_sort s = term_sort_of(c, a);
  if (TERM_SK(s) != TERM_SK_FP) return term_false(c);
  if (cnum(c, a, &x)) return term_bool(c, isnan(x));
  return term_intern(c, TOP_ISNAN, TERM_S_BOOL, 0, a, 0, 0, 0);
}

dg_term term_isinf(term_ctx *c, dg_term a)
{
  double x;
  term_sort s = term_sort_of(c, a);
  if (TERM_SK(s) != TERM_SK_FP) return term_false(c);
  if (cnum(c, a, &x)) return term_bool(c, isinf(x));
  return term_intern(c, TOP_ISINF, TERM_S_BOOL, 0, a, 0, 0, 0);
}
