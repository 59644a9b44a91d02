/* dom_sym.c — the symbolic value domain (see dom_sym.h): the engine's
 * operations on term ids, memory cells per buffer, and the few infinities
 * kernels write as identities (-INFINITY as the start of a max) kept exact
 * in the real model by the rules below. */
#include "dom_sym.h"
#include <math.h>
#include <string.h>

typedef struct {
  int buf;
  dom_sym_binding b;
} binding;

typedef struct {
  dom base;                /* first: a dom * is a symdom * */
  term_ctx *c;
  dom *conc;
  DG_VEC(binding) binds;
  dg_term pinf, ninf;      /* REAL model: +inf and -inf as marker variables */
  char *unsupported;
  uint64_t fresh;
  DG_VEC(dom_sym_narrow) narrow;   /* REAL model: results rounded to f16/bf16 */
  DG_VEC(dom_sym_exp_arg) expa;    /* REAL model: arguments of f32 exp/exp2 */
  DG_VEC(dom_sym_divisor) divs;    /* integer divisions the engine cannot judge */
} symdom;

/* dom_mem.cells: a term per stored scalar, by byte offset, in pages made on
 * the first store into them (a check of one element of a 64 MiB tensor
 * touches a few pages, not a cell array as large as the tensor). */
#define CELL_PAGE 4096
typedef struct { dg_term t[CELL_PAGE]; uint8_t sz[CELL_PAGE]; } cellpage;
typedef struct {
  int64_t npages;
  cellpage **pages;
} cells;

#define S(d) ((symdom *)(d))

static void unsupported(symdom *s, const char *what)
{
  if (!s->unsupported) s->unsupported = dg_strdup(what);
}

const char *dom_sym_unsupported(const dom *d) { return S(d)->unsupported; }

/* The real model drops f16/bf16 rounding: remember where it happened, for
 * the checker's range check (an f16 value above 65504 is an infinity). */
static void narrow(symdom *s, const dg_type *t, dg_term x)
{
  if ((t->kind == DG_TY_F16 || t->kind == DG_TY_BF16) && term_ctx_model(s->c) == TERM_MODEL_REAL &&
      term_sort_of(s->c, x) == TERM_S_REAL && x != s->pinf && x != s->ninf)
    dg_vec_push(&s->narrow, ((dom_sym_narrow){ x, t->kind }));
}

const dom_sym_narrow *dom_sym_narrow_points(const dom *d, size_t *n)
{
  *n = S(d)->narrow.n;
  return S(d)->narrow.v;
}

const dom_sym_divisor *dom_sym_divisors(const dom *d, size_t *n)
{
  *n = S(d)->divs.n;
  return S(d)->divs.v;
}

/* x / y or x % y of type t (operands of t's sort), y or x not constant:
 * kept for the checker when it may be undefined (dom_sym.h). */
static void note_div(symdom *s, dg_binop op, const dg_type *t, dg_term x, dg_term y, bool sg)
{
  int64_t k;
  bool ky = term_const_int(s->c, y, &k);
  if ((ky && !(sg && k == -1)) || s->divs.n >= DOM_SYM_MAX_DIVS) return;
  for (size_t i = 0; i < s->divs.n; i++)
    if (s->divs.v[i].den == y && s->divs.v[i].num == x) return;
  dg_vec_push(&s->divs, ((dom_sym_divisor){ x, y, t->kind, sg, op == DG_BIN_MOD }));
}

const dom_sym_exp_arg *dom_sym_exp_args(const dom *d, size_t *n)
{
  *n = S(d)->expa.n;
  return S(d)->expa.v;
}

static dg_term fresh(symdom *s, term_sort so, const char *what)
{
  unsupported(s, what);
  char name[48];
  /* one interned tensor string for all of them, told apart by the index (the
   * name stays "opaqueN"): a unique string each made term_var's string table
   * grow by one per opaque value and its linear lookup quadratic — 131,040
   * out-of-bounds loads of a symbolic run took 170 s, past any --budget */
  snprintf(name, sizeof name, "opaque%llu", (unsigned long long)s->fresh);
  term_varinfo vi = { .kind = TERM_VAR_FREE, .name = name, .tensor = "?opaque", .index = (int64_t)s->fresh++,
                      .dtype = DG_TY_F64 };
  return term_var(s->c, so, &vi);
}

/* Real model: a / b as a * (1/b), so that `e * (1.0f / s)` and `e / s` meet
 * in one product term (the AC normaliser then makes them one id). Sound over
 * the reals for b != 0; at b == 0 both are undefined. */
dg_term dom_sym_div(term_ctx *c, dg_term a, dg_term b)
{
  double k;
  if (term_ctx_model(c) != TERM_MODEL_REAL || (term_const_double(c, a, &k) && k == 1))
    return term_div(c, a, b);
  return term_mul(c, a, term_div(c, term_real(c, 1), b));
}

/* ---- sorts and constants -------------------------------------------------- */
static term_sort sort_of(symdom *s, const dg_type *t)
{
  if (dom_is_float(t)) return term_float_sort(s->c, t->kind);
  return term_int_sort(t->kind);
}

static bool is_unsigned(const dg_type *t)
{
  return t->kind == DG_TY_U8 || t->kind == DG_TY_U16 || t->kind == DG_TY_U32 || t->kind == DG_TY_U64;
}

/* A term as the concrete domain's slot for type t; false if not constant. */
static bool decode(symdom *s, dg_term x, const dg_type *t, dom_val *out)
{
  if (dom_is_float(t)) {
    double f;
    if (x == s->pinf || x == s->ninf) { *out = dom_of_f(x == s->pinf ? INFINITY : -INFINITY); return true; }
    if (!term_const_double(s->c, x, &f)) return false;
    *out = dom_of_f(f);
    return true;
  }
  int64_t v;
  bool bv;
  if (term_const_bool(s->c, x, &bv)) { *out = bv; return true; }
  if (!term_const_int(s->c, x, &v)) {
    double f;     /* a float constant where an int is expected (defensive) */
    if (!term_const_double(s->c, x, &f)) return false;
    v = (int64_t)f;
  }
  int w = (int)dom_tysize(t) * 8;
  if (t->kind == DG_TY_BOOL) v = v != 0;
  else if (is_unsigned(t) && w < 64) v &= (int64_t)((1ull << w) - 1);
  *out = (dom_val)v;
  return true;
}

static dg_term fconst(symdom *s, int kind, double f)
{
  if (isnan(f)) return fresh(s, term_float_sort(s->c, kind), "NaN constant");
  if (isinf(f) && term_ctx_model(s->c) == TERM_MODEL_REAL) return f > 0 ? s->pinf : s->ninf;
  return term_float(s->c, kind, f);
}

static dg_term encode(symdom *s, dom_val v, const dg_type *t)
{
  if (dom_is_float(t)) return fconst(s, t->kind, dom_f(v));
  if (t->kind == DG_TY_BOOL) return term_bool(s->c, v != 0);
  return term_int(s->c, sort_of(s, t), (int64_t)v);
}

/* x converted to the sort type t has (guards against sort mixing). */
static dg_term coerce(symdom *s, dg_term x, const dg_type *t)
{
  term_sort want = sort_of(s, t), have = term_sort_of(s->c, x);
  if (want == have || x == s->pinf || x == s->ninf) return x;
  if (want == TERM_S_BOOL) {
    if (TERM_SK(have) == TERM_SK_INT) return term_icmp(s->c, TERM_CMP_NE, x, term_int(s->c, have, 0), false);
    return term_cmp(s->c, TERM_CMP_NE, x, term_float(s->c, DG_TY_F64, 0));
  }
  if (have == TERM_S_BOOL && dom_is_float(t))
    return term_ite(s->c, x, term_float(s->c, t->kind, 1), term_float(s->c, t->kind, 0));
  return term_convert(s->c, x, want, TERM_SK(have) == TERM_SK_INT ? true : dom_is_signed(t));
}

static bool is_inf(symdom *s, dg_term x) { return x && (x == s->pinf || x == s->ninf); }

/* An operand slot as a term. Slots that hold no term of this ctx are
 * registers read before anything set them (the engine zero-fills) or lanes
 * evaluated after the run stopped: an opaque value, flagged. */
static dg_term val(symdom *s, dom_val v, const dg_type *t)
{
  if (v && v <= term_ctx_count(s->c)) return (dg_term)v;
  return fresh(s, sort_of(s, t), "a value read before anything set it");
}

/* ---- constants ------------------------------------------------------------- */
static void y_const_int(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const int64_t *src)
{
  symdom *s = S(d);
  for (int i = 0; i < n; i++)
    if (m[i]) dst[i] = dom_is_float(t) ? fconst(s, t->kind, (double)src[i]) : encode(s, (dom_val)src[i], t);
}

static void y_const_float(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst, double f)
{
  symdom *s = S(d);
  dom_val v = dom_is_float(t) ? fconst(s, t->kind, f) : term_int(s->c, sort_of(s, t), (int64_t)f);
  if (t->kind == DG_TY_BOOL) v = term_bool(s->c, f != 0);
  for (int i = 0; i < n; i++) dst[i] = v;
  (void)m;
}

/* ---- folding through the concrete domain ------------------------------------ */
static bool fold_ok(symdom *s, const dg_type *t)
{
  /* real-model floats fold in the term layer (exact reals), not in f32 */
  return !dom_is_float(t) || term_ctx_model(s->c) == TERM_MODEL_IEEE;
}

/* ---- unary ------------------------------------------------------------------ */
static void y_unop(dom *d, dg_unop op, const dg_type *t, int n, const uint8_t *m, dom_val *dst, const dom_val *a)
{
  symdom *s = S(d);
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    dg_term x = val(s, a[i], t);
    dom_val cv, r;
    static const uint8_t one = 1;
    if (fold_ok(s, t) && decode(s, x, t, &cv)) {
      s->conc->unop(s->conc, op, t, 1, &one, &r, &cv);
      dst[i] = encode(s, r, op == DG_UN_NOT ? &(dg_type){ .kind = DG_TY_BOOL } : t);
      continue;
    }
    x = coerce(s, x, t);
    switch (op) {
    case DG_UN_NEG:
      dst[i] = x == s->pinf ? s->ninf : x == s->ninf ? s->pinf : term_neg(s->c, x);
      break;
    case DG_UN_NOT:
      if (term_sort_of(s->c, x) == TERM_S_BOOL) dst[i] = term_not(s->c, x);
      else if (dom_is_float(t)) dst[i] = is_inf(s, x) ? term_false(s->c) : term_cmp(s->c, TERM_CMP_EQ, x, term_float(s->c, t->kind, 0));
      else dst[i] = term_icmp(s->c, TERM_CMP_EQ, x, term_int(s->c, sort_of(s, t), 0), false);
      break;
    default:
      dst[i] = term_sort_of(s->c, x) == TERM_S_BOOL ? term_not(s->c, x) : term_bnot(s->c, x);
      break;
    }
  }
}

/* ---- binary ----------------------------------------------------------------- */
static const term_cmpop cmp_of[DG_BIN__COUNT] = {
  [DG_BIN_EQ] = TERM_CMP_EQ, [DG_BIN_NE] = TERM_CMP_NE, [DG_BIN_LT] = TERM_CMP_LT,
  [DG_BIN_LE] = TERM_CMP_LE, [DG_BIN_GT] = TERM_CMP_GT, [DG_BIN_GE] = TERM_CMP_GE,
};
static bool is_cmp(dg_binop op) { return op >= DG_BIN_EQ && op <= DG_BIN_GE; }

/* Real-model rules for the infinity markers; false if op is not covered. */
static bool inf_rule(symdom *s, dg_binop op, dg_term x, dg_term y, dg_term *r)
{
  bool xi = is_inf(s, x), yi = is_inf(s, y);
  if (!xi && !yi) return false;
  if (is_cmp(op) && xi != yi) {     /* a finite value against an infinity */
    bool xbig = x == s->pinf || y == s->ninf;       /* x is the larger one */
    bool v = op == DG_BIN_NE || ((op == DG_BIN_GT || op == DG_BIN_GE) ? xbig
           : (op == DG_BIN_LT || op == DG_BIN_LE) ? !xbig : false);
    *r = term_bool(s->c, v);
    return true;
  }
  if (is_cmp(op)) {                 /* both infinite: -inf < +inf, each equals itself */
    int cx = x == s->pinf ? 1 : -1, cy = y == s->pinf ? 1 : -1;
    bool v = op == DG_BIN_EQ ? cx == cy : op == DG_BIN_NE ? cx != cy : op == DG_BIN_LT ? cx < cy
           : op == DG_BIN_LE ? cx <= cy : op == DG_BIN_GT ? cx > cy : cx >= cy;
    *r = term_bool(s->c, v);
    return true;
  }
  if (op == DG_BIN_ADD && !(xi && yi && x != y)) { *r = xi ? x : y; return true; }
  if (op == DG_BIN_SUB && !(xi && yi && x == y)) {
    *r = xi ? x : (y == s->pinf ? s->ninf : s->pinf);
    return true;
  }
  double k;
  if (op == DG_BIN_MUL && (xi != yi) && term_const_double(s->c, xi ? y : x, &k) && k != 0) {
    dg_term inf = xi ? x : y;
    *r = k > 0 ? inf : (inf == s->pinf ? s->ninf : s->pinf);
    return true;
  }
  if (op == DG_BIN_DIV && yi && !xi) { *r = term_real(s->c, 0); return true; }
  return false;
}

static dg_term fbinop(symdom *s, dg_binop op, const dg_type *t, dg_term x, dg_term y)
{
  dg_term r;
  if (inf_rule(s, op, x, y, &r)) return r;
  if (is_inf(s, x) || is_inf(s, y)) return fresh(s, sort_of(s, t), "an infinity in an operation the real model cannot take");
  switch (op) {
  case DG_BIN_ADD: return term_add(s->c, x, y);
  case DG_BIN_SUB: return term_sub(s->c, x, y);
  case DG_BIN_MUL: return term_mul(s->c, x, y);
  case DG_BIN_DIV: return dom_sym_div(s->c, x, y);
  default:
    if (is_cmp(op)) return term_cmp(s->c, cmp_of[op], x, y);
    return fresh(s, sort_of(s, t), "a float operation the symbolic domain does not model (fmod)");
  }
}

static dg_term ibinop(symdom *s, dg_binop op, const dg_type *t, dg_term x, dg_term y)
{
  bool sg = dom_is_signed(t) && t->kind != DG_TY_PTR;
  if (term_sort_of(s->c, x) == TERM_S_BOOL || term_sort_of(s->c, y) == TERM_S_BOOL) {
    if (t->kind == DG_TY_BOOL) {
      x = coerce(s, x, t), y = coerce(s, y, t);
      switch (op) {
      case DG_BIN_AND: return term_and(s->c, x, y);
      case DG_BIN_OR: return term_or(s->c, x, y);
      case DG_BIN_XOR: case DG_BIN_NE: return term_not(s->c, term_or(s->c, term_and(s->c, x, y),
                                                        term_and(s->c, term_not(s->c, x), term_not(s->c, y))));
      case DG_BIN_EQ: return term_or(s->c, term_and(s->c, x, y), term_and(s->c, term_not(s->c, x), term_not(s->c, y)));
      default: break;
      }
    }
    const dg_type *i32 = &(dg_type){ .kind = DG_TY_I32 };
    x = coerce(s, x, i32), y = coerce(s, y, i32);
  }
  switch (op) {
  case DG_BIN_ADD: return term_add(s->c, x, y);
  case DG_BIN_SUB: return term_sub(s->c, x, y);
  case DG_BIN_MUL: return term_mul(s->c, x, y);
  case DG_BIN_DIV: note_div(s, op, t, x, y, sg); return term_idiv(s->c, x, y, sg);
  case DG_BIN_MOD: note_div(s, op, t, x, y, sg); return term_irem(s->c, x, y, sg);
  case DG_BIN_SHL: return term_shl(s->c, x, y);
  case DG_BIN_SHR: return term_shr(s->c, x, y, sg);
  case DG_BIN_AND: return term_band(s->c, x, y);
  case DG_BIN_OR: return term_bor(s->c, x, y);
  case DG_BIN_XOR: return term_bxor(s->c, x, y);
  default:
    if (is_cmp(op)) return term_icmp(s->c, cmp_of[op], x, y, sg);
    return fresh(s, sort_of(s, t), "an integer operation the symbolic domain does not model");
  }
}

static void y_binop(dom *d, dg_binop op, const dg_type *t, int n, const uint8_t *m,
                    dom_val *dst, const dom_val *a, const dom_val *b)
{
  symdom *s = S(d);
  static const uint8_t one = 1;
  static const dg_type i64 = { .kind = DG_TY_I64 }, tbool = { .kind = DG_TY_BOOL }, f64 = { .kind = DG_TY_F64 };
  bool ptr = op == DG_BIN_PTRADD || op == DG_BIN_PTRDIFF;
  const dg_type *tb = op == DG_BIN_PTRADD ? &i64 : t;
  const dg_type *rt = is_cmp(op) ? &tbool : op == DG_BIN_PTRDIFF ? &i64 : t;
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    dg_term x = val(s, a[i], t), y = val(s, b[i], tb);
    dom_val ca, cb, r;
    if ((ptr || fold_ok(s, t)) && decode(s, x, t, &ca) && decode(s, y, tb, &cb)) {
      s->conc->binop(s->conc, op, t, 1, &one, &r, &ca, &cb);
      dst[i] = encode(s, r, rt);
      continue;
    }
    /* real model: constant float arithmetic in double, as the reference's
     * Lua computes its constants (1 / sqrt(D) meets 1.0f / sqrtf(D)) */
    if (dom_is_float(t) && op >= DG_BIN_ADD && op <= DG_BIN_DIV && !is_inf(s, x) && !is_inf(s, y) &&
        decode(s, x, t, &ca) && decode(s, y, t, &cb)) {
      s->conc->binop(s->conc, op, &f64, 1, &one, &r, &ca, &cb);
      if (isfinite(dom_f(r))) { dst[i] = term_real(s->c, dom_f(r)); continue; }
    }
    if (op == DG_BIN_PTRADD) {
      int64_t es = t->kind == DG_TY_PTR && t->elem ? dom_tysize(t->elem) : 1;
      dg_term off = term_mul(s->c, term_convert(s->c, y, TERM_S_I64, true), term_int(s->c, TERM_S_I64, es));
      dst[i] = term_add(s->c, coerce(s, x, &i64), off);
    } else if (op == DG_BIN_PTRDIFF) {
      dst[i] = fresh(s, TERM_S_I64, "a difference of pointers that are not concrete");
    } else if (dom_is_float(t)) {
      dst[i] = fbinop(s, op, t, is_inf(s, x) ? x : coerce(s, x, t), is_inf(s, y) ? y : coerce(s, y, t));
      if (!is_cmp(op)) narrow(s, t, dst[i]);
    } else {
      dst[i] = ibinop(s, op, t, x, t->kind == DG_TY_BOOL ? y : coerce(s, y, t));
    }
  }
}

/* ---- conversions -------------------------------------------------------------- */
static void y_cast(dom *d, dg_castkind k, const dg_type *to, const dg_type *from, int n,
                   const uint8_t *m, dom_val *dst, const dom_val *a)
{
  symdom *s = S(d);
  static const uint8_t one = 1;
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    dg_term x = val(s, a[i], from);
    dom_val cv, r;
    /* constants fold exactly as the emulator, except real-model float->float */
    bool ff = dom_is_float(from) && dom_is_float(to) && term_ctx_model(s->c) == TERM_MODEL_REAL;
    if (!ff && decode(s, x, from, &cv)) {
      s->conc->cast(s->conc, k, to, from, 1, &one, &r, &cv);
      dst[i] = encode(s, r, to);
      continue;
    }
    if (is_inf(s, x)) {
      dst[i] = dom_is_float(to) ? x : fresh(s, sort_of(s, to), "an infinity converted to an integer");
      continue;
    }
    if (k == DG_CAST_BITCAST && (dom_is_float(to) || dom_is_float(from))) {
      dst[i] = fresh(s, sort_of(s, to), "a bit cast of a symbolic float");
      continue;
    }
    if (to->kind == DG_TY_BOOL) { dst[i] = coerce(s, x, to); continue; }
    term_sort want = sort_of(s, to), have = term_sort_of(s->c, x);
    if (want == have) {
      dst[i] = x;
      if (dom_is_float(from) && from->kind > to->kind) narrow(s, to, x);   /* f32 -> f16 */
      continue;
    }
    if (have == TERM_S_BOOL) { dst[i] = coerce(s, x, to); continue; }
    bool sg = dom_is_float(from) ? dom_is_signed(to) || dom_is_float(to) : dom_is_signed(from);
    dst[i] = term_convert(s->c, x, want, sg);
  }
}

/* ---- math builtins ------------------------------------------------------------- */
static const struct { bool ok; term_fn fn; } fn_of[DG_IC__COUNT] = {
  [DG_IC_MATH_EXP] = { true, TERM_FN_EXP }, [DG_IC_MATH_EXP2] = { true, TERM_FN_EXP2 },
  [DG_IC_MATH_LOG] = { true, TERM_FN_LOG }, [DG_IC_MATH_LOG2] = { true, TERM_FN_LOG2 },
  [DG_IC_MATH_LOG1P] = { true, TERM_FN_LOG1P }, [DG_IC_MATH_SQRT] = { true, TERM_FN_SQRT },
  [DG_IC_MATH_RSQRT] = { true, TERM_FN_RSQRT }, [DG_IC_MATH_TANH] = { true, TERM_FN_TANH },
  [DG_IC_MATH_ERF] = { true, TERM_FN_ERF }, [DG_IC_MATH_SIN] = { true, TERM_FN_SIN },
  [DG_IC_MATH_COS] = { true, TERM_FN_COS },
};

/* One lane of a float math class on symbolic operands; TERM_NONE: unsupported. */
static dg_term fmath(symdom *s, dg_iclass c, const dg_type *rt, dg_term *x, int nargs)
{
  term_ctx *tc = s->c;
  int kind = rt->kind;
  if (c == DG_IC_MATH_MAX || c == DG_IC_MATH_MIN) {
    bool mx = c == DG_IC_MATH_MAX;
    dg_term id = mx ? s->ninf : s->pinf, ab = mx ? s->pinf : s->ninf;
    if (x[0] == id) return x[1];
    if (x[1] == id) return x[0];
    if (x[0] == ab || x[1] == ab) return ab;
    return mx ? term_max(tc, x[0], x[1]) : term_min(tc, x[0], x[1]);
  }
  if (c == DG_IC_MATH_EXP && x[0] == s->ninf) return term_float(tc, kind, 0);
  if (c == DG_IC_MATH_EXP && x[0] == s->pinf) return s->pinf;
  for (int j = 0; j < nargs; j++)
    if (is_inf(s, x[j])) return fresh(s, sort_of(s, rt), "an infinity in a math function the real model cannot take");
  if (fn_of[c].ok) return term_fn1(tc, fn_of[c].fn, x[0]);
  switch (c) {
  case DG_IC_MATH_POW: return term_pow(tc, x[0], x[1]);
  case DG_IC_MATH_ABS: return term_abs(tc, x[0]);
  case DG_IC_MATH_FLOOR: return term_floor(tc, x[0]);
  case DG_IC_MATH_CEIL: return term_ceil(tc, x[0]);
  case DG_IC_MATH_FMA: return term_fma(tc, x[0], x[1], x[2]);
  case DG_IC_MATH_DIV: return dom_sym_div(tc, x[0], x[1]);
  case DG_IC_MATH_RCP: return term_div(tc, term_float(tc, kind, 1), x[0]);
  case DG_IC_MATH_ADD: return term_add(tc, x[0], x[1]);
  case DG_IC_MATH_SUB: return term_sub(tc, x[0], x[1]);
  case DG_IC_MATH_MUL: return term_mul(tc, x[0], x[1]);
  case DG_IC_MATH_SATURATE:
    return term_min(tc, term_max(tc, x[0], term_float(tc, kind, 0)), term_float(tc, kind, 1));
  default: return TERM_NONE;
  }
}

static bool y_math(dom *d, dg_iclass c, const dg_type *rt, const dg_type *t, int nargs, int n,
                   const uint8_t *m, dom_val *dst, const dom_val *const *args)
{
  symdom *s = S(d);
  static const uint8_t one = 1;
  if (nargs > 4) return false;
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    dom_val cv[4], r;
    const dom_val *cp[4];
    bool allc = fold_ok(s, t);
    dg_term x[4];
    for (int j = 0; j < nargs; j++) {
      x[j] = val(s, args[j][i], t);
      cp[j] = &cv[j];
      allc = allc && decode(s, x[j], t, &cv[j]);
    }
    if (allc) {
      if (!s->conc->math(s->conc, c, rt, t, nargs, 1, &one, &r, cp)) return false;
      dst[i] = encode(s, r, rt);
      continue;
    }
    if (dom_is_float(t) && term_ctx_model(s->c) == TERM_MODEL_REAL) {   /* constants in double */
      static const dg_type f64 = { .kind = DG_TY_F64 };
      bool k = true;
      for (int j = 0; j < nargs && k; j++) k = !is_inf(s, x[j]) && decode(s, x[j], t, &cv[j]);
      if (k && s->conc->math(s->conc, c, dom_is_float(rt) ? &f64 : rt, &f64, nargs, 1, &one, &r, cp) &&
          (!dom_is_float(rt) || isfinite(dom_f(r)))) {
        dst[i] = dom_is_float(rt) ? term_real(s->c, dom_f(r)) : encode(s, r, rt);
        continue;
      }
    }
    if (!dom_is_float(t)) {
      if (c == DG_IC_MATH_MAX || c == DG_IC_MATH_MIN) {
        dst[i] = term_iminmax(s->c, coerce(s, x[0], t), coerce(s, x[1], t), dom_is_signed(t), c == DG_IC_MATH_MAX);
        continue;
      }
      if (c == DG_IC_MATH_ABS) { dst[i] = term_abs(s->c, coerce(s, x[0], t)); continue; }
      return false;
    }
    for (int j = 0; j < nargs; j++) if (!is_inf(s, x[j])) x[j] = coerce(s, x[j], t);
    if (c == DG_IC_MATH_ISNAN || c == DG_IC_MATH_ISINF) {
      dg_term b = is_inf(s, x[0]) ? term_bool(s->c, c == DG_IC_MATH_ISINF)
                : c == DG_IC_MATH_ISNAN ? term_isnan(s->c, x[0]) : term_isinf(s->c, x[0]);
      dst[i] = coerce(s, b, rt);
      continue;
    }
    if ((c == DG_IC_MATH_EXP || c == DG_IC_MATH_EXP2) && rt->kind == DG_TY_F32 && !is_inf(s, x[0]) &&
        term_ctx_model(s->c) == TERM_MODEL_REAL && term_sort_of(s->c, x[0]) == TERM_S_REAL)
      dg_vec_push(&s->expa, ((dom_sym_exp_arg){ x[0], c == DG_IC_MATH_EXP2 }));
    dg_term r2 = fmath(s, c, rt, x, nargs);
    if (!r2) return false;
    dst[i] = is_inf(s, r2) ? r2 : coerce(s, r2, rt);
    if (dom_is_float(rt)) narrow(s, rt, dst[i]);
  }
  return true;
}

/* ---- select, branch, concrete ----------------------------------------------- */
static void y_select(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst,
                     const dom_val *c, const dom_val *a, const dom_val *b)
{
  symdom *s = S(d);
  static const dg_type tbool = { .kind = DG_TY_BOOL };
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    dg_term k = coerce(s, val(s, c[i], &tbool), &tbool), x = val(s, a[i], t), y = val(s, b[i], t);
    bool v;
    if (term_const_bool(s->c, k, &v)) { dst[i] = v ? x : y; continue; }
    if (x == y) { dst[i] = x; continue; }
    if (is_inf(s, x) || is_inf(s, y)) {
      dst[i] = fresh(s, sort_of(s, t), "a choice involving an infinity under a symbolic condition");
      continue;
    }
    x = coerce(s, x, t), y = coerce(s, y, t);
    if (term_sort_of(s->c, x) == TERM_S_REAL) {
      /* c ? a : b with c one of b < a, b <= a (max) or a < b, a <= b (min):
       * the n-ary max/min, so hand-written maxima meet fmaxf and the reference */
      if (k == term_cmp(s->c, TERM_CMP_LT, y, x) || k == term_cmp(s->c, TERM_CMP_LE, y, x)) { dst[i] = term_max(s->c, x, y); continue; }
      if (k == term_cmp(s->c, TERM_CMP_LT, x, y) || k == term_cmp(s->c, TERM_CMP_LE, x, y)) { dst[i] = term_min(s->c, x, y); continue; }
    }
    dst[i] = term_ite(s->c, k, x, y);
  }
}

static void y_branch(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *c, uint8_t *out)
{
  symdom *s = S(d);
  for (int i = 0; i < n; i++) {
    if (!m[i]) { out[i] = DOM_FALSE; continue; }
    dom_val v;
    if (decode(s, val(s, c[i], t), t, &v)) out[i] = dom_is_float(t) ? dom_f(v) != 0 : v != 0;
    else out[i] = DOM_BOTH;
  }
}

static int y_concrete(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src, int64_t *out)
{
  symdom *s = S(d);
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    dom_val v;
    if (!decode(s, val(s, src[i], t), t, &v)) return i;
    out[i] = dom_is_float(t) ? (int64_t)dom_f(v) : (int64_t)v;
  }
  return -1;
}

/* ---- memory --------------------------------------------------------------------- */
static cells *cells_of(dom_mem *mem)
{
  if (!mem->cells) mem->cells = dg_calloc(1, sizeof(cells));
  return mem->cells;
}

static cellpage *page_at(cells *c, int64_t off, bool make)
{
  int64_t p = off / CELL_PAGE;
  if (p >= c->npages) {
    if (!make) return NULL;
    int64_t n = c->npages ? c->npages : 1;
    while (n <= p) n *= 2;
    c->pages = dg_realloc(c->pages, sizeof *c->pages * (size_t)n);
    memset(c->pages + c->npages, 0, sizeof *c->pages * (size_t)(n - c->npages));
    c->npages = n;
  }
  if (!c->pages[p] && make) c->pages[p] = dg_calloc(1, sizeof **c->pages);
  return c->pages[p];
}

static dg_term cell_t(cells *c, int64_t off)
{
  cellpage *pg = page_at(c, off, false);
  return pg ? pg->t[off % CELL_PAGE] : TERM_NONE;
}

static int cell_sz(cells *c, int64_t off)
{
  cellpage *pg = page_at(c, off, false);
  return pg ? pg->sz[off % CELL_PAGE] : 0;
}

static void cell_set(cells *c, int64_t off, dg_term t)
{
  cellpage *pg = page_at(c, off, t != TERM_NONE);
  if (pg) pg->t[off % CELL_PAGE] = t;
}

static const binding *bound(symdom *s, int buf)
{
  for (size_t i = 0; i < s->binds.n; i++) if (s->binds.v[i].buf == buf) return &s->binds.v[i];
  return NULL;
}

void dom_sym_bind(dom *d, int buf, const dom_sym_binding *b)
{
  symdom *s = S(d);
  for (size_t i = 0; i < s->binds.n; i++)
    if (s->binds.v[i].buf == buf) { s->binds.v[i].b = *b; return; }
  dg_vec_push(&s->binds, ((binding){ buf, *b }));
}

dg_term dom_sym_input_var(term_ctx *c, const char *tensor, int tykind, int64_t index)
{
  term_varinfo vi = { .kind = TERM_VAR_INPUT, .tensor = tensor, .index = index, .dtype = tykind };
  bool fl = tykind >= DG_TY_F16 && tykind <= DG_TY_F64;
  return term_var(c, fl ? term_float_sort(c, tykind) : term_int_sort(tykind), &vi);
}

/* The value of bytes [off, off+size) nothing stored during this run. */
static dg_term initial(symdom *s, const dg_type *t, dom_mem *mem, int64_t off, int size)
{
  const binding *bd = mem->id ? bound(s, mem->id) : NULL;
  if (bd && bd->b.input) {
    const dom_sym_binding *b = &bd->b;
    int64_t idx = off / b->elem_size;
    if (off % b->elem_size || size != b->elem_size || (int)t->kind != b->tykind) {
      if (b->fixed && size == b->elem_size && !(off % b->elem_size) && idx < b->numel)
        return coerce(s, term_int(s->c, TERM_S_I64, (int64_t)b->fixed[idx]), t);
      return fresh(s, sort_of(s, t), "a load that reinterprets an input tensor's elements");
    }
    if (b->fixed && idx < b->numel)
      return dom_is_float(t) ? fconst(s, t->kind, b->fixed[idx]) : encode(s, (dom_val)(int64_t)b->fixed[idx], t);
    return dom_sym_input_var(s->c, b->tensor, b->tykind, idx);
  }
  if (bd && off + size <= bd->b.zero_bytes) return encode(s, 0, t);
  char name[64];
  snprintf(name, sizeof name, "%s", bd ? bd->b.tensor : mem->id ? "on-chip" : "null");
  term_varinfo vi = { .kind = TERM_VAR_UNINIT, .tensor = name, .index = off, .dtype = t->kind };
  return term_var(s->c, sort_of(s, t), &vi);
}

static void y_load(dom *d, const dg_type *t, int n, const uint8_t *m, dom_val *dst,
                   dom_mem *const *mem, const int64_t *off)
{
  symdom *s = S(d);
  int size = (int)dom_tysize(t);
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    cells *c = cells_of(mem[i]);
    dg_term x = cell_t(c, off[i]);
    if (x && cell_sz(c, off[i]) == size) {
      term_sort want = sort_of(s, t), have = is_inf(s, x) ? want : term_sort_of(s->c, x);
      if (have == want) { dst[i] = x; continue; }
      dom_val cv;    /* reinterpreting a stored constant: through the bytes */
      const dg_type *st = &(dg_type){ .kind = dom_is_float(t) ? (size == 8 ? DG_TY_I64 : DG_TY_I32) : (size == 8 ? DG_TY_F64 : DG_TY_F32) };
      if ((size == 4 || size == 8) && decode(s, x, st, &cv)) {
        static const uint8_t one = 1;
        dom_val r;
        s->conc->cast(s->conc, DG_CAST_BITCAST, t, st, 1, &one, &r, &cv);
        dst[i] = encode(s, r, t);
      } else {
        dst[i] = fresh(s, want, "a load that reinterprets stored symbolic bytes");
      }
      continue;
    }
    bool partial = x != TERM_NONE;
    for (int j = 1; j < size && !partial; j++) partial = cell_t(c, off[i] + j) != TERM_NONE;
    for (int j = 1; j < 8 && j <= off[i] && !partial; j++)
      partial = cell_t(c, off[i] - j) && cell_sz(c, off[i] - j) > j;
    dst[i] = partial ? fresh(s, sort_of(s, t), "a load of part of a stored value")
                     : initial(s, t, mem[i], off[i], size);
  }
}

static void y_store(dom *d, const dg_type *t, int n, const uint8_t *m, const dom_val *src,
                    dom_mem *const *mem, const int64_t *off)
{
  int size = (int)dom_tysize(t);
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    cells *c = cells_of(mem[i]);
    for (int j = 1; j < 8 && j <= off[i]; j++)      /* an older, wider value overlapping */
      if (cell_t(c, off[i] - j) && cell_sz(c, off[i] - j) > j) cell_set(c, off[i] - j, TERM_NONE);
    for (int j = 0; j < size; j++) cell_set(c, off[i] + j, TERM_NONE);
    dg_term x = val(S(d), src[i], t);
    cellpage *pg = page_at(c, off[i], true);
    pg->t[off[i] % CELL_PAGE] = x;
    pg->sz[off[i] % CELL_PAGE] = (uint8_t)size;
  }
}

dg_term dom_sym_cell(dom *d, dom_mem *mem, int64_t off, int size)
{
  (void)d;
  cells *c = mem ? mem->cells : NULL;
  if (!c || off < 0 || cell_sz(c, off) != size) return TERM_NONE;
  return cell_t(c, off);
}

static void y_mem_free(dom *d, dom_mem *mem)
{
  (void)d;
  cells *c = mem->cells;
  if (!c) return;
  for (int64_t p = 0; p < c->npages; p++) free(c->pages[p]);
  free(c->pages), free(c);
  mem->cells = NULL;
}

static void y_free(dom *d)
{
  symdom *s = S(d);
  dg_vec_free(&s->binds);
  dg_vec_free(&s->narrow);
  dg_vec_free(&s->expa);
  dg_vec_free(&s->divs);
  free(s->unsupported);
  free(s);
}

dom *dom_sym_new(term_ctx *c)
{
  symdom *s = dg_calloc(1, sizeof *s);
  s->base = (dom){
    .name = "symbolic", .mem_bytes = false,
    .const_int = y_const_int, .const_float = y_const_float,
    .unop = y_unop, .binop = y_binop, .cast = y_cast, .math = y_math,
    .select = y_select, .branch = y_branch, .concrete = y_concrete,
    .load = y_load, .store = y_store, .mem_free = y_mem_free, .free = y_free,
  };
  s->c = c;
  s->conc = dom_concrete();
  if (term_ctx_model(c) == TERM_MODEL_REAL) {
    term_varinfo vp = { .kind = TERM_VAR_FREE, .tensor = "+inf", .dtype = DG_TY_F64 };
    term_varinfo vn = { .kind = TERM_VAR_FREE, .tensor = "-inf", .dtype = DG_TY_F64 };
    s->pinf = term_var(c, TERM_S_REAL, &vp);
    s->ninf = term_var(c, TERM_S_REAL, &vn);
  }
  return &s->base;
}
