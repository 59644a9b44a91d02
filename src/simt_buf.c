/* simt_buf.c — the engine's buffers: user buffers (created, wrapped, read,
 * written, their initialised shadow and writer map) and the launch-scoped
 * ones (shared and __device__ variables, locals whose address is taken).
 * The accesses and their checks are simt_mem.c's. */
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

/* ---- buffers ---------------------------------------------------------------- */
int simt_buf_add(simt *m, const char *name, const dg_type *elem, int64_t bytes, int kind, bool init)
{
  simt_buf b = {0};
  size_t sz = bytes > 0 ? (size_t)bytes : 1;
  b.mem.bytes = dg_calloc(sz, 1);
  b.mem.size = bytes > 0 ? bytes : 0;
  b.mem.id = (int)m->bufs.n;
  b.init = dg_malloc(sz);
  memset(b.init, init, sz);
  b.all_init = init;
  b.cap = (int64_t)sz;
  b.name = dg_strdup(name ? name : "?");
  b.elem = elem;
  b.kind = (uint8_t)kind;
  b.lane = -1;
  if (kind == BK_SHARED) b.race = dg_calloc(sz, sizeof *b.race);
  b.gran = elem ? simt_gran_of(elem) : 1;
  dg_vec_push(&m->bufs, b);
  return b.mem.id;
}

int simt_buf_new(simt *m, const char *name, const dg_type *elem, int64_t bytes, unsigned flags)
{
  /* user buffers sit below every launch-scoped one; launches end with none */
  int id = simt_buf_add(m, name, elem, bytes, BK_GLOBAL, flags & SIMT_BUF_INIT);
  m->bufs.v[id].readonly = flags & SIMT_BUF_READONLY;
  m->nuser = id + 1;
  return id;
}

static simt_buf *ubuf(const simt *m, int id)
{
  return id >= 1 && id < m->nuser ? &m->bufs.v[id] : NULL;
}

int simt_buf_wrap(simt *m, const char *name, const dg_type *elem, uint8_t *bytes, int64_t size,
                  unsigned flags)
{
  int id = simt_buf_new(m, name, elem, 0, flags | SIMT_BUF_INIT);
  simt_buf *b = &m->bufs.v[id];
  free(b->mem.bytes), free(b->init);
  b->mem.bytes = bytes, b->mem.size = size > 0 ? size : 0, b->cap = b->mem.size;
  b->init = NULL, b->all_init = true, b->wrapped = true;
  return id;
}

int64_t simt_buf_size(const simt *m, int id) { simt_buf *b = ubuf(m, id); return b ? b->mem.size : -1; }
const char *simt_buf_name(const simt *m, int id) { simt_buf *b = ubuf(m, id); return b ? b->name : NULL; }
uint8_t *simt_buf_data(simt *m, int id) { simt_buf *b = ubuf(m, id); return b ? b->mem.bytes : NULL; }
dom_mem *simt_buf_mem(simt *m, int id) { simt_buf *b = ubuf(m, id); return b ? &b->mem : NULL; }

static bool range_ok(const simt_buf *b, int64_t off, int64_t n)
{
  return b && off >= 0 && n >= 0 && off + n <= b->mem.size;
}

void simt_buf_write(simt *m, int id, int64_t off, const void *src, int64_t n)
{
  simt_buf *b = ubuf(m, id);
  if (!range_ok(b, off, n)) return;
  memcpy(b->mem.bytes + off, src, (size_t)n);
  simt_buf_set_init(m, id, off, n, true);
}

void simt_buf_read(const simt *m, int id, int64_t off, void *dst, int64_t n)
{
  simt_buf *b = ubuf(m, id);
  if (range_ok(b, off, n)) memcpy(dst, b->mem.bytes + off, (size_t)n);
}

void simt_buf_set_init(simt *m, int id, int64_t off, int64_t n, bool init)
{
  simt_buf *b = ubuf(m, id);
  if (!range_ok(b, off, n) || b->wrapped) return;
  memset(b->init + off, init, (size_t)n);
  b->all_init = !memchr(b->init, 0, (size_t)b->mem.size);
}

bool simt_buf_is_init(const simt *m, int id, int64_t off)
{
  simt_buf *b = ubuf(m, id);
  return range_ok(b, off, 1) && (b->wrapped || b->init[off]);
}

void simt_poison(simt_buf *b, int64_t off, int64_t n)
{
  memset(b->init + off, 0, (size_t)n);
  b->all_init = false;
}

/* A shared buffer every byte of which has been written reads without the
 * per-byte check until it is poisoned again (the next block). Checked at
 * barriers: tiles are filled, then read many times. */
void simt_shared_settle(simt_x *x)
{
  simt *m = x->m;
  for (int i = m->nuser; i < x->top; i++) {
    simt_buf *b = &m->bufs.v[i];
    if (b->kind == BK_SHARED && !b->all_init && b->mem.size > 0 && !memchr(b->init, 0, (size_t)b->mem.size))
      b->all_init = true;
  }
}

void simt_track_writes(simt *m, int id)
{
  simt_buf *b = ubuf(m, id);
  if (!b || b->wrapped) return;
  size_t sz = b->mem.size ? (size_t)b->mem.size : 1;
  free(b->writer), free(b->nwriters);
  b->writer = dg_malloc(sz * sizeof *b->writer);
  for (size_t i = 0; i < sz; i++) b->writer[i] = -1;
  b->nwriters = dg_calloc(sz, 1);
}

int64_t simt_writer(const simt *m, int id, int64_t off, int *nw)
{
  simt_buf *b = ubuf(m, id);
  if (!b || !b->writer || !range_ok(b, off, 1)) { if (nw) *nw = 0; return -1; }
  if (nw) *nw = b->nwriters[off];
  return b->writer[off];
}

/* Races are tracked per element of the declared type (a float array: per 4
 * bytes); accesses narrower than that share the element's cell. */
int simt_gran_of(const dg_type *t)
{
  while (t->kind == DG_TY_ARRAY || t->kind == DG_TY_VEC) t = t->elem;
  if (t->kind == DG_TY_STRUCT) {          /* the narrowest slot: fields are separate cells */
    int g = 8;
    for (int i = 0; i < t->nslots; i++) { int s = simt_gran_of(t->slots[i].type); if (s < g) g = s; }
    return t->nslots ? g : 1;
  }
  int64_t s = dom_tysize(t);
  return s == 2 || s == 4 || s == 8 ? (int)s : 1;
}

/* ---- launch-scoped buffers --------------------------------------------------- */
int simt_var_buf(simt_x *x, const dg_var *v)
{
  if (v->kind == DG_VAR_LOCAL || v->kind == DG_VAR_PARAM) return 0;
  if (v->kind == DG_VAR_SHARED_EXTERN) {
    if (!x->extern_buf)   /* no dynamic size given: every access is out of bounds */
      x->extern_buf = simt_buf_add(x->m, "extern __shared__", NULL, 0, BK_SHARED, false);
    simt_buf *b = &x->m->bufs.v[x->extern_buf];
    int g = simt_gran_of(v->type);          /* aliases: the narrowest element wins */
    if (!b->elem || g < b->gran) b->gran = g;
    b->elem = v->type;
    return x->extern_buf;
  }
  for (int i = 0; i < x->nvb; i++) if (x->vb[i].var == v) return x->vb[i].buf;
  if (x->top) return 0;            /* launch already running: not pre-scanned */
  int id = simt_buf_add(x->m, v->name, simt_scalar(v->type), dom_tysize(v->type),
                        v->kind == DG_VAR_SHARED ? BK_SHARED : BK_GLOBAL, false);
  dg_grow_((void **)&x->vb, (size_t *)&x->capvb, (size_t)x->nvb + 1, sizeof *x->vb);
  x->vb[x->nvb++] = (simt_varbuf){ v, id };
  return id;
}

int simt_local_push(simt_x *x, int64_t bytes, int lane, const char *var)
{
  simt *m = x->m;
  int id = x->top++;
  if (id < (int)m->bufs.n) {
    simt_buf *b = &m->bufs.v[id];
    if (b->cap < bytes) {
      b->mem.bytes = dg_realloc(b->mem.bytes, (size_t)bytes);
      b->init = dg_realloc(b->init, (size_t)bytes);
      b->cap = bytes;
    }
    b->mem.size = bytes;
  } else {
    simt_buf_add(m, "local", NULL, bytes, BK_LOCAL, false);
  }
  simt_buf *b = &m->bufs.v[id];
  if (var && (strncmp(b->name, "local ", 6) || strcmp(b->name + 6, var))) {   /* messages name it */
    free(b->name);
    b->name = dg_printf("local %s", var);
  }
  b->kind = BK_LOCAL;
  b->lane = lane;
  simt_poison(b, 0, bytes);
  return id;
}

