/* check_slice.c — the kernel cut down to what decides WHO stores WHERE, for
 * the checker's writer search (check_run.c).
 *
 * Finding the writer of one element used to run the whole launch on the
 * emulator: at matmul 1024^3 that is 10^9 multiply-adds for one address.
 * The writer map only needs, per thread, which global stores execute and at
 * which addresses. The slice keeps exactly that:
 *   - every store that may reach global memory, with its address as written
 *     and a zero as the stored value;
 *   - `return` statements, and the if/loop/switch statements around anything
 *     kept, with their conditions;
 *   - every assignment to a register variable that a kept address, condition
 *     or loop step reads (to a fixed point), with its right-hand side.
 * Everything else goes: value computations, loads into registers nobody
 * kept, stores to shared memory and to local arrays, barriers, shuffles
 * whose results are dropped, loops that hold nothing kept.
 *
 * Why the writer map is unchanged (the soundness rule): a kept expression
 * never reads memory (a load, a shared or addressed variable), never calls
 * a function and has no side effect; otherwise the kernel is not sliced at
 * all. So every kept value is a function of thread/block ids, kernel
 * arguments and kept register assignments only, and the kept control flow
 * makes the same decisions in every lane as the full kernel. A dropped
 * statement changes no kept register (by construction), cannot return, and
 * a dropped loop holds no kept statement; so each thread executes the same
 * kept stores at the same addresses in the same order, lanes and blocks
 * interleave as before, and simt_writer gives the same answer for every
 * byte. What the slice does not reproduce are the engine's findings on the
 * dropped parts (a race on a tile, an out-of-bounds load, a runaway loop of
 * values): the symbolic run of the writer's block executes the whole kernel
 * and reports those for the element being checked.
 *
 * Not sliced (the full launch runs, as before): atomics, stores inside or
 * through a call, a kept expression that loads or calls, switch statements
 * holding anything kept, struct-typed global stores. */
#include "check_slice.h"
#include <string.h>

typedef struct { const dg_func *f; uint64_t priv; } pctx;

typedef struct {
  dg_arena *a;
  pctx k;                       /* the kernel: no private parameters */
  DG_VEC(const dg_var *) rel;   /* relevant register variables */
  bool grew;                    /* rel changed in this pass */
  const char *why;              /* set: not sliceable */
} slicer;

/* ---- variables ----------------------------------------------------------------- */
static bool is_reg(const dg_var *v)
{
  return v && (v->kind == DG_VAR_LOCAL || v->kind == DG_VAR_PARAM) && !v->addr_taken && !v->by_ref &&
         v->type->kind != DG_TY_ARRAY;
}

/* The register variable an lvalue writes (all of it, a field or a lane),
 * or NULL when it is memory. */
static const dg_var *reg_base(const dg_expr *lv)
{
  while (lv->kind == DG_EX_FIELD || lv->kind == DG_EX_LANE) lv = lv->a;
  return lv->kind == DG_EX_VAR && is_reg(lv->var) ? lv->var : NULL;
}

static bool relevant(const slicer *s, const dg_var *v)
{
  for (size_t i = 0; i < s->rel.n; i++)
    if (s->rel.v[i] == v) return true;
  return false;
}

static void make_relevant(slicer *s, const dg_var *v)
{
  if (relevant(s, v)) return;
  dg_vec_push(&s->rel, v);
  s->grew = true;
}

static void fail(slicer *s, const char *why)
{
  if (!s->why) s->why = why;
}

/* ---- expressions ------------------------------------------------------------------ */
static bool assigns_relevant(const slicer *s, const dg_expr *e)
{
  if (!e) return false;
  const dg_var *v;
  if ((e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC) && (v = reg_base(e->a)) && relevant(s, v)) return true;
  if (assigns_relevant(s, e->a) || assigns_relevant(s, e->b) || assigns_relevant(s, e->c)) return true;
  for (int i = 0; i < e->nargs; i++)
    if (assigns_relevant(s, e->args[i])) return true;
  return false;
}

static dg_iclass iclass(const dg_expr *e) { return dg_intrins[e->op].cls; }

static bool intrin_pure(const dg_expr *e)
{
  switch (iclass(e)) {
  case DG_IC_ATOMIC_ADD: case DG_IC_ATOMIC_SUB: case DG_IC_ATOMIC_MAX: case DG_IC_ATOMIC_MIN:
  case DG_IC_ATOMIC_EXCH: case DG_IC_ATOMIC_CAS: case DG_IC_ATOMIC_AND: case DG_IC_ATOMIC_OR:
    return false;
  default: return true;
  }
}

/* Where memory accesses go. pctx: a function and which of its pointer
 * parameters (bit i) every caller passes an address of shared memory or of
 * a local array, and which it never reassigns. */

static bool assigned_in(const dg_stmt *st, const dg_var *v);

static bool expr_assigns(const dg_expr *e, const dg_var *v)
{
  if (!e) return false;
  if ((e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC) && e->a->kind == DG_EX_VAR && e->a->var == v) return true;
  if (expr_assigns(e->a, v) || expr_assigns(e->b, v) || expr_assigns(e->c, v)) return true;
  for (int i = 0; i < e->nargs; i++)
    if (expr_assigns(e->args[i], v)) return true;
  return false;
}

static bool assigned_in(const dg_stmt *st, const dg_var *v)
{
  if (!st) return false;
  if (expr_assigns(st->e, v) || expr_assigns(st->step, v)) return true;
  if (assigned_in(st->init, v) || assigned_in(st->then, v) || assigned_in(st->els, v)) return true;
  for (int i = 0; i < st->nbody; i++)
    if (assigned_in(st->body[i], v)) return true;
  return false;
}

static bool lv_private(const pctx *c, const dg_expr *lv);

/* Pointer value e points into shared memory or a local array. */
static bool ptr_private(const pctx *c, const dg_expr *e)
{
  switch (e->kind) {
  case DG_EX_CAST:
    if (e->a->type->kind == DG_TY_ARRAY) return lv_private(c, e->a);     /* decay */
    return e->op == DG_CAST_PTR && ptr_private(c, e->a);
  case DG_EX_ADDR: return lv_private(c, e->a);
  case DG_EX_BINARY: return e->op == DG_BIN_PTRADD && ptr_private(c, e->a);
  case DG_EX_VAR:
    for (int i = 0; i < c->f->nparams && i < 64; i++)
      if (c->f->params[i] == e->var) return (c->priv >> i & 1) && !assigned_in(c->f->body, e->var);
    return false;
  default: return false;
  }
}

/* Lvalue lv is in shared memory or a local array (a store there is private
 * to the block or thread; the slice never reads such memory). */
static bool lv_private(const pctx *c, const dg_expr *lv)
{
  switch (lv->kind) {
  case DG_EX_INDEX: return lv->a->type->kind == DG_TY_ARRAY ? lv_private(c, lv->a) : ptr_private(c, lv->a);
  case DG_EX_FIELD: case DG_EX_LANE: return lv_private(c, lv->a);
  case DG_EX_DEREF: return ptr_private(c, lv->a);
  case DG_EX_VAR:
    return lv->var && (lv->var->kind == DG_VAR_SHARED || lv->var->kind == DG_VAR_SHARED_EXTERN ||
                       (lv->var->kind == DG_VAR_LOCAL && !lv->var->by_ref));
  default: return false;
  }
}

static bool func_pure(const dg_func *f, uint64_t priv, int depth);

/* No store outside shared memory and local arrays, no atomic, no call of a
 * function that stores elsewhere: dropping it changes no global memory and
 * no register other than those it assigns (the caller checks which).
 * Loads, barriers and shuffles are allowed. */
static bool expr_pure(const pctx *c, const dg_expr *e, int depth)
{
  if (!e) return true;
  switch (e->kind) {
  case DG_EX_ASSIGN: case DG_EX_INCDEC:
    if (!reg_base(e->a) && !lv_private(c, e->a)) return false;
    break;
  case DG_EX_CALL: {
    uint64_t priv = 0;
    for (int i = 0; i < e->nargs && i < 64; i++)
      if (e->args[i]->type->kind == DG_TY_PTR && ptr_private(c, e->args[i])) priv |= 1ull << i;
    if (!func_pure(e->func, priv, depth + 1)) return false;
    break;
  }
  case DG_EX_INTRIN: if (!intrin_pure(e)) return false; break;
  default: break;
  }
  if (!expr_pure(c, e->a, depth) || !expr_pure(c, e->b, depth) || !expr_pure(c, e->c, depth)) return false;
  for (int i = 0; i < e->nargs; i++)
    if (!expr_pure(c, e->args[i], depth)) return false;
  return true;
}

static bool stmt_pure(const pctx *c, const dg_stmt *st, int depth)
{
  if (!st) return true;
  if (!expr_pure(c, st->e, depth) || !expr_pure(c, st->step, depth)) return false;
  for (int i = 0; i < st->ninits; i++)
    if (!expr_pure(c, st->inits[i], depth)) return false;
  if (!stmt_pure(c, st->init, depth) || !stmt_pure(c, st->then, depth) || !stmt_pure(c, st->els, depth)) return false;
  for (int i = 0; i < st->nbody; i++)
    if (!stmt_pure(c, st->body[i], depth)) return false;
  return true;
}

/* A device function that stores nowhere but in shared memory, local arrays
 * and its own registers. */
static bool func_pure(const dg_func *f, uint64_t priv, int depth)
{
  pctx c = { f, priv };
  return f && f->body && depth < 16 && stmt_pure(&c, f->body, depth);
}

/* Assigns a relevant register somewhere inside (a dropped expression must not). */
static bool assigns_relevant(const slicer *s, const dg_expr *e);

/* An expression of the kernel that may go: stores nowhere and assigns no
 * register a kept statement reads. */
static bool drop_ok(const slicer *s, const dg_expr *e)
{
  return expr_pure(&s->k, e, 0) && !assigns_relevant(s, e);
}

static bool rvalue_ok(slicer *s, const dg_expr *e);

/* The address of lvalue e computed without reading memory. */
static bool addr_ok(slicer *s, const dg_expr *e)
{
  switch (e->kind) {
  case DG_EX_VAR:
    if (is_reg(e->var)) { fail(s, "the address of a register"); return false; }
    return true;                 /* a shared, global or addressed variable: its address */
  case DG_EX_INDEX:
    return (e->a->type->kind == DG_TY_ARRAY ? addr_ok(s, e->a) : rvalue_ok(s, e->a)) && rvalue_ok(s, e->b);
  case DG_EX_DEREF: return rvalue_ok(s, e->a);
  case DG_EX_FIELD: case DG_EX_LANE: return addr_ok(s, e->a);
  default: fail(s, "an address the slicer does not follow"); return false;
  }
}

/* A kept value: thread ids, constants, arguments and registers only (those
 * registers become relevant). */
static bool rvalue_ok(slicer *s, const dg_expr *e)
{
  if (!e) return true;
  switch (e->kind) {
  case DG_EX_INT: case DG_EX_FLOAT: case DG_EX_BUILTIN: return true;
  case DG_EX_VAR:
    if (!is_reg(e->var)) { fail(s, "a kept value reads memory"); return false; }
    make_relevant(s, e->var);
    return true;
  case DG_EX_ADDR: return addr_ok(s, e->a);
  case DG_EX_CAST:
    if (e->a->type->kind == DG_TY_ARRAY) return addr_ok(s, e->a);   /* array decay */
    return rvalue_ok(s, e->a);
  case DG_EX_UNARY: case DG_EX_BINARY: case DG_EX_LAND: case DG_EX_LOR: case DG_EX_COND:
  case DG_EX_COMMA:
    return rvalue_ok(s, e->a) && rvalue_ok(s, e->b) && rvalue_ok(s, e->c);
  case DG_EX_LANE: case DG_EX_FIELD:
    return rvalue_ok(s, e->a);   /* of a register value; a memory operand fails below */
  case DG_EX_VECBUILD:
    for (int i = 0; i < e->nargs; i++)
      if (!rvalue_ok(s, e->args[i])) return false;
    return true;
  case DG_EX_INTRIN:
    switch (iclass(e)) {
    case DG_IC_LOAD: case DG_IC_SYNC_BLOCK: case DG_IC_SYNC_WARP: case DG_IC_FENCE:
    case DG_IC_IGNORE: case DG_IC_ASSERT:
      fail(s, "a kept value loads or synchronises");
      return false;
    default:
      if (!intrin_pure(e)) { fail(s, "a kept value is an atomic"); return false; }
      for (int i = 0; i < e->nargs; i++)
        if (!rvalue_ok(s, e->args[i])) return false;
      return true;
    }
  default:    /* loads (INDEX, DEREF), calls, assignments inside a kept value */
    fail(s, "a kept value loads, calls or assigns");
    return false;
  }
}

/* ---- statements: one pass decides what is kept and grows `rel` ------------------- */
typedef struct { bool kept, ret; } verdict;   /* ret: a return sits inside */

static verdict pass_stmt(slicer *s, const dg_stmt *st, bool in_kept_loop);

/* An expression statement or a for-step: kept when it assigns a relevant
 * register or stores to memory that may be global. */
static bool pass_expr(slicer *s, const dg_expr *e)
{
  if (!e) return false;
  const dg_var *v;
  if ((e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC) && (v = reg_base(e->a))) {
    if (!relevant(s, v)) {
      if (!drop_ok(s, e->b)) fail(s, "a dropped assignment has side effects");
      return false;
    }
    if (e->kind == DG_EX_ASSIGN) rvalue_ok(s, e->b);
    return true;
  }
  if (e->kind == DG_EX_ASSIGN && !lv_private(&s->k, e->a)) {
    const dg_type *t = e->a->type;
    if (!dg_type_is_scalar(t) && t->kind != DG_TY_VEC) fail(s, "a global store of a struct");
    if (t->kind == DG_TY_PTR) fail(s, "a global store of a pointer");
    if (!drop_ok(s, e->b)) fail(s, "a stored value with side effects");
    addr_ok(s, e->a);
    return true;
  }
  if (e->kind == DG_EX_INCDEC && !lv_private(&s->k, e->a)) {
    fail(s, "a read-modify-write of global memory");
    return true;
  }
  if (e->kind == DG_EX_ASSIGN) {              /* shared / local array store: dropped */
    if (!drop_ok(s, e->a) || !drop_ok(s, e->b)) fail(s, "a dropped store has side effects");
    return false;
  }
  if (!drop_ok(s, e)) fail(s, "a statement with side effects the slicer does not keep");
  return false;
}

static verdict pass_body(slicer *s, dg_stmt *const *body, int n, bool in_kept_loop)
{
  verdict v = { false, false };
  for (int i = 0; i < n; i++) {
    verdict w = pass_stmt(s, body[i], in_kept_loop);
    v.kept |= w.kept, v.ret |= w.ret;
  }
  return v;
}

static verdict pass_loop(slicer *s, const dg_stmt *st)
{
  /* first without keeping break/continue: is anything in it needed? */
  verdict b = pass_stmt(s, st->then, false);
  bool kept = b.kept || b.ret;
  if (st->init) kept |= pass_stmt(s, st->init, false).kept;
  kept |= pass_expr(s, st->step);
  if (!kept) {
    if (!drop_ok(s, st->e)) fail(s, "a dropped loop condition has side effects");
    return (verdict){ false, false };
  }
  pass_stmt(s, st->then, true);
  rvalue_ok(s, st->e);
  return (verdict){ true, b.ret };
}

static verdict pass_stmt(slicer *s, const dg_stmt *st, bool in_kept_loop)
{
  if (!st || s->why) return (verdict){ false, false };
  switch (st->kind) {
  case DG_ST_BLOCK: return pass_body(s, st->body, st->nbody, in_kept_loop);
  case DG_ST_DECL:
    if (!is_reg(st->var)) {
      bool pure = drop_ok(s, st->e);
      for (int i = 0; i < st->ninits; i++) pure = pure && drop_ok(s, st->inits[i]);
      if (!pure) fail(s, "a declaration with side effects");
      return (verdict){ false, false };
    }
    if (!relevant(s, st->var)) {
      if (!drop_ok(s, st->e)) fail(s, "a dropped declaration has side effects");
      return (verdict){ false, false };
    }
    rvalue_ok(s, st->e);
    return (verdict){ true, false };
  case DG_ST_EXPR: return (verdict){ pass_expr(s, st->e), false };
  case DG_ST_IF: {
    verdict v = pass_stmt(s, st->then, in_kept_loop), w = pass_stmt(s, st->els, in_kept_loop);
    v.kept |= w.kept || v.ret || w.ret, v.ret |= w.ret;
    if (v.kept) rvalue_ok(s, st->e);
    else if (!drop_ok(s, st->e)) fail(s, "a dropped condition has side effects");
    return v;
  }
  case DG_ST_FOR: case DG_ST_WHILE: case DG_ST_DO: return pass_loop(s, st);
  case DG_ST_BREAK: case DG_ST_CONTINUE: return (verdict){ in_kept_loop, false };
  case DG_ST_RETURN:
    if (st->e && !drop_ok(s, st->e)) fail(s, "a return value with side effects");
    return (verdict){ true, true };
  case DG_ST_SWITCH: {
    verdict v = pass_body(s, st->body, st->nbody, false);
    if (v.kept || v.ret) fail(s, "a switch holding a store or a return");
    else if (!drop_ok(s, st->e)) fail(s, "a dropped switch condition has side effects");
    return (verdict){ false, false };
  }
  case DG_ST_NOP: return (verdict){ false, false };
  default: fail(s, "a statement kind the slicer does not know"); return (verdict){ false, false };
  }
}

/* ---- building the slice (after the fixed point: the same decisions again) ---------- */
static dg_stmt *new_stmt(slicer *s, const dg_stmt *like)
{
  dg_stmt *n = dg_arena_alloc(s->a, sizeof *n);
  *n = *like;
  return n;
}

static dg_stmt *empty_block(slicer *s, const dg_stmt *like)
{
  dg_stmt *n = dg_arena_alloc(s->a, sizeof *n);
  n->kind = DG_ST_BLOCK;
  n->span = like->span;
  return n;
}

static dg_expr *zero_of(slicer *s, const dg_type *t, dg_span sp)
{
  dg_expr *z = dg_arena_alloc(s->a, sizeof *z);
  z->type = t;
  z->span = sp;
  if (t->kind == DG_TY_VEC) {
    z->kind = DG_EX_VECBUILD;
    z->nargs = (int)t->count;
    z->args = dg_arena_alloc(s->a, sizeof *z->args * (size_t)(t->count + 1));
    for (int i = 0; i < z->nargs; i++) z->args[i] = zero_of(s, t->elem, sp);
  } else {
    z->kind = dg_type_is_float(t) ? DG_EX_FLOAT : DG_EX_INT;
  }
  return z;
}

static dg_stmt *build_stmt(slicer *s, const dg_stmt *st, bool in_kept_loop);

static dg_stmt *build_expr_stmt(slicer *s, const dg_stmt *st)
{
  const dg_expr *e = st->e;
  if (!pass_expr(s, e)) return NULL;
  if (!((e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC) && reg_base(e->a))) {
    dg_expr *store = dg_arena_alloc(s->a, sizeof *store);   /* a global store: lhs = 0 */
    *store = *e;
    store->op = DG_BIN_NONE;
    store->b = zero_of(s, e->a->type, e->span);
    dg_stmt *n = new_stmt(s, st);
    n->e = store;
    return n;
  }
  return (dg_stmt *)st;
}

static dg_stmt *build_stmt(slicer *s, const dg_stmt *st, bool in_kept_loop)
{
  if (!st || s->why) return NULL;
  switch (st->kind) {
  case DG_ST_BLOCK: {
    dg_stmt *n = new_stmt(s, st);
    n->body = dg_arena_alloc(s->a, sizeof *n->body * (size_t)(st->nbody + 1));
    n->nbody = 0;
    for (int i = 0; i < st->nbody; i++) {
      dg_stmt *c = build_stmt(s, st->body[i], in_kept_loop);
      if (c) n->body[n->nbody++] = c;
    }
    return n->nbody ? n : NULL;
  }
  case DG_ST_DECL: return pass_stmt(s, st, in_kept_loop).kept ? (dg_stmt *)st : NULL;
  case DG_ST_EXPR: return build_expr_stmt(s, st);
  case DG_ST_IF: {
    if (!pass_stmt(s, st, in_kept_loop).kept) return NULL;
    dg_stmt *n = new_stmt(s, st);
    n->then = build_stmt(s, st->then, in_kept_loop);
    n->els = build_stmt(s, st->els, in_kept_loop);
    if (!n->then) n->then = empty_block(s, st);
    return n;
  }
  case DG_ST_FOR: case DG_ST_WHILE: case DG_ST_DO: {
    if (!pass_loop(s, st).kept) return NULL;
    dg_stmt *n = new_stmt(s, st);
    n->init = build_stmt(s, st->init, false);
    n->step = pass_expr(s, st->step) ? st->step : NULL;
    n->then = build_stmt(s, st->then, true);
    if (!n->then) n->then = empty_block(s, st);
    return n;
  }
  case DG_ST_BREAK: case DG_ST_CONTINUE: return in_kept_loop ? (dg_stmt *)st : NULL;
  case DG_ST_RETURN: return (dg_stmt *)st;
  default: return NULL;    /* switch (only when dropped), nop */
  }
}

const dg_func *check_slice_writes(dg_arena *a, const dg_func *f, const char **why)
{
  slicer s = { .a = a, .k = { f, 0 } };
  *why = NULL;
  if (!f || !f->body) { *why = "no kernel body"; return NULL; }
  int guard = 0;
  do {
    s.grew = false;
    pass_stmt(&s, f->body, false);
  } while (s.grew && !s.why && ++guard < 64);
  if (!s.why && s.grew) s.why = "no fixed point";
  dg_stmt *body = NULL;
  if (!s.why) {
    body = build_stmt(&s, f->body, false);
    if (s.grew) s.why = "the slice is not stable";
  }
  dg_vec_free(&s.rel);
  if (s.why) { *why = s.why; return NULL; }
  dg_func *g = dg_arena_alloc(a, sizeof *g);
  *g = *f;
  g->body = body ? body : empty_block(&s, f->body);
  return g;
}
