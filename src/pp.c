/* pp.c — the preprocessor's driver: the token stream, directives,
 * conditional groups and #include. Lexing is in pp_lex.c, macros in
 * pp_macro.c, #if expressions in pp_expr.c, the output and its position map
 * in pp_out.c. */
#include "pp_int.h"
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>

/* --- system headers: recognised, recorded, never read ---------------------- */

static const char *const sys_exact[] = {
  "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_fp16.h", "cuda_bf16.h",
  "cuda_fp8.h", "cuda_pipeline.h", "cuda_awbarrier.h", "cooperative_groups.h",
  "device_launch_parameters.h", "device_functions.h", "math_constants.h", "mma.h",
  "curand.h", "curand_kernel.h", "cublas_v2.h", "cuda_profiler_api.h", "vector_types.h",
  "cstdio", "cstdlib", "cmath", "cstring", "cstddef", "cstdint", "climits", "cfloat",
  "cassert", "math.h", "stdio.h", "stdlib.h", "string.h", "stdint.h", "stddef.h",
  "limits.h", "float.h", "assert.h", "stdbool.h", "algorithm", "vector", "iostream",
  "limits", "type_traits", "string", "utility", "array", "tuple", "memory",
  "functional", "numeric", "random", "chrono", "sstream", "iomanip", "map",
  "unordered_map", "set", "cub/cub.cuh", "torch/extension.h", "torch/torch.h",
};
static const char *const sys_prefix[] = {
  "cooperative_groups/", "cub/", "thrust/", "torch/", "ATen/", "c10/", "pybind11/",
  "cuda/", "crt/", "cutlass/", "cute/",
};

static bool known_sys(const char *name)
{
  for (size_t i = 0; i < sizeof sys_exact / sizeof *sys_exact; i++)
    if (!strcmp(name, sys_exact[i])) return true;
  for (size_t i = 0; i < sizeof sys_prefix / sizeof *sys_prefix; i++)
    if (!strncmp(name, sys_prefix[i], strlen(sys_prefix[i]))) return true;
  return false;
}

static void record_sys(pp_state *p, const char *name)
{
  for (size_t i = 0; i < p->res->system_headers.n; i++)
    if (!strcmp(p->res->system_headers.v[i], name)) return;
  dg_vec_push(&p->res->system_headers, dg_strdup(name));
}

/* --- #line and __FILE__ / __LINE__ ---------------------------------------- */

static pp_incl *incl_of(pp_state *p, uint32_t file)
{
  for (size_t i = p->incl.n; i-- > 0;)
    if (p->incl.v[i].file == file) return &p->incl.v[i];
  return NULL;
}

const char *pp_file_name(pp_state *p, dg_span at)
{
  pp_incl *in = incl_of(p, at.file);
  return in && in->name ? in->name : dg_srcmgr_path(p->sm, at.file);
}

long pp_line_of(pp_state *p, dg_span at)
{
  pp_incl *in = incl_of(p, at.file);
  return (long)at.line + (in ? in->line_delta : 0);
}

/* --- helpers --------------------------------------------------------------- */

static char *line_text(pp_tok *t, pp_tok *end)
{
  dg_buf b = {0};
  for (pp_tok *u = t; u != end; u = u->next) {
    if (u != t && u->space) dg_buf_putc(&b, ' ');
    dg_buf_put(&b, u->s, u->len);
  }
  return dg_buf_take(&b);
}

static pp_tok *ident_arg(pp_state *p, pp_tok *name, pp_tok *end)
{
  pp_tok *t = name->next;
  if (t == end) {
    dg_diag_add(p->d, DG_SEV_ERROR, name->at, "macro name missing after #%.*s", (int)name->len, name->s);
    return NULL;
  }
  return t;
}

/* Skips a false group: returns the "#" of the #elif/#else/#endif that ends it,
 * or the file end when there is none. */
static pp_tok *skip_group(pp_tok *t)
{
  int depth = 0;
  for (; t->kind != PT_FILE_END && t->kind != PT_EOF; t = t->next) {
    if (!pp_is_directive(t) || t->next->kind != PT_IDENT || t->next->bol) continue;
    pp_tok *n = t->next;
    if (pp_tok_is(n, "if") || pp_tok_is(n, "ifdef") || pp_tok_is(n, "ifndef")) depth++;
    else if (pp_tok_is(n, "endif") && depth-- == 0) return t;
    else if ((pp_tok_is(n, "elif") || pp_tok_is(n, "else")) && depth == 0) return t;
  }
  return t;
}

/* --- conditional directives ----------------------------------------------- */

static pp_tok *open_cond(pp_state *p, pp_tok *hash, pp_tok *end, bool v)
{
  pp_cond c = { pp_tok_pos(hash), v, false };
  dg_vec_push(&p->cond, c);
  return v ? end : skip_group(end);
}

static pp_tok *d_if(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  return open_cond(p, hash, end, pp_eval_cond(p, name->next, end, name->at));
}

static pp_tok *d_ifdef(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_tok *t = ident_arg(p, name, end);
  if (t && t->kind != PT_IDENT) {
    dg_diag_add(p->d, DG_SEV_ERROR, t->at, "macro names must be identifiers");
    t = NULL;
  }
  bool v = t && pp_is_defined(p, t);
  if (t && name->len == 6) v = !v;                       /* ifndef */
  return open_cond(p, hash, end, v);
}

static pp_cond *top_cond(pp_state *p, pp_tok *name)
{
  int base = p->incl.n ? p->incl.v[p->incl.n - 1].cond_base : 0;
  if ((int)p->cond.n <= base) {
    dg_diag_add(p->d, DG_SEV_ERROR, name->at, "#%.*s without #if", (int)name->len, name->s);
    return NULL;
  }
  return &p->cond.v[p->cond.n - 1];
}

static pp_tok *d_elif(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_cond *c = top_cond(p, name);
  if (!c) return end;
  if (c->in_else) dg_diag_add(p->d, DG_SEV_ERROR, name->at, "#elif after #else");
  if (c->taken) return skip_group(end);
  c->taken = pp_eval_cond(p, name->next, end, name->at);
  return c->taken ? end : skip_group(end);
}

static pp_tok *d_else(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_cond *c = top_cond(p, name);
  if (!c) return end;
  if (c->in_else) dg_diag_add(p->d, DG_SEV_ERROR, name->at, "#else after #else");
  c->in_else = true;
  if (c->taken) return skip_group(end);
  c->taken = true;
  return end;
}

static pp_tok *d_endif(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  if (top_cond(p, name)) p->cond.n--;
  return end;
}

/* --- #define, #undef, #error, #warning, #line, #pragma ---------------------- */

static pp_tok *d_define(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_tok *t = ident_arg(p, name, end);
  if (t) pp_do_define(p, t, end, false);
  return end;
}

static pp_tok *d_undef(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_tok *t = ident_arg(p, name, end);
  if (t) pp_do_undef(p, t, end);
  return end;
}

static pp_tok *d_error(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  char *msg = line_text(name->next, end);
  dg_diag_add(p->d, name->s[0] == 'e' ? DG_SEV_ERROR : DG_SEV_WARNING, pp_tok_pos(hash),
              "#%.*s %s", (int)name->len, name->s, msg);
  free(msg);
  return end;
}

static pp_tok *d_line(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_tok *t = name->kind == PT_NUM ? pp_copy_range(p, name, end)     /* # 12 "file" */
                                   : pp_expand_range(p, name->next, end);
  char *e = NULL;
  long n = t->kind == PT_NUM ? strtol(t->s, &e, 10) : -1;
  if (n < 0 || !e || e != t->s + t->len ||
      (t->next->kind != PT_EOF && t->next->kind != PT_STR)) {
    dg_diag_add(p->d, DG_SEV_ERROR, name->at, "#line expects a line number and an optional \"file name\"");
    return end;
  }
  pp_incl *in = &p->incl.v[p->incl.n - 1];
  in->line_delta = n - (long)(hash->at.line + 1);
  if (t->next->kind == PT_STR && t->next->len >= 2)
    in->name = dg_arena_strndup(&p->ar, t->next->s + 1, t->next->len - 2);
  return end;
}

static pp_tok *d_pragma(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  pp_tok *a = name->next;
  if (a != end && pp_tok_is(a, "once")) {
    dg_vec_push(&p->once, hash->at.file);
    return end;
  }
  pp_tok *list = pp_copy_range(p, hash, a != end && pp_tok_is(a, "unroll") ? a->next : end);
  if (a != end && pp_tok_is(a, "unroll")) {           /* #pragma unroll N: N may be a macro */
    pp_tok *t = list;
    while (t->next->kind != PT_EOF) t = t->next;
    t->next = pp_expand_range(p, a->next, end);
  }
  pp_out_pragma(p, list, pp_tok_pos(hash), false);
  return end;
}

static pp_tok *d_ignore(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end) { return end; }

/* _Pragma("unroll 4"): the same as a #pragma line where it stands. */
static pp_tok *pragma_op(pp_state *p, pp_tok *t)
{
  pp_tok *lp = t->next, *s = lp->next;
  if (!pp_tok_is(lp, "(") || s->kind != PT_STR || !pp_tok_is(s->next, ")")) {
    dg_diag_add(p->d, DG_SEV_ERROR, pp_tok_pos(t), "_Pragma takes a parenthesized string literal");
    return NULL;
  }
  const char *q = memchr(s->s, '"', s->len);
  dg_buf b = {0};
  for (const char *c = q + 1; c < s->s + s->len - 1; c++) {
    if (*c == '\\' && (c[1] == '"' || c[1] == '\\')) c++;
    dg_buf_putc(&b, *c);
  }
  dg_span at = pp_tok_pos(t);
  pp_tok *body = pp_lex_text(p, b.s ? b.s : "", b.n, at);
  dg_buf_free(&b);
  if (!pp_tok_is(body, "once")) {
    pp_tok *h = pp_tok_new(p, PT_PUNCT, "#", 1, at), *kw = pp_tok_new(p, PT_IDENT, "pragma", 6, at);
    h->next = kw;
    kw->next = body;
    if (body->kind != PT_EOF) body->space = true;
    pp_out_pragma(p, h, at, true);
  }
  return s->next->next;
}

/* --- #include --------------------------------------------------------------- */

static char *header_name(pp_state *p, pp_tok *t, pp_tok *end, bool *angled)
{
  pp_tok *list = pp_copy_range(p, t, end);
  if (list->kind == PT_IDENT) list = pp_expand_list(p, list);     /* #include MACRO */
  if (list->kind == PT_STR && list->s[0] == '"' && list->len >= 2) {
    *angled = false;
    return dg_strndup(list->s + 1, list->len - 2);
  }
  if (!pp_tok_is(list, "<")) return NULL;
  dg_buf b = {0};
  for (t = list->next; t->kind != PT_EOF && !pp_tok_is(t, ">"); t = t->next) {
    if (t != list->next && t->space) dg_buf_putc(&b, ' ');
    dg_buf_put(&b, t->s, t->len);
  }
  if (t->kind == PT_EOF || !b.n) {
    dg_buf_free(&b);
    return NULL;
  }
  *angled = true;
  return dg_buf_take(&b);
}

static char *local_path(pp_state *p, uint32_t from, const char *name)
{
  char *dir = dg_dirname(dg_srcmgr_path(p->sm, from));
  char *path = dg_path_join(dir, name);
  free(dir);
  return path;
}

bool pp_has_include(pp_state *p, const char *name, bool angled, dg_span at)
{
  if (known_sys(name)) return true;
  if (angled) return false;
  char *path = local_path(p, at.file, name);
  bool ok = access(path, R_OK) == 0;
  free(path);
  return ok;
}

/* A file whose include guard is already defined would come out empty. */
static bool guarded(pp_state *p, pp_tok *t)
{
  if (!pp_is_directive(t)) return false;
  pp_tok *n = t->next;
  if (pp_tok_is(n, "ifndef")) return n->next->kind == PT_IDENT && pp_is_defined(p, n->next);
  if (pp_tok_is(n, "if") && pp_tok_is(n->next, "!") && pp_tok_is(n->next->next, "defined")) {
    pp_tok *x = n->next->next->next;
    if (pp_tok_is(x, "(")) x = x->next;
    return x->kind == PT_IDENT && pp_is_defined(p, x);
  }
  return false;
}

static pp_tok *d_include(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end)
{
  bool angled = false;
  char *hn = name->next == end ? NULL : header_name(p, name->next, end, &angled);
  dg_span at = name->next == end ? name->at : pp_tok_pos(name->next);
  if (!hn) {
    dg_diag_add(p->d, DG_SEV_ERROR, at, "#include expects \"FILENAME\" or <FILENAME>");
    return end;
  }
  pp_tok *ret = end;
  char *path = angled ? NULL : local_path(p, hash->at.file, hn);
  int saved = errno;
  errno = 0;
  uint32_t f = path ? dg_srcmgr_load(p->sm, path) : 0;
  int err = errno;
  errno = saved;
  if (!f && known_sys(hn)) {
    record_sys(p, hn);
  } else if (angled) {
    dg_diag_add(p->d, DG_SEV_WARNING, at, "unknown system header <%s> skipped", hn);
  } else if (!f) {
    dg_diag_add(p->d, DG_SEV_ERROR, at, "cannot open include file \"%s\": %s", hn,
                strerror(err ? err : ENOENT));
  } else if (++p->nincludes > PP_MAX_INCLUDES) {
    dg_diag_add(p->d, DG_SEV_ERROR, at, "more than %d #includes; stopped", PP_MAX_INCLUDES);
    p->stop = true;
  } else if (p->incl.n >= PP_MAX_INCLUDE_DEPTH) {
    dg_diag_add(p->d, DG_SEV_ERROR, at, "#include nested too deeply (more than %d levels)",
                PP_MAX_INCLUDE_DEPTH);
  } else {
    bool once = false;
    for (size_t i = 0; i < p->once.n; i++) once |= p->once.v[i] == f;
    if (!once) {
      pp_tok *toks = pp_lex_file(p, f);
      if (incl_of(p, f) && !guarded(p, toks)) {
        dg_diag_add(p->d, DG_SEV_ERROR, at, "#include cycle: \"%s\" includes itself", hn);
      } else {
        pp_incl in = { f, (int)p->cond.n, 0, NULL };
        dg_vec_push(&p->incl, in);
        pp_tok *t = toks;
        while (t->kind != PT_FILE_END) t = t->next;
        t->next = end;
        ret = toks;
      }
    }
  }
  free(path);
  free(hn);
  return ret;
}

/* --- the directive table and the main loop --------------------------------- */

typedef pp_tok *(*dir_fn)(pp_state *p, pp_tok *hash, pp_tok *name, pp_tok *end);
static const struct { const char *name; dir_fn fn; } directives[] = {
  { "define", d_define }, { "undef", d_undef }, { "include", d_include },
  { "include_next", d_include }, { "if", d_if }, { "ifdef", d_ifdef },
  { "ifndef", d_ifdef }, { "elif", d_elif }, { "else", d_else }, { "endif", d_endif },
  { "pragma", d_pragma }, { "error", d_error }, { "warning", d_error }, { "line", d_line },
  { "ident", d_ignore }, { "sccs", d_ignore },
};

static pp_tok *directive(pp_state *p, pp_tok *hash)
{
  pp_tok *name = hash->next;
  if (name->bol || name->kind == PT_FILE_END) return name;     /* the null directive */
  pp_tok *end = pp_line_end(name->next);
  if (name->kind == PT_NUM) return d_line(p, hash, name, end);
  for (size_t i = 0; i < sizeof directives / sizeof *directives; i++)
    if (pp_tok_is(name, directives[i].name)) return directives[i].fn(p, hash, name, end);
  dg_diag_add(p->d, DG_SEV_ERROR, name->at, "invalid preprocessing directive #%.*s",
              (int)name->len, name->s);
  return end;
}

static pp_tok *file_end(pp_state *p, pp_tok *t)
{
  pp_incl *in = &p->incl.v[p->incl.n - 1];
  for (; (int)p->cond.n > in->cond_base; p->cond.n--)
    dg_diag_add(p->d, DG_SEV_ERROR, p->cond.v[p->cond.n - 1].at, "unterminated #if (no #endif)");
  p->incl.n--;
  return p->incl.n ? t->next : p->eof;
}

static void run(pp_state *p, pp_tok *tok)
{
  while (!p->stop && tok->kind != PT_EOF) {
    pp_tok *t = tok;
    if (t->kind == PT_FILE_END) {
      tok = file_end(p, t);
    } else if (pp_is_directive(t)) {
      tok = directive(p, t);
    } else if (t->kind == PT_IDENT && pp_expand_head(p, &tok)) {
      continue;
    } else if (t->kind == PT_IDENT && t->len == 7 && pp_tok_is(t, "_Pragma") &&
               (tok = pragma_op(p, t))) {
      continue;
    } else {
      pp_out_tok(p, t);
      tok = t->next;
    }
  }
}

static void cmdline_defines(pp_state *p, const pp_define *defs, int ndefs)
{
  for (int i = 0; i < ndefs; i++) {
    const char *eq = defs[i].value ? NULL : strchr(defs[i].name, '=');
    char *text = eq ? dg_printf("%.*s %s", (int)(eq - defs[i].name), defs[i].name, eq + 1)
                    : dg_printf("%s %s", defs[i].name, defs[i].value ? defs[i].value : "1");
    pp_tok *t = pp_lex_text(p, text, strlen(text), (dg_span){0});
    if (t->kind != PT_IDENT)
      dg_diag_add(p->d, DG_SEV_ERROR, (dg_span){0}, "invalid define \"%s\": not a macro name", defs[i].name);
    else {
      pp_do_define(p, t, p->eof, true);
      pp_macro_get(p, t->s, t->len, true)->cmdline = true;
    }
    free(text);
  }
}

bool pp_run(dg_srcmgr *sm, uint32_t file, const pp_define *defs, int ndefs,
            pp_result *out, dg_diags *d)
{
  memset(out, 0, sizeof *out);
  pp_state st = { .sm = sm, .d = d, .res = out };
  pp_state *p = &st;
  int errors0 = d->nerrors;
  p->eof = pp_tok_new(p, PT_EOF, "", 0, (dg_span){0});
  p->eof->next = p->eof;
  p->eof->bol = true;
  pp_predefine(p);
  cmdline_defines(p, defs, ndefs);
  if (file == 0 || file >= sm->files.n) {
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){0}, "preprocessor: no such source file");
  } else {
    p->cur_file = file;
    p->cur_line = 1;
    pp_incl in = { file, 0, 0, NULL };
    dg_vec_push(&p->incl, in);
    dg_vec_push(&out->segs, ((pp_seg){ 0, { file, 1, 1 }, false }));
    run(p, pp_lex_file(p, file));
  }
  pp_out_finish(p);
  dg_vec_free(&p->incl);
  dg_vec_free(&p->cond);
  dg_vec_free(&p->once);
  dg_arena_free(&p->ar);
  return d->nerrors == errors0;
}
