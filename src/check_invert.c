/* check_invert.c — the writer of L by inverting the kernel's store addresses,
 * for grids too large to search (check.c's find_writer).
 *
 * The writer search runs every block of the launch (the store slice, or the
 * whole kernel when a store's address or condition reads memory): at
 * cross_entropy's huge instance that is 1 M blocks at ~7,500 blocks/s, past
 * any budget. Here the global stores of the kernel are read off its IR and
 * their byte offsets built as bit-vector terms over blockIdx and threadIdx
 * (everything else concrete: blockDim, gridDim, the launch's integer
 * arguments); Z3 then answers two questions over every thread of the grid:
 *   1. which thread may store a byte of L? (a model: block b, thread t)
 *   2. may any other thread? — it must be unsat.
 * A store counts as executed by a thread when the conditions of the ifs
 * around it that can be built (from the same things as an address: `lane ==
 * 0`) hold, and those of the early returns of the kernel's body itself
 * before it (`if (m >= M) return;`: false); every other condition (one that
 * reads memory, a loop's test, a return inside a loop, a switch) is
 * ignored, i.e. taken as true. So the
 * set of threads that may store into L over-approximates the real one, and
 * "no other thread may" is a proof that at most thread (b, t) writes L. The candidate is then confirmed by running block b
 * in full on the emulator with the writer map: it must store L (its
 * conditions on the data decide). Only then is (b, t) the writer, exactly
 * what the search would have found.
 *
 * An address is built only from: integer constants, the builtins, the
 * launch's arguments (a tensor argument is its buffer at offset 0), locals
 * declared once with an initialiser and never assigned again (so their value
 * is that expression's, whichever iteration declares them), parameters never
 * assigned, a for loop's variable changed only by its step (init + k*d for a
 * free k: every iteration's value; the loop's test joins its body's path), integer arithmetic, comparisons, ?:, casts between integers and
 * between pointers, pointer + integer and a[i] (shifts and divisions by
 * positive constants only: C leaves the rest undefined). A load, a call, an atomic
 * or any other intrinsic taking a pointer, or a store whose target buffer or
 * offset cannot be built stops it (the search runs as before); so does a
 * store through a local pointer assigned twice. Stores to shared memory,
 * local arrays and other tensors cannot touch L and are not counted. */
#include "check_int.h"
#include "smt.h"
#include <string.h>

enum { V_FAIL, V_INT, V_PTR, V_OTHER };   /* V_OTHER: a pointer to shared/local memory */

typedef struct { int kind; dg_term t; int tensor; } ival;   /* V_PTR: t = byte offset (i64) */

typedef struct {
  chk *c;
  const dg_func *f;
  const dg_launch *l;
  int li;
  simt_launch L;
  term_ctx *tc;
  dg_term bid[3], tid[3];
  int *assigns;            /* per local slot: assignments, DECLs counted apart */
  int *top;                /* of them, plain `x = e;` statements of the kernel's body itself */
  uint8_t *stale;          /* per local slot: its initialiser reads a local assigned again since */
  int *decls;
  const dg_expr **init;    /* per local slot: the DECL's initialiser */
  const dg_expr **step;    /* per local slot: a for loop's step when the slot is its variable */
  const dg_expr **stepd;   /* its amount (NULL: 1) */
  bool *stepdown;          /* subtracted */
  ival *memo;              /* per local slot (kind 0 = V_FAIL: not yet / failed) */
  uint8_t *done;
  DG_VEC(dg_term) hits;    /* per store into the output: "it overlaps L" */
  DG_VEC(dg_term) assume;  /* facts of every thread (a signed loop variable does not wrap) */
  const char *why;
} inv;

static ival fail(inv *I, const char *why)
{
  if (!I->why) I->why = why;
  return (ival){ V_FAIL, TERM_NONE, -1 };
}

static ival ev(inv *I, const dg_expr *e);

static term_sort isort(const dg_type *t) { return term_int_sort(t->kind); }

static ival as_int(inv *I, const dg_expr *e)
{
  ival v = ev(I, e);
  if (v.kind != V_INT) return v.kind == V_FAIL ? v : fail(I, "a pointer used as an integer");
  return v;
}

/* a pointer expression plus count elements of its pointee */
static ival ptr_add(inv *I, ival p, const dg_expr *pe, const dg_expr *count, bool sub)
{
  if (p.kind != V_PTR) return p;
  ival n = as_int(I, count);
  if (n.kind == V_FAIL) return n;
  const dg_type *pt = pe->type;
  int64_t es = pt->elem ? dg_type_size(pt->elem) : 0;
  if (es <= 0) return fail(I, "pointer arithmetic on an unsized pointee");
  dg_term k = term_convert(I->tc, n.t, TERM_S_I64, dg_type_is_signed(count->type));
  k = term_mul(I->tc, k, term_int(I->tc, TERM_S_I64, es));
  p.t = sub ? term_sub(I->tc, p.t, k) : term_add(I->tc, p.t, k);
  return p;
}

/* A for loop's variable, declared in its init and changed only by its step
 * (i++, i--, i += d, i -= d, d built like an address): in any iteration it
 * is init + k*d for some k (wrapping as the variable's type does), k a free
 * variable of the loop (every iteration's value, and more) */
static ival loop_value(inv *I, const dg_var *v, ival init)
{
  term_ctx *tc = I->tc;
  const dg_expr *de = I->stepd[v->slot];
  term_sort so = isort(v->type);
  dg_term d = term_int(tc, so, 1);
  if (de) {
    ival x = as_int(I, de);
    if (x.kind != V_INT || term_sort_of(tc, x.t) == TERM_S_BOOL) return x.kind == V_FAIL ? x : fail(I, "a loop step that is not an integer");
    d = term_convert(tc, x.t, so, dg_type_is_signed(de->type));
  }
  /* named per variable: the solver names its constants by the display
   * name, and one "iteration" for two nested loops made i == j (a
   * register-tiled matmul's c[r, c] with i != j had no writer) */
  char *kn = dg_printf("iteration.%d", v->slot);
  term_varinfo vi = { TERM_VAR_FREE, "iteration", v->slot, DG_TY_I64, kn };
  dg_term k = term_var(tc, so, &vi), kd = term_mul(tc, k, d);
  free(kn);
  init.t = term_convert(tc, init.t, so, dg_type_is_signed(I->init[v->slot]->type));
  dg_term start = init.t, zero = term_int(tc, so, 0);
  bool down = I->stepdown[v->slot];
  init.t = down ? term_sub(tc, init.t, kd) : term_add(tc, init.t, kd);
  if (dg_type_is_signed(v->type)) {
    /* a signed variable cannot wrap (C: undefined), so it moves away from
     * its start in the step's direction: `for (int c = lane; c < C; c += 32)`
     * never reaches a negative c that would alias another row's element */
    dg_term up = term_icmp(tc, down ? TERM_CMP_LE : TERM_CMP_GE, d, zero, true);
    dg_term fwd = term_icmp(tc, TERM_CMP_GE, init.t, start, true), back = term_icmp(tc, TERM_CMP_LE, init.t, start, true);
    dg_vec_push(&I->assume, term_and(tc, term_or(tc, term_not(tc, up), fwd), term_or(tc, up, back)));
  }
  return init;
}

static ival var_value(inv *I, const dg_var *v)
{
  const dg_func *f = I->f;
  if (v->kind == DG_VAR_SHARED || v->kind == DG_VAR_SHARED_EXTERN) return (ival){ V_OTHER, TERM_NONE, -1 };
  if (v->kind == DG_VAR_GLOBAL) return fail(I, "a __device__ variable");
  if (v->addr_taken || v->by_ref) {
    if (v->kind == DG_VAR_LOCAL && v->type->kind == DG_TY_ARRAY) return (ival){ V_OTHER, TERM_NONE, -1 };
    return fail(I, "a variable in memory");
  }
  int s = v->slot;
  if (s < 0 || s >= f->nslots || I->assigns[s] > I->top[s]) return fail(I, "a variable assigned after its declaration");
  if (I->stale[s]) return fail(I, "a local whose initialiser reads a variable assigned after it");
  if (v->kind == DG_VAR_PARAM) {
    int a = -1;
    for (int i = 0; i < f->nparams; i++)
      if (f->params[i] == v) a = i;
    if (a < 0 || a >= (int)I->l->args.n) return fail(I, "a parameter without an argument");
    const dg_launch_arg *x = &I->l->args.v[a];
    if (x->kind == DG_ARG_TENSOR) return (ival){ V_PTR, term_int(I->tc, TERM_S_I64, 0), x->index };
    int64_t val = 0;
    dg_diags d = {0};
    bool ok = (x->kind == DG_ARG_EXPR || x->kind == DG_ARG_BOOL) &&
              dg_problem_arg_int(I->c->p, I->li, a, I->c->sizes, &val, &d);
    dg_diags_free(&d);
    if (!ok || !dg_type_is_int(v->type)) return fail(I, "a parameter that is not an integer or a tensor");
    return (ival){ V_INT, term_int(I->tc, isort(v->type), val), -1 };
  }
  if (I->decls[s] != 1 || !I->init[s]) return fail(I, "a local declared without an initialiser");
  if (I->done[s] == 2) return I->memo[s];
  if (I->done[s] == 1) return fail(I, "a recursive definition");
  I->done[s] = 1;
  ival r = ev(I, I->init[s]);
  if (r.kind == V_INT && I->step[s]) r = loop_value(I, v, r);
  if (r.kind == V_INT && dg_type_is_int(v->type))      /* the declaration converts (st_decl) */
    r.t = term_convert(I->tc, r.t, isort(v->type), dg_type_is_signed(I->init[s]->type));
  else if (r.kind == V_INT) r = fail(I, "a local that is not an integer or a pointer");
  I->memo[s] = r;
  I->done[s] = 2;
  return r;
}

static dg_term bool_xor(term_ctx *tc, dg_term a, dg_term b) { return term_icmp(tc, TERM_CMP_NE, a, b, false); }

/* Integer operators: f (sort-blind), fs (signedness of the operands'
 * type), or a comparison; fb for bool operands (&, |, ^ of conditions). */
typedef dg_term (*bin_fn)(term_ctx *, dg_term, dg_term);
typedef dg_term (*bin_sfn)(term_ctx *, dg_term, dg_term, bool);
typedef struct { bin_fn f; bin_sfn fs; int cmp; bin_fn fb; } bin_op;
static const bin_op bin_tab[DG_BIN__COUNT] = {
  [DG_BIN_ADD] = { term_add }, [DG_BIN_SUB] = { term_sub }, [DG_BIN_MUL] = { term_mul },
  [DG_BIN_DIV] = { .fs = term_idiv }, [DG_BIN_MOD] = { .fs = term_irem },
  [DG_BIN_SHL] = { term_shl }, [DG_BIN_SHR] = { .fs = term_shr },
  [DG_BIN_AND] = { term_band, .fb = term_and }, [DG_BIN_OR] = { term_bor, .fb = term_or },
  [DG_BIN_XOR] = { term_bxor, .fb = bool_xor },
  [DG_BIN_EQ] = { .cmp = 1 + TERM_CMP_EQ }, [DG_BIN_NE] = { .cmp = 1 + TERM_CMP_NE },
  [DG_BIN_LT] = { .cmp = 1 + TERM_CMP_LT }, [DG_BIN_LE] = { .cmp = 1 + TERM_CMP_LE },
  [DG_BIN_GT] = { .cmp = 1 + TERM_CMP_GT }, [DG_BIN_GE] = { .cmp = 1 + TERM_CMP_GE },
};

static ival binary(inv *I, const dg_expr *e)
{
  term_ctx *tc = I->tc;
  if (e->op == DG_BIN_PTRADD) {
    bool pa = e->a->type->kind == DG_TY_PTR;
    return ptr_add(I, ev(I, pa ? e->a : e->b), pa ? e->a : e->b, pa ? e->b : e->a, false);
  }
  if (e->op <= DG_BIN_NONE || e->op >= DG_BIN__COUNT) return fail(I, "an operator the inversion does not model");
  ival a = as_int(I, e->a);
  if (a.kind == V_FAIL) return a;
  ival b = as_int(I, e->b);
  if (b.kind == V_FAIL) return b;
  bool sg = dg_type_is_signed(e->a->type);
  dg_term x = a.t, y = b.t;
  int64_t k;
  bool shift = e->op == DG_BIN_SHL || e->op == DG_BIN_SHR, konst = term_const_int(tc, y, &k);
  /* where C leaves it undefined (a shift past the width, a division by zero) the
   * engine and the terms need not agree: only constant shifts and divisors */
  if (shift && (!konst || k < 0 || k >= term_sort_bits(term_sort_of(tc, x))))
    return fail(I, "a shift by a non-constant amount");
  if (shift) y = term_int(tc, term_sort_of(tc, x), k);   /* C does not convert a shift's amount */
  if ((e->op == DG_BIN_DIV || e->op == DG_BIN_MOD) && (!konst || k <= 0))
    return fail(I, "a division by a non-constant or non-positive divisor");
  bool isbool = term_sort_of(tc, x) == TERM_S_BOOL;
  if (term_sort_of(tc, y) != term_sort_of(tc, x)) return fail(I, "operands of two widths");
  const bin_op *o = &bin_tab[e->op];
  dg_term r = TERM_NONE;
  if (o->cmp) {
    if (!isbool || o->cmp - 1 == TERM_CMP_EQ || o->cmp - 1 == TERM_CMP_NE) r = term_icmp(tc, (term_cmpop)(o->cmp - 1), x, y, sg);
  } else if (isbool) {
    if (o->fb) r = o->fb(tc, x, y);
  } else {
    r = o->f ? o->f(tc, x, y) : o->fs ? o->fs(tc, x, y, sg) : TERM_NONE;
  }
  if (!r) return fail(I, "an operator the inversion does not model");
  return (ival){ V_INT, r, -1 };
}

static ival ev(inv *I, const dg_expr *e)
{
  term_ctx *tc = I->tc;
  if (I->why) return (ival){ V_FAIL, TERM_NONE, -1 };
  switch (e->kind) {
  case DG_EX_INT:
    if (!dg_type_is_int(e->type)) return fail(I, "a non-integer constant");
    return (ival){ V_INT, e->type->kind == DG_TY_BOOL ? term_bool(tc, e->ival != 0) : term_int(tc, isort(e->type), e->ival), -1 };
  case DG_EX_BUILTIN: {
    int d = e->dim < 0 || e->dim > 2 ? 0 : e->dim;
    uint32_t k;
    switch (e->op) {
    case DG_BI_THREADIDX: return (ival){ V_INT, term_convert(tc, I->tid[d], isort(e->type), false), -1 };
    case DG_BI_BLOCKIDX: return (ival){ V_INT, term_convert(tc, I->bid[d], isort(e->type), false), -1 };
    case DG_BI_BLOCKDIM: k = I->L.block[d] ? I->L.block[d] : 1; break;
    case DG_BI_GRIDDIM: k = I->L.grid[d] ? I->L.grid[d] : 1; break;
    default: k = 32; break;
    }
    return (ival){ V_INT, term_int(tc, isort(e->type), k), -1 };
  }
  case DG_EX_VAR: return var_value(I, e->var);
  case DG_EX_UNARY: {
    ival a = as_int(I, e->a);
    if (a.kind == V_FAIL) return a;
    bool isbool = term_sort_of(tc, a.t) == TERM_S_BOOL;
    if (e->op == DG_UN_NOT)
      return (ival){ V_INT, term_not(tc, isbool ? a.t : term_convert(tc, a.t, TERM_S_BOOL, false)), -1 };
    if (isbool) return fail(I, "arithmetic on a bool");
    return (ival){ V_INT, e->op == DG_UN_NEG ? term_neg(tc, a.t) : term_bnot(tc, a.t), -1 };
  }
  case DG_EX_BINARY: return binary(I, e);
  case DG_EX_LAND: case DG_EX_LOR: {
    ival a = as_int(I, e->a), b = a.kind == V_FAIL ? a : as_int(I, e->b);
    if (b.kind == V_FAIL) return b;
    dg_term x = term_convert(tc, a.t, TERM_S_BOOL, false), y = term_convert(tc, b.t, TERM_S_BOOL, false);
    if (term_sort_of(tc, a.t) == TERM_S_BOOL) x = a.t;
    if (term_sort_of(tc, b.t) == TERM_S_BOOL) y = b.t;
    return (ival){ V_INT, e->kind == DG_EX_LAND ? term_and(tc, x, y) : term_or(tc, x, y), -1 };
  }
  case DG_EX_COND: {
    ival k = as_int(I, e->a), a = k.kind == V_FAIL ? k : as_int(I, e->b), b = a.kind == V_FAIL ? a : as_int(I, e->c);
    if (b.kind == V_FAIL) return b;
    dg_term cond = term_sort_of(tc, k.t) == TERM_S_BOOL ? k.t : term_convert(tc, k.t, TERM_S_BOOL, false);
    return (ival){ V_INT, term_ite(tc, cond, a.t, b.t), -1 };
  }
  case DG_EX_CAST: {
    ival a = ev(I, e->a);
    if (a.kind == V_FAIL) return a;
    if (e->op == DG_CAST_PTR) return a.kind == V_INT ? fail(I, "an integer cast to a pointer") : a;
    if (e->op != DG_CAST_CONVERT || a.kind != V_INT || !dg_type_is_int(e->type))
      return fail(I, "a cast the inversion does not model");
    return (ival){ V_INT, term_convert(tc, a.t, isort(e->type), dg_type_is_signed(e->a->type)), -1 };
  }
  case DG_EX_INDEX:
    if (e->type && e->type->kind == DG_TY_ARRAY) {   /* a row of a shared or local 2-D array: an address */
      const char *was = I->why;
      ival a = ev(I, e->a);
      if (a.kind == V_OTHER) return a;
      I->why = was;
    }
    return fail(I, "a load");
  case DG_EX_ADDR: {
    const dg_expr *x = e->a;
    if (x->kind == DG_EX_INDEX) {
      bool pa = x->a->type->kind == DG_TY_PTR || x->a->type->kind == DG_TY_ARRAY;
      if (!pa) return fail(I, "an index into a non-pointer");
      ival p = ev(I, x->a);
      return p.kind == V_PTR ? ptr_add(I, p, x->a, x->b, false) : p;
    }
    if (x->kind == DG_EX_DEREF) return ev(I, x->a);
    if (x->kind == DG_EX_VAR && x->var->kind != DG_VAR_GLOBAL) return (ival){ V_OTHER, TERM_NONE, -1 };
    return fail(I, "an address the inversion does not model");
  }
  default: return fail(I, "an expression the inversion does not model (a load, a call, an intrinsic)");
  }
}

/* ---- the stores ------------------------------------------------------------------ */
static const dg_expr *strip_lv(const dg_expr *lv)
{
  while (lv->kind == DG_EX_LANE || lv->kind == DG_EX_FIELD) lv = lv->a;
  return lv;
}

/* A store to memory lvalue m (INDEX or DEREF): into the output's buffer, the
 * term "it overlaps L" joins I->hits. */
static void store(inv *I, const dg_expr *m, dg_term path)
{
  ival p;
  if (m->kind == DG_EX_INDEX) {
    p = ev(I, m->a);
    if (p.kind == V_PTR) p = ptr_add(I, p, m->a, m->b, false);
  } else {
    p = ev(I, m->a);
  }
  if (p.kind == V_FAIL) { fail(I, "a store whose address cannot be built"); return; }
  if (p.kind != V_PTR || p.tensor != I->c->t) return;
  term_ctx *tc = I->tc;
  int64_t size = dg_type_size(m->type);
  dg_term lo = term_int(tc, TERM_S_I64, I->c->off), hi = term_int(tc, TERM_S_I64, I->c->off + I->c->es);
  dg_term end = term_add(tc, p.t, term_int(tc, TERM_S_I64, size));
  dg_term hit = term_and(tc, path, term_and(tc, term_lt(tc, p.t, hi), term_lt(tc, lo, end)));
  dg_vec_push(&I->hits, hit);
}

/* Walks every expression of the function: counts assignments of locals
 * (count) or collects the stores (!count), each under path: the conditions
 * of the ifs around it that can be built (others count as true). */
/* A call that reaches no tensor: every argument is a scalar, a vector or a struct of them,
 * or a pointer the inversion builds as one into shared or local memory (a reference to a
 * local is one: `&best`) to something that holds no pointer (warp_max(v),
 * block_reduce(v, smem), argmax_merge(best, idx, v, i) with references to its locals). The
 * tensors are reachable only through the kernel's pointer parameters, so such a callee
 * stores into none of them. It may assign the locals it is handed the address of; those
 * are in memory (addr_taken), which an address cannot read (ev); its value in an address
 * fails there too. */
static bool holds_no_pointer(const dg_type *t)
{
  if (t->kind == DG_TY_PTR || t->kind == DG_TY_ARRAY) return false;
  for (int i = 0; t->kind == DG_TY_STRUCT && i < t->nslots; i++)
    if (!holds_no_pointer(t->slots[i].type)) return false;
  return true;
}

/* what a pointer argument points to holds no pointer (arrays of such: a shared tile's row) */
static bool pointee_no_pointer(const dg_type *t)
{
  while (t && t->kind == DG_TY_ARRAY) t = t->elem;
  return t && holds_no_pointer(t);
}

static bool call_stores_nothing(inv *I, const dg_expr *e)
{
  if (!e->func) return false;
  for (int i = 0; i < e->nargs; i++) {
    const dg_type *t = e->args[i]->type;
    if (t && t->kind == DG_TY_PTR) {
      if (t->elem && t->elem->kind != DG_TY_VOID && !pointee_no_pointer(t->elem)) return false;   /* a local pointer's address */
      const char *was = I->why;
      ival v = ev(I, e->args[i]);
      I->why = was;
      if (v.kind != V_OTHER) return false;
    } else if (!t || !holds_no_pointer(t)) {
      return false;
    }
  }
  return true;
}

static void walk_e(inv *I, const dg_expr *e, bool count, dg_term path)
{
  if (!e || I->why) return;
  if (e->kind == DG_EX_CALL && !call_stores_nothing(I, e)) { fail(I, "a call (it may store)"); return; }
  if (e->kind == DG_EX_INTRIN && !(e->op >= 0 && e->op < DG_IN__COUNT && dg_intrins[e->op].cls == DG_IC_LOAD)) {
    for (int i = 0; i < e->nargs; i++)    /* __ldg only reads */
      if (e->args[i]->type && e->args[i]->type->kind == DG_TY_PTR) { fail(I, "an intrinsic on a pointer (an atomic)"); return; }
  }
  if (e->kind == DG_EX_ASSIGN || e->kind == DG_EX_INCDEC) {
    const dg_expr *m = strip_lv(e->a);
    if (m->kind == DG_EX_VAR && m->var->by_ref) {
      fail(I, "a store through a reference");
      return;
    }
    if (m->kind == DG_EX_VAR) {
      if (count && m->var->slot >= 0 && m->var->slot < I->f->nslots) I->assigns[m->var->slot]++;
    } else if (m->kind == DG_EX_INDEX || m->kind == DG_EX_DEREF) {
      if (!count) store(I, m, path);
    } else {
      fail(I, "a store to an lvalue the inversion does not model");
      return;
    }
  }
  walk_e(I, e->a, count, path);
  walk_e(I, e->b, count, path);
  walk_e(I, e->c, count, path);
  for (int i = 0; i < e->nargs; i++) walk_e(I, e->args[i], count, path);
}

/* An if's condition as a bool term; TERM_NONE when it cannot be built (it
 * reads memory, or a variable assigned twice): then neither branch is
 * constrained. */
static dg_term try_cond(inv *I, const dg_expr *e)
{
  ival v = ev(I, e);
  if (v.kind != V_INT) {
    I->why = NULL;
    return TERM_NONE;
  }
  if (term_sort_of(I->tc, v.t) == TERM_S_BOOL) return v.t;
  return term_convert(I->tc, v.t, TERM_S_BOOL, false);
}

/* e is v itself, or v converted to an integer type at least as wide */
static bool is_var_widened(const dg_expr *e, const dg_var *v)
{
  if (e->kind == DG_EX_CAST && e->op == DG_CAST_CONVERT && dg_type_is_int(e->type) &&
      dg_type_size(e->type) >= dg_type_size(v->type))
    e = e->a;
  return e->kind == DG_EX_VAR && e->var == v;
}

/* The variable of `for (T v = init; ...; v++ / v-- / v += d / v -= d)`, also
 * as the front end lowers a mixed-type `v += d`: v = (T)((U)v + d) with U at
 * least as wide as T (the same sum modulo 2^bits(T)). *d gets the step
 * expression (NULL: 1), *down whether it is subtracted. NULL otherwise. */
static const dg_var *loop_var(const dg_stmt *s, const dg_expr **d, bool *down)
{
  const dg_expr *st = s->step;
  if (!st || !s->init || s->init->kind != DG_ST_DECL || !s->init->var || !s->init->e) return NULL;
  const dg_var *v = s->init->var;
  if (v->kind != DG_VAR_LOCAL || v->addr_taken || v->by_ref || !dg_type_is_int(v->type) || v->type->kind == DG_TY_BOOL)
    return NULL;
  if ((st->kind != DG_EX_INCDEC && st->kind != DG_EX_ASSIGN) || st->a->kind != DG_EX_VAR || st->a->var != v) return NULL;
  *d = NULL;
  *down = st->op == DG_BIN_SUB;
  if (st->kind == DG_EX_INCDEC) return v;
  if (st->op == DG_BIN_ADD || st->op == DG_BIN_SUB) return *d = st->b, v;
  if (st->op != DG_BIN_NONE) return NULL;
  const dg_expr *b = st->b;
  if (b->kind == DG_EX_CAST && b->op == DG_CAST_CONVERT && b->type == v->type) b = b->a;
  if (b->kind != DG_EX_BINARY || (b->op != DG_BIN_ADD && b->op != DG_BIN_SUB) || !dg_type_is_int(b->type) ||
      dg_type_size(b->type) < dg_type_size(v->type))
    return NULL;
  *down = b->op == DG_BIN_SUB;
  if (is_var_widened(b->a, v)) return *d = b->b, v;
  if (!*down && is_var_widened(b->b, v)) return *d = b->a, v;
  return NULL;
}

static void walk_s(inv *I, const dg_stmt *s, bool count, dg_term path)
{
  if (!s || I->why) return;
  if (s->kind == DG_ST_DECL && count && s->var && s->var->slot >= 0 && s->var->slot < I->f->nslots) {
    I->decls[s->var->slot]++;
    I->init[s->var->slot] = s->e;
  }
  if (s->kind == DG_ST_DECL && s->var && s->var->type->kind == DG_TY_ARRAY && s->ninits) {
    for (int i = 0; i < s->ninits; i++) walk_e(I, s->inits[i], count, path);
  }
  walk_e(I, s->e, count, path);
  walk_s(I, s->init, count, path);
  const dg_expr *d = NULL;
  bool down = false;
  const dg_var *lv = s->kind == DG_ST_FOR ? loop_var(s, &d, &down) : NULL;
  if (lv && count) {   /* the step is the loop variable's one change: not counted */
    I->step[lv->slot] = s->step;
    I->stepd[lv->slot] = d;
    I->stepdown[lv->slot] = down;
    walk_e(I, d, count, path);
  } else {
    walk_e(I, s->step, count, path);
  }
  if ((s->kind == DG_ST_IF || s->kind == DG_ST_FOR) && !count) {
    dg_term k = s->e ? try_cond(I, s->e) : TERM_NONE;   /* a loop's test holds in its body */
    walk_s(I, s->then, count, k ? term_and(I->tc, path, k) : path);
    walk_s(I, s->els, count, k && s->kind == DG_ST_IF ? term_and(I->tc, path, term_not(I->tc, k)) : path);
  } else {
    walk_s(I, s->then, count, path);
    walk_s(I, s->els, count, path);
  }
  for (int i = 0; i < s->nbody; i++) walk_s(I, s->body[i], count, path);
}

static dg_term free_var(term_ctx *tc, const char *name, int d)
{
  static const char *const dn[3] = { "x", "y", "z" };
  char *n = dg_printf("%s.%s", name, dn[d]);
  term_varinfo vi = { TERM_VAR_FREE, n, 0, DG_TY_U32, NULL };
  dg_term v = term_var(tc, TERM_S_I32, &vi);
  free(n);
  return v;
}

/* The two queries over every thread of the grid: a thread whose store may
 * overlap L, then any other. NULL with (block, thread) when exactly one. */
static const char *solve_writer(inv *I, const simt_launch *L, int64_t *block, int64_t *thread, int64_t *two)
{
  term_ctx *tc = I->tc;
  dg_term any = term_false(tc), in = term_true(tc);
  for (size_t i = 0; i < I->hits.n; i++) any = term_or(tc, any, I->hits.v[i]);
  for (int d = 0; d < 3; d++) {
    uint32_t g = L->grid[d] ? L->grid[d] : 1, b = L->block[d] ? L->block[d] : 1;
    in = term_and(tc, in, term_icmp(tc, TERM_CMP_LT, I->bid[d], term_int(tc, TERM_S_I32, g), false));
    in = term_and(tc, in, term_icmp(tc, TERM_CMP_LT, I->tid[d], term_int(tc, TERM_S_I32, b), false));
  }
  smt_opts so = { .timeout_ms = 5000, .deadline = I->c->deadline };
  if (I->c->deadline > 0) {
    double left = (I->c->deadline - dg_now()) * 1000;
    so.timeout_ms = left < 1 ? 1 : left < so.timeout_ms ? (unsigned)left : so.timeout_ms;
  }
  smt_solver *s = smt_new(tc, &so);
  smt_assume(s, in);
  for (size_t i = 0; i < I->assume.n; i++) smt_assume(s, I->assume.v[i]);
  smt_result r;
  smt_verdict v = smt_sat(s, any, &r);
  uint32_t bv[3] = {0}, tv[3] = {0};
  for (size_t i = 0; v == SMT_SAT && i < r.nmodel; i++)
    for (int d = 0; d < 3; d++) {
      if (r.model[i].var == I->bid[d]) bv[d] = (uint32_t)r.model[i].value.i;
      if (r.model[i].var == I->tid[d]) tv[d] = (uint32_t)r.model[i].value.i;
    }
  smt_result_free(&r);
  const char *why = v == SMT_UNSAT ? "no thread's store address reaches the element" : "the solver gave no writer";
  if (v == SMT_SAT) {   /* any other thread? */
    dg_term other = term_false(tc);
    for (int d = 0; d < 3; d++) {
      other = term_or(tc, other, term_not(tc, term_eq(tc, I->bid[d], term_int(tc, TERM_S_I32, bv[d]))));
      other = term_or(tc, other, term_not(tc, term_eq(tc, I->tid[d], term_int(tc, TERM_S_I32, tv[d]))));
    }
    v = smt_sat(s, term_and(tc, any, other), &r);
    uint32_t bw[3] = {0}, tw[3] = {0};     /* the other thread (two: check_invert_two) */
    for (size_t i = 0; v == SMT_SAT && i < r.nmodel; i++)
      for (int d = 0; d < 3; d++) {
        if (r.model[i].var == I->bid[d]) bw[d] = (uint32_t)r.model[i].value.i;
        if (r.model[i].var == I->tid[d]) tw[d] = (uint32_t)r.model[i].value.i;
      }
    smt_result_free(&r);
    why = v == SMT_SAT ? "several threads may store into the element" : "the solver did not rule out other writers";
    int64_t gx = L->grid[0] ? L->grid[0] : 1, gy = L->grid[1] ? L->grid[1] : 1;
    int64_t bx = L->block[0] ? L->block[0] : 1, by = L->block[1] ? L->block[1] : 1;
    *block = bv[0] + gx * (bv[1] + gy * (int64_t)bv[2]);
    *thread = tv[0] + bx * (tv[1] + by * (int64_t)tv[2]);
    if (v == SMT_UNSAT) why = NULL;
    if (v == SMT_SAT && two) {
      two[0] = bw[0] + gx * (bw[1] + gy * (int64_t)bw[2]);
      two[1] = tw[0] + bx * (tw[1] + by * (int64_t)tw[2]);
    }
  }
  smt_free(s);
  return why;
}

/* ---- locals reassigned in the kernel's body: versions in program order ----
 * `int x = bx * 32 + tx; ... x = by * 32 + tx;` (a tiled transpose's input
 * column, then its output column), each a statement of the body itself (not
 * in a loop or a branch): the walk that collects the stores goes through the
 * body in order and, at such a statement, makes its right side x's value
 * from there on (addresses and conditions are built as the walk meets them).
 * A local whose initialiser reads x is built lazily and would read the
 * newer x: from there on it fails as before where an address or a
 * condition reads it (avgpool's hend reads hstart; its store address not). */
static const dg_expr *top_assign(const dg_stmt *st)
{
  if (!st || st->kind != DG_ST_EXPR || !st->e || st->e->kind != DG_EX_ASSIGN || st->e->op != DG_BIN_NONE) return NULL;
  const dg_expr *m = strip_lv(st->e->a);
  if (m->kind != DG_EX_VAR || m->var->kind != DG_VAR_LOCAL || m->var->by_ref || m->var->addr_taken) return NULL;
  return st->e;
}

static bool reads_var(const dg_expr *e, const dg_var *v)
{
  if (!e) return false;
  if (e->kind == DG_EX_VAR && e->var == v) return true;
  if (reads_var(e->a, v) || reads_var(e->b, v) || reads_var(e->c, v)) return true;
  for (int i = 0; i < e->nargs; i++) if (reads_var(e->args[i], v)) return true;
  return false;
}

/* `if (c) return;` or `if (c) { ...; return; }` with no else: a statement
 * of the body itself after it runs only where c is false (matmul's `if (m
 * >= M || n >= N) return;`: without it, thread (m - 1, n + N) of a grid
 * wider than N seemed to store c[m, n] too). */
static bool ends_in_return(const dg_stmt *s)
{
  while (s && s->kind == DG_ST_BLOCK && s->nbody) s = s->body[s->nbody - 1];
  return s && s->kind == DG_ST_RETURN;
}

static void walk_body(inv *I, const dg_stmt *body)
{
  const dg_func *f = I->f;
  if (!body || body->kind != DG_ST_BLOCK) {
    walk_s(I, body, false, term_true(I->tc));
    return;
  }
  dg_term path = term_true(I->tc);    /* no early return taken so far */
  for (int i = 0; i < body->nbody && !I->why; i++) {
    const dg_stmt *st = body->body[i];
    const dg_expr *a = top_assign(st);
    int x = a ? strip_lv(a->a)->var->slot : -1;
    if (x < 0 || x >= f->nslots || !I->top[x] || I->assigns[x] != I->top[x]) {
      walk_s(I, st, false, path);
      dg_term k;
      if (!I->why && st->kind == DG_ST_IF && !st->els && st->e && ends_in_return(st->then) &&
          (k = try_cond(I, st->e)) != TERM_NONE)
        path = term_and(I->tc, path, term_not(I->tc, k));
      continue;
    }
    for (int s = 0; s < f->nslots; s++)       /* built lazily, they would read the newer x */
      if (s != x && I->init[s] && reads_var(I->init[s], strip_lv(a->a)->var)) I->stale[s] = 1;
    walk_e(I, a->b, false, path);
    I->init[x] = a->b;                                   /* x's value from here on */
    memset(I->done, 0, (size_t)f->nslots);              /* every memo rebuilt: the same, or with the new x */
  }
}

static bool invert(chk *c, int li, const simt_launch *L, int64_t *block, int64_t *thread, int64_t *two,
                   const char **why)
{
  inv I = { .c = c, .f = c->k->kern.v[li], .l = c->p->launches.v[li], .li = li, .L = *L };
  const dg_func *f = I.f;
  I.tc = term_ctx_new(TERM_MODEL_REAL);
  int ns = f->nslots > 0 ? f->nslots : 1;
  I.assigns = dg_calloc((size_t)ns, sizeof *I.assigns);
  I.top = dg_calloc((size_t)ns, sizeof *I.top);
  I.stale = dg_calloc((size_t)ns, 1);
  I.decls = dg_calloc((size_t)ns, sizeof *I.decls);
  I.init = dg_calloc((size_t)ns, sizeof *I.init);
  I.step = dg_calloc((size_t)ns, sizeof *I.step);
  I.stepd = dg_calloc((size_t)ns, sizeof *I.stepd);
  I.stepdown = dg_calloc((size_t)ns, sizeof *I.stepdown);
  I.memo = dg_calloc((size_t)ns, sizeof *I.memo);
  I.done = dg_calloc((size_t)ns, 1);
  for (int d = 0; d < 3; d++) I.bid[d] = free_var(I.tc, "blockIdx", d), I.tid[d] = free_var(I.tc, "threadIdx", d);
  walk_s(&I, f->body, true, term_true(I.tc));
  if (f->body && f->body->kind == DG_ST_BLOCK)
    for (int i = 0; i < f->body->nbody; i++) {
      const dg_expr *a = top_assign(f->body->body[i]);
      int x = a ? strip_lv(a->a)->var->slot : -1;
      if (x >= 0 && x < f->nslots) I.top[x]++;
    }
  walk_body(&I, f->body);
  if (!I.why && !I.hits.n) I.why = "no store into the output";
  *why = I.why ? I.why : solve_writer(&I, L, block, thread, two);
  free(I.assigns);
  free(I.top);
  free(I.stale);
  free(I.decls);
  free(I.init);
  free(I.step);
  free(I.stepd);
  free(I.stepdown);
  free(I.memo);
  free(I.done);
  dg_vec_free(&I.hits);
  dg_vec_free(&I.assume);
  term_ctx_free(I.tc);
  return !*why;
}

bool check_invert_writer(chk *c, int li, const simt_launch *L, int64_t *block, int64_t *thread, const char **why)
{
  return invert(c, li, L, block, thread, NULL, why);
}

bool check_invert_two(chk *c, int li, const simt_launch *L, int64_t flat, int64_t b[2], int64_t t[2])
{
  int64_t off = c->off, two[2] = { -1, -1 };
  const char *why = NULL;
  c->off = flat * c->es;                    /* the stores' hits are built against c->off */
  invert(c, li, L, &b[0], &t[0], two, &why);
  c->off = off;
  b[1] = two[0], t[1] = two[1];
  return why && !strcmp(why, "several threads may store into the element") && b[1] >= 0;
}
