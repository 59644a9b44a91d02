/* hl.c — tree-sitter highlighting: compiles highlights.scm (with the #eq?,
 * #match? and #any-of? predicates, which the C runtime leaves to its client),
 * paints a capture per byte, and reads the kernel list and syntax errors off
 * the CST. */
#include "hl.h"
#include <tree_sitter/api.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

const TSLanguage *tree_sitter_cuda(void);

typedef enum { PRED_EQ, PRED_MATCH, PRED_ANY_OF } pred_kind;

typedef struct {
  pred_kind kind;
  bool negate;
  uint32_t cap;          /* capture tested */
  int other_cap;         /* #eq? @a @b: the second capture, else -1 */
  DG_VEC(char *) strs;   /* literal(s) for #eq? / #any-of? */
  regex_t re;            /* #match? */
  bool has_re;
} pred;

typedef struct { DG_VEC(pred) v; } pattern_preds;

struct dg_hl_query {
  TSQuery *q;
  char **names;          /* capture names, owned */
  unsigned ncap;
  pattern_preds *preds;  /* per pattern */
  unsigned npat;
};

static const char *const query_errors[] = {
  [TSQueryErrorNone] = "no error", [TSQueryErrorSyntax] = "syntax error",
  [TSQueryErrorNodeType] = "unknown node type", [TSQueryErrorField] = "unknown field",
  [TSQueryErrorCapture] = "unknown capture", [TSQueryErrorStructure] = "impossible pattern",
  [TSQueryErrorLanguage] = "language mismatch",
};

static dg_span offset_span(const char *src, uint32_t off)
{
  dg_span s = { 0, 1, 1 };
  for (uint32_t i = 0; i < off && src[i]; i++) {
    if (src[i] == '\n') s.line++, s.col = 1;
    else s.col++;
  }
  return s;
}

/* Query-file diagnostics carry the path in the message: the query text is not
 * registered in a srcmgr (the screen has its own). */
static void query_error(dg_diags *d, const char *path, const char *src, uint32_t off, const char *what)
{
  dg_span s = offset_span(src, off);
  dg_diag_add(d, DG_SEV_ERROR, (dg_span){ 0, 0, 0 }, "%s:%u:%u: %s", path, s.line, s.col, what);
}

static bool compile_preds(dg_hl_query *hq, unsigned pat, const char *path, const char *src,
                          dg_diags *d)
{
  uint32_t nsteps;
  const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(hq->q, pat, &nsteps);
  uint32_t i = 0;
  while (i < nsteps) {
    uint32_t j = i;
    while (j < nsteps && st[j].type != TSQueryPredicateStepTypeDone) j++;
    uint32_t len;
    const char *op = st[i].type == TSQueryPredicateStepTypeString
                       ? ts_query_string_value_for_id(hq->q, st[i].value_id, &len) : "";
    pred p = { .other_cap = -1 };
    bool ok = j - i >= 3 && st[i + 1].type == TSQueryPredicateStepTypeCapture;
    if (!strcmp(op, "eq?") || !strcmp(op, "not-eq?")) p.kind = PRED_EQ, p.negate = op[0] == 'n';
    else if (!strcmp(op, "match?") || !strcmp(op, "not-match?")) p.kind = PRED_MATCH, p.negate = op[0] == 'n';
    else if (!strcmp(op, "any-of?") || !strcmp(op, "not-any-of?")) p.kind = PRED_ANY_OF, p.negate = op[0] == 'n';
    else ok = false;
    if (ok) {
      p.cap = st[i + 1].value_id;
      for (uint32_t k = i + 2; k < j; k++) {
        if (st[k].type == TSQueryPredicateStepTypeCapture) {
          if (p.kind == PRED_EQ && k == i + 2) p.other_cap = (int)st[k].value_id;
          else ok = false;
        } else {
          dg_vec_push(&p.strs, dg_strdup(ts_query_string_value_for_id(hq->q, st[k].value_id, &len)));
        }
      }
      if (p.kind == PRED_MATCH) {
        ok = ok && p.strs.n == 1 && regcomp(&p.re, p.strs.v[0], REG_EXTENDED | REG_NOSUB) == 0;
        p.has_re = ok;
      }
      if (p.kind == PRED_EQ && p.other_cap < 0 && p.strs.n != 1) ok = false;
    }
    if (!ok) {
      for (size_t k = 0; k < p.strs.n; k++) free(p.strs.v[k]);
      dg_vec_free(&p.strs);
      uint32_t off = ts_query_start_byte_for_pattern(hq->q, pat);
      char *msg = dg_printf("bad or unsupported predicate #%s", op);
      query_error(d, path, src, off, msg);
      free(msg);
      return false;
    }
    dg_vec_push(&hq->preds[pat].v, p);
    i = j + 1;
  }
  return true;
}

dg_hl_query *dg_hl_query_new(const char *path, const char *src, size_t len, dg_diags *d)
{
  uint32_t off = 0;
  TSQueryError err = TSQueryErrorNone;
  TSQuery *q = ts_query_new(tree_sitter_cuda(), src, (uint32_t)len, &off, &err);
  if (!q) {
    query_error(d, path, src, off, query_errors[err]);
    return NULL;
  }
  dg_hl_query *hq = dg_calloc(1, sizeof *hq);
  hq->q = q;
  hq->ncap = ts_query_capture_count(q);
  hq->names = dg_calloc(hq->ncap ? hq->ncap : 1, sizeof *hq->names);
  for (unsigned i = 0; i < hq->ncap; i++) {
    uint32_t n;
    const char *s = ts_query_capture_name_for_id(q, i, &n);
    hq->names[i] = dg_strndup(s, n);
  }
  hq->npat = ts_query_pattern_count(q);
  hq->preds = dg_calloc(hq->npat ? hq->npat : 1, sizeof *hq->preds);
  for (unsigned p = 0; p < hq->npat; p++)
    if (!compile_preds(hq, p, path, src, d)) {
      dg_hl_query_free(hq);
      return NULL;
    }
  return hq;
}

dg_hl_query *dg_hl_query_load(const char *path, dg_diags *d)
{
  size_t len;
  char *src = dg_read_file(path, &len);
  if (!src) {
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){ 0, 0, 0 }, "%s: cannot read highlight query: %s",
                path, strerror(errno));
    return NULL;
  }
  dg_hl_query *q = dg_hl_query_new(path, src, len, d);
  free(src);
  return q;
}

void dg_hl_query_free(dg_hl_query *q)
{
  if (!q) return;
  for (unsigned p = 0; p < q->npat; p++) {
    for (size_t i = 0; i < q->preds[p].v.n; i++) {
      pred *pr = &q->preds[p].v.v[i];
      for (size_t k = 0; k < pr->strs.n; k++) free(pr->strs.v[k]);
      dg_vec_free(&pr->strs);
      if (pr->has_re) regfree(&pr->re);
    }
    dg_vec_free(&q->preds[p].v);
  }
  free(q->preds);
  for (unsigned i = 0; i < q->ncap; i++) free(q->names[i]);
  free(q->names);
  ts_query_delete(q->q);
  free(q);
}

unsigned dg_hl_query_ncaptures(const dg_hl_query *q) { return q ? q->ncap : 0; }

const char *dg_hl_query_capture(const dg_hl_query *q, unsigned i)
{
  return q && i < q->ncap ? q->names[i] : "";
}

/* ---- running the query ---------------------------------------------------- */

static bool node_text_eq(const char *text, TSNode n, const char *s)
{
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return strlen(s) == b - a && !memcmp(text + a, s, b - a);
}

static const TSNode *capture_node(const TSQueryMatch *m, uint32_t cap)
{
  for (uint16_t i = 0; i < m->capture_count; i++)
    if (m->captures[i].index == cap) return &m->captures[i].node;
  return NULL;
}

static bool pred_holds(const pred *p, const TSQueryMatch *m, const char *text)
{
  const TSNode *n = capture_node(m, p->cap);
  if (!n) return true;
  bool r = false;
  switch (p->kind) {
  case PRED_EQ:
    if (p->other_cap >= 0) {
      const TSNode *o = capture_node(m, (uint32_t)p->other_cap);
      uint32_t a = ts_node_start_byte(*n), b = ts_node_end_byte(*n);
      uint32_t c = o ? ts_node_start_byte(*o) : 0, e = o ? ts_node_end_byte(*o) : 0;
      r = o && b - a == e - c && !memcmp(text + a, text + c, b - a);
    } else {
      r = node_text_eq(text, *n, p->strs.v[0]);
    }
    break;
  case PRED_ANY_OF:
    for (size_t k = 0; k < p->strs.n && !r; k++) r = node_text_eq(text, *n, p->strs.v[k]);
    break;
  case PRED_MATCH: {
    uint32_t a = ts_node_start_byte(*n), b = ts_node_end_byte(*n);
    char small[128], *buf = b - a < sizeof small ? small : dg_malloc(b - a + 1);
    memcpy(buf, text + a, b - a);
    buf[b - a] = '\0';
    r = regexec(&p->re, buf, 0, NULL, 0) == 0;
    if (buf != small) free(buf);
    break;
  }
  }
  return r != p->negate;
}

typedef struct { uint32_t start, end, pat; uint16_t cap; } paint;

/* Bigger nodes first, and for one node the later pattern first, so that
 * painting in order leaves the innermost node and the first pattern on top. */
static int paint_cmp(const void *a, const void *b)
{
  const paint *x = a, *y = b;
  uint32_t sx = x->end - x->start, sy = y->end - y->start;
  if (sx != sy) return sx > sy ? -1 : 1;
  if (x->pat != y->pat) return x->pat > y->pat ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

static void run_query(dg_hl_doc *doc, const dg_hl_query *q, TSNode root)
{
  TSQueryCursor *qc = ts_query_cursor_new();
  ts_query_cursor_exec(qc, q->q, root);
  DG_VEC(paint) ps = {0};
  TSQueryMatch m;
  while (ts_query_cursor_next_match(qc, &m)) {
    const pattern_preds *pp = &q->preds[m.pattern_index];
    bool ok = true;
    for (size_t i = 0; i < pp->v.n && ok; i++) ok = pred_holds(&pp->v.v[i], &m, doc->text);
    if (!ok) continue;
    for (uint16_t i = 0; i < m.capture_count; i++) {
      const char *name = q->names[m.captures[i].index];
      if (name[0] == '_') continue;           /* helper captures for predicates */
      paint p = { ts_node_start_byte(m.captures[i].node), ts_node_end_byte(m.captures[i].node),
                  m.pattern_index, (uint16_t)(m.captures[i].index + 1) };
      if (p.end > doc->len) p.end = (uint32_t)doc->len;
      if (p.start < p.end) dg_vec_push(&ps, p);
    }
  }
  ts_query_cursor_delete(qc);
  if (ps.n) qsort(ps.v, ps.n, sizeof *ps.v, paint_cmp);
  for (size_t i = 0; i < ps.n; i++)
    for (uint32_t b = ps.v[i].start; b < ps.v[i].end; b++) doc->cap[b] = ps.v[i].cap;
  dg_vec_free(&ps);
}

/* ---- CST facts ----------------------------------------------------------- */

static bool has_global(TSNode fn)
{
  uint32_t n = ts_node_child_count(fn);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_child(fn, i);
    if (!ts_node_is_named(c) && !strcmp(ts_node_type(c), "__global__")) return true;
  }
  return false;
}

/* The identifier naming a function_definition, through pointer/template wrappers. */
static TSNode function_name(TSNode fn)
{
  TSNode d = ts_node_child_by_field_name(fn, "declarator", 10);
  while (!ts_node_is_null(d)) {
    const char *t = ts_node_type(d);
    if (!strcmp(t, "identifier") || !strcmp(t, "field_identifier")) return d;
    TSNode next = ts_node_child_by_field_name(d, "declarator", 10);
    if (ts_node_is_null(next)) next = ts_node_child_by_field_name(d, "name", 4);
    d = next;
  }
  return d;
}

static void add_kernel(dg_hl_doc *doc, TSNode fn)
{
  TSNode name = function_name(fn);
  if (ts_node_is_null(name)) return;
  uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
  TSPoint p = ts_node_start_point(name);
  dg_hl_kernel k = { dg_strndup(doc->text + a, b - a), p.row + 1, p.column + 1,
                     ts_node_start_byte(fn) };
  dg_vec_push(&doc->kernels, k);
}

static void walk(dg_hl_doc *doc, TSNode n)
{
  const char *t = ts_node_type(n);
  if (ts_node_is_missing(n) || !strcmp(t, "ERROR")) {
    TSPoint p = ts_node_start_point(n);
    dg_hl_error e = { p.row + 1, p.column + 1, ts_node_is_missing(n) };
    if (!doc->errors.n || doc->errors.v[doc->errors.n - 1].line != e.line) dg_vec_push(&doc->errors, e);
  }
  if (!strcmp(t, "function_definition") && has_global(n)) add_kernel(doc, n);
  /* Kernels are not nested in bodies; errors are only under nodes that have them. */
  bool into_body = ts_node_has_error(n);
  if (!into_body && (!strcmp(t, "compound_statement") || !strcmp(t, "function_definition")))
    return;
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; i++) walk(doc, ts_node_child(n, i));
}

dg_hl_doc *dg_hl_doc_new_prefix(const dg_hl_query *q, const char *text, size_t len, size_t upto)
{
  if (upto < len) {
    while (upto > 0 && text[upto - 1] != '\n') upto--;
  } else {
    upto = len;
  }
  dg_hl_doc *doc = dg_calloc(1, sizeof *doc);
  doc->text = text;
  doc->len = upto;                      /* what the query and the walk see */
  doc->parsed = upto;
  doc->cap = dg_calloc(len ? len : 1, sizeof *doc->cap);
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_cuda());
  TSTree *tree = ts_parser_parse_string(p, NULL, text, (uint32_t)upto);
  TSNode root = ts_tree_root_node(tree);
  if (q) run_query(doc, q, root);
  walk(doc, root);
  ts_tree_delete(tree);
  ts_parser_delete(p);
  doc->len = len;
  return doc;
}

dg_hl_doc *dg_hl_doc_new(const dg_hl_query *q, const char *text, size_t len)
{
  return dg_hl_doc_new_prefix(q, text, len, len);
}

void dg_hl_doc_free(dg_hl_doc *doc)
{
  if (!doc) return;
  for (size_t i = 0; i < doc->kernels.n; i++) free(doc->kernels.v[i].name);
  dg_vec_free(&doc->kernels);
  dg_vec_free(&doc->errors);
  free(doc->cap);
  free(doc);
}
