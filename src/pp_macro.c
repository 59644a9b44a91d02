/* pp_macro.c — the macro table, #define/#undef, and expansion.
 *
 * Expansion follows Prosser's algorithm (the one in the C standard's rationale):
 * every token carries a hideset of the macros it came through, and a macro
 * name is not expanded when its own macro is in its hideset ("painted
 * blue"), so recursion stops. An expansion is spliced in front of the rest of
 * the stream and rescanned there, which lets a function-like macro's name and
 * its "(" come from different places, as the standard requires. */
#include "pp_int.h"
#include <string.h>
#include <stdlib.h>

enum { NBUCKETS = 4096 };

size_t pp_max_expansion = 1 << 19;

typedef DG_VEC(pp_tok *) tokvec;

pp_macro *pp_macro_get(pp_state *p, const char *s, uint32_t n, bool create)
{
  if (!p->buckets) {
    p->nbuckets = NBUCKETS;
    p->buckets = dg_arena_alloc(&p->ar, NBUCKETS * sizeof *p->buckets);
  }
  size_t h = (size_t)dg_hash_bytes(s, n, 0) & (NBUCKETS - 1);
  for (pp_macro *m = p->buckets[h]; m; m = m->chain)
    if (m->len == n && !memcmp(m->name, s, n)) return m;
  if (!create) return NULL;
  pp_macro *m = dg_arena_alloc(&p->ar, sizeof *m);
  m->name = dg_arena_strndup(&p->ar, s, n);
  m->len = n;
  m->chain = p->buckets[h];
  p->buckets[h] = m;
  return m;
}

bool pp_is_defined(pp_state *p, const pp_tok *name)
{
  pp_macro *m = pp_macro_get(p, name->s, name->len, false);
  return m && m->defined;
}

bool pp_count_expanded(pp_state *p, const pp_tok *at, size_t n)
{
  p->expanded += n;
  if (p->expanded > pp_max_expansion && !p->stop) {
    dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(at),
                "macro expansion too large (more than %zu tokens); stopped", pp_max_expansion);
    p->stop = true;
  }
  return !p->stop;
}

/* --- #define / #undef ------------------------------------------------------ */

static int param_index(const pp_macro *m, const pp_tok *t)
{
  if (!m->funclike || t->kind != PT_IDENT) return -1;
  for (int i = 0; i < m->nparams; i++)
    if (m->params[i]->len == t->len && !memcmp(m->params[i]->s, t->s, t->len)) return i;
  return -1;
}

static bool same_def(const pp_macro *m, bool fl, int np, pp_tok **params, const pp_tok *body)
{
  if (m->funclike != fl || m->nparams != np) return false;
  for (int i = 0; i < np; i++)
    if (m->params[i]->len != params[i]->len ||
        memcmp(m->params[i]->s, params[i]->s, params[i]->len)) return false;
  const pp_tok *a = m->body, *b = body;
  for (; a->kind != PT_EOF && b->kind != PT_EOF; a = a->next, b = b->next)
    if (a->len != b->len || memcmp(a->s, b->s, a->len) || (a->space != b->space && a != m->body))
      return false;
  return a->kind == PT_EOF && b->kind == PT_EOF;
}

static bool closing_before(const pp_tok *t, const pp_tok *end)
{
  int level = 0;
  for (; t != end; t = t->next) {
    if (pp_tok_is(t, "(")) level++;
    if (pp_tok_is(t, ")") && --level == 0) return true;
  }
  return false;
}

static bool read_params(pp_state *p, pp_tok **tp, pp_tok *end, tokvec *ps, bool *va)
{
  pp_tok *t = (*tp)->next;               /* after "(" */
  if (t != end && pp_tok_is(t, ")")) { *tp = t->next; return true; }
  for (;;) {
    if (t == end) break;
    if (pp_tok_is(t, "...")) {
      *va = true;
      pp_tok *v = pp_tok_new(p, PT_IDENT, "__VA_ARGS__", 11, t->at);
      dg_vec_push(ps, v);
      t = t->next;
    } else if (t->kind == PT_IDENT) {
      for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i]->len == t->len && !memcmp(ps->v[i]->s, t->s, t->len)) {
          dg_diag_add(p->d, DG_SEV_ERROR, t->at, "duplicate macro parameter \"%.*s\"",
                      (int)t->len, t->s);
          return false;
        }
      dg_vec_push(ps, t);
      t = t->next;
      if (t != end && pp_tok_is(t, "...")) { *va = true; t = t->next; }   /* GNU args... */
    } else {
      break;
    }
    if (t != end && pp_tok_is(t, ")")) { *tp = t->next; return true; }
    if (*va || t == end || !pp_tok_is(t, ",")) break;
    t = t->next;
  }
  dg_diag_add(p->d, DG_SEV_ERROR, t == end ? (*tp)->at : t->at,
              "expected a parameter name or \")\" in the macro parameter list");
  return false;
}

void pp_do_define(pp_state *p, pp_tok *t, pp_tok *end, bool predefined)
{
  if (t == end || t->kind != PT_IDENT) {
    dg_diag_add(p->d, DG_SEV_ERROR, t->at,
                t == end ? "macro name missing" : "macro names must be identifiers");
    return;
  }
  if (pp_tok_is(t, "defined")) {
    dg_diag_add(p->d, DG_SEV_ERROR, t->at, "\"defined\" cannot be used as a macro name");
    return;
  }
  pp_tok *name = t;
  bool fl = false, va = false;
  tokvec ps = {0};
  t = t->next;
  if (t != end && pp_tok_is(t, "(") && !t->space) {
    fl = true;
    if (!read_params(p, &t, end, &ps, &va)) { dg_vec_free(&ps); return; }
  } else if (t != end && !t->space) {
    dg_diag_add(p->d, DG_SEV_WARNING, t->at, "missing whitespace after the macro name");
  }
  pp_tok head = {0}, *cur = &head;
  pp_macro tmp = { .funclike = fl, .nparams = (int)ps.n, .params = ps.v };
  for (; t != end; t = t->next) {
    pp_tok *c = pp_tok_copy(p, t);
    c->bol = false;
    c->paste = pp_tok_is(t, "##");
    if (cur == &head) c->space = false;
    if (va && pp_tok_is(t, "__VA_OPT__") &&
        (t->next == end || !pp_tok_is(t->next, "(") || !closing_before(t->next, end))) {
      dg_diag_add(p->d, DG_SEV_ERROR, t->at, "__VA_OPT__ needs a parenthesized operand");
      dg_vec_free(&ps);
      return;
    }
    if (fl && pp_tok_is(t, "#") && param_index(&tmp, t->next == end ? t : t->next) < 0) {
      dg_diag_add(p->d, DG_SEV_ERROR, t->at, "'#' is not followed by a macro parameter");
      dg_vec_free(&ps);
      return;
    }
    cur = cur->next = c;
  }
  if ((head.next && head.next->paste) || (cur != &head && cur->paste)) {
    dg_diag_add(p->d, DG_SEV_ERROR, (cur->paste ? cur : head.next)->at,
                "'##' cannot appear at either end of a macro expansion");
    dg_vec_free(&ps);
    return;
  }
  cur->next = p->eof;
  pp_macro *m = pp_macro_get(p, name->s, name->len, true);
  if (m->defined && !predefined && (!m->predefined || m->cmdline) &&
      !same_def(m, fl, (int)ps.n, ps.v, head.next))
    dg_diag_add(p->d, DG_SEV_WARNING, name->at, m->cmdline ? "\"%.*s\" redefined: the file replaces "
                "the value given on the command line" : "\"%.*s\" redefined", (int)name->len, name->s);
  m->cmdline = false;
  m->defined = true;
  m->funclike = fl;
  m->variadic = va;
  m->predefined = predefined;
  m->nparams = (int)ps.n;
  m->params = dg_arena_alloc(&p->ar, (ps.n + 1) * sizeof *m->params);
  if (ps.n) memcpy(m->params, ps.v, ps.n * sizeof *ps.v);
  m->body = head.next;
  m->dyn = NULL;
  m->def_at = name->at;
  dg_vec_free(&ps);
}

void pp_do_undef(pp_state *p, pp_tok *t, pp_tok *end)
{
  if (t == end || t->kind != PT_IDENT) {
    dg_diag_add(p->d, DG_SEV_ERROR, t->at, "macro names must be identifiers");
    return;
  }
  pp_macro *m = pp_macro_get(p, t->s, t->len, false);
  if (m) m->defined = false;
  if (t->next != end)
    dg_diag_add(p->d, DG_SEV_WARNING, t->next->at, "extra tokens at end of #undef");
}

/* --- hidesets ------------------------------------------------------------- */

static bool hs_has(const pp_hs *h, const pp_macro *m)
{
  for (; h; h = h->next)
    if (h->m == m) return true;
  return false;
}

static pp_hs *hs_add(pp_state *p, pp_hs *h, const pp_macro *m)
{
  if (hs_has(h, m)) return h;
  pp_hs *n = dg_arena_alloc(&p->ar, sizeof *n);
  n->m = m;
  n->next = h;
  return n;
}

static pp_hs *hs_union(pp_state *p, pp_hs *a, pp_hs *b)
{
  for (; a; a = a->next) b = hs_add(p, b, a->m);
  return b;
}

static pp_hs *hs_inter(pp_state *p, pp_hs *a, pp_hs *b)
{
  pp_hs *r = NULL;
  for (; a; a = a->next)
    if (hs_has(b, a->m)) r = hs_add(p, r, a->m);
  return r;
}

/* --- arguments ------------------------------------------------------------ */

typedef struct { pp_tok *raw, *exp; bool done; } pp_arg;

static pp_tok *copy_list(pp_state *p, const pp_tok *t, size_t *n)
{
  pp_tok head = {0}, *cur = &head;
  for (; t->kind != PT_EOF; t = t->next) {
    cur = cur->next = pp_tok_copy(p, t);
    (*n)++;
  }
  cur->next = p->eof;
  return head.next;
}

/* Reads the arguments after lp (the "("); *rp gets the ")". NULL on error. */
static pp_arg *read_args(pp_state *p, const pp_macro *m, const pp_tok *name, pp_tok *lp, pp_tok **rp)
{
  int cap = m->nparams > 0 ? m->nparams : 1, nargs = 1, level = 0;
  pp_arg *args = dg_arena_alloc(&p->ar, (size_t)cap * sizeof *args);
  pp_tok head = {0}, *cur = &head;
  size_t ncopied = 0;
  for (pp_tok *t = lp->next;; t = t->next) {
    if (t->kind == PT_EOF || t->kind == PT_FILE_END || pp_is_directive(t)) {
      if (pp_is_directive(t))
        dg_diag_add(p->d, DG_SEV_UNSUPPORTED, t->at,
                    "a preprocessing directive inside the arguments of macro \"%s\"", m->name);
      else
        dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(name),
                    "unterminated argument list invoking macro \"%s\"", m->name);
      p->stop = true;     /* a rescan for each "(" after it would take quadratic time */
      return NULL;
    }
    bool close = pp_tok_is(t, ")") && level == 0;
    bool comma = pp_tok_is(t, ",") && level == 0 && !(m->variadic && nargs >= m->nparams);
    if (close || comma) {
      cur->next = p->eof;
      if (nargs <= cap) args[nargs - 1].raw = head.next ? head.next : p->eof;
      head.next = NULL;
      cur = &head;
      if (close) { *rp = t; break; }
      nargs++;
      continue;
    }
    if (pp_tok_is(t, "(")) level++;
    if (pp_tok_is(t, ")")) level--;
    pp_tok *c = pp_tok_copy(p, t);
    if (cur == &head) c->space = false;
    c->bol = false;
    cur = cur->next = c;
    ncopied++;
  }
  if (!pp_count_expanded(p, name, ncopied)) return NULL;
  if (m->nparams == 0 && nargs == 1 && args[0].raw->kind == PT_EOF) return args;
  if (nargs > m->nparams) {
    dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(name),
                "macro \"%s\" passed %d arguments, but takes just %d", m->name, nargs, m->nparams);
    return NULL;
  }
  if (nargs < m->nparams) {
    if (m->variadic && nargs == m->nparams - 1) {
      args[nargs].raw = p->eof;
      return args;
    }
    dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(name),
                "macro \"%s\" requires %d arguments, but only %d given", m->name, m->nparams, nargs);
    return NULL;
  }
  return args;
}

static pp_tok *arg_expanded(pp_state *p, pp_arg *a, const pp_tok *at)
{
  if (a->done) return a->exp;
  a->done = true;
  if (++p->nest > PP_MAX_NEST) {
    if (!p->stop)
      dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(at), "macro arguments nested too deeply");
    p->stop = true;
    a->exp = p->eof;
  } else {
    size_t n = 0;
    a->exp = pp_expand_list(p, copy_list(p, a->raw, &n));
  }
  p->nest--;
  return a->exp;
}

static pp_tok *stringize(pp_state *p, const pp_tok *t, const pp_tok *hash)
{
  dg_buf b = {0};
  dg_buf_putc(&b, '"');
  for (const pp_tok *u = t; u->kind != PT_EOF; u = u->next) {
    if (u != t && u->space) dg_buf_putc(&b, ' ');
    bool lit = u->kind == PT_STR || u->kind == PT_CHAR || u->kind == PT_BADLIT;
    for (uint32_t i = 0; i < u->len; i++) {
      if (lit && (u->s[i] == '"' || u->s[i] == '\\')) dg_buf_putc(&b, '\\');
      dg_buf_putc(&b, u->s[i]);
    }
  }
  dg_buf_putc(&b, '"');
  char *s = dg_arena_strndup(&p->ar, b.s, b.n);
  pp_tok *r = pp_tok_new(p, PT_STR, s, b.n, hash->at);
  dg_buf_free(&b);
  return r;
}

/* --- substitution and pasting --------------------------------------------- */

static void push_list(pp_state *p, tokvec *v, const pp_tok *l, bool space)
{
  for (bool first = true; l->kind != PT_EOF; l = l->next, first = false) {
    pp_tok *c = pp_tok_copy(p, l);
    if (first) c->space = space;
    c->paste = false;
    dg_vec_push(v, c);
  }
}

static pp_tok *paste(pp_state *p, pp_tok *l, pp_tok *r, dg_span use)
{
  if (l->kind == PT_PLACEMARKER) return r;
  if (r->kind == PT_PLACEMARKER) return l;
  char *s = dg_arena_alloc(&p->ar, (size_t)l->len + r->len + 1);
  memcpy(s, l->s, l->len);
  memcpy(s + l->len, r->s, r->len);
  size_t nd = p->d->v.n;
  pp_tok *t = pp_lex_text(p, s, (size_t)l->len + r->len, l->at);
  if (p->d->v.n != nd || t->kind == PT_EOF || t->next->kind != PT_EOF || t->kind == PT_BADLIT) {
    while (p->d->v.n > nd) free(p->d->v.v[--p->d->v.n].msg);
    dg_diag_add(p->d, DG_SEV_ERROR, use,
                "pasting \"%.*s\" and \"%.*s\" does not give a valid preprocessing token",
                (int)l->len, l->s, (int)r->len, r->s);
    return NULL;
  }
  t->space = l->space;
  t->bol = false;
  t->hs = l->hs;
  return t;
}

/* The ")" that closes the "(" at t, or NULL. */
static const pp_tok *closing(const pp_tok *t)
{
  int level = 0;
  for (; t->kind != PT_EOF; t = t->next) {
    if (pp_tok_is(t, "(")) level++;
    if (pp_tok_is(t, ")") && --level == 0) return t;
  }
  return NULL;
}

static bool is_va_opt(const pp_macro *m, const pp_tok *t)
{
  return m->variadic && pp_tok_is(t, "__VA_OPT__") && pp_tok_is(t->next, "(");
}

/* Substitutes the body tokens [t, stop) into v (## are applied later). */
static void subst_range(pp_state *p, const pp_macro *m, pp_arg *args, const pp_tok *name,
                        const pp_tok *t, const pp_tok *stop, tokvec *vp)
{
  tokvec v = *vp;
  bool after_paste = false;
  for (; t != stop && t->kind != PT_EOF; t = t->next) {
    const pp_tok *close;
    if (is_va_opt(m, t) && (close = closing(t->next))) {      /* C++20 __VA_OPT__(...) */
      pp_tok *va = arg_expanded(p, &args[m->nparams - 1], name);
      size_t n0 = v.n;
      if (va->kind != PT_EOF) {
        *vp = v;
        subst_range(p, m, args, name, t->next->next, close, vp);
        v = *vp;
      }
      if (v.n == n0) dg_vec_push(&v, pp_tok_new(p, PT_PLACEMARKER, "", 0, t->at));
      v.v[n0]->space = t->space;
      t = close;
      after_paste = false;
      continue;
    }
    int i = param_index(m, t->next);
    if (m->funclike && pp_tok_is(t, "#") && i >= 0) {
      pp_tok *s = stringize(p, args[i].raw, t);
      s->space = t->space;
      dg_vec_push(&v, s);
      t = t->next;
      after_paste = false;
      continue;
    }
    if (m->variadic && pp_tok_is(t, ",") && t->next->paste &&
        param_index(m, t->next->next) == m->nparams - 1) {   /* GNU , ## __VA_ARGS__ */
      pp_arg *va = &args[m->nparams - 1];
      if (va->raw->kind != PT_EOF) {
        dg_vec_push(&v, pp_tok_copy(p, t));
        push_list(p, &v, arg_expanded(p, va, name), t->next->next->space);
      }
      t = t->next->next;
      after_paste = false;
      continue;
    }
    i = param_index(m, t);
    if (i >= 0) {
      bool raw = after_paste || t->next->paste;
      const pp_tok *src = raw ? args[i].raw : arg_expanded(p, &args[i], name);
      if (src->kind == PT_EOF && raw) {
        pp_tok *pm = pp_tok_new(p, PT_PLACEMARKER, "", 0, t->at);
        pm->space = t->space;
        dg_vec_push(&v, pm);
      }
      push_list(p, &v, src, t->space);
    } else {
      dg_vec_push(&v, pp_tok_copy(p, t));
    }
    after_paste = t->paste;
  }
  *vp = v;
}

static pp_tok *subst(pp_state *p, const pp_macro *m, pp_arg *args, const pp_tok *name, dg_span use)
{
  tokvec v = {0};
  subst_range(p, m, args, name, m->body, NULL, &v);
  /* ## operators, left to right; then drop placemarkers */
  size_t w = 0;
  for (size_t r = 0; r < v.n; r++) {
    pp_tok *t = v.v[r];
    if (t->paste && w > 0 && r + 1 < v.n) {
      pp_tok *j = paste(p, v.v[w - 1], v.v[r + 1], use);
      if (j) { v.v[w - 1] = j; r++; continue; }
      continue;                        /* error: keep both sides, drop the ## */
    }
    v.v[w++] = t;
  }
  pp_tok head = {0}, *cur = &head;
  size_t n = 0;
  for (size_t r = 0; r < w; r++) {
    if (v.v[r]->kind == PT_PLACEMARKER) continue;
    cur = cur->next = v.v[r];
    n++;
  }
  cur->next = NULL;
  dg_vec_free(&v);
  pp_count_expanded(p, name, n);
  return head.next;
}

/* Marks an expansion as coming from use, adds hs, and puts it before rest. */
static pp_tok *finish(pp_state *p, pp_tok *body, pp_hs *hs, const pp_tok *name, pp_tok *rest)
{
  if (!body) return rest;
  dg_span use = pp_tok_pos(name);
  pp_tok *t = body;
  for (;; t = t->next) {
    t->hs = hs_union(p, t->hs, hs);
    t->use = use;
    t->bol = false;
    t->paste = false;
    if (!t->next) break;
  }
  body->space = name->space;
  t->next = rest;
  return body;
}

bool pp_expand_head(pp_state *p, pp_tok **rest)
{
  pp_tok *t = *rest;
  if (t->kind != PT_IDENT || p->stop) return false;
  pp_macro *m = pp_macro_get(p, t->s, t->len, false);
  if (!m || !m->defined || hs_has(t->hs, m)) return false;
  if (m->dyn) {
    pp_tok *r = m->dyn(p, t);
    *rest = finish(p, r, t->hs, t, t->next);
    return true;
  }
  if (!m->funclike) {
    *rest = finish(p, subst(p, m, NULL, t, pp_tok_pos(t)), hs_add(p, t->hs, m), t, t->next);
    return true;
  }
  pp_tok *lp = t->next, *rp = NULL;
  if (!pp_tok_is(lp, "(")) return false;
  pp_arg *args = read_args(p, m, t, lp, &rp);
  if (!args) return false;
  pp_hs *hs = hs_add(p, hs_inter(p, t->hs, rp->hs), m);
  *rest = finish(p, subst(p, m, args, t, pp_tok_pos(t)), hs, t, rp->next);
  return true;
}

pp_tok *pp_expand_list(pp_state *p, pp_tok *list)
{
  pp_tok head = {0}, *cur = &head, *t = list;
  while (t->kind != PT_EOF) {
    if (t->kind == PT_IDENT && pp_expand_head(p, &t)) continue;
    cur = cur->next = t;
    t = t->next;
  }
  cur->next = t;
  return head.next;
}

pp_tok *pp_expand_range(pp_state *p, pp_tok *t, pp_tok *end)
{
  return pp_expand_list(p, pp_copy_range(p, t, end));
}

/* --- predefined macros ---------------------------------------------------- */

static pp_tok *dyn_line(pp_state *p, const pp_tok *name)
{
  char *s = dg_arena_alloc(&p->ar, 24);
  int n = snprintf(s, 24, "%ld", pp_line_of(p, pp_tok_pos(name)));
  return pp_tok_new(p, PT_NUM, s, (size_t)n, name->at);
}

static pp_tok *dyn_file(pp_state *p, const pp_tok *name)
{
  const char *f = pp_file_name(p, pp_tok_pos(name));
  dg_buf b = {0};
  dg_buf_putc(&b, '"');
  for (; *f; f++) {
    if (*f == '"' || *f == '\\') dg_buf_putc(&b, '\\');
    dg_buf_putc(&b, *f);
  }
  dg_buf_putc(&b, '"');
  pp_tok *t = pp_tok_new(p, PT_STR, dg_arena_strndup(&p->ar, b.s, b.n), b.n, name->at);
  dg_buf_free(&b);
  return t;
}

static pp_tok *dyn_counter(pp_state *p, const pp_tok *name)
{
  char *s = dg_arena_alloc(&p->ar, 16);
  int n = snprintf(s, 16, "%u", p->counter++);
  return pp_tok_new(p, PT_NUM, s, (size_t)n, name->at);
}

static const struct { const char *name; pp_dyn_fn fn; } dyns[] = {
  { "__LINE__", dyn_line }, { "__FILE__", dyn_file }, { "__COUNTER__", dyn_counter },
};

/* What nvcc defines for device code of sm_90 that kernels test for. */
static const char *const predefs[] = {
  "__CUDACC__ 1", "__NVCC__ 1", "__CUDA_ARCH__ 900", "__cplusplus 201703L",
  "CUDART_VERSION 12040", "__CUDACC_VER_MAJOR__ 12", "__CUDACC_VER_MINOR__ 4",
  "__CUDACC_VER_BUILD__ 0", "__STDC__ 1", "__STDC_HOSTED__ 1", "__GNUC__ 11",
  "__x86_64__ 1", "__linux__ 1", "__CHAR_BIT__ 8", "__SIZEOF_INT__ 4",
  "__SIZEOF_LONG__ 8", "__SIZEOF_POINTER__ 8", "__DATE__ \"Jan  1 2026\"",
  "__TIME__ \"00:00:00\"",
};

void pp_predefine(pp_state *p)
{
  for (size_t i = 0; i < sizeof predefs / sizeof *predefs; i++) {
    pp_tok *t = pp_lex_text(p, predefs[i], strlen(predefs[i]), (dg_span){0});
    pp_do_define(p, t, pp_line_end(t->next), true);
  }
  for (size_t i = 0; i < sizeof dyns / sizeof *dyns; i++) {
    pp_macro *m = pp_macro_get(p, dyns[i].name, (uint32_t)strlen(dyns[i].name), true);
    m->defined = m->predefined = true;
    m->dyn = dyns[i].fn;
    m->body = p->eof;
  }
}
