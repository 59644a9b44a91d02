/* simt.c — the machine: launches (block scheduling, kernel arguments),
 * scratch memory, events and traces. Buffers and memory access are in
 * simt_mem.c, expressions in simt_expr.c, masks and branches in simt_mask.c,
 * statements in simt_stmt.c, the builtin functions (barriers, warp ops,
 * atomics) in simt_warp.c. */
#include "simt_int.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dg_type ty_i64 = { .kind = DG_TY_I64, .name = "long" };
static const dg_type ty_bool = { .kind = DG_TY_BOOL, .name = "bool" };
static const dg_type ty_u32 = { .kind = DG_TY_U32, .name = "unsigned" };
static const dg_type ty_i32 = { .kind = DG_TY_I32, .name = "int" };
static const dg_type ty_u8 = { .kind = DG_TY_U8, .name = "char" };
static const dg_type ty_ptr = { .kind = DG_TY_PTR, .elem = &ty_u8, .name = "char *" };

/* ---- scratch: a stack of chunks, released to a mark ------------------------ */
/* simt_alloc (simt_int.h) when the current chunk is full; n is rounded up */
void *simt_alloc_more(simt_x *x, size_t n)
{
  simt_chunk *c = x->cur;
  if (!c->next || c->next->size < n) {
    size_t size = n > (1u << 20) ? n : (1u << 20);
    simt_chunk *nc = dg_malloc(sizeof *nc + size);
    nc->size = size;
    nc->next = c->next;
    c->next = nc;
  }
  c = x->cur = c->next;
  c->used = 0;
  void *p = c->data + c->used;
  c->used += n;
  return p;
}


/* ---- events ----------------------------------------------------------------- */
static const char *ev_names[SIMT_EV__COUNT] = {
#define X(id, name, help) name,
  SIMT_EVENTS(X)
#undef X
};

const char *simt_event_name(simt_evkind k) { return k < SIMT_EV__COUNT ? ev_names[k] : "?"; }

static void coords(const uint32_t dim[3], int64_t lin, uint32_t out[3])
{
  out[0] = (uint32_t)(lin % dim[0]);
  out[1] = (uint32_t)(lin / dim[0] % dim[1]);
  out[2] = (uint32_t)(lin / dim[0] / dim[1]);
}

static bool same_span(dg_span a, dg_span b) { return a.file == b.file && a.line == b.line && a.col == b.col; }

simt_event *simt_report(simt_x *x, simt_evkind k, dg_span sp, int lane, const char *fmt, ...)
{
  simt *m = x->m;
  if (x->pk) simt_pack_abort(x);       /* a packed run reports nothing: the blocks run one by one */
  for (size_t i = 0; i < m->ev.n; i++) {
    simt_event *e = &m->ev.v[i];
    if (e->kind == k && same_span(e->span, sp)) { e->count++; return NULL; }
  }
  if ((int)m->ev.n >= m->max_events) return NULL;
  simt_event e = { .kind = k, .span = sp, .block = x->block, .thread = lane, .thread2 = -1, .count = 1 };
  coords(x->gdim, x->block, e.bidx);
  coords(x->bdim, lane, e.tidx);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.msg, sizeof e.msg, fmt, ap);
  va_end(ap);
  dg_vec_push(&m->ev, e);
  return &m->ev.v[m->ev.n - 1];
}

/* A fatal event ends the launch at once: no value computed after it reaches
 * the domain (a symbolic domain must never see the placeholder a failed
 * evaluation leaves). Everything the run allocated is owned by x or m and
 * freed by simt_run after the jump. */
void simt_fatal(simt_x *x, simt_evkind k, dg_span sp, int lane, const char *what)
{
  simt_report(x, k, sp, lane < 0 ? 0 : lane, "%s", what);
  x->stop = true;
  if (x->unwind) longjmp(*x->unwind, 1);
}

const simt_event *simt_events(const simt *m, size_t *n) { *n = m->ev.n; return m->ev.v; }
void simt_events_clear(simt *m) { m->ev.n = 0; }

void simt_event_format(dg_buf *out, const dg_srcmgr *sm, const simt_event *e)
{
  const char *path = sm && e->span.file ? dg_srcmgr_path(sm, e->span.file) : "?";
  dg_buf_printf(out, "%s:%u:%u: %s: %s (block (%u,%u,%u) thread (%u,%u,%u))",
                path, e->span.line, e->span.col, simt_event_name(e->kind), e->msg,
                e->bidx[0], e->bidx[1], e->bidx[2], e->tidx[0], e->tidx[1], e->tidx[2]);
  if (e->xblock)
    dg_buf_printf(out, " vs block (%u,%u,%u) thread (%u,%u,%u) at line %u:%u", e->bidx2[0], e->bidx2[1], e->bidx2[2],
                  e->tidx2[0], e->tidx2[1], e->tidx2[2], e->span2.line, e->span2.col);
  else if (e->span2.line && e->thread2 >= 0)
    dg_buf_printf(out, " vs thread %lld at line %u:%u", (long long)e->thread2, e->span2.line, e->span2.col);
  else if (e->span2.line)
    dg_buf_printf(out, " vs other threads' reads (the first at line %u:%u)", e->span2.line, e->span2.col);
  if (e->count > 1) dg_buf_printf(out, " [x%lld]", (long long)e->count);
}

/* ---- traces --------------------------------------------------------------------- */
void simt_trace_span(simt_x *x, dg_span sp)
{
  simt *m = x->m;
  if (!sp.line) return;
  for (size_t i = m->trace.n; i-- > 0;)
    if (same_span(m->trace.v[i], sp)) return;
  dg_vec_push(&m->trace, sp);
}

void simt_trace_thread(simt *m, int64_t block, int64_t thread)
{
  m->tracing = true;
  m->tr_block = block;
  m->tr_thread = thread;
  m->trace.n = 0;
}

const dg_span *simt_trace(const simt *m, size_t *n) { *n = m->trace.n; return m->trace.v; }
void simt_on_step(simt *m, simt_step_fn fn, void *ud) { m->step_fn = fn, m->step_ud = ud; }
const char *simt_step_buf_name(const simt *m, int buf)
{
  return buf >= 1 && (size_t)buf < m->bufs.n ? m->bufs.v[buf].name : NULL;
}
simt_stats simt_last_stats(const simt *m) { return m->stats; }
const char *simt_error(const simt *m) { return m->err; }

/* ---- machine -------------------------------------------------------------------- */
simt *simt_new(dom *d)
{
  simt *m = dg_calloc(1, sizeof *m);
  m->d = d ? d : dom_concrete();
  simt_buf_add(m, "NULL", NULL, 0, BK_NULL, false);
  m->nuser = 1;
  return m;
}

void simt_free(simt *m)
{
  if (!m) return;
  for (size_t i = 0; i < m->bufs.n; i++) {
    simt_buf *b = &m->bufs.v[i];
    if (m->d->mem_free && b->mem.cells) m->d->mem_free(m->d, &b->mem);
    if (!b->wrapped) free(b->mem.bytes);
    free(b->init), free(b->name), free(b->race), free(b->writer), free(b->nwriters), free(b->gsh), free(b->gch), free(b->gby), free(b->glby);
  }
  dg_vec_free(&m->bufs);
  dg_vec_free(&m->ev);
  dg_vec_free(&m->trace);
  free(m);
}

/* ---- launch ------------------------------------------------------------------------ */
/* Shared and __device__ variables the kernel can reach get their buffers
 * before it runs, so they never interleave with the locals' stack. */
typedef DG_VEC(const dg_func *) funcvec;
static void scan_expr(simt_x *x, const dg_expr *e, funcvec *seen);
static void scan_stmt(simt_x *x, const dg_stmt *s, funcvec *seen)
{
  if (!s) return;
  scan_expr(x, s->e, seen);
  scan_expr(x, s->step, seen);
  for (int i = 0; i < s->ninits; i++) scan_expr(x, s->inits[i], seen);
  scan_stmt(x, s->init, seen), scan_stmt(x, s->then, seen), scan_stmt(x, s->els, seen);
  for (int i = 0; i < s->nbody; i++) scan_stmt(x, s->body[i], seen);
  if (s->kind == DG_ST_DECL && s->var) simt_var_buf(x, s->var);
}

static void scan_func(simt_x *x, const dg_func *f, funcvec *seen)
{
  for (size_t i = 0; i < seen->n; i++) if (seen->v[i] == f) return;
  dg_vec_push(seen, f);
  for (int i = 0; i < f->nshared; i++) simt_var_buf(x, f->shared[i]);
  scan_stmt(x, f->body, seen);
}

static void scan_expr(simt_x *x, const dg_expr *e, funcvec *seen)
{
  if (!e) return;
  if (e->kind == DG_EX_VAR && e->var) simt_var_buf(x, e->var);
  if (e->kind == DG_EX_CALL && e->func) scan_func(x, e->func, seen);
  scan_expr(x, e->a, seen), scan_expr(x, e->b, seen), scan_expr(x, e->c, seen);
  for (int i = 0; i < e->nargs; i++) scan_expr(x, e->args[i], seen);
}

static bool bad(simt *m, const char *fmt, const char *a, long long b)
{
  snprintf(m->err, sizeof m->err, fmt, a, b);
  return false;
}

static bool check_launch(simt *m, const dg_func *k, const simt_launch *L, const simt_arg *args, int nargs)
{
  if (!k || !k->body) return bad(m, "%s: no kernel body%lld", k ? k->name : "(null)", 0);
  if (nargs != k->nparams)
    return bad(m, "%s: wrong number of arguments (want %lld)", k->name, k->nparams);
  int64_t nt = 1;
  for (int d = 0; d < 3; d++) nt *= L->block[d] ? L->block[d] : 1;
  if (nt > 1024) return bad(m, "%s: %lld threads per block (at most 1024)", k->name, nt);
  for (int i = 0; i < nargs; i++) {
    const dg_type *t = k->params[i]->type;
    if (args[i].kind == SIMT_ARG_BUF) {
      if (t->kind != DG_TY_PTR) return bad(m, "%s: argument %lld is not a pointer", k->params[i]->name, i + 1);
      if (args[i].buf < 1 || args[i].buf >= m->nuser)
        return bad(m, "%s: argument %lld names no buffer", k->params[i]->name, i + 1);
    } else if (args[i].kind != SIMT_ARG_NULL && (t->kind == DG_TY_VOID || t->kind == DG_TY_ARRAY || t->kind == DG_TY_VEC || t->kind == DG_TY_STRUCT)) {
      return bad(m, "%s: argument %lld is not a scalar", k->params[i]->name, i + 1);
    }
  }
  return true;
}

static dom_val *arg_vector(simt_x *x, const dg_type *t, const simt_arg *a, msk *all)
{
  int64_t v = 0;
  switch (a->kind) {
  case SIMT_ARG_BUF: v = (int64_t)dom_ptr((uint32_t)a->buf, a->off); break;
  case SIMT_ARG_INT: v = a->i; break;
  case SIMT_ARG_NULL: v = 0; break;
  case SIMT_ARG_FLOAT: {
    dom_val *r = simt_alloc(x, (size_t)x->n * 8);
    x->d->const_float(x->d, t, x->n, all->b, r, a->f);
    return r;
  }
  }
  if (simt_isfloat(t)) {
    dom_val *r = simt_alloc(x, (size_t)x->n * 8);
    x->d->const_float(x->d, t, x->n, all->b, r, (double)v);
    return r;
  }
  return simt_const(x, t, all, v);
}

static void run_block(simt_x *x, const dg_func *k, dom_val **av, dg_rng *rng, uint64_t seed)
{
  simt *m = x->m;
  simt_mark mk = simt_mark_get(x);
  coords(x->gdim, x->block, x->bidx);
  for (int i = m->nuser; i < (int)m->bufs.n; i++)          /* fresh shared memory */
    if (m->bufs.v[i].kind == BK_SHARED) simt_poison(&m->bufs.v[i], 0, m->bufs.v[i].mem.size);
  x->epoch++;
  simt_gsh_block(x);       /* the global race shadow: the block's first barrier interval */
  simt_race_drop(x);
  for (int w = 0; w < x->nwarps; w++) x->worder[w] = w;
  if (seed)
    for (int w = x->nwarps - 1; w > 0; w--) {
      int j = (int)dg_rng_below(rng, (uint64_t)w + 1), t = x->worder[w];
      x->worder[w] = x->worder[j], x->worder[j] = t;
    }
  memset(x->live, 1, (size_t)x->n);
  x->trace_lane = m->tracing && m->tr_block == x->block && m->tr_thread < x->n ? (int)m->tr_thread : -1;
  msk all = msk_new(x);
  memset(all.b, 1, (size_t)x->n);
  all.lo = 0, all.hi = x->n, all.cnt = x->n;
  simt_call(x, k, av, &all);
  simt_mark_release(x, mk);
}

static void run_blocks(simt_x *x, const dg_func *k, dom_val **av, const int64_t *order, int64_t cnt,
                       int64_t nb, dg_rng *rng, uint64_t seed)
{
  jmp_buf jb;
  if (setjmp(jb)) {
    x->unwind = NULL;
    /* the deadline, met in a loop (simt_stmt.c): of several blocks, say how many ran */
    if (cnt > 1 && !strncmp(x->m->err, "time limit reached", 18))
      snprintf(x->m->err, sizeof x->m->err, "time limit reached after %" PRIu64 " of %" PRId64 " blocks",
               x->m->stats.blocks - 1, cnt);
    return;
  }
  x->unwind = &jb;
  for (int64_t i = 0; i < cnt && !x->stop; i++) {
    if (order[i] < 0 || order[i] >= nb) continue;
    if (x->deadline > 0 && (i & 63) == 0 && dg_now() > x->deadline) {   /* a launch started past it runs none */
      snprintf(x->m->err, sizeof x->m->err, "time limit reached after %" PRId64 " of %" PRId64 " blocks", i, cnt);
      x->stop = true;
      break;
    }
    if (x->max_ops && x->lane_ops > x->max_ops) {
      snprintf(x->m->err, sizeof x->m->err, "work limit reached after %" PRId64 " of %" PRId64 " blocks", i, cnt);
      x->stop = true;
      break;
    }
    x->block = order[i];
    x->m->stats.blocks++;
    run_block(x, k, av, rng, seed);
  }
  x->unwind = NULL;
}

/* The launch's blocks kb at a time as one lane vector (simt_pack.c); false:
 * the packed run stopped and left memory, counts and events as before the
 * launch, which then runs block by block. */
static bool run_packed(simt_x *x, const dg_func *k, dom_val **av, int64_t cnt, int kb)
{
  simt *m = x->m;
  simt_mark mk = simt_mark_get(x);
  int top0 = x->top;
  x->pk = simt_pack_new(x);
  if (setjmp(*simt_pack_jb(x->pk))) {
    simt_pack_done(x, true);
    simt_mark_release(x, mk);
    x->n = x->nb1, x->nwarps = (x->n + 31) / 32;
    x->all.lo = 0, x->all.hi = x->all.cnt = x->n;
    x->pvary = 0, x->top = top0, x->fr = NULL, x->brk = x->cont = NULL, x->ncont = 0, x->depth = 0;
    x->gm = NULL, x->gv = NULL, x->in_atomic = false, x->stop = false, x->lane_ops = 0;
    x->u_node = x->t_node = NULL, x->uni = x->thin = false;
    simt_race_drop(x);
    simt_gsh_reset(x);
    m->stats.blocks = 0;
    m->ev.n = 0;
    return false;
  }
  for (int64_t i = 0; i < cnt; i += kb) {
    int nb = cnt - i < kb ? (int)(cnt - i) : kb;
    simt_pack_begin(x, i, nb);
    m->stats.blocks += (uint64_t)nb;
    run_block(x, k, av, NULL, 0);
  }
  simt_pack_done(x, false);
  x->n = x->nb1, x->nwarps = (x->n + 31) / 32, x->pvary = 0;
  x->all.lo = 0, x->all.hi = x->all.cnt = x->n;
  m->stats.packed = (uint64_t)cnt;
  return true;
}

simt_status simt_run(simt *m, const dg_func *k, const simt_launch *L, const simt_arg *args, int nargs)
{
  m->err[0] = 0;
  m->ev.n = 0;
  m->max_events = L->max_events > 0 ? L->max_events : 64;
  memset(&m->stats, 0, sizeof m->stats);
  if (m->tracing) m->trace.n = 0;
  if (!check_launch(m, k, L, args, nargs)) return SIMT_BADARGS;

  simt_x x = { .m = m, .d = m->d, .trace_lane = -1, .extern_buf = 0 };
  x.t_i64 = &ty_i64, x.t_bool = &ty_bool, x.t_u32 = &ty_u32, x.t_i32 = &ty_i32, x.t_ptr = &ty_ptr;
  for (int d = 0; d < 3; d++) {
    x.bdim[d] = L->block[d] ? L->block[d] : 1;
    x.gdim[d] = L->grid[d] ? L->grid[d] : 1;
  }
  x.n = x.nb1 = (int)(x.bdim[0] * x.bdim[1] * x.bdim[2]);
  x.kfunc = k;
  x.pro = simt_params_ro(k), x.pset = simt_slots_set(k);
  x.deadline = L->deadline;
  x.max_ops = L->max_lane_ops;
  x.max_iters = L->max_loop_iters > 0 ? L->max_loop_iters : (1 << 20);
  x.chunks = x.cur = dg_malloc(sizeof *x.chunks + (1u << 20));
  x.chunks->next = NULL, x.chunks->used = 0, x.chunks->size = 1u << 20;
  x.ident = m->d == dom_concrete();
  int64_t nb = (int64_t)x.gdim[0] * x.gdim[1] * x.gdim[2];
  int64_t cnt = L->blocks ? L->nblocks : nb;
  x.gl = ++m->glaunch;
  /* concrete bytes; one block of one warp: no race on global memory */
  x.gsh = m->d->mem_bytes && (cnt > 1 || x.nb1 > 32) && nb < UINT32_MAX;
  /* the launch's lane vectors hold a pack's lanes: several blocks' where they pack */
  int kb = simt_pack_plan(&x, k, L, cnt);
  x.n = x.ncap = x.nb1 * kb;
  x.nwarps = (x.n + 31) / 32;
  for (int d = 0; d < 3; d++) {
    x.tid[d] = dg_malloc(sizeof(int64_t) * (size_t)x.n);
    x.pbid[d] = kb > 1 ? dg_malloc(sizeof(int64_t) * (size_t)x.n) : NULL;
  }
  for (int i = 0; i < x.n; i++) {
    int t = i % x.nb1;
    x.tid[0][i] = t % x.bdim[0];
    x.tid[1][i] = t / x.bdim[0] % x.bdim[1];
    x.tid[2][i] = t / x.bdim[0] / x.bdim[1];
  }
  x.live = dg_malloc((size_t)x.n);
  x.zeros = dg_calloc((size_t)x.n * 16, sizeof *x.zeros);
  x.all = (msk){ dg_malloc((size_t)x.n), 0, x.n, x.n };
  memset(x.all.b, 1, (size_t)x.n);
  x.wsync = dg_calloc((size_t)x.nwarps, sizeof *x.wsync);
  x.worder = dg_malloc(sizeof(int) * (size_t)x.nwarps);
  if (L->shared_bytes > 0)
    x.extern_buf = simt_buf_add(m, "extern __shared__", NULL, L->shared_bytes, BK_SHARED, false);
  funcvec seen = {0};
  scan_func(&x, k, &seen);
  dg_vec_free(&seen);
  x.top = (int)m->bufs.n;
  if (m->bufs.n > (size_t)m->nuser) kb = 1;       /* shared or __device__ memory: blocks run one by one */
  int64_t *order = dg_malloc(sizeof *order * (size_t)(cnt ? cnt : 1));
  for (int64_t i = 0; i < cnt; i++) order[i] = L->blocks ? L->blocks[i] : i;
  dg_rng rng;
  dg_rng_seed(&rng, L->seed);
  if (L->seed)
    for (int64_t i = cnt - 1; i > 0; i--) {
      int64_t j = (int64_t)dg_rng_below(&rng, (uint64_t)i + 1), t = order[i];
      order[i] = order[j], order[j] = t;
    }
  /* the arguments are the same in every block: one vector each, kept all launch */
  dom_val **av = simt_alloc(&x, sizeof *av * (size_t)(k->nparams + 1));
  for (int i = 0; i < k->nparams; i++) av[i] = arg_vector(&x, k->params[i]->type, &args[i], &x.all);
  x.n = x.nb1, x.nwarps = (x.n + 31) / 32, x.all.hi = x.all.cnt = x.n;
  if (kb < 2 || !run_packed(&x, k, av, cnt, kb))
    run_blocks(&x, k, av, order, cnt, nb, &rng, L->seed);
  m->stats.lane_ops = x.lane_ops;

  /* launch-scoped buffers (shared, locals) go away */
  for (size_t i = (size_t)m->nuser; i < m->bufs.n; i++) {
    simt_buf *b = &m->bufs.v[i];
    if (m->d->mem_free && b->mem.cells) m->d->mem_free(m->d, &b->mem);
    free(b->mem.bytes), free(b->init), free(b->name), free(b->race), free(b->writer), free(b->nwriters);
    free(b->gsh), free(b->gch), free(b->gby), free(b->glby);
  }
  m->bufs.n = (size_t)m->nuser;
  for (simt_chunk *c = x.chunks, *nx; c; c = nx) nx = c->next, free(c);
  for (int d = 0; d < 3; d++) free(x.tid[d]), free(x.pbid[d]);
  for (size_t i = 0; i < x.kccap; i++) free(x.kc[i].v);
  free(x.kc), free(x.all.b);
  simt_uni_free(&x);
  free(x.live), free(x.zeros), free(x.wsync), free(x.worder), free(x.vb), free(order);
  free(x.rlog), free(x.rlog_data), free(x.gsp), free(x.gbt.v), free(x.gex);
  return x.stop ? SIMT_STOPPED : SIMT_OK;
}
