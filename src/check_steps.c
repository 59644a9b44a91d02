/* check_steps.c — the writer thread's steps (issue #5's teaching view): during
 * the symbolic run the engine reports each statement the traced thread runs
 * (simt_on_step); this keeps, in order, its span, what it set (a variable, a
 * buffer element) and the value as a term printed on one line. Loops keep
 * every iteration up to CHECK_STEPS_MAX steps; the rest are counted. A for
 * loop's update and each condition the thread decided (an if's, a loop's
 * test) are steps of their own, at the expression: a condition says which
 * way the thread went ("true: taken", "false: not taken"), or, decided by
 * the inputs and run both ways under ite merging, "both sides
 * (data-dependent): <the condition as a term>". break, continue and a
 * value-less return say where control went.
 *
 * Printing a term walks the term context (term_print), so constants and
 * variables are printed here directly, and only compound values go through
 * term_print, cut near CHECK_STEP_TEXT. */
#include "check_int.h"
#include <inttypes.h>
#include <string.h>

/* "name[elem]" of a store or pointer at byte off of buffer id; elements of es bytes */
static char *buf_elem(const simt *m, int id, int64_t off, int64_t es)
{
  const char *name = simt_step_buf_name(m, id);
  if (!name || !*name) name = "?";
  if (es > 0 && off % es == 0) return dg_printf("%s[%" PRId64 "]", name, off / es);
  return dg_printf("%s+%" PRId64 " bytes", name, off);
}

/* One component as text: constants and variables directly, else term_print
 * on one line ("let" lines joined with "; "). */
static void value_text(dg_buf *b, chk *c, const simt *m, const dg_type *t, dom_val v)
{
  dg_term x = (dg_term)v;
  int64_t i;
  double f;
  bool bv;
  if (!v || v > term_ctx_count(c->tc)) { dg_buf_puts(b, "?"); return; }
  if (t->kind == DG_TY_PTR && term_const_int(c->tc, x, &i)) {
    char *s = buf_elem(m, (int)dom_ptr_buf((dom_val)i), dom_ptr_off((dom_val)i), dom_tysize(t->elem));
    dg_buf_printf(b, "&%s", s);
    free(s);
    return;
  }
  if (term_const_bool(c->tc, x, &bv)) { dg_buf_puts(b, bv ? "true" : "false"); return; }
  if (term_const_int(c->tc, x, &i)) { dg_buf_printf(b, "%" PRId64, i); return; }
  if (term_const_double(c->tc, x, &f)) { dg_buf_printf(b, "%.9g", f); return; }
  long ord = term_var_ordinal(c->tc, x);
  const term_varinfo *vi = ord >= 0 ? term_var_info(c->tc, (size_t)ord) : NULL;
  if (vi && vi->name) { dg_buf_puts(b, vi->name); return; }
  if (vi && vi->kind != TERM_VAR_FREE) { dg_buf_printf(b, "%s[%" PRId64 "]", vi->tensor, vi->index); return; }
  dg_buf tx = {0};
  term_print_buf(&tx, c->tc, x, CHECK_STEP_TEXT);
  while (tx.n && tx.s[tx.n - 1] == '\n') tx.s[--tx.n] = 0;
  for (size_t j = 0; j < tx.n; j++)
    if (tx.s[j] == '\n') dg_buf_puts(b, "; ");
    else dg_buf_putc(b, tx.s[j]);
  dg_buf_free(&tx);
}

static char *target_of(const simt *m, const simt_step *st)
{
  const dg_stmt *s = st->stmt;
  if (st->what == SIMT_STEP_COND) return NULL;
  if (st->what == SIMT_STEP_STMT && s->kind == DG_ST_DECL && s->var) return dg_strdup(s->var->name);
  if (st->what == SIMT_STEP_STMT && s->kind == DG_ST_RETURN && s->e) return dg_strdup("return");
  const dg_expr *e = st->what == SIMT_STEP_UPDATE ? s->step : s->kind == DG_ST_EXPR ? s->e : NULL;
  bool set = e && (e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC);
  if (set && e->a->kind == DG_EX_VAR && !e->a->var->addr_taken && e->a->var->type->kind != DG_TY_ARRAY)
    return dg_strdup(e->a->var->name);
  if (st->store_buf && st->store_type) return buf_elem(m, st->store_buf, st->store_off, dom_tysize(st->store_type));
  return NULL;
}

static void on_step(void *ud, const simt *m, const simt_step *st)
{
  chk *c = ud;
  check_result *r = c->r;
  if (r->nsteps >= CHECK_STEPS_MAX) { r->steps_more++; return; }
  if (!(r->nsteps & (r->nsteps - 1))) r->steps = dg_realloc(r->steps, sizeof *r->steps * (r->nsteps ? 2 * r->nsteps : 1));
  check_step *cs = &r->steps[r->nsteps++];
  memset(cs, 0, sizeof *cs);
  cs->span = st->what == SIMT_STEP_STMT ? st->stmt->span : st->at;
  cs->depth = st->depth;
  cs->kind = st->stmt->kind;
  cs->what = st->what;
  cs->target = target_of(m, st);
  if (st->what == SIMT_STEP_COND) {
    if (st->taken >= 0) { cs->value = dg_strdup(st->taken ? "true: taken" : "false: not taken"); return; }
    dg_buf b = {0};
    dg_buf_puts(&b, "both sides (data-dependent): ");
    if (st->nvals && st->type) value_text(&b, c, m, st->type, st->vals[0]);
    else dg_buf_puts(&b, "?");
    cs->value = dg_buf_take(&b);
    return;
  }
  if (st->jump && !(st->nvals && st->type)) { cs->value = dg_strdup(st->jump); return; }
  if (st->nvals && st->type) {
    dg_buf b = {0};
    if (st->nvals > 1) dg_buf_putc(&b, '(');
    for (int i = 0; i < st->nvals; i++) {
      if (i) dg_buf_puts(&b, ", ");
      value_text(&b, c, m, dom_comp(st->type, i), st->vals[i]);
    }
    if (st->nvals > 1) dg_buf_putc(&b, ')');
    cs->value = dg_buf_take(&b);
  }
}

void check_steps_attach(chk *c, simt *m)
{
  if (c->o->want_steps && c->tc) simt_on_step(m, on_step, c);
}

void check_steps_free(check_result *r)
{
  for (size_t i = 0; i < r->nsteps; i++) free(r->steps[i].target), free(r->steps[i].value);
  free(r->steps);
  r->steps = NULL;
  r->nsteps = 0;
}

/* ---- reports --------------------------------------------------------------- */
/* An expression's text from its first character: up to the ';' or the
 * unmatched ')' that ends it (a for loop's clauses, an if's condition), or
 * the line's end. */
static size_t expr_len(const char *s, size_t len)
{
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char ch = s[i];
    if (ch == '(' || ch == '[') depth++;
    else if ((ch == ')' || ch == ']') && depth-- == 0) return i;
    else if ((ch == ';' || ch == '{') && depth == 0) return i;
  }
  return len;
}

const char *check_step_source(const emu_kernels *k, const check_step *st, size_t *n)
{
  size_t len = 0;
  dg_span sp = st->span;
  const char *line = sp.file ? dg_srcmgr_line(&k->sm, sp.file, sp.line, &len) : NULL;
  *n = 0;
  if (!line) return "";
  size_t col = sp.col > 0 ? sp.col - 1 : 0;
  if (col > len) col = len;
  if (st->kind == DG_ST_DECL)           /* the span starts at the declarator: take the type too */
    while (col > 0 && !strchr(";({}", line[col - 1])) col--;
  const char *s = line + col;
  len -= col;
  while (len && (*s == ' ' || *s == '\t')) s++, len--;
  if (st->what != SIMT_STEP_STMT) len = expr_len(s, len);
  bool simple = st->what == SIMT_STEP_STMT && (st->kind == DG_ST_DECL || st->kind == DG_ST_EXPR || st->kind == DG_ST_RETURN
             || st->kind == DG_ST_BREAK || st->kind == DG_ST_CONTINUE);
  const char *semi = simple ? memchr(s, ';', len) : NULL;
  if (semi) len = (size_t)(semi - s) + 1;
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '{')) len--;
  *n = len;
  return s;
}

void check_steps_format(dg_buf *b, const emu_kernels *k, const check_result *r)
{
  for (size_t i = 0; i < r->nsteps; i++) {
    const check_step *s = &r->steps[i];
    size_t n;
    const char *src = check_step_source(k, s, &n);
    int ind = 2 * (s->depth > 1 ? s->depth - 1 : 0);
    if (s->span.file && s->span.file != r->steps[0].span.file) {   /* an included header: name it */
      const char *path = dg_srcmgr_path(&k->sm, s->span.file), *base = strrchr(path, '/');
      dg_buf_printf(b, "%4zu %s:%u:%-3u %*s%.*s", i + 1, base ? base + 1 : path, s->span.line, s->span.col, ind, "",
                    (int)n, src);
    } else
      dg_buf_printf(b, "%4zu %4u:%-3u %*s%.*s", i + 1, s->span.line, s->span.col, ind, "", (int)n, src);
    if (s->target || s->value) {
      dg_buf_puts(b, "   -> ");
      if (s->target) dg_buf_printf(b, "%s%s", s->target, s->value ? " = " : "");
      if (s->value) dg_buf_puts(b, s->value);
    }
    dg_buf_putc(b, '\n');
  }
  if (r->steps_more) dg_buf_printf(b, "  ... %" PRId64 " more steps (the first %d are kept)\n", r->steps_more, CHECK_STEPS_MAX);
}

void check_steps_json(dg_buf *b, const emu_kernels *k, const check_result *r)
{
  dg_buf_puts(b, ",\"steps\":[");
  for (size_t i = 0; i < r->nsteps; i++) {
    const check_step *s = &r->steps[i];
    size_t n;
    const char *src = check_step_source(k, s, &n);
    char *text = dg_strndup(src, n);
    dg_buf_puts(b, i ? ",{\"file\":" : "{\"file\":");
    dg_buf_json_str(b, s->span.file ? dg_srcmgr_path(&k->sm, s->span.file) : "");
    static const char *const what[] = { "statement", "update", "condition" };
    dg_buf_printf(b, ",\"line\":%u,\"col\":%u,\"depth\":%d,\"what\":\"%s\",\"source\":", s->span.line, s->span.col,
                  s->depth, s->what >= 0 && s->what < 3 ? what[s->what] : "?");
    dg_buf_json_str(b, text);
    dg_buf_puts(b, ",\"target\":");
    if (s->target) dg_buf_json_str(b, s->target); else dg_buf_puts(b, "null");
    dg_buf_puts(b, ",\"value\":");
    if (s->value) dg_buf_json_str(b, s->value); else dg_buf_puts(b, "null");
    dg_buf_putc(b, '}');
    free(text);
  }
  dg_buf_printf(b, "],\"steps_more\":%" PRId64, r->steps_more);
}
