/* fe_help.h — helpers for the front-end unit tests: lower a string, print IR,
 * collect diagnostics as text. */
#ifndef DG_FE_HELP_H
#define DG_FE_HELP_H
#include "fe.h"
#include "../tap.h"

typedef struct {
  dg_srcmgr sm;
  dg_diags d;
  dg_module *m;
  char *ir;      /* IR of every function, or NULL */
  char *diags;   /* diagnostics, one per line */
} fe_t;

static fe_t *fe_t_load_opts(const char *src, const fe_options *opt)
{
  fe_t *t = calloc(1, sizeof *t);
  dg_srcmgr_init(&t->sm);
  uint32_t f = dg_srcmgr_add(&t->sm, "t.cu", dg_strdup(src), strlen(src));
  t->m = fe_load_file(&t->sm, f, opt, &t->d);
  dg_buf b = { 0 }, e = { 0 };
  dg_buf_puts(&b, "");
  dg_buf_puts(&e, "");
  for (size_t i = 0; t->m && i < t->m->funcs.n; i++) ir_print_func(&b, t->m, t->m->funcs.v[i]);
  for (size_t i = 0; i < t->d.v.n; i++) {
    dg_diag_format(&e, &t->sm, &t->d.v.v[i]);
    dg_buf_putc(&e, '\n');
  }
  t->ir = dg_buf_take(&b);
  t->diags = dg_buf_take(&e);
  return t;
}

static inline fe_t *fe_t_load(const char *src) { return fe_t_load_opts(src, NULL); }

/* IR of one function of t (after instantiations), owned by the caller. */
static inline char *fe_t_func(fe_t *t, const char *name)
{
  dg_func *f = t->m ? fe_find(t->m, name) : NULL;
  if (!f) return dg_strdup("<none>");
  dg_buf b = { 0 };
  ir_print_func(&b, t->m, f);
  return dg_buf_take(&b);
}

static void fe_t_free(fe_t *t)
{
  fe_module_free(t->m);
  dg_diags_free(&t->d);
  dg_srcmgr_free(&t->sm);
  free(t->ir);
  free(t->diags);
  free(t);
}

/* Lowers src, expects no diagnostics and the IR to contain want. */
#define lowers_to(src, want, ...) do { fe_t *t_ = fe_t_load(src); \
  is_str(t_->diags, "", __VA_ARGS__); has_str(t_->ir, want, __VA_ARGS__); fe_t_free(t_); } while (0)
/* Lowers src, expects a diagnostic containing want. */
#define diag_is(src, want, ...) do { fe_t *t_ = fe_t_load(src); \
  has_str(t_->diags, want, __VA_ARGS__); fe_t_free(t_); } while (0)

#endif
