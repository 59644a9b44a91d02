/* smt.c — the solver object and the translation of terms to Z3 asts: REAL
 * as Z3 reals, IEEE floats as Z3 FP sorts (round to nearest even), ints as
 * bit-vectors. Terms are translated in id order (operands first) and cached,
 * so a DAG of any depth translates without recursion. */
#include "smt_priv.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void on_error(Z3_context z, Z3_error_code e) { (void)z; (void)e; }  /* checked by smt_failed */

bool smt_failed(smt_solver *s)
{
  Z3_error_code e = Z3_get_error_code(s->z);
  if (e == Z3_OK) return s->error != NULL;
  if (!s->error) s->error = dg_printf("z3 error: %s", Z3_get_error_msg(s->z, e));
  Z3_set_error(s->z, Z3_OK);
  return true;
}

/* Contexts freed past their solver's deadline: deleting one is work after the answer
 * (Z3_del_context of 100,000 inputs' bounds: 0.47 s past --budget 3), so it waits for a
 * solver made before its deadline (or with none), smt_shutdown, or the process's end,
 * whichever comes first; past SMT_LATE of them the oldest goes at once. */
enum { SMT_LATE = 4 };
static Z3_context late_z[SMT_LATE];
static int nlate_z;

static void reap_late(void)
{
  while (nlate_z) Z3_del_context(late_z[--nlate_z]);
}

size_t smt_deferred(void) { return (size_t)nlate_z; }

static bool past(const smt_opts *o) { return o && o->deadline > 0 && dg_now() > o->deadline; }

smt_solver *smt_new(term_ctx *c, const smt_opts *opts)
{
  if (!past(opts)) reap_late();
  smt_solver *s = dg_calloc(1, sizeof *s);
  s->tc = c;
  if (opts) s->opts = *opts;
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "model", "true");
  s->z = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  Z3_set_error_handler(s->z, on_error);
  s->rne = Z3_mk_fpa_rne(s->z);
  s->rtz = Z3_mk_fpa_rtz(s->z);
  s->rtn = Z3_mk_fpa_rtn(s->z);
  s->rtp = Z3_mk_fpa_rtp(s->z);
  return s;
}

void smt_free(smt_solver *s)
{
  if (!s) return;
  dg_vec_free(&s->base);
  if (past(&s->opts)) {
    if (nlate_z == SMT_LATE) {
      Z3_del_context(late_z[0]);
      memmove(late_z, late_z + 1, (SMT_LATE - 1) * sizeof *late_z);
      nlate_z--;
    }
    late_z[nlate_z++] = s->z;
  } else {
    Z3_del_context(s->z);
  }
  free(s->cache);
  free(s->facts_done.v);
  free(s->var_ids.v);
  dg_vec_free(&s->exp_args);
  dg_vec_free(&s->exp_apps);
  for (int i = 0; i < 2; i++) dg_vec_free(&s->lip_args[i]), dg_vec_free(&s->lip_apps[i]);
  dg_vec_free(&s->assumed);
  dg_vec_free(&s->pures);
  free(s->pure_tab);
  free(s->error);
  free(s);
}

/* Each check runs in a fresh Z3 solver over these and its own condition:
 * a solver used incrementally (push/pop) cannot use Z3's bit-blasting and
 * nonlinear tactics, and is many times slower on FP and NRA queries. */
void smt_assert_base(smt_solver *s, Z3_ast fact) { dg_vec_push(&s->base, fact); }

size_t smt_bytes(void) { return (size_t)Z3_get_estimated_alloc_size(); }
void smt_shutdown(void)
{
  reap_late();
  Z3_finalize_memory();
}

bool smt_idset_add(smt_idset *set, unsigned id)
{
  if ((set->n + 1) * 2 > set->cap) {
    size_t cap = set->cap ? set->cap * 2 : 64;
    unsigned *v = dg_calloc(cap, sizeof *v);
    for (size_t i = 0; i < set->cap; i++) {
      if (!set->v[i]) continue;
      size_t j = (set->v[i] * 2654435761u) & (cap - 1);
      while (v[j]) j = (j + 1) & (cap - 1);
      v[j] = set->v[i];
    }
    free(set->v);
    set->v = v;
    set->cap = cap;
  }
  id++;                            /* 0 marks an empty slot */
  size_t j = (id * 2654435761u) & (set->cap - 1);
  for (; set->v[j]; j = (j + 1) & (set->cap - 1))
    if (set->v[j] == id) return false;
  set->v[j] = id;
  set->n++;
  return true;
}

/* ---- sorts and numerals --------------------------------------------------------- */
Z3_sort smt_sort(smt_solver *s, term_sort ts)
{
  Z3_context z = s->z;
  switch (ts) {
  case TERM_S_BOOL: return Z3_mk_bool_sort(z);
  case TERM_S_REAL: return Z3_mk_real_sort(z);
  case TERM_S_F16: return Z3_mk_fpa_sort_16(z);
  case TERM_S_BF16: return Z3_mk_fpa_sort(z, 8, 8);
  case TERM_S_F32: return Z3_mk_fpa_sort_32(z);
  case TERM_S_F64: return Z3_mk_fpa_sort_64(z);
  default:
    if (TERM_SK(ts) == TERM_SK_INT) return Z3_mk_bv_sort(z, (unsigned)term_sort_bits(ts));
    term_die("no Z3 sort for %s", term_sort_name(ts));
  }
}

Z3_ast smt_real(smt_solver *s, double v)
{
  if (v == floor(v) && fabs(v) < 9e18) return Z3_mk_int64(s->z, (int64_t)v, Z3_mk_real_sort(s->z));
  /* every double is m * 2^e: let Z3 turn the f64 value into its exact rational */
  Z3_ast f = Z3_mk_fpa_numeral_double(s->z, v, Z3_mk_fpa_sort_64(s->z));
  return Z3_simplify(s->z, Z3_mk_fpa_to_real(s->z, f));
}

static Z3_ast fp_const(smt_solver *s, term_sort ts, double v)
{
  Z3_sort so = smt_sort(s, ts);
  if (isnan(v)) return Z3_mk_fpa_nan(s->z, so);
  if (isinf(v)) return Z3_mk_fpa_inf(s->z, so, v < 0);
  if (v == 0) return Z3_mk_fpa_zero(s->z, so, signbit(v) != 0);
  return Z3_mk_fpa_to_fp_float(s->z, s->rne, Z3_mk_fpa_numeral_double(s->z, v, Z3_mk_fpa_sort_64(s->z)), so);
}

static Z3_ast var_ast(smt_solver *s, dg_term t, const term_node *n)
{
  static const char *const prefix[] = { "", "uninit ", "free " };
  const term_varinfo *vi = term_var_info(s->tc, n->d);
  char *name = dg_printf("%s%s", prefix[vi->kind], vi->name);
  Z3_sort so = smt_sort(s, n->sort);
  Z3_ast a = Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), so);
  /* Z3 knows a constant by its name and sort: two variables that display
   * alike (an opaque value of two domains, an on-chip byte of two arrays)
   * would be one unknown. The second gets its ordinal in its name. */
  for (unsigned k = 0; !smt_idset_add(&s->var_ids, Z3_get_ast_id(s->z, a)); k++) {
    free(name);
    name = k ? dg_printf("%s%s#%u.%u", prefix[vi->kind], vi->name, n->d, k)
             : dg_printf("%s%s#%u", prefix[vi->kind], vi->name, n->d);
    a = Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), so);
  }
  free(name);
  return a;
}

/* ---- the n-ary REAL nodes ----------------------------------------------------------- */
typedef struct { smt_solver *s; DG_VEC(Z3_ast) v; } collect;

static bool add_item(void *ud, dg_term key, dg_term val)
{
  collect *k = ud;
  double c = term_real_val(k->s->tc, val);
  Z3_ast x = k->s->cache[key];
  if (c != 1) { Z3_ast m[2] = { smt_real(k->s, c), x }; x = Z3_mk_mul(k->s->z, 2, m); }
  dg_vec_push(&k->v, x);
  return true;
}

static bool mul_item(void *ud, dg_term key, dg_term val)
{
  collect *k = ud;
  double e = term_real_val(k->s->tc, val);
  for (int i = 0; i < (int)e; i++) dg_vec_push(&k->v, k->s->cache[key]);
  return true;
}

static bool mm_item(void *ud, dg_term key, dg_term val)
{
  collect *k = ud;
  dg_vec_push(&k->v, k->s->cache[key]);
  return true;
}

static Z3_ast nary(smt_solver *s, const term_node *n)
{
  collect k = { s, { 0 } };
  Z3_context z = s->z;
  Z3_ast r;
  if (n->op == TOP_ADD) {
    term_set_each(s->tc, n->b, add_item, &k);
    if (n->a) dg_vec_push(&k.v, smt_real(s, term_real_val(s->tc, n->a)));
    r = k.v.n == 1 ? k.v.v[0] : Z3_mk_add(z, (unsigned)k.v.n, k.v.v);
  } else if (n->op == TOP_MUL) {
    if (n->a) dg_vec_push(&k.v, smt_real(s, term_real_val(s->tc, n->a)));
    term_set_each(s->tc, n->b, mul_item, &k);
    if (n->c) dg_vec_push(&k.v, smt_exp(s, n->c));
    r = k.v.n == 1 ? k.v.v[0] : Z3_mk_mul(z, (unsigned)k.v.n, k.v.v);
  } else {
    term_set_each(s->tc, n->b, mm_item, &k);
    if (n->a) dg_vec_push(&k.v, smt_real(s, term_real_val(s->tc, n->a)));
    r = k.v.v[0];
    for (size_t i = 1; i < k.v.n; i++) {   /* an ite chain: Z3 does better with it than
                                             with M >= x_i, OR(M = x_i) (tried) */
      Z3_ast x = k.v.v[i], ge = Z3_mk_ge(z, x, r);
      r = n->op == TOP_MAX ? Z3_mk_ite(z, ge, x, r) : Z3_mk_ite(z, ge, r, x);
    }
  }
  dg_vec_free(&k.v);
  return r;
}

/* ---- one node ------------------------------------------------------------------------- */
static Z3_ast real_floor(Z3_context z, Z3_ast x) { return Z3_mk_int2real(z, Z3_mk_real2int(z, x)); }

static Z3_ast cvt(smt_solver *s, const term_node *n, Z3_ast a, term_sort from)
{
  Z3_context z = s->z;
  term_sort to = n->sort;
  bool fi = TERM_SK(from) == TERM_SK_INT, ti = TERM_SK(to) == TERM_SK_INT, sg = n->aux;
  unsigned fw = (unsigned)term_sort_bits(from), tw = (unsigned)term_sort_bits(to);
  if (fi && ti) {
    if (tw < fw) return Z3_mk_extract(z, tw - 1, 0, a);
    return sg ? Z3_mk_sign_ext(z, tw - fw, a) : Z3_mk_zero_ext(z, tw - fw, a);
  }
  if (fi && to == TERM_S_REAL) return Z3_mk_int2real(z, Z3_mk_bv2int(z, a, sg));
  if (fi) return sg ? Z3_mk_fpa_to_fp_signed(z, s->rne, a, smt_sort(s, to))
                    : Z3_mk_fpa_to_fp_unsigned(z, s->rne, a, smt_sort(s, to));
  if (ti && from == TERM_S_REAL) {
    Z3_ast zero = Z3_mk_real(z, 0, 1);
    Z3_ast t = Z3_mk_ite(z, Z3_mk_ge(z, a, zero), Z3_mk_real2int(z, a),
                         Z3_mk_unary_minus(z, Z3_mk_real2int(z, Z3_mk_unary_minus(z, a))));
    return Z3_mk_int2bv(z, tw, t);
  }
  if (ti) return sg ? Z3_mk_fpa_to_sbv(z, s->rtz, a, tw) : Z3_mk_fpa_to_ubv(z, s->rtz, a, tw);
  if (to == TERM_S_REAL) return Z3_mk_fpa_to_real(z, a);
  if (from == TERM_S_REAL) return Z3_mk_fpa_to_fp_real(z, s->rne, a, smt_sort(s, to));
  return Z3_mk_fpa_to_fp_float(z, s->rne, a, smt_sort(s, to));
}

static Z3_ast rounding(smt_solver *s, const term_node *n, Z3_ast a)
{
  Z3_context z = s->z;
  if (TERM_SK(n->sort) == TERM_SK_FP)
    return Z3_mk_fpa_round_to_integral(z, n->op == TOP_FLOOR ? s->rtn : n->op == TOP_CEIL ? s->rtp : s->rtz, a);
  Z3_ast fl = real_floor(z, a);
  Z3_ast ce = Z3_mk_unary_minus(z, real_floor(z, Z3_mk_unary_minus(z, a)));
  if (n->op == TOP_FLOOR) return fl;
  if (n->op == TOP_CEIL) return ce;
  return Z3_mk_ite(z, Z3_mk_ge(z, a, Z3_mk_real(z, 0, 1)), fl, ce);
}

typedef Z3_ast (*z3bin)(Z3_context, Z3_ast, Z3_ast);
typedef Z3_ast (*z3fpbin)(Z3_context, Z3_ast, Z3_ast, Z3_ast);

static Z3_ast node_ast(smt_solver *s, dg_term t)
{
  Z3_context z = s->z;
  term_node n = *term_node_of(s->tc, t);
  uint8_t refs = term_ops[n.op].refs;
  Z3_ast A = refs & 1 && n.a ? s->cache[n.a] : NULL, B = refs & 2 && n.b ? s->cache[n.b] : NULL;
  Z3_ast Cc = refs & 4 && n.c ? s->cache[n.c] : NULL;
  term_sort as = refs & 1 && n.a ? term_sort_of(s->tc, n.a) : TERM_S_NONE;
  bool fp = TERM_SK(as) == TERM_SK_FP, bv = TERM_SK(as) == TERM_SK_INT;
  static const struct { term_op op; z3bin f; } bvops[] = {
    { TOP_BADD, Z3_mk_bvadd }, { TOP_BSUB, Z3_mk_bvsub }, { TOP_BMUL, Z3_mk_bvmul },
    { TOP_SDIV, Z3_mk_bvsdiv }, { TOP_UDIV, Z3_mk_bvudiv }, { TOP_SREM, Z3_mk_bvsrem },
    { TOP_UREM, Z3_mk_bvurem }, { TOP_SHL, Z3_mk_bvshl }, { TOP_LSHR, Z3_mk_bvlshr },
    { TOP_ASHR, Z3_mk_bvashr }, { TOP_BAND, Z3_mk_bvand }, { TOP_BOR, Z3_mk_bvor },
    { TOP_BXOR, Z3_mk_bvxor }, { TOP_ULT, Z3_mk_bvult }, { TOP_ULE, Z3_mk_bvule },
    { TOP_FMAX, Z3_mk_fpa_max }, { TOP_FMIN, Z3_mk_fpa_min }, { TOP_FEQ, Z3_mk_fpa_eq },
    { TOP_EQ, Z3_mk_eq }, { TOP_DIV, Z3_mk_div },
  };
  static const struct { term_op op; z3fpbin f; } fpops[] = {
    { TOP_FADD, Z3_mk_fpa_add }, { TOP_FSUB, Z3_mk_fpa_sub }, { TOP_FMUL, Z3_mk_fpa_mul },
    { TOP_FDIV, Z3_mk_fpa_div },
  };
  if (n.sort == TERM_S_REAL && (n.op == TOP_FADD || n.op == TOP_FMUL || n.op == TOP_FDIV)) {
    Z3_ast v[2] = { A, B };   /* REAL arithmetic with an infinity, left unnormalised */
    return n.op == TOP_FADD ? Z3_mk_add(z, 2, v) : n.op == TOP_FMUL ? Z3_mk_mul(z, 2, v) : Z3_mk_div(z, A, B);
  }
  for (size_t i = 0; i < sizeof bvops / sizeof *bvops; i++)
    if (bvops[i].op == n.op) return bvops[i].f(z, A, B);
  for (size_t i = 0; i < sizeof fpops / sizeof *fpops; i++)
    if (fpops[i].op == n.op) return fpops[i].f(z, s->rne, A, B);
  switch (n.op) {
  case TOP_CONST:
    if (n.sort == TERM_S_BOOL) return n.a ? Z3_mk_true(z) : Z3_mk_false(z);
    if (n.sort == TERM_S_REAL) {
      double v = term_real_val(s->tc, t);
      if (isinf(v)) return Z3_mk_const(z, Z3_mk_string_symbol(z, v > 0 ? "+inf" : "-inf"), Z3_mk_real_sort(z));
      return smt_real(s, v);
    }
    if (TERM_SK(n.sort) == TERM_SK_FP) return fp_const(s, n.sort, term_real_val(s->tc, t));
    return Z3_mk_unsigned_int64(z, term_bits_val(s->tc, t), smt_sort(s, n.sort));
  case TOP_VAR: return var_ast(s, t, &n);
  case TOP_ADD: case TOP_MUL: case TOP_MAX: case TOP_MIN: return nary(s, &n);
  case TOP_ABS: return Z3_mk_ite(z, Z3_mk_ge(z, A, Z3_mk_real(z, 0, 1)), A, Z3_mk_unary_minus(z, A));
  case TOP_FLOOR: case TOP_CEIL: case TOP_TRUNC: return rounding(s, &n, A);
  case TOP_FNEG: return Z3_mk_fpa_neg(z, A);
  case TOP_FABS: return Z3_mk_fpa_abs(z, A);
  case TOP_FMA: return Z3_mk_fpa_fma(z, s->rne, A, B, Cc);
  case TOP_ITE: return Z3_mk_ite(z, A, B, Cc);
  case TOP_LT: return fp ? Z3_mk_fpa_lt(z, A, B) : bv ? Z3_mk_bvslt(z, A, B) : Z3_mk_lt(z, A, B);
  case TOP_LE: return fp ? Z3_mk_fpa_leq(z, A, B) : bv ? Z3_mk_bvsle(z, A, B) : Z3_mk_le(z, A, B);
  case TOP_AND: case TOP_OR: {
    Z3_ast v[2] = { A, B };
    return n.op == TOP_AND ? Z3_mk_and(z, 2, v) : Z3_mk_or(z, 2, v);
  }
  case TOP_NOT: return Z3_mk_not(z, A);
  case TOP_ISNAN: return Z3_mk_fpa_is_nan(z, A);
  case TOP_ISINF: return Z3_mk_fpa_is_infinite(z, A);
  case TOP_BNEG: return Z3_mk_bvneg(z, A);
  case TOP_CVT: return cvt(s, &n, A, as);
  case TOP_FN:
    if (n.aux == TERM_FN_EXP && n.sort == TERM_S_REAL) return smt_exp(s, n.a);
    return smt_app(s, (term_fn)n.aux, n.sort, A);
  case TOP_POW: {
    int slot = n.sort == TERM_S_REAL ? 0 : 1 + (n.sort & 3);
    if (!s->pow[slot]) {
      Z3_sort so = smt_sort(s, n.sort), dom[2] = { so, so };
      s->pow[slot] = Z3_mk_func_decl(z, Z3_mk_string_symbol(z, slot ? "powf" : "pow"), 2, dom, so);
    }
    Z3_ast args[2] = { A, B };
    return Z3_mk_app(z, s->pow[slot], 2, args);
  }
  default: term_die("no Z3 translation of %s", term_ops[n.op].name);
  }
}

/* The deadline looked at every TR_CLOCK terms translated (a term is a few Z3 calls, ~1 us:
 * the clock costs less than 1% and the deadline is overrun by well under 1 ms). */
enum { TR_CLOCK = 64 };

/* The deadline passed before term i of those seen up to t: the solver's error says how far
 * the translation got (done of them); every later translation and query fails with it. */
static void late(smt_solver *s, const uint8_t *seen, size_t i, size_t t, size_t done)
{
  size_t left = 0;
  for (size_t j = i; j <= t; j++) left += seen[j] && !s->cache[j] && s->tc->nodes.v[j].op != TOP_SET;
  s->late = true;
  s->error = dg_printf("the translation to Z3 stopped at the deadline: %zu of %zu terms", done, done + left);
}

Z3_ast smt_tr(smt_solver *s, dg_term t)
{
  term_ctx *c = s->tc;
  if (s->ncache < c->nodes.n) {
    s->cache = dg_realloc(s->cache, c->nodes.n * sizeof *s->cache);
    memset(s->cache + s->ncache, 0, (c->nodes.n - s->ncache) * sizeof *s->cache);
    s->ncache = c->nodes.n;
  }
  if (s->cache[t]) return s->cache[t];
  if (s->error) return NULL;
  uint8_t *seen = term_reach(c, &t, 1);
  size_t done = 0;
  for (size_t i = 1; i <= t; i++) {
    if (!seen[i] || s->cache[i] || c->nodes.v[i].op == TOP_SET) continue;
    if (s->opts.deadline > 0 && done % TR_CLOCK == 0 && dg_now() > s->opts.deadline) {
      late(s, seen, i, t, done);
      break;
    }
    Z3_ast a = node_ast(s, (dg_term)i);   /* may translate new terms: cache moves */
    s->cache[i] = a;
    done++;
    if (smt_failed(s)) break;
  }
  free(seen);
  return s->error ? NULL : s->cache[t];
}
