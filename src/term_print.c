/* term_print.c — terms as readable infix for the screen and for messages.
 * Subterms that are used more than once and are bigger than LET_MIN nodes are
 * printed once as `let tN = ...` lines before the expression that uses them.
 * Printing stops once max_len bytes are out (very deep chains, as in a long
 * IEEE sum, are cut at MAX_DEPTH with "..."). */
#include "term_priv.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { LET_MIN = 4, MAX_DEPTH = 200 };
enum { P_ITE = 1, P_OR, P_AND, P_CMP, P_BOR, P_BXOR, P_BAND, P_SHIFT, P_ADD, P_MUL, P_UNARY, P_ATOM };

typedef struct {
  const term_ctx *c;
  dg_buf *out;
  size_t limit;            /* stop after out->n reaches it (0: none) */
  uint32_t *uses;          /* per term: references from the printed DAG */
  uint32_t *size;          /* per term: tree size, saturating */
  uint32_t *name;          /* per term: let-binding number, 0 if printed inline */
  bool full;
} printer;

static bool stop(printer *p) { return p->full || (p->limit && p->out->n >= p->limit && (p->full = true)); }

static void put_double(dg_buf *b, double v)
{
  char s[40];
  if (isnan(v)) { dg_buf_puts(b, "nan"); return; }
  if (isinf(v)) { dg_buf_puts(b, v < 0 ? "-inf" : "inf"); return; }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(s, sizeof s, "%.*g", prec, v);
    if (strtod(s, NULL) == v) break;
  }
  dg_buf_puts(b, s);
}

static void expr(printer *p, dg_term t, int prec, int depth);

static void open_p(printer *p, int mine, int prec) { if (mine < prec) dg_buf_putc(p->out, '('); }
static void close_p(printer *p, int mine, int prec) { if (mine < prec) dg_buf_putc(p->out, ')'); }

static void call(printer *p, const char *name, const dg_term *args, int n, int depth)
{
  dg_buf_puts(p->out, name);
  dg_buf_putc(p->out, '(');
  for (int i = 0; i < n; i++) {
    if (i) dg_buf_puts(p->out, ", ");
    expr(p, args[i], P_ITE, depth + 1);
  }
  dg_buf_putc(p->out, ')');
}

typedef struct { printer *p; int depth; int i; term_op op; } setpr;

static bool sum_item(void *ud, dg_term key, dg_term val)
{
  setpr *s = ud;
  double k = term_real_val(s->p->c, val);
  if (s->i++) dg_buf_puts(s->p->out, k < 0 ? " - " : " + ");
  else if (k < 0) dg_buf_putc(s->p->out, '-');
  if (fabs(k) != 1) { put_double(s->p->out, fabs(k)); dg_buf_putc(s->p->out, '*'); }
  expr(s->p, key, fabs(k) != 1 ? P_UNARY : P_ADD + 1, s->depth + 1);
  return !stop(s->p);
}

static bool prod_item(void *ud, dg_term key, dg_term val)
{
  setpr *s = ud;
  double e = term_real_val(s->p->c, val);
  if (s->i++) dg_buf_putc(s->p->out, '*');
  expr(s->p, key, e != 1 ? P_ATOM : P_MUL + 1, s->depth + 1);
  if (e != 1) { dg_buf_putc(s->p->out, '^'); put_double(s->p->out, e); }
  return !stop(s->p);
}

static bool list_item(void *ud, dg_term key, dg_term val)
{
  setpr *s = ud;
  if (s->i++) dg_buf_puts(s->p->out, ", ");
  expr(s->p, key, P_ITE, s->depth + 1);
  return !stop(s->p);
}

static int infix_prec(term_op op)
{
  switch (op) {
  case TOP_EQ: case TOP_FEQ: case TOP_LT: case TOP_LE: case TOP_ULT: case TOP_ULE: return P_CMP;
  case TOP_AND: return P_AND;
  case TOP_OR: return P_OR;
  case TOP_BOR: return P_BOR;
  case TOP_BXOR: return P_BXOR;
  case TOP_BAND: return P_BAND;
  case TOP_SHL: case TOP_LSHR: case TOP_ASHR: return P_SHIFT;
  case TOP_FADD: case TOP_FSUB: case TOP_BADD: case TOP_BSUB: return P_ADD;
  case TOP_FMUL: case TOP_FDIV: case TOP_DIV: case TOP_BMUL: case TOP_SDIV: case TOP_UDIV:
  case TOP_SREM: case TOP_UREM: return P_MUL;
  default: return 0;
  }
}

static void node_expr(printer *p, dg_term t, int prec, int depth)
{
  const term_ctx *c = p->c;
  term_node n = *term_node_of(c, t);
  dg_buf *o = p->out;
  int ip = infix_prec((term_op)n.op);
  if (ip) {
    open_p(p, ip, prec);
    expr(p, n.a, ip, depth + 1);
    dg_buf_printf(o, " %s ", term_ops[n.op].name);
    expr(p, n.b, ip + 1, depth + 1);
    close_p(p, ip, prec);
    return;
  }
  setpr s = { p, depth, 0, (term_op)n.op };
  dg_term args[3] = { n.a, n.b, n.c };
  switch (n.op) {
  case TOP_CONST:
    if (n.sort == TERM_S_BOOL) dg_buf_puts(o, n.a ? "true" : "false");
    else if (TERM_SK(n.sort) == TERM_SK_INT) dg_buf_printf(o, "%lld", (long long)term_sext(n.sort, term_bits_val(c, t)));
    else {
      double v = term_real_val(c, t);
      if (v < 0 && prec > P_ADD) dg_buf_putc(o, '(');
      put_double(o, v);
      if (v < 0 && prec > P_ADD) dg_buf_putc(o, ')');
    }
    break;
  case TOP_VAR: dg_buf_puts(o, c->vars.v[n.d].name); break;
  case TOP_ADD:
    open_p(p, P_ADD, prec);
    term_set_each(c, n.b, sum_item, &s);
    if (n.a) {
      double k = term_real_val(c, n.a);
      dg_buf_puts(o, k < 0 ? " - " : " + ");
      put_double(o, fabs(k));
    }
    close_p(p, P_ADD, prec);
    break;
  case TOP_MUL: {
    double k = n.a ? term_real_val(c, n.a) : 1;
    bool neg = k == -1;
    int mine = neg ? P_UNARY : P_MUL;
    open_p(p, mine, prec);
    if (neg) dg_buf_putc(o, '-');
    else if (k != 1) { put_double(o, k); s.i = 1; }
    if (k != 1 && !neg && k < 0) { /* keep "-2*x" readable */ }
    term_set_each(c, n.b, prod_item, &s);
    if (n.c) {
      if (s.i) dg_buf_putc(o, '*');
      call(p, "exp", &n.c, 1, depth);
    }
    close_p(p, mine, prec);
    break;
  }
  case TOP_MAX: case TOP_MIN:
    dg_buf_puts(o, term_ops[n.op].name);
    dg_buf_putc(o, '(');
    term_set_each(c, n.b, list_item, &s);
    if (n.a) { dg_buf_puts(o, ", "); put_double(o, term_real_val(c, n.a)); }
    dg_buf_putc(o, ')');
    break;
  case TOP_FNEG: case TOP_BNEG: case TOP_NOT:
    open_p(p, P_UNARY, prec);
    dg_buf_puts(o, n.op == TOP_NOT ? "!" : "-");
    expr(p, n.a, P_UNARY, depth + 1);
    close_p(p, P_UNARY, prec);
    break;
  case TOP_ITE:
    open_p(p, P_ITE, prec);
    expr(p, n.a, P_OR, depth + 1);
    dg_buf_puts(o, " ? ");
    expr(p, n.b, P_OR, depth + 1);
    dg_buf_puts(o, " : ");
    expr(p, n.c, P_ITE, depth + 1);
    close_p(p, P_ITE, prec);
    break;
  case TOP_CVT:
    open_p(p, P_UNARY, prec);
    dg_buf_printf(o, "(%s)", term_sort_name(n.sort));
    expr(p, n.a, P_UNARY, depth + 1);
    close_p(p, P_UNARY, prec);
    break;
  case TOP_FN: call(p, term_fn_name((term_fn)n.aux), args, 1, depth); break;
  default: {
    int nargs = 0;
    for (int k = 0; k < 3; k++) nargs += term_ops[n.op].refs >> k & 1;
    call(p, term_ops[n.op].name, args, nargs, depth);
  }
  }
}

static void expr(printer *p, dg_term t, int prec, int depth)
{
  if (stop(p)) return;
  if (p->name[t]) { dg_buf_printf(p->out, "t%u", p->name[t]); return; }
  if (depth > MAX_DEPTH) { dg_buf_puts(p->out, "..."); return; }
  node_expr(p, t, prec, depth);
}

void term_print_buf(dg_buf *out, const term_ctx *c, dg_term t, size_t max_len)
{
  if (!t) { dg_buf_puts(out, "<none>"); return; }
  size_t start = out->n, n = c->nodes.n;
  printer p = { c, out, max_len ? start + max_len : 0, dg_calloc(n, 4), dg_calloc(n, 4), dg_calloc(n, 4), false };
  uint8_t *seen = term_reach(c, &t, 1);
  /* Uses and sizes, children first (ids grow from operands to users). Set
   * nodes pass their keys' uses and sizes on to the AC node that owns them. */
  for (size_t i = 1; i < n; i++) {
    if (!seen[i]) continue;
    const term_node *nd = &c->nodes.v[i];
    uint32_t f[4] = { nd->a, nd->b, nd->c, nd->d };
    uint64_t sz = nd->op == TOP_SET ? 0 : 1;
    for (int k = 0; k < 4; k++) {
      if (!(term_ops[nd->op].refs >> k & 1) || !f[k]) continue;
      if (c->nodes.v[f[k]].op != TOP_SET) p.uses[f[k]]++;
      sz += p.size[f[k]];
    }
    p.size[i] = sz > UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
  }
  uint32_t next = 0;
  for (size_t i = 1; i < n && !stop(&p); i++) {
    if (!seen[i] || i == t || p.uses[i] < 2 || p.size[i] < LET_MIN || c->nodes.v[i].op == TOP_SET) continue;
    dg_buf_printf(out, "let t%u = ", ++next);
    node_expr(&p, (dg_term)i, 0, 0);
    dg_buf_putc(out, '\n');
    p.name[i] = next;
  }
  expr(&p, t, 0, 0);
  if (p.full) {
    out->n = p.limit;
    out->s[out->n] = 0;
    dg_buf_puts(out, "...");
  }
  if (!out->s) dg_buf_puts(out, "");
  free(seen);
  free(p.uses);
  free(p.size);
  free(p.name);
}

char *term_print(const term_ctx *c, dg_term t, size_t max_len)
{
  dg_buf b = { 0 };
  term_print_buf(&b, c, t, max_len);
  return dg_buf_take(&b);
}
