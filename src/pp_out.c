/* pp_out.c — writes the preprocessed text and its position map.
 *
 * A token written in the user's text is put at its own line and column
 * (blank lines and spaces fill the gaps left by directives, comments and
 * skipped groups), so unexpanded code maps 1:1 and most lines need one
 * segment. A token from a macro expansion is put after what precedes it and
 * maps to the use site of the outermost macro. */
#include "pp_int.h"
#include <string.h>
#include <stdlib.h>

static void seg_at(pp_state *p, dg_span src, bool macro)
{
  pp_result *r = p->res;
  size_t off = p->out.n;
  if (r->segs.n) {
    pp_seg *l = &r->segs.v[r->segs.n - 1];
    if (l->from_macro == macro && l->src.file == src.file && l->src.line == src.line &&
        (macro ? l->src.col == src.col : l->src.col + (off - l->out_off) == src.col))
      return;                                  /* the run goes on */
    if (l->out_off == off) {                   /* nothing was written under l */
      l->src = src;
      l->from_macro = macro;
      return;
    }
  }
  pp_seg s = { off, src, macro };
  dg_vec_push(&r->segs, s);
}

static void newline(pp_state *p)
{
  dg_buf_putc(&p->out, '\n');
  p->cur_line++;
  p->line_start = p->out.n;
  seg_at(p, (dg_span){ p->cur_file, p->cur_line, 1 }, false);
}

/* A line break in the output that is not one in the source. */
static void out_break(pp_state *p)
{
  dg_buf_putc(&p->out, '\n');
  p->line_start = p->out.n;
  seg_at(p, (dg_span){ p->cur_file, p->cur_line, 1 }, false);
}

static void position(pp_state *p, dg_span pos)
{
  if (pos.file == p->cur_file && pos.line > p->cur_line) {
    while (p->cur_line < pos.line) newline(p);
  } else if (pos.file != p->cur_file) {
    if (p->out.n > p->line_start) {
      dg_buf_putc(&p->out, '\n');
      p->line_start = p->out.n;
    }
    p->cur_file = pos.file;
    p->cur_line = pos.line;
    seg_at(p, (dg_span){ pos.file, pos.line, 1 }, false);
  } else if (p->need_nl && p->out.n > p->line_start) {
    out_break(p);
  }
  p->need_nl = false;
}

static bool idc(char c)
{
  unsigned char u = (unsigned char)c;
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
         u == '_' || u == '$' || u >= 0x80;
}

/* Would writing b right after a make a different token? */
static bool avoid_paste(char a, char b)
{
  static const char *const pairs[] = {
    "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->", "##", "::", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "//", "/*", "..", "<:", "%:",
  };
  if (idc(a) && (idc(b) || b == '"' || b == '\'')) return true;
  if ((a >= '0' && a <= '9') && b == '.') return true;
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
    if (pairs[i][0] == a && pairs[i][1] == b) return true;
  return false;
}

/* Tokens written next to each other in one place (a macro body: k<<<1, 2>>>)
 * stay next to each other. */
static bool adjacent(dg_span end, dg_span at)
{
  return at.file && end.file == at.file && end.line == at.line && end.col == at.col;
}

void pp_out_tok(pp_state *p, const pp_tok *t)
{
  bool macro = t->use.file != 0;
  dg_span pos = macro ? t->use : t->at;
  if (t->kind == PT_BADLIT)
    dg_diag_add(p->d, DG_SEV_ERROR, pos, "missing terminating %c character",
                memchr(t->s, '"', t->len) ? '"' : '\'');
  position(p, pos);
  size_t col = p->out.n - p->line_start + 1;
  if (pos.col > col) {
    static const char spaces[] = "                                                                ";
    for (size_t n = pos.col - col; n; ) {
      size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
      dg_buf_put(&p->out, spaces, k);
      n -= k;
    }
  } else if (p->out.n > p->line_start &&
             (t->space || (!adjacent(p->last_end, t->at) &&
                           avoid_paste(p->out.s[p->out.n - 1], t->len ? t->s[0] : ' ')))) {
    dg_buf_putc(&p->out, ' ');
  }
  p->last_end = t->at;
  p->last_end.col += t->len;
  seg_at(p, pos, macro);
  const char *s = t->s, *end = t->s + t->len, *nl;
  while ((nl = memchr(s, '\n', (size_t)(end - s)))) {   /* a raw string over lines */
    dg_buf_put(&p->out, s, (size_t)(nl - s));
    if (macro) {
      out_break(p);
    } else {
      newline(p);
    }
    s = nl + 1;
  }
  dg_buf_put(&p->out, s, (size_t)(end - s));
}

void pp_out_pragma(pp_state *p, pp_tok *list, dg_span at, bool synthetic)
{
  if (!synthetic) position(p, pp_tok_pos(list));
  if (p->out.n > p->line_start) out_break(p);
  dg_buf line = {0};
  dg_buf_puts(&line, "#pragma");
  size_t off = 0;
  int i = 0;
  for (pp_tok *t = list; t->kind != PT_EOF; t = t->next, i++) {
    if (synthetic) t->use = at;
    if (i == 1) t->space = false;
    pp_out_tok(p, t);
    if (i == 0) off = p->out.n - 1;
    if (i >= 2) {
      if (i == 2 || t->space) dg_buf_putc(&line, ' ');
      dg_buf_put(&line, t->s, t->len);
    }
  }
  p->need_nl = true;
  pp_pragma pr = { dg_buf_take(&line), at, off };
  dg_vec_push(&p->res->pragmas, pr);
}

void pp_out_finish(pp_state *p)
{
  if (p->out.n > p->line_start) dg_buf_putc(&p->out, '\n');
  p->res->len = p->out.n;
  p->res->text = dg_buf_take(&p->out);
}

dg_span pp_span(const pp_result *r, size_t out_off)
{
  if (!r->segs.n) return (dg_span){0};
  size_t lo = 0, hi = r->segs.n;           /* last seg with out_off <= off */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (r->segs.v[mid].out_off <= out_off) lo = mid;
    else hi = mid;
  }
  const pp_seg *s = &r->segs.v[lo];
  if (s->from_macro || out_off < s->out_off) return s->src;
  dg_span sp = s->src;
  sp.col += (uint32_t)(out_off - s->out_off);
  return sp;
}

void pp_result_free(pp_result *r)
{
  free(r->text);
  dg_vec_free(&r->segs);
  for (size_t i = 0; i < r->pragmas.n; i++) free((char *)r->pragmas.v[i].line_text);
  dg_vec_free(&r->pragmas);
  for (size_t i = 0; i < r->system_headers.n; i++) free(r->system_headers.v[i]);
  dg_vec_free(&r->system_headers);
  memset(r, 0, sizeof *r);
}
