/* fe_module.c — the module's function list after loading: callers of
 * functions with errors dropped, lookup by name, templates instantiated on
 * request, a template's declaration as one line. */
#include "fe_int.h"
#include <string.h>

dg_func *fe_instance_from_text(fe_state *st, const char *text, bool quiet, TSNode at);

/* Callers of dropped functions are dropped too (the engine could not run them).
 * A function's info is found through a table keyed by its address (a linear
 * search per callee made this quadratic in the number of functions). */
typedef struct { const dg_func **key; size_t *val; size_t mask; } info_map;

static size_t ptr_slot(const dg_func *f, size_t mask)
{
  uint64_t h = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & mask;
}

static info_map info_map_build(fe_state *st)
{
  info_map im;
  size_t cap = 16;
  while (cap < 2 * st->infos.n) cap *= 2;
  im.key = dg_calloc(cap, sizeof *im.key);
  im.val = dg_calloc(cap, sizeof *im.val);
  im.mask = cap - 1;
  for (size_t i = 0; i < st->infos.n; i++) {
    const dg_func *f = st->infos.v[i].f;
    size_t h = ptr_slot(f, im.mask);
    while (im.key[h] && im.key[h] != f) h = (h + 1) & im.mask;
    if (!im.key[h]) { im.key[h] = f; im.val[h] = i; }   /* the first info of f, as the search found */
  }
  return im;
}

static fe_finfo *info_of(fe_state *st, const info_map *im, const dg_func *f)
{
  for (size_t h = ptr_slot(f, im->mask); im->key[h]; h = (h + 1) & im->mask)
    if (im->key[h] == f) return &st->infos.v[im->val[h]];
  return NULL;
}

void fe_drop_failed(fe_state *st)
{
  info_map im = info_map_build(st);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < st->infos.n; i++) {
      fe_finfo *fi = &st->infos.v[i];
      if (!fi->ok) continue;
      for (int j = 0; j < fi->ncallees; j++) {
        const fe_finfo *ci = info_of(st, &im, fi->callees[j]);
        if (!ci || !ci->ok) {
          fi->ok = false;
          changed = true;
          dg_diag_add(&st->m->diags, DG_SEV_NOTE, fi->f->span, "'%s' dropped: it calls '%s', which has errors", fi->f->name, fi->callees[j]->name);
          if (st->d) dg_diag_add(st->d, DG_SEV_NOTE, fi->f->span, "'%s' dropped: it calls '%s', which has errors", fi->f->name, fi->callees[j]->name);
          break;
        }
      }
    }
  }
  size_t k = 0;
  for (size_t i = 0; i < st->m->funcs.n; i++) {
    dg_func *f = st->m->funcs.v[i];
    const fe_finfo *fi = info_of(st, &im, f);
    if (!fi || fi->ok) st->m->funcs.v[k++] = f;
    else for (size_t j = 0; j < st->defs.n; j++) if (st->defs.v[j]->func == f) st->defs.v[j]->failed = true;
  }
  st->m->funcs.n = k;
  free(im.key);
  free(im.val);
}

dg_func *fe_instantiate(dg_module *m, const char *name_with_args, dg_diags *d)
{
  fe_state *st = m->fe_private;
  if (!st || !st->tree) return NULL;
  dg_func *f = fe_find(m, name_with_args);
  if (f) return f;
  st->d = d;
  size_t before = m->funcs.n;
  f = fe_instance_from_text(st, name_with_args, false, (TSNode){ 0 });
  if (m->funcs.n != before) fe_drop_failed(st);
  if (f && !fe_find(m, f->name)) f = NULL;   /* dropped with a callee */
  st->d = NULL;
  return f;
}

static bool same_ignoring_spaces(const char *a, const char *b)
{
  for (;;) {
    while (*a == ' ') a++;
    while (*b == ' ') b++;
    if (*a != *b) return false;
    if (!*a) return true;
    a++, b++;
  }
}

dg_func *fe_find(const dg_module *m, const char *name)
{
  for (size_t i = 0; i < m->funcs.n; i++)
    if (same_ignoring_spaces(m->funcs.v[i]->name, name)) return m->funcs.v[i];
  return NULL;
}

const char *fe_template_decl(const dg_module *m, size_t i)
{
  fe_state *st = m->fe_private;
  if (!st || i >= m->templates.n) return "";
  size_t k = 0;
  for (size_t j = 0; j < st->defs.n; j++) {
    fe_def *def = st->defs.v[j];
    if (!def->is_template || k++ != i) continue;
    TSNode tmpl = ts_node_parent(def->node);
    TSNode body = fe_field(def->node, "body");
    uint32_t a = ts_node_start_byte(tmpl), b = ts_node_is_null(body) ? ts_node_end_byte(def->node) : ts_node_start_byte(body);
    /* one line: runs of white space become one space */
    char *s = dg_arena_alloc(&st->m->arena, b - a + 1), *o = s;
    for (uint32_t p = a; p < b; p++) {
      char c = st->src[p];
      if (c == '\n' || c == '\t' || c == '\r') c = ' ';
      if (c == ' ' && (o == s || o[-1] == ' ')) continue;
      *o++ = c;
    }
    while (o > s && o[-1] == ' ') o--;
    *o = 0;
    return s;
  }
  return "";
}
