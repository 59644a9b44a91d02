/* smt_select.c — a normal form for argmax: proves kernel = reference without
 * Z3 when both are "the index of the first maximum" over the same pairs.
 *
 * An argmax kernel keeps a pair (value, index) per thread and merges pairs
 * with `if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }`; the op's
 * reference scans the values in order with `idx = where(v > best, k, idx)`.
 * The symbolic run makes the index an ite tree whose conditions compare the
 * values (max terms) and the indices of the two pairs merged. Z3 needs 10 s
 * for 33 values and does not finish 75.
 *
 * The lemma, checked structurally for every node and never assumed: order
 * pairs lexicographically, value descending then index ascending (a total
 * order on (real, integer) pairs: two different pairs are never tied), and
 * let lexmax(P) be the greatest pair of a finite set P. A term I "selects over
 * P" when in every model I is the index of lexmax(P). Then:
 *  - a constant index k with the value term V that its parent compares
 *    selects over {(V, k)};
 *  - ite(c, T, E) selects over PT ∪ PE when T selects over PT, E over PE,
 *    the value terms c compares are VT = max(values of PT) and
 *    VE = max(values of PE), and c holds exactly when
 *    (VT, T) is lexicographically greater than (VE, E), i.e. c is (built by
 *    the constructors as) one of
 *      F1  VE < VT || (VT == VE && T < E)            any index sets
 *      F2  VE < VT        when min idx(PT) >= max idx(PE): T < E never holds
 *                         (T is an index of PT, E one of PE)
 *      F3  VE <= VT       when max idx(PT) <  min idx(PE): T < E always holds
 *    — then ite picks the greater of lexmax(PT) and lexmax(PE), which is
 *    lexmax(PT ∪ PE).
 * "V = max(values of P)" is checked as: V is (the id of) this file's term_max
 * over P's values (the constructors are canonical and sound), or V is the
 * node's own ite(c, VT', VE') over its children's value terms — c picks the
 * greater pair, whose value is the greater value, so that ite is the max too
 * (the symbolic domain folds ite(a < b, b, a) to max(a, b), not the ite of
 * the F1 condition).
 * Two index terms that select over the same set of (value term, index) pairs
 * are equal in every model (equal term ids are equal values, so the sets of
 * values are equal and so are their greatest pairs). A conversion of an
 * integer index to the real reference sort keeps its value (indices are
 * checked to lie in [0, 2^(bits-1))).
 *
 * Computed bottom-up in id order: each node keeps only what its parent's
 * check needs (the max terms, the least and greatest index); the sets
 * themselves are collected once, from each root's leaves with the values
 * their parents compare (a path count, linear when merges are disjoint as
 * in a scan or a butterfly), so a scan over 50257 values costs n log n, not
 * the n^2 of merging sets node by node.
 *
 * Only the real model: its values are totally ordered (no NaN). A pair whose
 * value is an infinite constant is not admitted. Anything else that does not
 * match gives no claim and the caller asks Z3 (a wrong tie rule, `>=` where
 * ties must go to the lower index, fails F1-F3 and is left to the solver). */
#include "smt_priv.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SEL_MAX_NODES = 1 << 20, SEL_MAX_LEAVES = 1 << 22 };

typedef struct { dg_term v; int64_t k; } sel_pair;

/* What a checked node selects over, in summary: the pair set itself is
 * collected once, at the root, from its leaves (leaf_pairs). */
typedef struct {
  dg_term vmax;           /* term_max of the values */
  dg_term vite;           /* ite(c, VT, VE) of the node: the same value (above) */
  int64_t kmin, kmax;     /* the least and greatest index */
  uint8_t state;          /* 0 not done, 1 ok, 2 failed */
} sel_set;

typedef struct {
  term_ctx *tc;
  sel_set *memo;          /* by term id */
  size_t nmemo;
} sel;

static int pair_cmp(const void *x, const void *y)
{
  const sel_pair *a = x, *b = y;
  if (a->k != b->k) return a->k < b->k ? -1 : 1;
  return a->v < b->v ? -1 : a->v > b->v;
}

/* An index constant: an integer of an int sort, or an integral REAL constant. */
static bool index_const(const term_ctx *tc, dg_term t, int64_t *k)
{
  term_sort s = term_sort_of(tc, t);
  if (!term_is_const(tc, t)) return false;
  if (TERM_SK(s) == TERM_SK_INT) {
    if (!term_const_int(tc, t, k)) return false;
    return *k >= 0 && (term_sort_bits(s) >= 63 || *k < ((int64_t)1 << (term_sort_bits(s) - 1)));
  }
  double d;
  if (s != TERM_S_REAL || !term_const_double(tc, t, &d)) return false;
  if (!(d >= 0 && d < 9007199254740992.0) || d != floor(d)) return false;
  *k = (int64_t)d;
  return true;
}

static bool admissible_value(const term_ctx *tc, dg_term v)
{
  double d;
  if (v == TERM_NONE || term_sort_of(tc, v) != TERM_S_REAL) return false;
  return !(term_const_double(tc, v, &d) && !isfinite(d));
}

/* The summary of child t (an index constant or a checked ite node) whose
 * value the parent compares as v; false when t does not select, or selects
 * over a set whose maximum is not v. A leaf's summary goes in *tmp. */
static bool child_set(sel *S, dg_term t, dg_term v, sel_set *tmp, const sel_set **out)
{
  int64_t k;
  if (!admissible_value(S->tc, v)) return false;
  if (index_const(S->tc, t, &k)) {
    *tmp = (sel_set){ .vmax = v, .vite = v, .kmin = k, .kmax = k, .state = 1 };
    *out = tmp;
    return true;
  }
  if (t >= S->nmemo || S->memo[t].state != 1 || (S->memo[t].vmax != v && S->memo[t].vite != v)) return false;
  *out = &S->memo[t];
  return true;
}

/* c holds exactly when (vt, it) is lexicographically greater than (ve, ie)? */
static bool beats(sel *S, dg_term c, dg_term vt, dg_term it, dg_term ve, dg_term ie,
                  const sel_set *pt, const sel_set *pe)
{
  term_ctx *tc = S->tc;
  if (pt->kmin >= pe->kmax && c == term_lt(tc, ve, vt)) return true;            /* F2 */
  if (pt->kmax < pe->kmin && c == term_le(tc, ve, vt)) return true;             /* F3 */
  dg_term ilt = term_lt(tc, it, ie);      /* ints: signed; indices are >= 0 */
  return c == term_or(tc, term_lt(tc, ve, vt), term_and(tc, term_eq(tc, vt, ve), ilt));  /* F1 */
}

/* The two value terms c compares, as (ve, vt) of "ve < vt" or "ve <= vt". */
static bool compared_values(const term_ctx *tc, dg_term c, dg_term *ve, dg_term *vt)
{
  term_op op = term_op_of(tc, c);
  const term_node *n = term_node_of(tc, c);
  if (op == TOP_OR) {
    for (int i = 0; i < 2; i++) {
      dg_term x = i ? n->b : n->a;
      if (term_op_of(tc, x) == TOP_LT && term_sort_of(tc, term_node_of(tc, x)->a) == TERM_S_REAL) {
        *ve = term_node_of(tc, x)->a, *vt = term_node_of(tc, x)->b;
        return true;
      }
    }
    return false;
  }
  if ((op != TOP_LT && op != TOP_LE) || term_sort_of(tc, n->a) != TERM_S_REAL) return false;
  *ve = n->a, *vt = n->b;
  return true;
}

static void node(sel *S, dg_term t)
{
  term_ctx *tc = S->tc;
  const term_node n = *term_node_of(tc, t);
  sel_set *out = &S->memo[t];
  out->state = 2;
  dg_term ve, vt;
  if (!compared_values(tc, n.a, &ve, &vt)) return;
  sel_set lt_, le_;
  const sel_set *pt, *pe;
  if (!child_set(S, n.b, vt, &lt_, &pt) || !child_set(S, n.c, ve, &le_, &pe)) return;
  if (!beats(S, n.a, vt, n.b, ve, n.c, pt, pe)) return;
  sel_set r = {
    .vmax = term_max(tc, pt->vmax, pe->vmax), .vite = term_ite(tc, n.a, vt, ve),
    .kmin = pt->kmin < pe->kmin ? pt->kmin : pe->kmin, .kmax = pt->kmax > pe->kmax ? pt->kmax : pe->kmax,
    .state = 1,
  };
  S->memo[t] = r;     /* (term_max may have grown the ctx; memo is by the ids before) */
}

/* The pairs a checked root selects over: every leaf reached from it through
 * then/else, with the value its parent compares; sorted, without repeats.
 * NULL past SEL_MAX_LEAVES paths (a merge of overlapping sets repeats). */
static sel_pair *leaf_pairs(sel *S, dg_term root, size_t *n)
{
  term_ctx *tc = S->tc;
  DG_VEC(sel_pair) st = {0}, out = {0};
  dg_vec_push(&st, ((sel_pair){ TERM_NONE, (int64_t)root }));
  bool ok = true;
  while (st.n && ok) {
    sel_pair x = st.v[--st.n];
    dg_term t = (dg_term)x.k;
    int64_t k;
    if (index_const(tc, t, &k)) {
      dg_vec_push(&out, ((sel_pair){ x.v, k }));
      ok = out.n <= SEL_MAX_LEAVES;
      continue;
    }
    dg_term ve, vt;
    if (!compared_values(tc, term_node_of(tc, t)->a, &ve, &vt)) { ok = false; break; }
    dg_term th = term_node_of(tc, t)->b, el = term_node_of(tc, t)->c;
    dg_vec_push(&st, ((sel_pair){ vt, (int64_t)th }));
    dg_vec_push(&st, ((sel_pair){ ve, (int64_t)el }));
  }
  dg_vec_free(&st);
  if (!ok) { dg_vec_free(&out); return NULL; }
  qsort(out.v, out.n, sizeof *out.v, pair_cmp);
  size_t m = 0;
  for (size_t i = 0; i < out.n; i++)
    if (!m || pair_cmp(&out.v[m - 1], &out.v[i])) out.v[m++] = out.v[i];
  *n = m;
  return out.v ? out.v : dg_malloc(sizeof(sel_pair));
}

/* The index term under conversions that keep its value (int -> real, int
 * widening); the conversions must see indices in [0, 2^(bits-1)), which
 * index_const checks for every leaf. */
static dg_term strip(const term_ctx *tc, dg_term t)
{
  while (term_op_of(tc, t) == TOP_CVT) {
    term_sort to = term_sort_of(tc, t), from = term_sort_of(tc, term_node_of(tc, t)->a);
    if (TERM_SK(from) != TERM_SK_INT) break;
    if (to != TERM_S_REAL && !(TERM_SK(to) == TERM_SK_INT && term_sort_bits(to) >= term_sort_bits(from))) break;
    t = term_node_of(tc, t)->a;
  }
  return t;
}

/* Marks the ite nodes of the index tree under root (through then/else only)
 * in mark; false past SEL_MAX_NODES. */
static bool index_tree(const term_ctx *tc, dg_term root, uint8_t *mark)
{
  DG_VEC(dg_term) st = {0};
  size_t count = 0;
  bool ok = true;
  dg_vec_push(&st, root);
  while (st.n && ok) {
    dg_term t = st.v[--st.n];
    if (mark[t] || term_op_of(tc, t) != TOP_ITE) continue;
    mark[t] = 1;
    if (++count > SEL_MAX_NODES) ok = false;
    dg_vec_push(&st, term_node_of(tc, t)->b);
    dg_vec_push(&st, term_node_of(tc, t)->c);
  }
  dg_vec_free(&st);
  return ok;
}

bool smt_same_selection(term_ctx *c, dg_term a, dg_term b)
{
  if (term_ctx_model(c) != TERM_MODEL_REAL) return false;
  dg_term ra = strip(c, a), rb = strip(c, b);
  if (term_op_of(c, ra) != TOP_ITE || term_op_of(c, rb) != TOP_ITE) return false;
  size_t n = term_ctx_count(c) + 1;
  uint8_t *mark = dg_calloc(n, 1);
  sel S = { .tc = c, .memo = dg_calloc(n, sizeof(sel_set)), .nmemo = n };
  bool same = false;
  if (index_tree(c, ra, mark) && index_tree(c, rb, mark)) {
    /* operands have smaller ids than their users: id order is bottom-up; the
     * nodes made here (max, comparisons) get ids past n and are never visited */
    for (dg_term t = 1; t < n; t++)
      if (mark[t]) node(&S, t);
    if (S.memo[ra].state == 1 && S.memo[rb].state == 1) {
      size_t na = 0, nb = 0;
      sel_pair *pa = leaf_pairs(&S, ra, &na), *pb = pa ? leaf_pairs(&S, rb, &nb) : NULL;
      same = pa && pb && na == nb;
      for (size_t i = 0; same && i < na; i++) same = !pair_cmp(&pa[i], &pb[i]);   /* (not memcmp: padding) */
      free(pa);
      free(pb);
    }
  }
  free(S.memo);
  free(mark);
  return same;
}
