/* simt_stmt.c — statements and calls under lane masks. exec(s, k) runs s
 * for the lanes of k and leaves in k the lanes that fall out of s normally:
 * lanes that break, continue or return are moved to the innermost loop's
 * (or switch's) masks or to the frame's returned mask. Loops run while any
 * lane is active, with a step limit; if/else run both sides under masks. */
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

typedef void (*ex_fn)(simt_x *x, const dg_stmt *s, msk *k);

static void step_cond(simt_x *x, const dg_stmt *s, const dg_expr *cond, const msk *t, const simt_split *sp);
static void step_update(simt_x *x, const dg_stmt *s, msk *k);

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
  int64_t iters = 0;
  while (run.cnt && !x->stop) {
    if (++iters > x->max_iters) {
      simt_fatal(x, SIMT_EV_RUNAWAY, s->span, run.lo, "loop ran past the step limit");
      break;
    }
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
      for (int i = 0; i < x->n; i++) simt_local_push(x, dom_tysize(v->type), i);
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
