/* pp_expr.c — the constant expressions of #if and #elif: `defined`,
 * __has_include, integer and character literals, every C operator that an
 * #if may use, with C's signed/unsigned rules (intmax_t / uintmax_t) and
 * short-circuit evaluation (no division-by-zero error in a dead branch). */
#include "pp_int.h"
#include <string.h>
#include <stdlib.h>

typedef struct { uint64_t v; bool u; } val;

typedef struct {
  pp_state *p;
  pp_tok *t;
  bool err;
  int depth;
  dg_span end_at;         /* just after the line, for "missing operand" */
} ex;

static void fail(ex *e, const pp_tok *at, const char *msg)
{
  if (!e->err)
    dg_diag_add(e->p->d, DG_SEV_ERROR, at->kind == PT_EOF ? e->end_at : pp_tok_pos(at),
                "%s in preprocessor expression", msg);
  e->err = true;
}

static val num(ex *e, const pp_tok *t)
{
  char buf[80];
  size_t n = 0;
  for (uint32_t i = 0; i < t->len && n < sizeof buf - 1; i++)
    if (t->s[i] != '\'') buf[n++] = t->s[i];
  buf[n] = 0;
  const char *s = buf;
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; }
  else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) { base = 2; s += 2; }
  else if (s[0] == '0') base = 8;
  uint64_t v = 0;
  bool over = false, any = false;
  for (; *s; s++) {
    int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
            *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : 99;
    if (d >= base) break;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) over = true;
    v = v * (uint64_t)base + (uint64_t)d;
    any = true;
  }
  bool u = false;
  int nl = 0;
  for (; *s; s++) {
    if ((*s == 'u' || *s == 'U') && !u) u = true;
    else if ((*s == 'l' || *s == 'L') && nl < 2) nl++;
    else break;
  }
  if (*s || (!any && base != 8)) {
    bool fl = strchr(buf, '.') || (base == 10 && strpbrk(buf, "eE"));
    fail(e, t, fl ? "floating constant" : "invalid integer constant");
    return (val){ 0, false };
  }
  if (over) fail(e, t, "integer constant too large");
  return (val){ v, u || v > INT64_MAX };
}

static val chr(ex *e, const pp_tok *t)
{
  const char *s = memchr(t->s, '\'', t->len), *end = t->s + t->len - 1;
  bool wide = s != t->s;
  int64_t v = 0;
  int count = 0;
  for (s++; s < end; s++, count++) {
    int64_t c = (unsigned char)*s;
    if (*s == '\\' && s + 1 < end) {
      s++;
      static const char esc[] = "n\nt\tr\ra\ab\bf\fv\ve\033\\\\''\"\"??";
      const char *q = strchr(esc, *s);
      if (*s == 'x') {
        c = 0;
        while (s + 1 < end && strchr("0123456789abcdefABCDEF", s[1])) {
          s++;
          c = c * 16 + (*s <= '9' ? *s - '0' : (*s | 32) - 'a' + 10);
        }
      } else if (*s >= '0' && *s <= '7') {
        c = *s - '0';
        for (int k = 0; k < 2 && s + 1 < end && s[1] >= '0' && s[1] <= '7'; k++) c = c * 8 + *++s - '0';
      } else if (q && ((q - esc) & 1) == 0) {
        c = (unsigned char)q[1];
      }
    }
    v = wide ? c : (int64_t)((uint64_t)v << 8) | (c & 0xff);
  }
  if (!wide && count == 1 && v > 127) v -= 256;   /* char is signed */
  return (val){ (uint64_t)v, false };
}

static val expr(ex *e, bool live);

static bool is(ex *e, const char *s) { return pp_tok_is(e->t, s); }

static bool defined_op(ex *e, val *out)
{
  pp_tok *t = e->t->next;
  bool paren = pp_tok_is(t, "(");
  if (paren) t = t->next;
  if (t->kind != PT_IDENT || (paren && !pp_tok_is(t->next, ")"))) {
    fail(e, e->t, "operator \"defined\" requires an identifier");
    return false;
  }
  *out = (val){ pp_is_defined(e->p, t), false };
  e->t = paren ? t->next->next : t->next;
  return true;
}

static val primary(ex *e, bool live)
{
  pp_tok *t = e->t;
  if (t->kind == PT_NUM) { e->t = t->next; return num(e, t); }
  if (t->kind == PT_CHAR) { e->t = t->next; return chr(e, t); }
  if (pp_tok_is(t, "defined")) {
    val v = { 0, false };
    defined_op(e, &v);
    return v;
  }
  if (t->kind == PT_IDENT) {          /* an identifier left after expansion is 0 */
    e->t = t->next;
    return (val){ pp_tok_is(t, "true"), false };
  }
  if (pp_tok_is(t, "(")) {
    e->t = t->next;
    val v = expr(e, live);
    if (!is(e, ")")) fail(e, e->t->kind == PT_EOF ? t : e->t, "missing ')'");
    else e->t = e->t->next;
    return v;
  }
  if (t->kind == PT_EOF) fail(e, t, "missing operand");
  else fail(e, t, "token is not valid");
  return (val){ 0, false };
}

static val unary(ex *e, bool live)
{
  if (++e->depth > PP_MAX_NEST) {
    fail(e, e->t, "expression nesting too deep");
    e->t = e->p->eof;
  }
  val v;
  if (e->err) {
    v = (val){ 0, false };
  } else if (is(e, "+") || is(e, "-") || is(e, "~") || is(e, "!")) {
    char op = e->t->s[0];
    e->t = e->t->next;
    v = unary(e, live);
    if (op == '-') v.v = 0 - v.v;
    else if (op == '~') v.v = ~v.v;
    else if (op == '!') v = (val){ v.v == 0, false };
  } else {
    v = primary(e, live);
  }
  e->depth--;
  return v;
}

static const struct { const char *op; int prec; } binops[] = {
  { "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
  { "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 },
  { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static int prec_of(const pp_tok *t, const char **op)
{
  if (t->kind != PT_PUNCT) return 0;
  for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
    if (pp_tok_is(t, binops[i].op)) { *op = binops[i].op; return binops[i].prec; }
  return 0;
}

static val apply(ex *e, const pp_tok *at, const char *op, val a, val b, bool live)
{
  bool u = a.u || b.u;
  int64_t sa = (int64_t)a.v, sb = (int64_t)b.v;
  switch (op[0] == op[1] ? op[0] | 0x80 : op[0] + (op[1] == '=' ? 0x100 : 0)) {
  case '|': return (val){ a.v | b.v, u };
  case '^': return (val){ a.v ^ b.v, u };
  case '&': return (val){ a.v & b.v, u };
  case '=' | 0x80: return (val){ a.v == b.v, false };
  case '!' + 0x100: return (val){ a.v != b.v, false };
  case '<': return (val){ u ? a.v < b.v : sa < sb, false };
  case '>': return (val){ u ? a.v > b.v : sa > sb, false };
  case '<' + 0x100: return (val){ u ? a.v <= b.v : sa <= sb, false };
  case '>' + 0x100: return (val){ u ? a.v >= b.v : sa >= sb, false };
  case '<' | 0x80: return (val){ b.v >= 64 ? 0 : a.v << b.v, a.u };
  case '>' | 0x80:
    if (b.v >= 64) return (val){ !a.u && sa < 0 ? UINT64_MAX : 0, a.u };
    return (val){ a.u ? a.v >> b.v : (uint64_t)(sa >> b.v), a.u };
  case '+': return (val){ a.v + b.v, u };
  case '-': return (val){ a.v - b.v, u };
  case '*': return (val){ a.v * b.v, u };
  case '/': case '%':
    if (b.v == 0) {
      if (live) fail(e, at, "division by zero");
      return (val){ 0, u };
    }
    if (u) return (val){ op[0] == '/' ? a.v / b.v : a.v % b.v, true };
    if (sa == INT64_MIN && sb == -1) return (val){ op[0] == '/' ? a.v : 0, false };
    return (val){ (uint64_t)(op[0] == '/' ? sa / sb : sa % sb), false };
  }
  return a;
}

static val binary(ex *e, int minprec, bool live)
{
  val a = unary(e, live);
  const char *op;
  int pr;
  while (!e->err && (pr = prec_of(e->t, &op)) >= minprec && pr > 0) {
    pp_tok *at = e->t;
    e->t = e->t->next;
    if (pr == 1 || pr == 2) {
      bool sc = pr == 1 ? a.v != 0 : a.v == 0;      /* the result is already known */
      val b = binary(e, pr + 1, live && !sc);
      a = (val){ pr == 1 ? (a.v || b.v) : (a.v && b.v), false };
      continue;
    }
    val b = binary(e, pr + 1, live);
    a = apply(e, at, op, a, b, live);
  }
  return a;
}

static val cond(ex *e, bool live)
{
  val c = binary(e, 1, live);
  if (e->err || !is(e, "?")) return c;
  pp_tok *q = e->t;
  e->t = e->t->next;
  val a = expr(e, live && c.v);
  if (!is(e, ":")) {
    fail(e, e->t->kind == PT_EOF ? q : e->t, "expected ':'");
    return a;
  }
  e->t = e->t->next;
  if (++e->depth > PP_MAX_NEST) fail(e, q, "expression nesting too deep");
  val b = e->err ? (val){ 0, false } : cond(e, live && !c.v);
  e->depth--;
  bool u = a.u || b.u;
  return c.v ? (val){ a.v, u } : (val){ b.v, u };
}

static val expr(ex *e, bool live)
{
  if (++e->depth > PP_MAX_NEST) {
    fail(e, e->t, "expression nesting too deep");
    e->depth--;
    return (val){ 0, false };
  }
  val v = cond(e, live);
  while (!e->err && is(e, ",")) {
    e->t = e->t->next;
    v = cond(e, live);
  }
  e->depth--;
  return v;
}

/* __has_include("x.h") / __has_include(<x.h>): the header-name as text. */
static pp_tok *has_include(pp_state *p, pp_tok *t, pp_tok *end, bool *value)
{
  pp_tok *kw = t;
  t = t->next;
  *value = false;
  if (t == end || !pp_tok_is(t, "(")) goto bad;
  t = t->next;
  if (t != end && t->kind == PT_STR && t->s[0] == '"') {
    char *name = dg_strndup(t->s + 1, t->len - 2);
    *value = pp_has_include(p, name, false, pp_tok_pos(kw));
    free(name);
    t = t->next;
  } else if (t != end && pp_tok_is(t, "<")) {
    dg_buf b = {0};
    for (t = t->next; t != end && !pp_tok_is(t, ">"); t = t->next) dg_buf_put(&b, t->s, t->len);
    if (t == end) { dg_buf_free(&b); goto bad; }
    *value = pp_has_include(p, b.s ? b.s : "", true, pp_tok_pos(kw));
    dg_buf_free(&b);
    t = t->next;
  } else {
    goto bad;
  }
  if (t == end || !pp_tok_is(t, ")")) goto bad;
  return t->next;
bad:
  dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(kw), "malformed __has_include");
  return NULL;
}

/* __has_attribute(x) and friends: nothing is claimed, so 0. */
static pp_tok *has_feature(pp_tok *t, pp_tok *end)
{
  t = t->next;
  if (t == end || !pp_tok_is(t, "(")) return NULL;
  int level = 0;
  for (; t != end; t = t->next) {
    if (pp_tok_is(t, "(")) level++;
    if (pp_tok_is(t, ")") && --level == 0) return t->next;
  }
  return NULL;
}

static bool is_has_feature(const pp_tok *t)
{
  static const char *const names[] = {
    "__has_attribute", "__has_cpp_attribute", "__has_builtin", "__has_feature", "__has_extension",
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (pp_tok_is(t, names[i])) return true;
  return false;
}

bool pp_eval_cond(pp_state *p, pp_tok *t, pp_tok *end, dg_span at)
{
  /* defined and __has_* first: their operands must not be expanded */
  pp_tok head = {0}, *cur = &head;
  ex e = { .p = p };
  t = pp_copy_range(p, t, end);
  end = p->eof;
  e.end_at = at;
  for (pp_tok *u = t; u != end; u = u->next) {
    e.end_at = pp_tok_pos(u);
    if (!u->use.file) e.end_at.col += u->len;
  }
  while (t != end) {
    val v;
    pp_tok *next = NULL;
    if (pp_tok_is(t, "defined")) {
      e.t = t;
      if (!defined_op(&e, &v)) return false;
      next = e.t;
    } else if (pp_tok_is(t, "__has_include") || pp_tok_is(t, "__has_include_next")) {
      bool b;
      if (!(next = has_include(p, t, end, &b))) return false;
      v = (val){ b, false };
    } else if (is_has_feature(t)) {
      if (!(next = has_feature(t, end))) {
        dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(t), "missing '(' after \"%.*s\"", (int)t->len, t->s);
        return false;
      }
      v = (val){ 0, false };
    } else {
      cur = cur->next = t;
      t = t->next;
      continue;
    }
    pp_tok *n = pp_tok_new(p, PT_NUM, v.v ? "1" : "0", 1, t->at);
    n->use = t->use;
    n->space = true;
    cur = cur->next = n;
    t = next;
  }
  cur->next = p->eof;
  if (!head.next || head.next == p->eof) {
    dg_diag_add(p->d, DG_SEV_ERROR, at, "#if with no expression");
    return false;
  }
  e.t = pp_expand_list(p, head.next);
  if (e.t->kind == PT_EOF) {
    dg_diag_add(p->d, DG_SEV_ERROR, at, "#if with no expression");
    return false;
  }
  val v = expr(&e, true);
  if (!e.err && e.t->kind != PT_EOF) fail(&e, e.t, "missing binary operator before this token");
  return !e.err && v.v != 0;
}
