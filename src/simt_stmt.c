/* simt_stmt.c — statements and calls under lane masks. exec(s, k) runs s
 * for the lanes of k and leaves in k the lanes that fall out of s normally:
 * lanes that break, continue or return are moved to the innermost loop's
 * (or switch's) masks or to the frame's returned mask. Loops run while any
 * lane is active, with a step limit; if/else run both sides under masks. */
#include "simt_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*ex_fn)(simt_x *x, const dg_stmt *s, msk *k);

static void step_cond(simt_x *x, const dg_stmt *s, const dg_expr *cond, const msk *t, const simt_split *sp);
static void step_update(simt_x *x, const dg_stmt *s, msk *k);
static void expr_slots(const dg_expr *e, uint64_t *wr, uint64_t *rd);
static void stmt_slots(const dg_stmt *s, uint64_t *wr, uint64_t *rd);

/* Steps: someone listens and the traced lane is in k (one test when nobody is traced). */
static inline bool traced(const simt_x *x, const msk *k)
{
  int l = x->trace_lane;
  return l >= 0 && x->m->step_fn && l >= k->lo && l < k->hi && k->b[l];
}

static void clear(msk *k)
{
  memset(k->b + k->lo, 0, (size_t)(k->hi - k->lo));
  k->cnt = 0, k->hi = k->lo;
}

static void st_block(simt_x *x, const dg_stmt *s, msk *k)
{
  for (int i = 0; i < s->nbody && k->cnt && !x->stop; i++) simt_exec(x, s->body[i], k);
}

/* Innermost scalar of a (possibly nested) array type: initialiser lists are
 * taken flattened in that type. */
static const dg_type *inner(const dg_type *t)
{
  while (t->kind == DG_TY_ARRAY) t = t->elem;
  return t;
}

/* A scalar register declared with one value for every lane (float s = 0.0f):
 * converted once and written to the lanes (what the conversion and merge of
 * the filled value leave); false: not such a declaration now. */
static bool decl_uni(simt_x *x, const dg_var *v, const dg_expr *e, const msk *k, const dom_val *val)
{
  dg_tykind tk = v->type->kind, ek = e->type->kind;
  if (!x->ident || x->gm || x->trace_lane >= 0 || tk < DG_TY_BOOL || tk > DG_TY_F64 || ek < DG_TY_BOOL || ek > DG_TY_F64)
    return false;
  simt_fill_uni(x, v->slot, v->type, k, simt_uni_cast(x, DG_CAST_CONVERT, v->type, e->type, val[msk_first(k).lo]));
  return true;
}

static void st_decl(simt_x *x, const dg_stmt *s, msk *k)
{
  const dg_var *v = s->var;
  if (!v) return;
  simt_mark mk = simt_mark_get(x);
  if (x->fr->reg[v->slot]) {
    if (s->e) {
      dom_val *val = simt_eval_u(x, s->e, k);
      bool uni = x->uni;
      if (uni && decl_uni(x, v, s->e, k, val)) {
        simt_mark_release(x, mk);
        return;
      }
      if (x->thin) {                          /* simt_eval's fill of a thin value */
        int nc = s->e->type->kind == DG_TY_ARRAY ? 1 : simt_ncomp(s->e->type), l = msk_first(k).lo;
        for (int c = 0; c < nc; c++) {
          dom_val *rc = val + (size_t)c * x->n, u = rc[l];
          for (int i = k->lo; i < k->hi; i++) rc[i] = u;
        }
        x->thin = false;
      }
      val = simt_convert(x, v->type, s->e->type, k, val);
      if (x->gm) val = simt_guarded(x, v->type, k, val, x->fr->reg[v->slot]);
      simt_merge(x, x->fr->reg[v->slot], val, k, simt_ncomp(v->type));
      simt_reg_wrote(x, v->slot, v->type, k, uni);
    }
    simt_mark_release(x, mk);
    return;
  }
  int64_t size = dom_tysize(v->type);
  int64_t *addr = simt_alloc(x, sizeof *addr * (size_t)x->n);
  for (int i = k->lo; i < k->hi; i++) {
    addr[i] = (int64_t)dom_ptr((uint32_t)(x->fr->obj[v->slot] + i), 0);
    if (k->b[i]) simt_poison(&x->m->bufs.v[x->fr->obj[v->slot] + i], 0, size);
  }
  if (s->e) {
    dom_val *val = simt_convert(x, v->type, s->e->type, k, simt_eval(x, s->e, k));
    simt_mem_access(x, s->span, v->type, k, addr, val, true);
  } else if (s->ninits > 0 || v->type->kind == DG_TY_ARRAY) {
    if (s->ninits == 0) { simt_mark_release(x, mk); return; }
    const dg_type *st = inner(v->type);
    int64_t es = dom_tysize(st), cnt = es ? size / es : 0;
    dom_val *zero = simt_const(x, st, k, 0);
    for (int64_t j = 0; j < cnt && !x->stop; j++) {
      dom_val *val = zero;
      if (j < s->ninits) val = simt_convert(x, st, s->inits[j]->type, k, simt_eval(x, s->inits[j], k));
      simt_mem_access(x, s->span, st, k, addr, val, true);
      for (int i = k->lo; i < k->hi; i++) addr[i] += es;
    }
  }
  simt_mark_release(x, mk);
}

static void st_expr(simt_x *x, const dg_stmt *s, msk *k)
{
  simt_mark mk = simt_mark_get(x);
  if (s->e) simt_eval_u(x, s->e, k);            /* the value is not read: a thin one stays thin */
  simt_mark_release(x, mk);
}

static void st_if(simt_x *x, const dg_stmt *s, msk *k)
{
  if (simt_fuse_if(x, s, k)) return;         /* if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k]; */
  simt_mark mk = simt_mark_get(x);
  msk t, f;
  simt_split sp;
  simt_branch2(x, s->e, k, &t, &f, &sp);
  if (traced(x, k)) step_cond(x, s, s->e, &t, &sp);
  simt_guard g = simt_guard_push(x, &sp, true);
  int tc = t.cnt, fc = f.cnt;
  if (t.cnt && s->then) simt_exec(x, s->then, &t);
  simt_guard_pop(x, g);
  g = simt_guard_push(x, &sp, false);
  if (f.cnt && s->els) simt_exec(x, s->els, &f);
  simt_guard_pop(x, g);
  /* statements only take lanes out of a mask (and leave it exact): when
   * neither side lost one, t | f is k as it was */
  if (t.cnt != tc || f.cnt != fc) {
    msk_or(k->b, t.b, f.b, k->lo, k->hi);
    msk_fix(k);
  }
  simt_mark_release(x, mk);
}

/* ---- a loop's watch: the step limit, the deadline, a loop that cannot end ---------
 * Every LOOP_WATCH iterations a running loop (1) stops the launch once the
 * deadline has passed (simt_launch.deadline: a run cut by the clock, not a
 * finding), and (2) tries to show that it cannot end: when the registers
 * its test depends on are a function of themselves alone (closed under the
 * loop's assignments to them and the conditions around those; no load, no
 * call, no jump out of the loop) and they hold the same values in the same
 * running lanes at the heads of two consecutive iterations, every later
 * iteration repeats that one and the test never fails: the runaway event
 * says so (simt_event.endless). A loop that only runs long reaches the step
 * limit and is reported without it. */
enum { LOOP_WATCH = 4096 };

typedef struct {
  int state;               /* 0 not analysed, 1 analysable (set), -1 not */
  uint64_t set;            /* the test's registers (slots below 64) */
  dom_val *snap;           /* their values at the last watched head, lanes lo..hi */
  uint8_t *mask;
  int lo, hi, cnt;
  int64_t at;              /* the iteration snap was taken at (0: none) */
} loop_watch;

static bool pure_var(const dg_var *v)
{
  return v && (v->kind == DG_VAR_LOCAL || v->kind == DG_VAR_PARAM) && !v->addr_taken && v->slot >= 0
         && v->slot < 64 && v->type->kind != DG_TY_ARRAY;
}

/* reads no memory, calls nothing, assigns only registers */
static const bool pure_kind[DG_EX__COUNT] = {
  [DG_EX_INT] = true, [DG_EX_FLOAT] = true, [DG_EX_VAR] = true, [DG_EX_BUILTIN] = true,
  [DG_EX_UNARY] = true, [DG_EX_BINARY] = true, [DG_EX_LAND] = true, [DG_EX_LOR] = true,
  [DG_EX_COND] = true, [DG_EX_ASSIGN] = true, [DG_EX_INCDEC] = true, [DG_EX_INTRIN] = true,
  [DG_EX_CAST] = true, [DG_EX_LANE] = true, [DG_EX_VECBUILD] = true, [DG_EX_COMMA] = true,
  [DG_EX_FIELD] = true,
};

static bool pure_expr(const dg_expr *e)
{
  if (!e) return true;
  if ((unsigned)e->kind >= DG_EX__COUNT || !pure_kind[e->kind]) return false;
  if (e->kind == DG_EX_VAR && !pure_var(e->var)) return false;
  if (e->kind == DG_EX_INTRIN && ((unsigned)e->op >= DG_IN__COUNT || dg_intrins[e->op].cls >= DG_IC_LOAD)) return false;
  if (!pure_expr(e->a) || !pure_expr(e->b) || !pure_expr(e->c)) return false;
  for (int i = 0; i < e->nargs; i++)
    if (!pure_expr(e->args[i])) return false;
  return true;
}

static uint64_t slots_wr(const dg_stmt *s)
{
  uint64_t wr = 0, rd = 0;
  stmt_slots(s, &wr, &rd);
  return wr;
}

/* One pass over a loop's body: the statements that assign a register of
 * *set add what they read and the conditions they sit under (guard) to it.
 * False when the set cannot be closed: an impure assignment to one, an
 * inner loop or switch that assigns one, or a jump out (depth: inner loops
 * around s; a break or continue there stays inside). */
static bool close_pass(const dg_stmt *s, uint64_t guard, int depth, uint64_t *set)
{
  if (!s) return true;
  uint64_t wr = 0, rd = 0;
  switch (s->kind) {
  case DG_ST_BLOCK:
    for (int i = 0; i < s->nbody; i++)
      if (!close_pass(s->body[i], guard, depth, set)) return false;
    return true;
  case DG_ST_DECL:
    if (!s->var || !pure_var(s->var) || !(*set >> s->var->slot & 1)) return true;
    if (!pure_expr(s->e) || s->ninits) return false;
    expr_slots(s->e, &wr, &rd);
    *set |= rd | guard;
    return true;
  case DG_ST_EXPR:
    expr_slots(s->e, &wr, &rd);
    if (!(wr & *set)) return true;
    if (!pure_expr(s->e)) return false;
    *set |= rd | guard;
    return true;
  case DG_ST_IF:
    if (slots_wr(s) & *set) {
      if (!pure_expr(s->e)) return false;
      expr_slots(s->e, &wr, &rd);
      guard |= rd;
    }
    return close_pass(s->then, guard, depth, set) && close_pass(s->els, guard, depth, set);
  case DG_ST_FOR: case DG_ST_WHILE: case DG_ST_DO: case DG_ST_SWITCH:
    if (slots_wr(s) & *set) return false;
    if (s->kind == DG_ST_SWITCH)
      for (int i = 0; i < s->nbody; i++)          /* a continue in a switch leaves it */
        if (!close_pass(s->body[i], guard, depth, set)) return false;
    return s->kind == DG_ST_SWITCH || close_pass(s->then, guard, depth + 1, set);
  case DG_ST_BREAK: case DG_ST_CONTINUE:
    return depth > 0;
  case DG_ST_RETURN:
    return false;
  default:
    return true;
  }
}

/* an assert ends the launch: a way out of a loop that is not its test */
static bool asserts_e(const dg_expr *e)
{
  if (!e) return false;
  if (e->kind == DG_EX_INTRIN && (unsigned)e->op < DG_IN__COUNT && dg_intrins[e->op].cls == DG_IC_ASSERT) return true;
  if (asserts_e(e->a) || asserts_e(e->b) || asserts_e(e->c)) return true;
  for (int i = 0; i < e->nargs; i++)
    if (asserts_e(e->args[i])) return true;
  return false;
}

static bool asserts(const dg_stmt *s)
{
  if (!s) return false;
  if (asserts_e(s->e) || asserts_e(s->step) || asserts(s->init) || asserts(s->then) || asserts(s->els)) return true;
  for (int i = 0; i < s->ninits; i++)
    if (asserts_e(s->inits[i])) return true;
  for (int i = 0; i < s->nbody; i++)
    if (asserts(s->body[i])) return true;
  return false;
}

/* The registers loop s's test depends on, closed (false: none can be shown) */
static bool loop_set(const dg_stmt *s, uint64_t *set)
{
  uint64_t wr = 0, rd = 0;
  if (!pure_expr(s->e) || asserts(s)) return false;
  expr_slots(s->e, &wr, &rd);
  if (wr) return false;
  *set = rd;
  for (int pass = 0; pass < 65; pass++) {
    uint64_t before = *set;
    dg_stmt step = { .kind = DG_ST_EXPR, .e = s->step };
    if (!close_pass(s->then, 0, 0, set) || !close_pass(&step, 0, 0, set)) return false;
    if (*set == before) return true;
  }
  return false;
}

static size_t set_vals(simt_x *x, uint64_t set)
{
  size_t n = 0;
  for (int sl = 0; sl < 64; sl++)
    if (set >> sl & 1) n += (size_t)simt_ncomp(x->fr->f->locals[sl]->type);
  return n;
}

/* The test's registers at this head, lanes lo..hi: copy (save) or compare. */
static bool set_same(simt_x *x, loop_watch *w, const msk *run, bool save)
{
  size_t lanes = (size_t)(run->hi - run->lo), at = 0;
  for (int sl = 0; sl < 64; sl++) {
    if (!(w->set >> sl & 1)) continue;
    int nc = simt_ncomp(x->fr->f->locals[sl]->type);
    for (int c = 0; c < nc; c++, at += lanes) {
      const dom_val *r = x->fr->reg[sl] + (size_t)c * (size_t)x->n + (size_t)run->lo;
      if (save) memcpy(w->snap + at, r, sizeof *r * lanes);
      else
        for (size_t l = 0; l < lanes; l++)
          if (run->b[run->lo + (int)l] && r[l] != w->snap[at + l]) return false;
    }
  }
  return true;
}

static void watch_prove(simt_x *x, const dg_stmt *s, loop_watch *w, const msk *run, int64_t iters)
{
  if (!w->state) {
    w->state = -1;
    if (x->fr && x->fr->f && x->fr->f->locals && loop_set(s, &w->set)) {
      bool regs = true;
      for (int sl = 0; sl < 64 && regs; sl++)
        if (w->set >> sl & 1) regs = sl < x->fr->f->nslots && x->fr->f->locals[sl] && x->fr->reg[sl];
      if (regs) {
        w->state = 1;
        w->snap = simt_alloc(x, sizeof *w->snap * (set_vals(x, w->set) * (size_t)x->n + 1));
        w->mask = simt_alloc(x, (size_t)x->n);
      }
    }
  }
  if (w->state < 0) return;
  if (w->at && w->at == iters - 1 && w->lo == run->lo && w->hi == run->hi && w->cnt == run->cnt
      && !memcmp(w->mask + run->lo, run->b + run->lo, (size_t)(run->hi - run->lo)) && set_same(x, w, run, false)) {
    simt_event *e = simt_report(x, SIMT_EV_RUNAWAY, s->span, run->lo,
                                "loop cannot end: the registers its test reads repeat at its head (iteration %lld)",
                                (long long)iters);
    if (e) e->endless = true;
    x->stop = true;
    if (x->unwind) longjmp(*x->unwind, 1);
    return;
  }
  if (iters % LOOP_WATCH) return;              /* a comparison's head: the snapshot stays */
  set_same(x, w, run, true);
  memcpy(w->mask + run->lo, run->b + run->lo, (size_t)(run->hi - run->lo));
  w->lo = run->lo, w->hi = run->hi, w->cnt = run->cnt, w->at = iters;
}

/* The deadline has passed (or the lane operations simt_launch.max_lane_ops
 * allows, looked at in the same places: a deterministic cut): the launch
 * stops, no event (simt_error says it). */
static bool over_work(const simt_x *x) { return x->max_ops && x->lane_ops > x->max_ops; }

static void loop_deadline(simt_x *x, const dg_stmt *s, int64_t iters)
{
  const char *what = over_work(x) ? "work" : "time";
  if (iters)
    snprintf(x->m->err, sizeof x->m->err, "%s limit reached in the loop at line %u after %lld iterations",
             what, s->span.line, (long long)iters);
  else
    snprintf(x->m->err, sizeof x->m->err, "%s limit reached entering the loop at line %u", what, s->span.line);
  x->stop = true;
  if (x->unwind) longjmp(*x->unwind, 1);
}

/* At iteration iters (>= *next): the limit, the deadline, the proof; the
 * next iteration to look at into *next. True: the launch stops. */
static bool loop_watch_at(simt_x *x, const dg_stmt *s, loop_watch *w, const msk *run, int64_t iters, int64_t *next)
{
  if (iters > x->max_iters) {
    char what[96];
    snprintf(what, sizeof what, "loop ran past the step limit of %lld iterations", (long long)x->max_iters);
    simt_fatal(x, SIMT_EV_RUNAWAY, s->span, run->lo, what);
    return true;
  }
  if ((x->deadline > 0 && dg_now() > x->deadline) || over_work(x)) {
    loop_deadline(x, s, iters);
    return true;
  }
  watch_prove(x, s, w, run, iters);
  if (x->stop) return true;
  /* the head after a snapshot compares; then the next multiple */
  *next = w->state > 0 && w->at == iters ? iters + 1 : (iters / LOOP_WATCH + 1) * LOOP_WATCH;
  if (*next > x->max_iters + 1) *next = x->max_iters + 1;
  return false;
}

static void st_loop(simt_x *x, const dg_stmt *s, msk *k)
{
  simt_mark mk0 = simt_mark_get(x);
  if (s->kind == DG_ST_FOR && s->init) simt_exec(x, s->init, k);
  uint8_t *brk = simt_alloc(x, (size_t)x->n), *cont = simt_alloc(x, (size_t)x->n);
  uint8_t *done = simt_alloc(x, (size_t)x->n);
  memset(brk, 0, (size_t)x->n), memset(cont, 0, (size_t)x->n), memset(done, 0, (size_t)x->n);
  uint8_t *obrk = x->brk, *ocont = x->cont;
  bool osw = x->brk_switch, tr = traced(x, k);
  x->brk = brk, x->cont = cont, x->brk_switch = false;
  msk run = msk_copy(x, k);
  int lo = k->lo, hi = k->hi;
  bool first = true;
  int64_t iters = 0, next = x->max_iters < LOOP_WATCH ? x->max_iters + 1 : LOOP_WATCH;
  loop_watch w = {0};
  /* short loops in a long one: the deadline every 16 loop starts too */
  if ((x->deadline > 0 || x->max_ops) && (++x->loop_starts & 15) == 0 && (over_work(x) || (x->deadline > 0 && dg_now() > x->deadline)))
    loop_deadline(x, s, 0);
  while (run.cnt && !x->stop) {
    if (++iters >= next && loop_watch_at(x, s, &w, &run, iters, &next)) break;
    simt_mark mk = simt_mark_get(x);
    if ((s->kind != DG_ST_DO || !first) && s->e) {
      bool in = tr && traced(x, &run);
      simt_loop_test(x, s->e, &run, done);
      if (in) step_cond(x, s, s->e, &run, NULL);
    }
    first = false;
    if (!run.cnt) break;
    uint32_t nc0 = x->ncont;
    if (s->then && !simt_fuse_tree(x, s->then, &run)) simt_exec(x, s->then, &run);
    /* lanes that continued rejoin; without a continue run is as its statements left it (exact bounds) */
    if (x->ncont != nc0 || (run.cnt && !(run.b[run.lo] && run.b[run.hi - 1]))) {
      msk_or(run.b, run.b, cont, lo, hi);
      memset(cont + lo, 0, (size_t)(hi - lo));
      run.lo = lo, run.hi = hi;
      msk_fix(&run);
    }
    if (s->step && run.cnt) {
      if (tr && traced(x, &run)) step_update(x, s, &run);
      else if (!simt_fuse_step(x, s->step, &run))
        simt_eval_u(x, s->step, &run);      /* the value is not read: a thin one stays thin */
    }
    simt_mark_release(x, mk);
  }
  msk_or(k->b, done, brk, lo, hi);
  k->lo = lo, k->hi = hi;
  msk_fix(k);
  x->brk = obrk, x->cont = ocont, x->brk_switch = osw;
  simt_mark_release(x, mk0);
}

/* A jump taken under a data-dependent guard would need the paths to be
 * merged at the loop or function end; reported instead. */
static bool guarded(simt_x *x, const dg_stmt *s, msk *k)
{
  /* a return ends the whole function: only a guard pushed inside it matters */
  if (x->gm && !(s->kind == DG_ST_RETURN && x->gm == x->fr->gm0))
    for (int i = k->lo; i < k->hi; i++)
      if (k->b[i] && x->gm[i]) {
        simt_fatal(x, SIMT_EV_DATA_DEP, s->span, i, "break, continue or return under a data-dependent branch");
        return true;
      }
  return false;
}

static void jump(simt_x *x, const dg_stmt *s, msk *k, uint8_t *to, const char *what)
{
  if (guarded(x, s, k)) return;
  if (!to) { simt_fatal(x, SIMT_EV_UNSUPPORTED, s->span, k->lo, what); return; }
  for (int i = k->lo; i < k->hi; i++) if (k->b[i]) to[i] = 1;
  clear(k);
}

static void st_break(simt_x *x, const dg_stmt *s, msk *k) { jump(x, s, k, x->brk, "break outside a loop"); }
static void st_continue(simt_x *x, const dg_stmt *s, msk *k)
{
  x->ncont++;
  jump(x, s, k, x->cont, "continue outside a loop");
}

static void st_return(simt_x *x, const dg_stmt *s, msk *k)
{
  simt_frame *fr = x->fr;
  if (guarded(x, s, k)) return;
  if (s->e && fr->ret) {
    simt_mark mk = simt_mark_get(x);
    dom_val *v = simt_convert(x, fr->f->ret, s->e->type, k, simt_eval(x, s->e, k));
    simt_merge(x, fr->ret, v, k, simt_ncomp(fr->f->ret));
    simt_mark_release(x, mk);
  }
  for (int i = k->lo; i < k->hi; i++)
    if (k->b[i]) {
      fr->retm[i] = 1;
      if (!fr->up) x->live[i] = 0;      /* exited threads leave the barrier count */
    }
  fr->nlive -= k->cnt;
  clear(k);
}

static void st_switch(simt_x *x, const dg_stmt *s, msk *k)
{
  simt_mark mk = simt_mark_get(x);
  int lo = k->lo, hi = k->hi;
  int64_t *v = simt_conc(x, s->e->type, k, simt_eval(x, s->e, k), s->e->span);
  uint8_t *brk = simt_alloc(x, (size_t)x->n), *obrk = x->brk;
  bool osw = x->brk_switch;
  memset(brk, 0, (size_t)x->n);
  x->brk = brk, x->brk_switch = true;
  msk run = msk_new(x);
  run.lo = lo, run.hi = hi;
  for (int st = 0; st < s->nbody && !x->stop; st++) {
    for (int c = 0; c < s->ncases; c++) {
      const dg_case *cs = &s->cases[c];
      if (cs->first != st) continue;
      for (int i = lo; i < hi; i++) {
        if (!k->b[i]) continue;
        bool hit = !cs->is_default && v[i] == cs->value;
        if (cs->is_default) {
          hit = true;
          for (int d = 0; d < s->ncases; d++) if (!s->cases[d].is_default && s->cases[d].value == v[i]) hit = false;
        }
        if (hit) run.b[i] = 1;
      }
    }
    run.lo = lo, run.hi = hi;
    msk_fix(&run);
    if (run.cnt) simt_exec(x, s->body[st], &run);
  }
  for (int i = lo; i < hi; i++) k->b[i] = (i >= run.lo && i < run.hi && run.b[i]) | brk[i];
  k->lo = lo, k->hi = hi;
  msk_fix(k);
  x->brk = obrk, x->brk_switch = osw;
  simt_mark_release(x, mk);
}

static void st_nop(simt_x *x, const dg_stmt *s, msk *k) {}

static const ex_fn ex_tab[DG_ST__COUNT] = {
  [DG_ST_BLOCK] = st_block, [DG_ST_DECL] = st_decl, [DG_ST_EXPR] = st_expr, [DG_ST_IF] = st_if,
  [DG_ST_FOR] = st_loop, [DG_ST_WHILE] = st_loop, [DG_ST_DO] = st_loop,
  [DG_ST_BREAK] = st_break, [DG_ST_CONTINUE] = st_continue, [DG_ST_RETURN] = st_return,
  [DG_ST_SWITCH] = st_switch, [DG_ST_NOP] = st_nop,
};

/* The traced lane's component values of v (n-strided) into st. */
static void step_vals(simt_x *x, simt_step *st, const dg_type *t, const dom_val *v)
{
  if (!v || !t || t->kind == DG_TY_VOID || t->kind == DG_TY_ARRAY) return;
  int nc = simt_ncomp(t);
  if (nc > 16) return;
  st->type = t, st->nvals = nc;
  for (int c = 0; c < nc; c++) st->vals[c] = v[(size_t)c * x->n + x->trace_lane];
}

/* An expression statement's (or a for loop's update's) value in the traced lane:
 * the variable it set as it now is, else the expression's value. */
static void expr_vals(simt_x *x, simt_step *st, const dg_expr *e, msk *k)
{
  simt_mark mk = simt_mark_get(x);
  dom_val *v = e ? simt_eval(x, e, k) : NULL;
  bool set = e && (e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC);
  const dg_var *var = set && e->a->kind == DG_EX_VAR ? e->a->var : NULL;
  if (var && (var->kind == DG_VAR_LOCAL || var->kind == DG_VAR_PARAM) && x->fr->reg[var->slot])
    step_vals(x, st, var->type, x->fr->reg[var->slot]);     /* the register as it now is */
  else if (e && !(e->kind == DG_EX_INCDEC && e->post))       /* a postfix's value is the old one */
    step_vals(x, st, e->type, v);
  simt_mark_release(x, mk);
}

/* st to the listener, with the traced lane's last store in it */
static void step_emit(simt_x *x, simt_step *st)
{
  if (x->step_store)
    st->store_buf = (int)dom_ptr_buf(x->step_store), st->store_off = dom_ptr_off(x->step_store),
    st->store_type = x->step_sty;
  if (!x->stop) x->m->step_fn(x->m->step_ud, x->m, st);
}

/* The traced lane's way at cond (evaluated): t holds the lanes that took it;
 * sp (NULL for loop tests, which are never split) the data-dependent ones. */
static void step_cond(simt_x *x, const dg_stmt *s, const dg_expr *cond, const msk *t, const simt_split *sp)
{
  simt_step st = { .stmt = s, .depth = x->depth, .what = SIMT_STEP_COND, .at = cond->span };
  int l = x->trace_lane;
  if (sp && sp->any && l >= sp->both.lo && l < sp->both.hi && sp->both.b[l]) {
    st.taken = -1;
    step_vals(x, &st, x->t_bool, sp->cv);
  } else
    st.taken = l >= t->lo && l < t->hi && t->b[l];
  if (!x->stop) x->m->step_fn(x->m->step_ud, x->m, &st);
}

/* A for loop's update the traced lane runs. */
static void step_update(simt_x *x, const dg_stmt *s, msk *k)
{
  simt_step st = { .stmt = s, .depth = x->depth, .what = SIMT_STEP_UPDATE, .at = s->step->span };
  x->step_store = 0;
  expr_vals(x, &st, s->step, k);
  step_emit(x, &st);
}

/* A statement the traced lane runs while someone listens (simt_on_step). */
static void step_exec(simt_x *x, const dg_stmt *s, msk *k)
{
  simt *m = x->m;
  simt_step st = { .stmt = s, .depth = x->depth };
  x->step_store = 0;
  switch (s->kind) {
  case DG_ST_IF: case DG_ST_FOR: case DG_ST_WHILE: case DG_ST_DO: case DG_ST_SWITCH:
    m->step_fn(m->step_ud, m, &st);          /* before its body's steps */
    ex_tab[s->kind](x, s, k);
    return;
  case DG_ST_EXPR:
    expr_vals(x, &st, s->e, k);
    break;
  case DG_ST_BREAK: case DG_ST_CONTINUE: case DG_ST_RETURN: {
    bool brk = s->kind == DG_ST_BREAK, top = !x->fr->up;
    st.jump = brk ? (x->brk_switch ? "out of the switch" : "out of the loop")
            : s->kind == DG_ST_CONTINUE ? "to the loop's next iteration" : top ? "the thread ends" : "back to the caller";
    ex_tab[s->kind](x, s, k);
    if (s->kind == DG_ST_RETURN && s->e && x->fr->ret) step_vals(x, &st, x->fr->f->ret, x->fr->ret);
    break;
  }
  default:
    ex_tab[s->kind](x, s, k);
    if (s->kind == DG_ST_DECL && s->var && x->fr->reg[s->var->slot] && s->e)
      step_vals(x, &st, s->var->type, x->fr->reg[s->var->slot]);
    break;
  }
  step_emit(x, &st);
}

void simt_exec(simt_x *x, const dg_stmt *s, msk *k)
{
  if (!s || x->stop || !k->cnt) return;
  if (x->trace_lane >= 0 && k->b[x->trace_lane] && s->kind != DG_ST_BLOCK) {
    simt_trace_span(x, s->span);
    if (x->m->step_fn && (unsigned)s->kind < DG_ST__COUNT) { step_exec(x, s, k); return; }
  }
  if ((unsigned)s->kind >= DG_ST__COUNT || !ex_tab[s->kind]) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, s->span, k->lo, "statement kind");
    return;
  }
  ex_tab[s->kind](x, s, k);
}

/* ---- calls --------------------------------------------------------------------- */
/* The frame slots (bit = slot, below 64) that expressions under e assign
 * to (a variable, or a lane or field of it) or read (any use of the variable) */
static void expr_slots(const dg_expr *e, uint64_t *wr, uint64_t *rd)
{
  if (!e) return;
  if (e->kind == DG_EX_VAR && e->var && (e->var->kind == DG_VAR_LOCAL || e->var->kind == DG_VAR_PARAM)
      && e->var->slot >= 0 && e->var->slot < 64)
    *rd |= 1ull << e->var->slot;
  if (e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC) {
    const dg_expr *l = e->a;
    while (l && (l->kind == DG_EX_LANE || l->kind == DG_EX_FIELD)) l = l->a;
    if (l && l->kind == DG_EX_VAR && l->var && l->var->slot >= 0 && l->var->slot < 64) *wr |= 1ull << l->var->slot;
  }
  expr_slots(e->a, wr, rd), expr_slots(e->b, wr, rd), expr_slots(e->c, wr, rd);
  for (int i = 0; i < e->nargs; i++) expr_slots(e->args[i], wr, rd);
}

static void stmt_slots(const dg_stmt *s, uint64_t *wr, uint64_t *rd)
{
  if (!s) return;
  expr_slots(s->e, wr, rd), expr_slots(s->step, wr, rd);
  for (int i = 0; i < s->ninits; i++) expr_slots(s->inits[i], wr, rd);
  stmt_slots(s->init, wr, rd), stmt_slots(s->then, wr, rd), stmt_slots(s->els, wr, rd);
  for (int i = 0; i < s->nbody; i++) stmt_slots(s->body[i], wr, rd);
}

uint64_t simt_params_ro(const dg_func *k)
{
  uint64_t wr = 0, rd = 0, ro = 0;
  stmt_slots(k->body, &wr, &rd);
  for (int i = 0; i < k->nparams; i++) {
    const dg_var *p = k->params[i];
    if (p->slot >= 0 && p->slot < 64 && !p->addr_taken && simt_ncomp(p->type) == 1
        && p->type->kind != DG_TY_ARRAY && !(wr >> p->slot & 1))
      ro |= 1ull << p->slot;
  }
  return ro;
}

/* A register declared with an initialiser as a statement of the function's
 * outermost block (or as the init of a for loop there) is written in every
 * lane that can read it before anything reads it: the statement runs once,
 * for every lane still running (the others returned), C's scopes allow no
 * use before the declaration, no switch or loop can jump over it, and its
 * initialiser does not read it. */
static void top_decl(const dg_stmt *s, uint64_t *nz)
{
  if (!s || s->kind != DG_ST_DECL || !s->var || !s->e || s->var->addr_taken || s->var->slot < 0 || s->var->slot >= 64
      || s->var->type->kind == DG_TY_ARRAY || simt_ncomp(s->var->type) != 1)
    return;
  uint64_t wr = 0, rd = 0;
  expr_slots(s->e, &wr, &rd);
  if (!((wr | rd) >> s->var->slot & 1)) *nz |= 1ull << s->var->slot;
}

uint64_t simt_slots_set(const dg_func *f)
{
  uint64_t nz = 0;
  const dg_stmt *b = f->body;
  if (!b || b->kind != DG_ST_BLOCK) return 0;
  for (int i = 0; i < b->nbody; i++) {
    const dg_stmt *s = b->body[i];
    top_decl(s, &nz);
    if (s && s->kind == DG_ST_FOR) top_decl(s->init, &nz);
  }
  return nz;
}

dom_val *simt_call(simt_x *x, const dg_func *f, dom_val **args, msk *k)
{
  if (x->depth >= 64) {
    simt_fatal(x, SIMT_EV_UNSUPPORTED, f->span, k->lo, "calls nested deeper than 64 (recursion)");
    return x->zeros;
  }
  simt_frame fr = { .f = f, .up = x->fr, .gm0 = x->gm };
  int ns = f->nslots > 0 ? f->nslots : 0;
  fr.reg = simt_alloc(x, sizeof *fr.reg * (size_t)(ns + 1));
  fr.obj = simt_alloc(x, sizeof *fr.obj * (size_t)(ns + 1));
  fr.runi = simt_alloc(x, (size_t)(ns + 1));
  memset(fr.runi, 0, (size_t)(ns + 1));
  fr.nlive = k->cnt;
  int top0 = x->top;
  for (int sl = 0; sl < ns; sl++) {
    const dg_var *v = f->locals ? f->locals[sl] : NULL;
    fr.reg[sl] = NULL, fr.obj[sl] = 0;
    if (!v) continue;
    if (!fr.up && sl < 64 && (x->pro >> sl & 1)) continue;   /* a parameter nobody assigns: set below */
    if (!fr.up && sl < 64 && (x->pset >> sl & 1) && x->ident) {
      fr.reg[sl] = simt_vals(x, v->type);    /* written before it can be read: not zeroed */
      continue;
    }
    if (v->addr_taken || v->type->kind == DG_TY_ARRAY) {
      fr.obj[sl] = x->top;
      for (int i = 0; i < x->n; i++) simt_local_push(x, dom_tysize(v->type), i, v->name);
    } else {
      fr.reg[sl] = simt_vals(x, v->type);
      memset(fr.reg[sl], 0, sizeof(dom_val) * (size_t)x->n * (size_t)simt_ncomp(v->type));
      fr.runi[sl] = x->ident && simt_ncomp(v->type) == 1;   /* zero in every lane */
    }
  }
  fr.ret = f->ret && f->ret->kind != DG_TY_VOID ? simt_vals(x, f->ret) : NULL;
  if (fr.ret) memset(fr.ret, 0, sizeof(dom_val) * (size_t)x->n * (size_t)simt_ncomp(f->ret));
  fr.retm = simt_alloc(x, (size_t)x->n);
  memset(fr.retm, 0, (size_t)x->n);
  simt_frame *up = x->fr;
  x->fr = &fr;
  for (int i = 0; i < f->nparams; i++) {
    const dg_var *p = f->params[i];
    if (!up && p->slot < 64 && (x->pro >> p->slot & 1)) {
      fr.reg[p->slot] = args[i];              /* the launch's vector itself: no write can reach it */
      fr.runi[p->slot] = x->ident;
    } else if (fr.reg[p->slot]) {
      memcpy(fr.reg[p->slot], args[i], sizeof(dom_val) * (size_t)x->n * (size_t)simt_ncomp(p->type));
      /* a kernel's arguments are one value in every lane (simt_run); a device
       * function's are not known to be */
      fr.runi[p->slot] = x->ident && !up && simt_ncomp(p->type) == 1;
    } else {
      int64_t *addr = simt_alloc(x, sizeof *addr * (size_t)x->n);
      for (int l = 0; l < x->n; l++) addr[l] = (int64_t)dom_ptr((uint32_t)(fr.obj[p->slot] + l), 0);
      simt_mem_access(x, p->span, p->type, k, addr, args[i], true);
    }
  }
  uint8_t *obrk = x->brk, *ocont = x->cont;
  x->brk = x->cont = NULL;
  x->depth++;
  msk run = msk_copy(x, k);
  simt_exec(x, f->body, &run);
  x->depth--;
  x->brk = obrk, x->cont = ocont;
  x->fr = up;
  x->top = top0;
  return fr.ret ? fr.ret : x->zeros;
}
