/* term.c — the term context: node arena, hash-consing, sorts, constants,
 * variables and their metadata, inspection and reachability. The normalising
 * constructors live in term_real.c (REAL model) and term_ops.c (the rest). */
#include "term_priv.h"
#include "ir.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const term_op_info term_ops[TOP__COUNT] = {
#define X(id, name, refs) { name, refs },
  TERM_OPS(X)
#undef X
};

_Noreturn void term_die(const char *fmt, ...)
{
  va_list ap;
  fputs("dirigo: internal error (term): ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

/* ---- sorts ------------------------------------------------------------------ */
int term_sort_bits(term_sort s)
{
  static const int ibits[] = { 8, 16, 32, 64 }, fbits[] = { 16, 16, 32, 64 };
  if (TERM_SK(s) == TERM_SK_INT) return ibits[s & 3];
  if (TERM_SK(s) == TERM_SK_FP) return fbits[s & 3];
  return 0;
}

const char *term_sort_name(term_sort s)
{
  static const char *in[] = { "bv8", "bv16", "bv32", "bv64" }, *fn[] = { "f16", "bf16", "f32", "f64" };
  switch (TERM_SK(s)) {
  case TERM_S_BOOL: return "bool";
  case TERM_S_REAL: return "real";
  case TERM_SK_INT: return in[s & 3];
  case TERM_SK_FP: return fn[s & 3];
  default: return "none";
  }
}

uint64_t term_mask(term_sort s)
{
  int w = term_sort_bits(s);
  return w >= 64 ? ~0ull : (1ull << w) - 1;
}

int64_t term_sext(term_sort s, uint64_t bits)
{
  int w = term_sort_bits(s);
  if (w >= 64) return (int64_t)bits;
  uint64_t m = 1ull << (w - 1);
  bits &= (1ull << w) - 1;
  return (int64_t)((bits ^ m) - m);
}

term_sort term_float_sort(const term_ctx *c, int k)
{
  if (c->model == TERM_MODEL_REAL) return TERM_S_REAL;
  switch (k) {
  case DG_TY_F16: return TERM_S_F16;
  case DG_TY_BF16: return TERM_S_BF16;
  case DG_TY_F64: return TERM_S_F64;
  default: return TERM_S_F32;
  }
}

term_sort term_int_sort(int k)
{
  switch (k) {
  case DG_TY_BOOL: return TERM_S_BOOL;
  case DG_TY_I8: case DG_TY_U8: return TERM_S_I8;
  case DG_TY_I16: case DG_TY_U16: return TERM_S_I16;
  case DG_TY_I64: case DG_TY_U64: case DG_TY_PTR: return TERM_S_I64;
  default: return TERM_S_I32;
  }
}

/* ---- the node table ----------------------------------------------------------- */
static uint32_t node_hash(const term_node *n)
{
  /* VAR nodes are keyed without their ordinal (d). Word-wise multiply-xorshift
   * mixing: hashing is on the path of every constructor (a byte-wise hash was
   * a third of a large check's time). */
  uint64_t d = n->op == TOP_VAR ? 0 : n->d;
  uint64_t h = ((uint64_t)n->op | (uint64_t)n->sort << 8 | (uint64_t)n->aux << 16) ^ (uint64_t)n->a << 32;
  h ^= h >> 31; h *= 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t)n->b | (uint64_t)n->c << 32);
  h ^= h >> 29; h *= 0xbf58476d1ce4e5b9ull;
  h ^= d;
  h ^= h >> 32; h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return (uint32_t)h;
}

static bool node_same(const term_node *x, const term_node *y)
{
  return x->op == y->op && x->sort == y->sort && x->aux == y->aux && x->a == y->a &&
         x->b == y->b && x->c == y->c && (x->op == TOP_VAR || x->d == y->d);
}

static void tab_grow(term_ctx *c)
{
  size_t cap = c->tabcap ? c->tabcap * 2 : 1024;
  term_slot *tab = dg_calloc(cap, sizeof *tab);
  for (size_t i = 0; i < c->tabcap; i++) {
    if (!c->tab[i].id) continue;
    size_t j = c->tab[i].hash & (cap - 1);
    while (tab[j].id) j = (j + 1) & (cap - 1);
    tab[j] = c->tab[i];
  }
  free(c->tab);
  c->tab = tab;
  c->tabcap = cap;
}

dg_term term_intern(term_ctx *c, term_op op, term_sort s, uint16_t aux,
                    uint32_t a, uint32_t b, uint32_t cc, uint32_t d)
{
  term_node n = { (uint8_t)op, s, aux, a, b, cc, d };
  if ((c->tabn + 1) * 4 > c->tabcap * 3) tab_grow(c);
  uint32_t h = node_hash(&n);
  c->lookups++;
  size_t j = h & (c->tabcap - 1);
  for (uint32_t id; (id = c->tab[j].id); j = (j + 1) & (c->tabcap - 1))
    if (c->tab[j].hash == h && node_same(&c->nodes.v[id], &n)) return id;
  if (c->nodes.n >= UINT32_MAX - 1) term_die("more than 2^32 terms");
  dg_term id = (dg_term)c->nodes.n;
  dg_vec_push(&c->nodes, n);
  c->tab[j] = (term_slot){ id, h };
  c->tabn++;
  return id;
}

term_ctx *term_ctx_new(term_model model)
{
  term_ctx *c = dg_calloc(1, sizeof *c);
  c->model = model;
  dg_vec_push(&c->nodes, ((term_node){ 0 }));
  tab_grow(c);
  return c;
}

void term_ctx_free(term_ctx *c)
{
  if (!c) return;
  for (size_t i = 0; i < c->strs.n; i++) free(c->strs.v[i]);
  for (size_t i = 0; i < c->vars.n; i++) free((char *)c->vars.v[i].name);
  dg_vec_free(&c->strs);
  dg_vec_free(&c->vars);
  dg_vec_free(&c->varterms);
  dg_vec_free(&c->nodes);
  free(c->tab);
  free(c->memo);
  free(c);
}

term_model term_ctx_model(const term_ctx *c) { return c->model; }
size_t term_ctx_count(const term_ctx *c) { return c->nodes.n - 1; }
size_t term_ctx_lookups(const term_ctx *c) { return c->lookups; }

size_t term_ctx_bytes(const term_ctx *c)
{
  size_t n = sizeof *c + c->nodes.cap * sizeof(term_node) + c->tabcap * sizeof(term_slot) +
             c->memocap * sizeof(term_memo) +
             c->vars.cap * sizeof(term_varinfo) + c->varterms.cap * sizeof(dg_term) +
             c->strs.cap * sizeof(char *);
  for (size_t i = 0; i < c->strs.n; i++) n += strlen(c->strs.v[i]) + 1;
  for (size_t i = 0; i < c->vars.n; i++) n += strlen(c->vars.v[i].name) + 1;
  return n;
}

/* ---- constants ---------------------------------------------------------------- */
/* Constants are asked for far more often than they are new (every
 * coefficient 1 of a sum): a small direct-mapped cache in front of the big
 * table answers them without a cache miss there. */
static dg_term mk_const64(term_ctx *c, term_sort s, uint64_t bits)
{
  uint64_t h = (bits ^ (uint64_t)s << 56) * 0x9e3779b97f4a7c15ull;
  term_constslot *e = &c->consts[h >> (64 - TERM_CONST_CACHE_BITS)];
  if (e->id && e->bits == bits && e->sort == s) return e->id;
  dg_term id = term_intern(c, TOP_CONST, s, 0, (uint32_t)bits, (uint32_t)(bits >> 32), 0, 0);
  *e = (term_constslot){ bits, id, s };
  return id;
}

dg_term term_bool(term_ctx *c, bool v) { return mk_const64(c, TERM_S_BOOL, v); }
dg_term term_true(term_ctx *c) { return term_bool(c, true); }
dg_term term_false(term_ctx *c) { return term_bool(c, false); }

dg_term term_real(term_ctx *c, double v)
{
  uint64_t bits;
  if (isnan(v)) term_die("NaN as a real constant");   /* infinities are allowed: term_real.c */
  if (v == 0) v = 0;              /* one zero: -0.0 and 0.0 are the same real */
  memcpy(&bits, &v, sizeof bits);
  return mk_const64(c, TERM_S_REAL, bits);
}

static double round_to(term_sort s, double v);

dg_term term_fp(term_ctx *c, term_sort s, double v)
{
  uint64_t bits;
  if (TERM_SK(s) != TERM_SK_FP) term_die("term_fp of sort %s", term_sort_name(s));
  v = round_to(s, v);
  if (isnan(v)) v = NAN;          /* one NaN, as in SMT-LIB */
  memcpy(&bits, &v, sizeof bits);
  return mk_const64(c, s, bits);
}

dg_term term_int(term_ctx *c, term_sort s, int64_t v)
{
  if (TERM_SK(s) != TERM_SK_INT) term_die("term_int of sort %s", term_sort_name(s));
  return mk_const64(c, s, (uint64_t)v & term_mask(s));
}

dg_term term_float(term_ctx *c, int k, double v)
{
  term_sort s = term_float_sort(c, k);
  return s == TERM_S_REAL ? term_real(c, v) : term_fp(c, s, v);
}

/* f16 / bf16 rounding to nearest even, through float bits. */
static double round_bf16(double v)
{
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1);
  u &= 0xffff0000u;
  memcpy(&f, &u, 4);
  return f;
}

static double round_f16(double v)
{
  if (!isfinite(v) || v == 0) return v;
  double a = fabs(v);
  if (a >= 65520.0) return copysign(INFINITY, v);
  int e;
  frexp(a, &e);                    /* a = m * 2^e, m in [0.5, 1) */
  int q = e - 11 < -24 ? -24 : e - 11;   /* 11 significant bits; subnormals step 2^-24 */
  return copysign(nearbyint(ldexp(a, -q)) * ldexp(1.0, q), v);
}

static double round_to(term_sort s, double v)
{
  switch (s) {
  case TERM_S_F16: return round_f16(v);
  case TERM_S_BF16: return round_bf16(v);
  case TERM_S_F32: return (float)v;
  default: return v;
  }
}

double term_round_to(term_sort s, double v) { return round_to(s, v); }

double term_real_val(const term_ctx *c, dg_term t)
{
  const term_node *n = term_node_of(c, t);
  uint64_t bits = (uint64_t)n->a | (uint64_t)n->b << 32;
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

uint64_t term_bits_val(const term_ctx *c, dg_term t)
{
  const term_node *n = term_node_of(c, t);
  return (uint64_t)n->a | (uint64_t)n->b << 32;
}

/* ---- variables ---------------------------------------------------------------- */
static uint32_t intern_str(term_ctx *c, const char *s)
{
  for (size_t i = 0; i < c->strs.n; i++)
    if (!strcmp(c->strs.v[i], s)) return (uint32_t)i;
  dg_vec_push(&c->strs, dg_strdup(s));
  return (uint32_t)(c->strs.n - 1);
}

dg_term term_var(term_ctx *c, term_sort s, const term_varinfo *vi)
{
  uint32_t str = intern_str(c, vi->tensor ? vi->tensor : "?");
  uint64_t ix = (uint64_t)vi->index;
  size_t before = c->nodes.n;
  dg_term t = term_intern(c, TOP_VAR, s, (uint16_t)vi->kind, str, (uint32_t)ix,
                          (uint32_t)(ix >> 32), (uint32_t)c->vars.n);
  if (c->nodes.n == before) return t;     /* seen before */
  term_varinfo v = *vi;
  v.tensor = c->strs.v[str];
  v.name = vi->name ? dg_strdup(vi->name)
         : vi->kind == TERM_VAR_FREE ? dg_strdup(v.tensor)
         : dg_printf("%s[%lld]", v.tensor, (long long)vi->index);
  dg_vec_push(&c->vars, v);
  dg_vec_push(&c->varterms, t);
  return t;
}

size_t term_var_count(const term_ctx *c) { return c->vars.n; }
dg_term term_var_term(const term_ctx *c, size_t i) { return i < c->varterms.n ? c->varterms.v[i] : 0; }
const term_varinfo *term_var_info(const term_ctx *c, size_t i) { return i < c->vars.n ? &c->vars.v[i] : NULL; }

long term_var_ordinal(const term_ctx *c, dg_term t)
{
  if (!t || t >= c->nodes.n || c->nodes.v[t].op != TOP_VAR) return -1;
  return (long)c->nodes.v[t].d;
}

/* ---- inspection --------------------------------------------------------------- */
term_sort term_sort_of(const term_ctx *c, dg_term t)
{
  if (!t || t >= c->nodes.n) term_die("bad term id %u", t);
  return c->nodes.v[t].sort;
}

bool term_is_const(const term_ctx *c, dg_term t) { return t && c->nodes.v[t].op == TOP_CONST; }

bool term_const_bool(const term_ctx *c, dg_term t, bool *v)
{
  if (!term_is_const(c, t) || term_sort_of(c, t) != TERM_S_BOOL) return false;
  *v = term_bits_val(c, t) != 0;
  return true;
}

bool term_const_int(const term_ctx *c, dg_term t, int64_t *v)
{
  term_sort s = term_sort_of(c, t);
  if (!term_is_const(c, t) || (TERM_SK(s) != TERM_SK_INT && s != TERM_S_BOOL)) return false;
  *v = s == TERM_S_BOOL ? (int64_t)term_bits_val(c, t) : term_sext(s, term_bits_val(c, t));
  return true;
}

bool term_const_double(const term_ctx *c, dg_term t, double *v)
{
  term_sort s = term_sort_of(c, t);
  if (!term_is_const(c, t) || (s != TERM_S_REAL && TERM_SK(s) != TERM_SK_FP)) return false;
  *v = term_real_val(c, t);
  return true;
}

uint8_t *term_reach(const term_ctx *c, const dg_term *roots, size_t nroots)
{
  uint8_t *seen = dg_calloc(c->nodes.n, 1);
  DG_VEC(dg_term) stack = { 0 };
  for (size_t i = 0; i < nroots; i++)
    if (roots[i] && !seen[roots[i]]) { seen[roots[i]] = 1; dg_vec_push(&stack, roots[i]); }
  while (stack.n) {
    const term_node *n = term_node_of(c, stack.v[--stack.n]);
    uint32_t f[4] = { n->a, n->b, n->c, n->d };
    uint8_t refs = term_ops[n->op].refs;
    for (int k = 0; k < 4; k++)
      if ((refs >> k & 1) && f[k] && !seen[f[k]]) { seen[f[k]] = 1; dg_vec_push(&stack, f[k]); }
  }
  dg_vec_free(&stack);
  return seen;
}

size_t term_dag_size(const term_ctx *c, dg_term t)
{
  uint8_t *seen = term_reach(c, &t, 1);
  size_t n = 0;
  for (size_t i = 1; i < c->nodes.n; i++)
    n += seen[i] && c->nodes.v[i].op != TOP_SET;
  free(seen);
  return n;
}

dg_term *term_vars_of(const term_ctx *c, dg_term t, size_t *n)
{
  uint8_t *seen = term_reach(c, &t, 1);
  DG_VEC(dg_term) v = { 0 };
  for (size_t i = 0; i < c->varterms.n; i++)
    if (seen[c->varterms.v[i]]) dg_vec_push(&v, c->varterms.v[i]);
  free(seen);
  *n = v.n;
  return v.v;
}
