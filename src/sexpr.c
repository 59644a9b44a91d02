/* sexpr.c — the size-expression parser (precedence climbing over C's table)
 * and its checked int64 evaluator. */
#include "sexpr.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { N_NUM, N_SYM, N_UN, N_BIN, N_COND, N_MIN, N_MAX, N_CEIL } nkind;

/* Binary operators: spelling, precedence (C's, higher binds tighter), code. */
typedef enum {
  B_LOR, B_LAND, B_OR, B_XOR, B_AND, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE,
  B_SHL, B_SHR, B_ADD, B_SUB, B_MUL, B_DIV, B_MOD
} bop;

static const struct { const char *s; int prec; bop op; } binops[] = {
  { "||", 1, B_LOR }, { "&&", 2, B_LAND }, { "==", 6, B_EQ }, { "!=", 6, B_NE },
  { "<=", 7, B_LE }, { ">=", 7, B_GE }, { "<<", 8, B_SHL }, { ">>", 8, B_SHR },
  { "|", 3, B_OR }, { "^", 4, B_XOR }, { "&", 5, B_AND }, { "<", 7, B_LT },
  { ">", 7, B_GT }, { "+", 9, B_ADD }, { "-", 9, B_SUB }, { "*", 10, B_MUL },
  { "/", 10, B_DIV }, { "%", 10, B_MOD },
};

typedef struct {
  nkind kind;
  int op;            /* bop, or the unary operator character */
  int a, b, c;       /* child node indices */
  size_t pos;        /* offset of the operator, name or literal */
  int64_t v;         /* N_NUM */
  char *name;        /* N_SYM; owned */
} node;

struct dg_sexpr {
  char *text;
  DG_VEC(node) nodes;
  int root;
};

typedef struct {
  const char *s;
  size_t i;
  dg_sexpr *e;
  dg_sexpr_err *err;
  bool failed;
} parser;

static void fail(parser *p, size_t pos, const char *fmt, const char *arg)
{
  if (p->failed) return;
  p->failed = true;
  p->err->pos = pos;
  snprintf(p->err->msg, sizeof p->err->msg, fmt, arg);
}

static void skip_ws(parser *p)
{
  while (isspace((unsigned char)p->s[p->i])) p->i++;
}

static int add_node(parser *p, node n)
{
  dg_vec_push(&p->e->nodes, n);
  return (int)p->e->nodes.n - 1;
}

static int parse_expr(parser *p, int minprec);

static bool expect(parser *p, char c)
{
  skip_ws(p);
  if (p->s[p->i] == c) {
    p->i++;
    return true;
  }
  char want[2] = { c, 0 };
  fail(p, p->i, p->s[p->i] ? "expected '%s'" : "expected '%s' at the end", want);
  return false;
}

static int parse_call(parser *p, const char *name, size_t len, size_t pos)
{
  nkind k = N_MIN;
  int nargs = 2;
  if (len == 3 && !strncmp(name, "max", 3)) k = N_MAX;
  else if (len == 4 && !strncmp(name, "ceil", 4)) k = N_CEIL, nargs = 1;
  else if (!(len == 3 && !strncmp(name, "min", 3))) {
    char *n = dg_strndup(name, len);
    fail(p, pos, "unknown function '%s' (min, max, ceil)", n);
    free(n);
    return -1;
  }
  p->i++;  /* '(' */
  int a = parse_expr(p, 0), b = -1;
  if (nargs == 2 && !p->failed && expect(p, ',')) b = parse_expr(p, 0);
  if (p->failed || !expect(p, ')')) return -1;
  return add_node(p, (node){ .kind = k, .a = a, .b = b, .pos = pos });
}

static int parse_primary(parser *p)
{
  skip_ws(p);
  const char *s = p->s;
  size_t pos = p->i;
  char c = s[pos];
  if (c == '(') {
    p->i++;
    int r = parse_expr(p, 0);
    if (p->failed || !expect(p, ')')) return -1;
    return r;
  }
  if (c == '-' || c == '+' || c == '~' || c == '!') {
    p->i++;
    int a = parse_primary(p);
    if (p->failed) return -1;
    if (c == '+') return a;
    return add_node(p, (node){ .kind = N_UN, .op = c, .a = a, .pos = pos });
  }
  if (isdigit((unsigned char)c)) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s + pos, &end, 0);
    if (errno || v > INT64_MAX) {
      fail(p, pos, "integer literal out of range%s", "");
      return -1;
    }
    p->i = (size_t)(end - s);
    while (s[p->i] == 'u' || s[p->i] == 'U' || s[p->i] == 'l' || s[p->i] == 'L') p->i++;
    if (isalnum((unsigned char)s[p->i]) || s[p->i] == '.' || s[p->i] == '_') {
      fail(p, pos, "not an integer literal%s", "");
      return -1;
    }
    return add_node(p, (node){ .kind = N_NUM, .v = (int64_t)v, .pos = pos });
  }
  if (isalpha((unsigned char)c) || c == '_') {
    size_t j = pos;
    while (isalnum((unsigned char)s[j]) || s[j] == '_') j++;
    p->i = j;
    skip_ws(p);
    if (s[p->i] == '(') return parse_call(p, s + pos, j - pos, pos);
    if ((j - pos == 4 && !strncmp(s + pos, "true", 4)) || (j - pos == 5 && !strncmp(s + pos, "false", 5)))
      return add_node(p, (node){ .kind = N_NUM, .v = s[pos] == 't', .pos = pos });
    return add_node(p, (node){ .kind = N_SYM, .name = dg_strndup(s + pos, j - pos), .pos = pos });
  }
  if (!c) fail(p, pos, "expression expected at the end%s", "");
  else {
    char tok[2] = { c, 0 };
    fail(p, pos, "unexpected '%s'", tok);
  }
  return -1;
}

static int match_binop(parser *p, int *prec)
{
  const char *s = p->s + p->i;
  for (size_t k = 0; k < sizeof binops / sizeof *binops; k++) {
    size_t n = strlen(binops[k].s);
    if (strncmp(s, binops[k].s, n)) continue;
    /* a single '|' or '&' must not be the start of '||' / '&&' (those come first in the table) */
    *prec = binops[k].prec;
    return (int)k;
  }
  return -1;
}

static int parse_expr(parser *p, int minprec)
{
  int lhs = parse_primary(p);
  for (;;) {
    if (p->failed) return -1;
    skip_ws(p);
    size_t pos = p->i;
    if (p->s[pos] == '?' && minprec == 0) {
      p->i++;
      int b = parse_expr(p, 0);
      if (p->failed || !expect(p, ':')) return -1;
      int c = parse_expr(p, 0);
      if (p->failed) return -1;
      lhs = add_node(p, (node){ .kind = N_COND, .a = lhs, .b = b, .c = c, .pos = pos });
      continue;
    }
    int prec, k = match_binop(p, &prec);
    if (k < 0 || prec <= minprec) return lhs;
    p->i += strlen(binops[k].s);
    int rhs = parse_expr(p, prec);
    if (p->failed) return -1;
    lhs = add_node(p, (node){ .kind = N_BIN, .op = binops[k].op, .a = lhs, .b = rhs, .pos = pos });
  }
}

dg_sexpr *dg_sexpr_parse(const char *text, dg_sexpr_err *err)
{
  dg_sexpr *e = dg_calloc(1, sizeof *e);
  e->text = dg_strdup(text);
  parser p = { e->text, 0, e, err, false };
  e->root = parse_expr(&p, 0);
  skip_ws(&p);
  if (!p.failed && p.s[p.i]) {
    char tok[2] = { p.s[p.i], 0 };
    fail(&p, p.i, p.s[p.i] == ')' ? "unbalanced '%s'" : "unexpected '%s' after the expression", tok);
  }
  if (p.failed) {
    dg_sexpr_free(e);
    return NULL;
  }
  return e;
}

void dg_sexpr_free(dg_sexpr *e)
{
  if (!e) return;
  for (size_t i = 0; i < e->nodes.n; i++) free(e->nodes.v[i].name);
  dg_vec_free(&e->nodes);
  free(e->text);
  free(e);
}

const char *dg_sexpr_text(const dg_sexpr *e) { return e->text; }

bool dg_symtab_get(const dg_symtab *st, const char *name, int64_t *v)
{
  for (size_t i = 0; st && i < st->n; i++)
    if (!strcmp(st->names[i], name)) {
      *v = st->vals[i];
      return true;
    }
  return false;
}

/* ---- evaluation ------------------------------------------------------------ */
typedef struct {
  const dg_sexpr *e;
  const dg_symtab *st;
  dg_sexpr_err *err;
} evalctx;

static bool eerr(evalctx *c, size_t pos, const char *fmt, const char *arg)
{
  c->err->pos = pos;
  snprintf(c->err->msg, sizeof c->err->msg, fmt, arg);
  return false;
}

static bool ev(evalctx *c, int i, int64_t *out);

static bool div_checked(evalctx *c, const node *n, int op, int64_t a, int64_t b, int64_t *r)
{
  if (b == 0) return eerr(c, n->pos, "division by zero%s", "");
  if (a == INT64_MIN && b == -1) return eerr(c, n->pos, "overflow in division%s", "");
  *r = op == B_MOD ? a % b : a / b;
  return true;
}

static bool binop_eval(evalctx *c, const node *n, int64_t a, int64_t b, int64_t *r)
{
  switch ((bop)n->op) {
  case B_ADD: if (__builtin_add_overflow(a, b, r)) return eerr(c, n->pos, "overflow in '+'%s", ""); return true;
  case B_SUB: if (__builtin_sub_overflow(a, b, r)) return eerr(c, n->pos, "overflow in '-'%s", ""); return true;
  case B_MUL: if (__builtin_mul_overflow(a, b, r)) return eerr(c, n->pos, "overflow in '*'%s", ""); return true;
  case B_DIV: case B_MOD: return div_checked(c, n, n->op, a, b, r);
  case B_SHL: case B_SHR:
    if (b < 0 || b > 63) return eerr(c, n->pos, "shift count out of range [0,63]%s", "");
    if (n->op == B_SHR) *r = a >> b;
    else {
      if (a < 0 || (b > 0 && (a >> (63 - b)) != 0)) return eerr(c, n->pos, "overflow in '<<'%s", "");
      *r = a << b;
    }
    return true;
  case B_AND: *r = a & b; return true;
  case B_OR: *r = a | b; return true;
  case B_XOR: *r = a ^ b; return true;
  case B_EQ: *r = a == b; return true;
  case B_NE: *r = a != b; return true;
  case B_LT: *r = a < b; return true;
  case B_LE: *r = a <= b; return true;
  case B_GT: *r = a > b; return true;
  case B_GE: *r = a >= b; return true;
  case B_LAND: case B_LOR: break;   /* short-circuit, handled by the caller */
  }
  return eerr(c, n->pos, "internal: bad operator%s", "");
}

static bool ev_ceil(evalctx *c, const node *n, int64_t *out)
{
  const node *arg = &c->e->nodes.v[n->a];
  if (arg->kind != N_BIN || arg->op != B_DIV) return ev(c, n->a, out);
  int64_t a, b;
  if (!ev(c, arg->a, &a) || !ev(c, arg->b, &b)) return false;
  if (b == 0) return eerr(c, arg->pos, "division by zero%s", "");
  if (a == INT64_MIN && b == -1) return eerr(c, arg->pos, "overflow in division%s", "");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) q++;   /* round toward +infinity */
  *out = q;
  return true;
}

static bool ev(evalctx *c, int i, int64_t *out)
{
  const node *n = &c->e->nodes.v[i];
  int64_t a, b;
  switch (n->kind) {
  case N_NUM: *out = n->v; return true;
  case N_SYM:
    if (!dg_symtab_get(c->st, n->name, out)) return eerr(c, n->pos, "unknown name '%s'", n->name);
    return true;
  case N_UN:
    if (!ev(c, n->a, &a)) return false;
    if (n->op == '-') {
      if (a == INT64_MIN) return eerr(c, n->pos, "overflow in unary '-'%s", "");
      *out = -a;
    } else if (n->op == '~') *out = ~a;
    else *out = !a;
    return true;
  case N_COND:
    if (!ev(c, n->a, &a)) return false;
    return ev(c, a ? n->b : n->c, out);
  case N_MIN: case N_MAX:
    if (!ev(c, n->a, &a) || !ev(c, n->b, &b)) return false;
    *out = (n->kind == N_MIN) == (a < b) ? a : b;
    return true;
  case N_CEIL: return ev_ceil(c, n, out);
  case N_BIN:
    if (!ev(c, n->a, &a)) return false;
    if (n->op == B_LAND || n->op == B_LOR) {
      if ((n->op == B_LAND) != (a != 0)) {
        *out = n->op == B_LOR;
        return true;
      }
      if (!ev(c, n->b, &b)) return false;
      *out = b != 0;
      return true;
    }
    if (!ev(c, n->b, &b)) return false;
    return binop_eval(c, n, a, b, out);
  }
  return false;
}

bool dg_sexpr_eval(const dg_sexpr *e, const dg_symtab *st, int64_t *out, dg_sexpr_err *err)
{
  dg_sexpr_err scratch;
  evalctx c = { e, st, err ? err : &scratch };
  return ev(&c, e->root, out);
}

size_t dg_sexpr_symbols(const dg_sexpr *e, const char **names, size_t max)
{
  size_t k = 0;
  for (size_t i = 0; i < e->nodes.n; i++) {
    const node *n = &e->nodes.v[i];
    if (n->kind != N_SYM) continue;
    bool seen = false;
    for (size_t j = 0; j < k && !seen; j++) seen = !strcmp(names[j], n->name);
    if (!seen && k < max) names[k++] = n->name;
  }
  /* nodes are stored in completion order; sort by position for "order of first use" */
  for (size_t i = 1; i < k; i++)
    for (size_t j = i; j > 0 && dg_sexpr_symbol_pos(e, names[j]) < dg_sexpr_symbol_pos(e, names[j - 1]); j--) {
      const char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  return k;
}

size_t dg_sexpr_symbol_pos(const dg_sexpr *e, const char *name)
{
  size_t best = (size_t)-1;
  for (size_t i = 0; i < e->nodes.n; i++) {
    const node *n = &e->nodes.v[i];
    if (n->kind == N_SYM && !strcmp(n->name, name) && n->pos < best) best = n->pos;
  }
  return best;
}

bool dg_sexpr_is_symbol(const dg_sexpr *e, const char **name)
{
  const node *n = &e->nodes.v[e->root];
  if (n->kind != N_SYM) return false;
  if (name) *name = n->name;
  return true;
}

bool dg_sexpr_is_const(const dg_sexpr *e, int64_t *v)
{
  const node *n = &e->nodes.v[e->root];
  if (n->kind != N_NUM) return false;
  if (v) *v = n->v;
  return true;
}
