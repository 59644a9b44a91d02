/* pp_lex.c — turns source text into preprocessing tokens. Line splices
 * (backslash-newline) are removed first, keeping a map back to the original
 * bytes; comments are whitespace to the lexer, so a block comment spanning
 * lines does not end a directive. Every token knows the file:line:col where
 * it is written. */
#include "pp_int.h"
#include <string.h>
#include <stdlib.h>

typedef struct {
  pp_state *p;
  const char *s, *end;      /* spliced text */
  const uint32_t *map;      /* spliced offset -> original offset; NULL: identity */
  const char *orig;
  size_t orig_len;
  uint32_t file;
  dg_span fixed;            /* file 0 and fixed.line: every token gets this span */
  uint32_t line;
  size_t line_off, scan;    /* incremental line tracking over orig */
} lexer;

static bool is_id(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$' || c >= 0x80;
}
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_alnum(unsigned char c) { return is_id(c) && c != '$'; }

static dg_span lx_pos(lexer *L, const char *c)
{
  if (!L->file) return L->fixed;
  size_t o = (size_t)(c - L->s);
  if (L->map) o = L->map[o];
  if (o > L->orig_len) o = L->orig_len;
  while (L->scan < o) {      /* offsets only grow while lexing */
    const char *nl = memchr(L->orig + L->scan, '\n', o - L->scan);
    if (!nl) { L->scan = o; break; }
    L->line++;
    L->scan = L->line_off = (size_t)(nl - L->orig) + 1;
  }
  return (dg_span){ L->file, L->line, (uint32_t)(o - L->line_off + 1) };
}

/* Removes backslash-newline (and backslash-CR-newline) pairs. */
static void splice(pp_state *p, lexer *L, const char *t, size_t n, uint32_t **mapp)
{
  *mapp = NULL;
  L->s = t;
  L->end = t + n;
  const char *b = memchr(t, '\\', n);
  bool any = false;
  for (; b; b = memchr(b + 1, '\\', (size_t)(t + n - b - 1))) {
    if ((b + 1 < t + n && b[1] == '\n') || (b + 2 < t + n && b[1] == '\r' && b[2] == '\n')) {
      any = true;
      break;
    }
    if (b + 1 >= t + n) break;
  }
  if (!any) return;
  char *s = dg_arena_alloc(&p->ar, n + 1);
  uint32_t *map = dg_malloc((n + 1) * sizeof *map);
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n') { i++; continue; }
    if (t[i] == '\\' && i + 2 < n && t[i + 1] == '\r' && t[i + 2] == '\n') { i += 2; continue; }
    map[j] = (uint32_t)i;
    s[j++] = t[i];
  }
  map[j] = (uint32_t)n;
  L->s = s;
  L->end = s + j;
  *mapp = map;
}

pp_tok *pp_tok_new(pp_state *p, pp_kind k, const char *s, size_t n, dg_span at)
{
  pp_tok *t = dg_arena_alloc(&p->ar, sizeof *t);
  t->kind = (uint8_t)k;
  t->s = s;
  t->len = (uint32_t)n;
  t->at = at;
  return t;
}

pp_tok *pp_tok_copy(pp_state *p, const pp_tok *t)
{
  pp_tok *c = dg_arena_alloc(&p->ar, sizeof *c);
  *c = *t;
  c->next = NULL;
  return c;
}

pp_tok *pp_copy_range(pp_state *p, pp_tok *t, pp_tok *end)
{
  pp_tok head = {0}, *cur = &head;
  for (; t != end; t = t->next) {
    cur = cur->next = pp_tok_copy(p, t);
    cur->bol = false;
  }
  cur->next = p->eof;
  return head.next;
}

bool pp_tok_is(const pp_tok *t, const char *s)
{
  size_t n = strlen(s);
  return t->len == n && t->kind <= PT_OTHER && !memcmp(t->s, s, n);
}

dg_span pp_tok_pos(const pp_tok *t) { return t->use.file ? t->use : t->at; }

bool pp_is_directive(const pp_tok *t)
{
  return t->bol && !t->use.file && t->len == 1 && t->s[0] == '#' && t->kind == PT_PUNCT;
}

pp_tok *pp_line_end(pp_tok *t)
{
  while (t->kind != PT_EOF && t->kind != PT_FILE_END && !t->bol) t = t->next;
  return t;
}

static const char *const puncts3[] = { "<<=", ">>=", "...", "->*", "<=>" };
static const char *const puncts2[] = {
  "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=",
  "%=", "+=", "-=", "&=", "^=", "|=", "##", "::", ".*",
};

static size_t punct_len(const char *c, const char *end)
{
  size_t left = (size_t)(end - c);
  /* every punctuator longer than one byte has one of these second bytes */
  if (left < 2 || !memchr(">+-<=&|#:*.", c[1], 11)) return 1;
  if (left >= 3)
    for (size_t i = 0; i < sizeof puncts3 / sizeof *puncts3; i++)
      if (!memcmp(c, puncts3[i], 3)) return 3;
  if (left >= 2)
    for (size_t i = 0; i < sizeof puncts2 / sizeof *puncts2; i++)
      if (c[0] == puncts2[i][0] && c[1] == puncts2[i][1]) return 2;
  return 1;
}

/* A quoted literal from c (at the quote); returns its end, or NULL if the
 * line ends first. */
static const char *quoted(const char *c, const char *end)
{
  char q = *c++;
  while (c < end && *c != q && *c != '\n') {
    if (*c == '\\' && c + 1 < end && c[1] != '\n') c++;
    c++;
  }
  return c < end && *c == q ? c + 1 : NULL;
}

/* R"delim( ... )delim" from c (at the quote); NULL if it never ends. */
static const char *raw_string(const char *c, const char *end)
{
  const char *d = c + 1, *paren = d;
  while (paren < end && *paren != '(' && paren - d <= 16 && *paren != '"' && *paren != '\n') paren++;
  if (paren >= end || *paren != '(') return NULL;
  size_t dl = (size_t)(paren - d);
  for (const char *q = paren + 1; q < end; q++)
    if (*q == ')' && (size_t)(end - q) > dl + 1 && !memcmp(q + 1, d, dl) && q[1 + dl] == '"')
      return q + dl + 2;
  return NULL;
}

static bool literal_prefix(const char *s, size_t n, bool *raw)
{
  static const char *const pre[] = { "u8", "u", "U", "L" };
  *raw = n > 0 && s[n - 1] == 'R';
  if (*raw) n--;
  if (n == 0) return *raw;
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
    if (strlen(pre[i]) == n && !memcmp(s, pre[i], n)) return true;
  return false;
}

static const char *lex_number(const char *c, const char *end)
{
  c++;
  while (c < end) {
    if ((*c == 'e' || *c == 'E' || *c == 'p' || *c == 'P') && c + 1 < end &&
        (c[1] == '+' || c[1] == '-')) c += 2;
    else if (is_id((unsigned char)*c) || *c == '.') c++;
    else if (*c == '\'' && c + 1 < end && is_alnum((unsigned char)c[1])) c += 2;
    else break;
  }
  return c;
}

static const char *line_end(const char *c, const char *end)
{
  const char *nl = memchr(c, '\n', (size_t)(end - c));
  return nl ? nl : end;
}

static pp_tok *lex(lexer *L, pp_kind last)
{
  pp_state *p = L->p;
  pp_tok head = {0}, *cur = &head;
  bool bol = true, space = false;
  const char *c = L->s, *end = L->end;
  while (c < end) {
    unsigned char ch = (unsigned char)*c;
    if (ch == '\n') { bol = true; space = false; c++; continue; }
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') { space = true; c++; continue; }
    if (ch == '/' && c + 1 < end && c[1] == '/') { c = line_end(c, end); space = true; continue; }
    if (ch == '/' && c + 1 < end && c[1] == '*') {
      const char *q = c + 2;
      while (q + 1 < end && !(q[0] == '*' && q[1] == '/')) q++;
      if (q + 1 >= end) {
        dg_diag_add(p->d, DG_SEV_ERROR, lx_pos(L, c), "unterminated comment");
        c = end;
      } else {
        c = q + 2;
      }
      space = true;
      continue;
    }
    const char *st = c;
    pp_kind k;
    if (is_id(ch) && !is_digit(ch)) {
      while (c < end && is_id((unsigned char)*c)) c++;
      bool raw;
      k = PT_IDENT;
      if (c < end && (*c == '"' || *c == '\'') && literal_prefix(st, (size_t)(c - st), &raw)) {
        if (raw && *c == '"') {
          const char *e = raw_string(c, end);
          k = e ? PT_STR : PT_BADLIT;
          c = e ? e : line_end(c, end);
        } else if (!raw) {
          k = *c == '"' ? PT_STR : PT_CHAR;
          const char *e = quoted(c, end);
          if (!e) k = PT_BADLIT;
          c = e ? e : line_end(c, end);
        }
      }
    } else if (is_digit(ch) || (ch == '.' && c + 1 < end && is_digit((unsigned char)c[1]))) {
      k = PT_NUM;
      c = lex_number(c, end);
    } else if (ch == '"' || ch == '\'') {
      k = ch == '"' ? PT_STR : PT_CHAR;
      const char *e = quoted(c, end);
      if (!e) k = PT_BADLIT;
      c = e ? e : line_end(c, end);
    } else if (strchr("@`\\", ch) || ch < 0x20 || ch == 0x7f) {
      k = PT_OTHER;
      c++;
    } else {
      k = PT_PUNCT;
      c += punct_len(c, end);
    }
    pp_tok *t = pp_tok_new(p, k, st, (size_t)(c - st), lx_pos(L, st));
    t->bol = bol;
    t->space = space;
    bol = space = false;
    cur = cur->next = t;
  }
  pp_tok *e = p->eof;                  /* lists end in the shared EOF token */
  if (last == PT_FILE_END) {
    e = pp_tok_new(p, last, end, 0, lx_pos(L, end));
    e->bol = true;
  }
  cur->next = e;
  return head.next;
}

pp_tok *pp_lex_file(pp_state *p, uint32_t file)
{
  const dg_srcfile *f = &p->sm->files.v[file];
  lexer L = { .p = p, .orig = f->text, .orig_len = f->len, .file = file, .line = 1 };
  uint32_t *map;
  splice(p, &L, f->text, f->len, &map);
  L.map = map;
  pp_tok *t = lex(&L, PT_FILE_END);
  free(map);
  return t;
}

pp_tok *pp_lex_text(pp_state *p, const char *s, size_t n, dg_span at)
{
  char *copy = dg_arena_strndup(&p->ar, s, n);
  lexer L = { .p = p, .s = copy, .end = copy + n, .fixed = at };
  return lex(&L, PT_EOF);
}
