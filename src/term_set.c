/* term_set.c — canonical persistent sets and maps for the n-ary operators.
 *
 * A set is a treap of hash-consed TOP_SET nodes ordered by key (a term id),
 * heap-ordered by a hash of the key. Because the priority is a function of the
 * key, the treap of a given key set has exactly one shape, so two sets with the
 * same contents are the same term id however they were built (a butterfly, a
 * sequential loop, a tree). Insertion and union copy only the paths they touch:
 * a sum grown one operand at a time costs O(log n) nodes per step. */
#include "term_priv.h"

static uint32_t prio(uint32_t k)
{
  k ^= k >> 16; k *= 0x7feb352du; k ^= k >> 15; k *= 0x846ca68bu; k ^= k >> 16;
  return k;
}

static bool above(uint32_t x, uint32_t y)
{
  uint32_t px = prio(x), py = prio(y);
  return px > py || (px == py && x > y);
}

static dg_term mk(term_ctx *c, dg_term key, dg_term val, dg_term l, dg_term r)
{
  return term_intern(c, TOP_SET, TERM_S_NONE, 0, key, val, l, r);
}

dg_term term_set_one(term_ctx *c, dg_term key, dg_term val) { return mk(c, key, val, 0, 0); }

/* Splits t into keys < key and keys > key; the value at key, if present. */
static void split(term_ctx *c, dg_term t, dg_term key, dg_term *l, dg_term *r,
                  dg_term *val, bool *found)
{
  if (!t) { *l = *r = 0; *found = false; return; }
  term_node n = *term_node_of(c, t);    /* copy: mk may move the node array */
  if (key == n.a) { *l = n.c; *r = n.d; *val = n.b; *found = true; }
  else if (key < n.a) { dg_term rr; split(c, n.c, key, l, &rr, val, found); *r = mk(c, n.a, n.b, rr, n.d); }
  else { dg_term ll; split(c, n.d, key, &ll, r, val, found); *l = mk(c, n.a, n.b, n.c, ll); }
}

/* Every key of l is below every key of r. */
static dg_term join(term_ctx *c, dg_term l, dg_term r)
{
  if (!l) return r;
  if (!r) return l;
  term_node nl = *term_node_of(c, l), nr = *term_node_of(c, r);
  if (above(nl.a, nr.a)) return mk(c, nl.a, nl.b, nl.c, join(c, nl.d, r));
  return mk(c, nr.a, nr.b, join(c, l, nr.c), nr.d);
}

/* The computed table: a warp's butterfly reduction has lane i and lane i^k
 * form the same union, and sums that share operands share sub-unions; each
 * is computed once. It grows with the context (a direct-mapped cache of about
 * one entry per two nodes, at most 2^21 entries). */
static term_memo *memo_slot(term_ctx *c, dg_term s1, dg_term s2, term_setmode m)
{
  size_t want = c->memocap ? c->memocap : 4096;
  while (want < ((size_t)1 << 21) && want * 2 < c->nodes.n) want *= 2;
  if (want != c->memocap) {     /* entries are hints: a resize simply drops them */
    free(c->memo);
    c->memo = dg_calloc(want, sizeof *c->memo);
    c->memocap = want;
  }
  uint64_t h = ((uint64_t)s1 << 32 | s2) * 0x9e3779b97f4a7c15ull ^ (uint64_t)m;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return &c->memo[(h >> 32) & (c->memocap - 1)];
}

static dg_term union_rec(term_ctx *c, dg_term s1, dg_term s2, term_setmode m);

dg_term term_set_union(term_ctx *c, dg_term s1, dg_term s2, term_setmode m)
{
  if (!s1) return s2;
  if (!s2) return s1;
  if (s1 == s2 && m == TERM_SET_PLAIN) return s1;
  /* union is commutative: SUM adds values (commutative in double), PLAIN
   * sets (max/min operands) carry no values, so no key has two to choose from */
  if (s1 > s2) { dg_term t = s1; s1 = s2; s2 = t; }
  const term_node *n1 = term_node_of(c, s1), *n2 = term_node_of(c, s2);
  if (!(n1->c || n1->d) || !(n2->c || n2->d))    /* one operand into a set (acc += x): */
    return union_rec(c, s1, s2, m);              /* a new path each time, not worth a slot */
  term_memo *e = memo_slot(c, s1, s2, m);
  if (e->r && e->s1 == s1 && e->s2 == s2 && e->mode == (uint32_t)m) return e->r;
  dg_term r = union_rec(c, s1, s2, m);
  e = memo_slot(c, s1, s2, m);     /* the table may have grown meanwhile */
  *e = (term_memo){ s1, s2, r, (uint32_t)m };
  return r;
}

static dg_term union_rec(term_ctx *c, dg_term s1, dg_term s2, term_setmode m)
{
  if (!above(term_node_of(c, s1)->a, term_node_of(c, s2)->a)) { dg_term t = s1; s1 = s2; s2 = t; }
  term_node n = *term_node_of(c, s1);
  dg_term bl, br, v2 = 0;
  bool found;
  split(c, s2, n.a, &bl, &br, &v2, &found);
  dg_term L = term_set_union(c, n.c, bl, m);
  dg_term R = term_set_union(c, n.d, br, m);
  dg_term v = n.b;
  if (found && m == TERM_SET_SUM) {
    double sum = term_real_val(c, n.b) + term_real_val(c, v2);
    if (sum == 0) return join(c, L, R);     /* x - x: the key drops out */
    v = term_real(c, sum);
  }
  return mk(c, n.a, v, L, R);
}

dg_term term_set_scale(term_ctx *c, dg_term s, double k)
{
  if (!s || k == 1) return s;
  term_node n = *term_node_of(c, s);
  dg_term L = term_set_scale(c, n.c, k), R = term_set_scale(c, n.d, k);
  double v = term_real_val(c, n.b) * k;
  if (v == 0) return join(c, L, R);
  return mk(c, n.a, term_real(c, v), L, R);
}

size_t term_set_size(const term_ctx *c, dg_term s)
{
  if (!s) return 0;
  const term_node *n = term_node_of(c, s);
  return 1 + term_set_size(c, n->c) + term_set_size(c, n->d);
}

bool term_set_each(const term_ctx *c, dg_term s, term_set_fn fn, void *ud)
{
  if (!s) return true;
  term_node n = *term_node_of(c, s);   /* a copy: fn may create terms and move the array */
  return term_set_each(c, n.c, fn, ud) && fn(ud, n.a, n.b) && term_set_each(c, n.d, fn, ud);
}

bool term_set_single(const term_ctx *c, dg_term s, dg_term *key, dg_term *val)
{
  if (!s) return false;
  const term_node *n = term_node_of(c, s);
  if (n->c || n->d) return false;
  *key = n->a;
  *val = n->b;
  return true;
}
