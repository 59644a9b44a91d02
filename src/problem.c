/* problem.c — the resolved problem: construction helpers for the loader,
 * resolution of launch arguments, constraint checks, shapes for given sizes. */
#include "problem.h"
#include <stdlib.h>
#include <string.h>

dg_problem *dg_problem_new(void)
{
  dg_problem *p = dg_calloc(1, sizeof *p);
  dg_srcmgr_init(&p->sm);
  return p;
}

void dg_pexpr_free(dg_pexpr *x)
{
  free(x->text);
  dg_sexpr_free(x->e);
  x->text = NULL;
  x->e = NULL;
}

static void tensor_free(dg_tensor *t)
{
  free(t->name);
  for (size_t i = 0; i < t->shape.n; i++) dg_pexpr_free(&t->shape.v[i]);
  dg_vec_free(&t->shape);
  dg_pexpr_free(&t->range_lo);
  dg_pexpr_free(&t->range_hi);
  dg_pexpr_free(&t->zero_bytes);
}

void dg_problem_free(dg_problem *p)
{
  if (!p) return;
  if (p->ref.ops && p->ref.ops->free) p->ref.ops->free(p->ref.self);
  for (size_t i = 0; i < p->tensors.n; i++) tensor_free(&p->tensors.v[i]);
  dg_vec_free(&p->tensors);
  for (size_t i = 0; i < p->attrs.n; i++) {
    free(p->attrs.v[i].name);
    free(p->attrs.v[i].s);
    dg_vec_free(&p->attrs.v[i].list);
  }
  dg_vec_free(&p->attrs);
  for (size_t i = 0; i < p->sizes.n; i++) {
    free(p->sizes.v[i].name);
    dg_vec_free(&p->sizes.v[i].candidates);
  }
  dg_vec_free(&p->sizes);
  for (size_t i = 0; i < p->launches.n; i++) dg_launch_free(p->launches.v[i]);
  dg_vec_free(&p->launches);
  for (size_t i = 0; i < p->constraints.n; i++) dg_pexpr_free(&p->constraints.v[i].e);
  dg_vec_free(&p->constraints);
  for (size_t i = 0; i < p->defines.n; i++) {
    free((char *)p->defines.v[i].name);
    free((char *)p->defines.v[i].value);
  }
  dg_vec_free(&p->defines);
  for (size_t i = 0; i < p->templ.n; i++) free(p->templ.v[i]);
  dg_vec_free(&p->templ);
  dg_vec_free(&p->op_tol);
  free(p->spec_path);
  free(p->source);
  free(p->op_name);
  free(p->op_path);
  free(p->bug_pattern);
  free(p->bug_detail);
  dg_srcmgr_free(&p->sm);
  free(p);
}

dg_span dg_problem_span_of(const dg_problem *p, uint32_t file, size_t off)
{
  dg_span sp = { file, 1, 1 };
  if (!file || file >= p->sm.files.n) return (dg_span){ 0, 0, 0 };
  const dg_srcfile *f = &p->sm.files.v[file];
  for (size_t i = 0; i < off && i < f->len; i++) {
    if (f->text[i] == '\n') sp.line++, sp.col = 1;
    else sp.col++;
  }
  return sp;
}

dg_span dg_pexpr_span(const dg_problem *p, const dg_pexpr *x, size_t pos)
{
  if (x->file_off == SIZE_MAX || !x->span.file) return x->span;
  return dg_problem_span_of(p, x->span.file, x->file_off + pos);
}

bool dg_pexpr_init(dg_pexpr *x, const char *text, dg_span span, size_t file_off,
                   const dg_problem *p, dg_diags *d)
{
  dg_sexpr_err err;
  x->text = dg_strdup(text);
  x->span = span;
  x->file_off = file_off;
  x->e = dg_sexpr_parse(text, &err);
  if (!x->e) dg_diag_add(d, DG_SEV_ERROR, dg_pexpr_span(p, x, err.pos), "bad size expression '%s': %s", text, err.msg);
  return x->e != NULL;
}

/* ---- lookups --------------------------------------------------------------------- */
int dg_problem_tensor(const dg_problem *p, const char *name)
{
  for (size_t i = 0; i < p->tensors.n; i++)
    if (!strcmp(p->tensors.v[i].name, name)) return (int)i;
  return -1;
}

int dg_problem_size(const dg_problem *p, const char *name)
{
  for (size_t i = 0; i < p->sizes.n; i++)
    if (!strcmp(p->sizes.v[i].name, name)) return (int)i;
  return -1;
}

int dg_problem_attr(const dg_problem *p, const char *name)
{
  for (size_t i = 0; i < p->attrs.n; i++)
    if (!strcmp(p->attrs.v[i].name, name)) return (int)i;
  return -1;
}

void dg_problem_default_sizes(const dg_problem *p, int64_t *out)
{
  for (size_t i = 0; i < p->sizes.n; i++) out[i] = p->sizes.v[i].value;
}

static bool attr_is_int(const dg_attr *a) { return a->kind == DG_ATTR_INT || a->kind == DG_ATTR_BOOL; }

size_t dg_problem_nsyms(const dg_problem *p)
{
  size_t n = p->sizes.n;
  for (size_t i = 0; i < p->attrs.n; i++) n += attr_is_int(&p->attrs.v[i]);
  return n;
}

void dg_problem_symtab(const dg_problem *p, const int64_t *sizes, const char **names,
                       int64_t *vals, dg_symtab *st)
{
  size_t k = 0;
  for (size_t i = 0; i < p->sizes.n; i++) names[k] = p->sizes.v[i].name, vals[k++] = sizes[i];
  for (size_t i = 0; i < p->attrs.n; i++)
    if (attr_is_int(&p->attrs.v[i])) names[k] = p->attrs.v[i].name, vals[k++] = p->attrs.v[i].i;
  *st = (dg_symtab){ names, vals, k };
}

/* Evaluation with a temporary symbol table (symbol counts are small). */
#define WITH_SYMTAB(p, sizes, st) \
  size_t nsyms_ = dg_problem_nsyms(p); \
  const char *names_[nsyms_ + 1]; \
  int64_t vals_[nsyms_ + 1]; \
  dg_symtab st; \
  dg_problem_symtab(p, sizes, names_, vals_, &st)

static bool eval_pexpr(const dg_problem *p, const dg_pexpr *x, const dg_symtab *st, int64_t *v,
                       const char *what, dg_diags *d)
{
  dg_sexpr_err err;
  if (dg_sexpr_eval(x->e, st, v, &err)) return true;
  if (d) dg_diag_add(d, DG_SEV_ERROR, dg_pexpr_span(p, x, err.pos), "%s '%s': %s", what, x->text, err.msg);
  return false;
}

/* "C = 1001, N = 3": the values of the symbols x uses, for messages. */
static void describe_syms(dg_buf *b, const dg_pexpr *x, const dg_symtab *st)
{
  const char *names[16];
  size_t n = dg_sexpr_symbols(x->e, names, 16);
  for (size_t i = 0; i < n; i++) {
    int64_t v;
    if (dg_symtab_get(st, names[i], &v)) dg_buf_printf(b, "%s%s = %lld", b->n ? ", " : "", names[i], (long long)v);
  }
}

bool dg_problem_check_sizes(const dg_problem *p, const int64_t *sizes, dg_diags *d)
{
  WITH_SYMTAB(p, sizes, st);
  bool good = true;
  for (size_t i = 0; i < p->constraints.n; i++) {
    const dg_constraint *c = &p->constraints.v[i];
    int64_t v;
    if (!eval_pexpr(p, &c->e, &st, &v, "constraint", d)) {
      good = false;
      continue;
    }
    if (v) continue;
    good = false;
    dg_buf b = {0};
    describe_syms(&b, &c->e, &st);
    dg_diag_add(d, DG_SEV_ERROR, dg_pexpr_span(p, &c->e, 0), "sizes break the %s constraint '%s' (%s)",
                c->from_op ? "op's" : "kernel's", c->e.text, b.s ? b.s : "");
    dg_buf_free(&b);
  }
  for (size_t t = 0; good && t < p->tensors.n; t++) {
    int64_t dims[p->tensors.v[t].shape.n + 1];
    good = dg_problem_shape(p, (int)t, sizes, dims, d);
  }
  for (size_t t = 0; good && t < p->tensors.n; t++) {   /* an index range to draw from must hold a value */
    const dg_tensor *tt = &p->tensors.v[t];
    int64_t lo, hi;
    if (!tt->has_range) continue;
    if (!dg_problem_range(p, (int)t, sizes, &lo, &hi, d)) good = false;
    else if (lo > hi) {
      dg_buf b = {0};
      describe_syms(&b, &tt->range_hi, &st);
      if (!b.s) describe_syms(&b, &tt->range_lo, &st);
      dg_diag_add(d, DG_SEV_ERROR, dg_pexpr_span(p, &tt->range_lo, 0),
                  "range of %s is empty: {%s, %s} is {%lld, %lld}%s%s (inclusive: lo must not exceed hi)", tt->name,
                  tt->range_lo.text, tt->range_hi.text, (long long)lo, (long long)hi, b.s ? " at " : "",
                  b.s ? b.s : "");
      dg_buf_free(&b);
      good = false;
    }
  }
  return good;
}

bool dg_problem_shape(const dg_problem *p, int t, const int64_t *sizes, int64_t *dims, dg_diags *d)
{
  WITH_SYMTAB(p, sizes, st);
  const dg_tensor *tt = &p->tensors.v[t];
  for (size_t k = 0; k < tt->shape.n; k++) {
    if (!eval_pexpr(p, &tt->shape.v[k], &st, &dims[k], "shape", d)) return false;
    if (dims[k] < 0) {
      if (d) dg_diag_add(d, DG_SEV_ERROR, dg_pexpr_span(p, &tt->shape.v[k], 0),
                         "dimension %zu of %s is %lld ('%s')", k, tt->name, (long long)dims[k], tt->shape.v[k].text);
      return false;
    }
  }
  return true;
}

int64_t dg_problem_numel(const dg_problem *p, int t, const int64_t *sizes)
{
  size_t rank = p->tensors.v[t].shape.n;
  int64_t dims[rank + 1], n = 1;
  if (!dg_problem_shape(p, t, sizes, dims, NULL)) return -1;
  for (size_t k = 0; k < rank; k++)
    if (__builtin_mul_overflow(n, dims[k], &n)) return -1;
  return n;
}

bool dg_problem_range(const dg_problem *p, int t, const int64_t *sizes, int64_t *lo, int64_t *hi,
                      dg_diags *d)
{
  const dg_tensor *tt = &p->tensors.v[t];
  if (!tt->has_range) return false;
  WITH_SYMTAB(p, sizes, st);
  return eval_pexpr(p, &tt->range_lo, &st, lo, "range", d) && eval_pexpr(p, &tt->range_hi, &st, hi, "range", d);
}

bool dg_problem_zero_bytes(const dg_problem *p, int t, const int64_t *sizes, int64_t *n, dg_diags *d)
{
  const dg_tensor *tt = &p->tensors.v[t];
  *n = 0;
  if (!tt->zero_bytes.e) return true;
  WITH_SYMTAB(p, sizes, st);
  return eval_pexpr(p, &tt->zero_bytes, &st, n, "zero_bytes", d);
}

static dg_span launch_span(const dg_problem *p, const dg_launch *l, size_t off)
{
  if (l->file_off == SIZE_MAX || !l->span.file) return l->span;
  return dg_problem_span_of(p, l->span.file, l->file_off + off);
}

dg_span dg_problem_launch_arg_span(const dg_problem *p, int li, int a)
{
  const dg_launch *l = p->launches.v[li];
  return a >= 0 && (size_t)a < l->args.n ? launch_span(p, l, l->args.v[a].off) : l->span;
}

bool dg_problem_launch_dims(const dg_problem *p, int i, const int64_t *sizes, int64_t grid[3],
                            int64_t block[3], int64_t *shared, dg_diags *d)
{
  const dg_launch *l = p->launches.v[i];
  WITH_SYMTAB(p, sizes, st);
  dg_sexpr_err err;
  if (dg_launch_dims(l, &st, grid, block, shared, &err)) return true;
  if (d) dg_diag_add(d, DG_SEV_ERROR, launch_span(p, l, err.pos), "launch of %s: %s", l->kernel, err.msg);
  return false;
}

char *dg_problem_launch_instance(const dg_problem *p, int i, bool *templated)
{
  const dg_launch *l = p->launches.v[i];
  char *const *targs = l->targs.n ? l->targs.v : p->templ.v;
  size_t n = l->targs.n ? l->targs.n : p->templ.n;
  if (templated) *templated = n > 0;
  dg_buf b = {0};
  dg_buf_puts(&b, l->kernel);
  if (n) {
    dg_buf_putc(&b, '<');
    for (size_t k = 0; k < n; k++) dg_buf_printf(&b, "%s%s", k ? ", " : "", targs[k]);
    dg_buf_putc(&b, '>');
  }
  return dg_buf_take(&b);
}

bool dg_problem_arg_int(const dg_problem *p, int i, int arg, const int64_t *sizes, int64_t *v,
                        dg_diags *d)
{
  const dg_launch *l = p->launches.v[i];
  const dg_launch_arg *a = &l->args.v[arg];
  if (a->kind == DG_ARG_BOOL) return *v = a->i, true;
  if (a->kind != DG_ARG_EXPR) return false;
  WITH_SYMTAB(p, sizes, st);
  dg_sexpr_err err;
  if (dg_sexpr_eval(a->expr, &st, v, &err)) return true;
  if (d) dg_diag_add(d, DG_SEV_ERROR, launch_span(p, l, a->off + err.pos), "argument '%s': %s", a->text, err.msg);
  return false;
}

dg_tol dg_problem_tol(const dg_problem *p, int t)
{
  if (p->has_tol) return p->tol;
  dg_dtype dt = t >= 0 && (size_t)t < p->tensors.n ? p->tensors.v[t].dtype : p->dtype;
  for (size_t i = 0; i < p->op_tol.n; i++)
    if (p->op_tol.v[i].dtype == dt) return p->op_tol.v[i].tol;
  return (dg_tol){ dg_dtypes[dt].atol, dg_dtypes[dt].rtol };
}

/* ---- finishing: every name used is known ----------------------------------------- */
static bool sym_known(const dg_problem *p, const char *name)
{
  if (dg_problem_size(p, name) >= 0) return true;
  int a = dg_problem_attr(p, name);
  return a >= 0 && attr_is_int(&p->attrs.v[a]);
}

static bool check_pexpr_syms(const dg_problem *p, const dg_pexpr *x, const char *what, dg_diags *d)
{
  const char *names[32];
  size_t n = dg_sexpr_symbols(x->e, names, 32);
  bool good = true;
  for (size_t i = 0; i < n; i++) {
    if (sym_known(p, names[i])) continue;
    const char *why = dg_problem_tensor(p, names[i]) >= 0 ? " (a tensor, not a size)"
                    : dg_problem_attr(p, names[i]) >= 0 ? " (not an integer attribute)" : "";
    dg_diag_add(d, DG_SEV_ERROR, dg_pexpr_span(p, x, dg_sexpr_symbol_pos(x->e, names[i])),
                "unknown size '%s' in %s '%s'%s", names[i], what, x->text, why);
    good = false;
  }
  return good;
}

static bool resolve_arg(const dg_problem *p, dg_launch *l, dg_launch_arg *a, dg_diags *d)
{
  if (a->kind != DG_ARG_EXPR) return true;
  const char *name;
  if (dg_sexpr_is_symbol(a->expr, &name)) {
    int t = dg_problem_tensor(p, name), at = dg_problem_attr(p, name);
    if (t >= 0 || (at >= 0 && !attr_is_int(&p->attrs.v[at]))) {
      a->kind = t >= 0 ? DG_ARG_TENSOR : DG_ARG_ATTR;
      a->index = t >= 0 ? t : at;
      dg_sexpr_free(a->expr);
      a->expr = NULL;
      return true;
    }
  }
  const char *names[32];
  size_t n = dg_sexpr_symbols(a->expr, names, 32);
  bool good = true;
  for (size_t i = 0; i < n; i++) {
    if (sym_known(p, names[i])) continue;
    const char *why = dg_problem_tensor(p, names[i]) >= 0 ? " (a tensor inside an expression)" : "";
    dg_diag_add(d, DG_SEV_ERROR, launch_span(p, l, a->off + dg_sexpr_symbol_pos(a->expr, names[i])),
                "unknown name '%s' in the arguments of %s: not a tensor, scratch buffer, size or attribute%s",
                names[i], l->kernel, why);
    good = false;
  }
  return good;
}

static bool check_dim_syms(const dg_problem *p, const dg_launch *l, const dg_dim3 *dm, dg_diags *d)
{
  bool good = true;
  for (int k = 0; k < dm->n; k++) {
    const char *names[32];
    size_t n = dg_sexpr_symbols(dm->e[k], names, 32);
    for (size_t i = 0; i < n; i++)
      if (!sym_known(p, names[i])) {
        dg_diag_add(d, DG_SEV_ERROR, launch_span(p, l, dm->off[k] + dg_sexpr_symbol_pos(dm->e[k], names[i])),
                    "unknown size '%s' in the launch configuration of %s", names[i], l->kernel);
        good = false;
      }
  }
  return good;
}

bool dg_problem_finish(dg_problem *p, dg_diags *d)
{
  bool good = true;
  for (size_t t = 0; t < p->tensors.n; t++) {
    dg_tensor *tt = &p->tensors.v[t];
    for (size_t k = 0; k < tt->shape.n; k++) good &= check_pexpr_syms(p, &tt->shape.v[k], "shape", d);
    if (tt->has_range) good &= check_pexpr_syms(p, &tt->range_lo, "range", d) & check_pexpr_syms(p, &tt->range_hi, "range", d);
    if (tt->zero_bytes.e) good &= check_pexpr_syms(p, &tt->zero_bytes, "zero_bytes", d);
  }
  for (size_t i = 0; i < p->constraints.n; i++) good &= check_pexpr_syms(p, &p->constraints.v[i].e, "constraint", d);
  for (size_t i = 0; i < p->launches.n; i++) {
    dg_launch *l = p->launches.v[i];
    good &= check_dim_syms(p, l, &l->grid, d) & check_dim_syms(p, l, &l->block, d);
    for (size_t k = 0; k < l->args.n; k++) good &= resolve_arg(p, l, &l->args.v[k], d);
  }
  if (!good) return false;
  int64_t sizes[p->sizes.n + 1];
  dg_problem_default_sizes(p, sizes);
  if (!dg_problem_check_sizes(p, sizes, d)) return false;
  for (size_t i = 0; i < p->launches.n; i++) {
    int64_t g[3], b[3], sh;
    good &= dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, d);
  }
  return good;
}

/* ---- the dirigo: block of a .cu file ----------------------------------------- */
static const char *skip_blanks(const char *s)
{
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v') s++;
  return s;
}

static bool opens_block(const char *s) { return !strncmp(skip_blanks(s + 2), "dirigo:", 7); }

const char *dg_spec_block(const char *text, const char **late)
{
  if (late) *late = NULL;
  const char *s = skip_blanks(text);
  for (;;) {
    if (s[0] == '/' && s[1] == '*') {
      if (opens_block(s)) return s;
      const char *e = strstr(s + 2, "*/");
      if (!e) break;
      s = skip_blanks(e + 2);
    } else if (s[0] == '/' && s[1] == '/') {
      const char *e = strchr(s, '\n');
      if (!e) break;
      s = skip_blanks(e + 1);
    } else {
      break;
    }
  }
  if (late)
    for (const char *c = strstr(s, "/*"); c; c = strstr(c + 2, "/*"))
      if (opens_block(c)) {
        *late = c;
        break;
      }
  return NULL;
}
