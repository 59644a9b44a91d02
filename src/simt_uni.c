/* simt_uni.c — uniform expression programs (concrete domain only).
 *
 * Most of a kernel's index arithmetic reads only values that are one value
 * in every thread of the block (constants, blockIdx, blockDim, parameters,
 * loop counters every live thread runs in step). The tree walk of
 * simt_expr.c computes such nodes in one lane already, but still pays the
 * per-node dispatch, scratch and mask work for every node. Here a pure
 * subtree (constants, builtins other than threadIdx, scalar register reads,
 * unary, binary and conversion nodes of scalar non-pointer types) is
 * lowered once per launch to a postfix program over 64-bit slots, and run
 * as a scalar when every register it reads is uniform at that moment.
 *
 * Nothing observable changes: the program computes each node with the
 * concrete domain's own operations on one lane (the bits of the tree walk's
 * one-lane path), the thread-instruction count grows by the subtree's node
 * count times the active lanes, as the walk would, and programs are not run
 * while a thread is traced (its trace lists every node). Pure nodes cannot
 * report events, so skipping their dispatch skips none.
 *
 * Also here: the uniform load (one address in every lane of a written global
 * buffer, in bounds: loaded once), the memory counterpart of a program. */
#include "simt_int.h"
#include <stdlib.h>
#include <string.h>

/* U_BIN for any operation; the common i32 ones have their own codes */
enum { U_CONST, U_REG, U_BIDX, U_UN, U_BIN, U_CAST,
       U_ADD32, U_SUB32, U_MUL32, U_LT32, U_LE32, U_GT32, U_GE32, U_EQ, U_NE, U_ADD64, U_MUL64 };
enum { UNI_MAX_INS = 128, UNI_MAX_STACK = 32, UNI_MAX_SLOTS = 16 };

typedef struct {
  uint8_t op;
  uint8_t code;             /* dg_unop / dg_binop / dg_castkind, or blockIdx's dim */
  int32_t slot;             /* U_REG */
  const dg_type *t, *t2;    /* operand type (U_UN, U_BIN); to and from (U_CAST); U_BIDX: result */
  dom_val imm;              /* U_CONST */
} uni_ins;

struct simt_uprog {
  int nins, nnodes, nslots;
  int32_t slots[UNI_MAX_SLOTS];
  /* the last run: its inputs (the registers in slots order, the block) and
   * result; the same inputs give the same result without running it again */
  bool memo;
  int64_t memo_block;
  dom_val memo_in[UNI_MAX_SLOTS], memo_out;
  /* a root a op leaf (((co * Ci + ci) * 3 + kh) * 3 + kw): a's instructions
   * (the first asplit) keep their own memo over a's registers, so a miss
   * caused by the leaf alone (the inner loop's counter) is the leaf and
   * the operation (the last two instructions), without the interpreter */
  int asplit, naslots;
  int32_t aslots[UNI_MAX_SLOTS];
  bool amemo;
  int64_t amemo_block;
  dom_val amemo_in[UNI_MAX_SLOTS], amemo_val;
  uint8_t bdims;            /* blockIdx dimensions it reads (bit d): not uniform where blocks are packed */
  uni_ins ins[];
};

/* A compiled program, or (not_pure) the answer that this node has none. */
static simt_uprog not_pure;

typedef struct {
  uni_ins ins[UNI_MAX_INS];
  int nins, nnodes, depth, maxdepth;
  int32_t slots[UNI_MAX_SLOTS];
  int nslots;
} uni_build;

static bool scalar_ok(const dg_type *t)
{
  return t && t->kind >= DG_TY_BOOL && t->kind <= DG_TY_F64;
}

dom_val simt_uni_const(simt_x *x, const dg_type *t, int64_t iv, double fv, bool isf)
{
  static const uint8_t on = 1;
  dom_val w;
  if (!isf && t->kind == DG_TY_I32) return (dom_val)(int64_t)(int32_t)iv;    /* const_int's wrap, inline */
  if (!isf && t->kind == DG_TY_U32) return (dom_val)(uint32_t)iv;
  if (isf || simt_isfloat(t)) x->d->const_float(x->d, t, 1, &on, &w, isf ? fv : (double)iv);
  else x->d->const_int(x->d, t, 1, &on, &w, &iv);
  return w;
}

static bool emit(uni_build *b, uni_ins in, int dd)
{
  if (b->nins >= UNI_MAX_INS) return false;
  b->ins[b->nins++] = in;
  b->depth += dd;
  if (b->depth > b->maxdepth) b->maxdepth = b->depth;
  b->nnodes++;
  return b->maxdepth <= UNI_MAX_STACK;
}

/* The instruction of a binary operation on operand type t: dom_concrete's
 * i32 and i64 loops (the bits of its ibin), else the domain's call. */
static uint8_t bin_code(int op, const dg_type *t)
{
  if (t->kind == DG_TY_I32)
    switch (op) {
    case DG_BIN_ADD: return U_ADD32;
    case DG_BIN_SUB: return U_SUB32;
    case DG_BIN_MUL: return U_MUL32;
    case DG_BIN_LT: return U_LT32;
    case DG_BIN_LE: return U_LE32;
    case DG_BIN_GT: return U_GT32;
    case DG_BIN_GE: return U_GE32;
    case DG_BIN_EQ: return U_EQ;
    case DG_BIN_NE: return U_NE;
    default: return U_BIN;
    }
  if (t->kind == DG_TY_I64 || t->kind == DG_TY_U64)
    switch (op) {
    case DG_BIN_ADD: return U_ADD64;
    case DG_BIN_MUL: return U_MUL64;
    case DG_BIN_EQ: return U_EQ;
    case DG_BIN_NE: return U_NE;
    default: return U_BIN;
    }
  return U_BIN;
}

/* Conversions that leave the slot as it is (simt_convert's identities, and
 * widening a 32-bit integer to 64 bits, which dom_concrete's cast copies). */
static bool cast_id(const dg_type *to, const dg_type *from)
{
  return to == from || to->kind == from->kind
      || ((to->kind == DG_TY_I64 || to->kind == DG_TY_U64) && (from->kind == DG_TY_I32 || from->kind == DG_TY_U32));
}

/* An integer / or % only by a literal that is neither 0 nor -1: the others
 * may be undefined, an event the tree walk reports and a program cannot. */
static bool div_safe(const dg_expr *e)
{
  if ((e->op != DG_BIN_DIV && e->op != DG_BIN_MOD) || !dg_type_is_int(e->a->type)) return true;
  const dg_expr *d = e->b;
  while (d->kind == DG_EX_CAST && d->op == DG_CAST_CONVERT && dg_type_is_int(d->a->type)) d = d->a;
  return d->kind == DG_EX_INT && d->ival != 0 && d->ival != -1;
}

static bool comp(simt_x *x, uni_build *b, const dg_expr *e)
{
  if (!e || !scalar_ok(e->type)) return false;
  switch (e->kind) {
  case DG_EX_INT:
    return emit(b, (uni_ins){ .op = U_CONST, .imm = simt_uni_const(x, e->type, e->ival, 0, false) }, 1);
  case DG_EX_FLOAT:
    return emit(b, (uni_ins){ .op = U_CONST, .imm = simt_uni_const(x, e->type, 0, e->fval, true) }, 1);
  case DG_EX_BUILTIN: {
    int d = e->dim < 0 || e->dim > 2 ? 0 : e->dim;
    switch (e->op) {
    case DG_BI_THREADIDX: return false;
    case DG_BI_BLOCKIDX: return emit(b, (uni_ins){ .op = U_BIDX, .code = (uint8_t)d, .t = e->type }, 1);
    case DG_BI_BLOCKDIM: return emit(b, (uni_ins){ .op = U_CONST, .imm = simt_uni_const(x, e->type, x->bdim[d], 0, false) }, 1);
    case DG_BI_GRIDDIM: return emit(b, (uni_ins){ .op = U_CONST, .imm = simt_uni_const(x, e->type, x->gdim[d], 0, false) }, 1);
    default: return emit(b, (uni_ins){ .op = U_CONST, .imm = simt_uni_const(x, e->type, 32, 0, false) }, 1);
    }
  }
  case DG_EX_VAR: {
    const dg_var *v = e->var;
    if (!v || (v->kind != DG_VAR_LOCAL && v->kind != DG_VAR_PARAM) || v->addr_taken) return false;
    int s = 0;
    while (s < b->nslots && b->slots[s] != v->slot) s++;
    if (s == b->nslots) {
      if (b->nslots >= UNI_MAX_SLOTS) return false;
      b->slots[b->nslots++] = v->slot;
    }
    return emit(b, (uni_ins){ .op = U_REG, .slot = v->slot }, 1);
  }
  case DG_EX_UNARY:
    if (!scalar_ok(e->a->type) || !comp(x, b, e->a)) return false;
    return emit(b, (uni_ins){ .op = U_UN, .code = (uint8_t)e->op, .t = e->a->type }, 0);
  case DG_EX_BINARY:
    if (!scalar_ok(e->a->type) || !scalar_ok(e->b->type)) return false;
    if (e->op == DG_BIN_PTRADD || e->op == DG_BIN_PTRDIFF) return false;
    if (!div_safe(e)) return false;        /* may report division-by-zero (simt_expr.c) */
    if (!comp(x, b, e->a) || !comp(x, b, e->b)) return false;
    return emit(b, (uni_ins){ .op = bin_code(e->op, e->a->type), .code = (uint8_t)e->op, .t = e->a->type }, -1);
  case DG_EX_CAST:
    if (!scalar_ok(e->a->type) || (e->op != DG_CAST_CONVERT && e->op != DG_CAST_BITCAST)) return false;
    if (!comp(x, b, e->a)) return false;
    if (e->op == DG_CAST_CONVERT && cast_id(e->type, e->a->type)) {   /* no instruction, still a node */
      b->nnodes++;
      return true;
    }
    return emit(b, (uni_ins){ .op = U_CAST, .code = (uint8_t)e->op, .t = e->type, .t2 = e->a->type }, 0);
  default:
    return false;
  }
}

static simt_uprog *compile(simt_x *x, const dg_expr *e)
{
  uni_build *b = malloc(sizeof *b);
  if (!b) dg_oom();
  b->nins = b->nnodes = b->depth = b->maxdepth = b->nslots = 0;
  simt_uprog *p = &not_pure;
  if (comp(x, b, e)) {
    p = dg_arena_alloc(&x->uni_arena, sizeof *p + sizeof *p->ins * (size_t)b->nins);
    p->nins = b->nins, p->nnodes = b->nnodes, p->nslots = b->nslots, p->memo = false;
    memcpy(p->slots, b->slots, sizeof p->slots);
    memcpy(p->ins, b->ins, sizeof *p->ins * (size_t)b->nins);
    p->bdims = 0;
    for (int i = 0; i < p->nins; i++)
      if (p->ins[i].op == U_BIDX) p->bdims |= (uint8_t)(1 << p->ins[i].code);
    p->asplit = p->naslots = 0, p->amemo = false;
    const dg_expr *lf = e->kind == DG_EX_BINARY ? e->b : NULL;
    if (lf && (lf->kind == DG_EX_VAR || lf->kind == DG_EX_INT || lf->kind == DG_EX_BUILTIN)) {
      /* a's instructions are the program's first ones: compiled alone, the
       * same (comp is deterministic), which gives their count and registers */
      b->nins = b->nnodes = b->depth = b->maxdepth = b->nslots = 0;
      if (comp(x, b, e->a) && b->nins >= 3 && b->nins + 2 == p->nins && b->depth == 1) {
        p->asplit = b->nins, p->naslots = b->nslots;
        memcpy(p->aslots, b->slots, sizeof p->aslots);
      }
    }
  }
  free(b);
  return p;
}

/* ---- the table: expression -> program, per launch ----------------------------- */
static size_t uhash(const dg_expr *e, size_t cap)
{
  return (size_t)(((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
}

static void utab_grow(simt_x *x)
{
  size_t cap = x->uni_cap ? x->uni_cap * 2 : 512;
  simt_uent *t = dg_calloc(cap, sizeof *t);
  for (size_t i = 0; i < x->uni_cap; i++) {
    if (!x->uni_tab[i].e) continue;
    size_t h = uhash(x->uni_tab[i].e, cap);
    while (t[h].e) h = (h + 1) & (cap - 1);
    t[h] = x->uni_tab[i];
  }
  free(x->uni_tab);
  x->uni_tab = t, x->uni_cap = cap;
}

static const simt_uprog *lookup(simt_x *x, const dg_expr *e)
{
  if (x->uni_n * 2 >= x->uni_cap) utab_grow(x);
  size_t h = uhash(e, x->uni_cap);
  while (x->uni_tab[h].e && x->uni_tab[h].e != e) h = (h + 1) & (x->uni_cap - 1);
  simt_uent *u = &x->uni_tab[h];
  if (!u->e) {
    u->e = e, u->p = compile(x, e);
    x->uni_n++;
  }
  return u->p;
}

void simt_uni_free(simt_x *x)
{
  free(x->uni_tab);
  x->uni_tab = NULL, x->uni_cap = x->uni_n = 0;
  dg_arena_free(&x->uni_arena);
}

/* ---- running ------------------------------------------------------------------ */
dom_val simt_uni_bin(simt_x *x, int op, const dg_type *t, dom_val a, dom_val b)
{
  /* the common kinds inline, with the bits of dom_concrete.c's loops */
  if (t->kind == DG_TY_I32) {
    switch (op) {
    case DG_BIN_ADD: return (dom_val)(int64_t)(int32_t)(a + b);
    case DG_BIN_SUB: return (dom_val)(int64_t)(int32_t)(a - b);
    case DG_BIN_MUL: return (dom_val)(int64_t)(int32_t)(a * b);
    case DG_BIN_LT: return (int64_t)a < (int64_t)b;
    case DG_BIN_LE: return (int64_t)a <= (int64_t)b;
    case DG_BIN_GT: return (int64_t)a > (int64_t)b;
    case DG_BIN_GE: return (int64_t)a >= (int64_t)b;
    case DG_BIN_EQ: return a == b;
    case DG_BIN_NE: return a != b;
    case DG_BIN_SHL: return (uint64_t)b >= 32 ? 0 : (dom_val)(int64_t)(int32_t)(a << b);
    case DG_BIN_SHR: return (uint64_t)b >= 32 ? ((int64_t)a < 0 ? (dom_val)-1 : 0) : (dom_val)((int64_t)a >> b);
    case DG_BIN_DIV:      /* x/0 is all ones, INT_MIN/-1 wraps (c_binop's) */
      return b == 0 ? (dom_val)-1 : (int64_t)b == -1 ? (dom_val)(int64_t)(int32_t)(0 - a)
           : (dom_val)(int64_t)(int32_t)((int64_t)a / (int64_t)b);
    default: break;
    }
  } else if (t->kind == DG_TY_U32) {
    switch (op) {
    case DG_BIN_ADD: return (uint32_t)(a + b);
    case DG_BIN_SUB: return (uint32_t)(a - b);
    case DG_BIN_MUL: return (uint32_t)(a * b);
    case DG_BIN_LT: return a < b;
    case DG_BIN_LE: return a <= b;
    case DG_BIN_GT: return a > b;
    case DG_BIN_GE: return a >= b;
    case DG_BIN_EQ: return a == b;
    case DG_BIN_NE: return a != b;
    case DG_BIN_SHL: return (uint64_t)b >= 32 ? 0 : (uint32_t)(a << b);
    case DG_BIN_SHR: return (uint64_t)b >= 32 ? 0 : a >> b;
    case DG_BIN_DIV: return b == 0 ? 0xffffffffu : (uint32_t)(a / b);
    default: break;
    }
  } else if (t->kind == DG_TY_I64 || t->kind == DG_TY_U64) {
    switch (op) {
    case DG_BIN_ADD: return a + b;
    case DG_BIN_SUB: return a - b;
    case DG_BIN_MUL: return a * b;
    default: break;
    }
  }
  static const uint8_t on = 1;
  dom_val r;
  x->d->binop(x->d, (dg_binop)op, t, 1, &on, &r, &a, &b);
  return r;
}

dom_val simt_uni_cast(simt_x *x, int ck, const dg_type *to, const dg_type *from, dom_val a)
{
  static const uint8_t on = 1;
  if (ck == DG_CAST_CONVERT && cast_id(to, from)) return a;
  dom_val r;
  if (ck == DG_CAST_CONVERT && simt_fast_cast(to->kind, from->kind, 0, 1, &r, &a)) return r;   /* c_cast's bits, one lane */
  x->d->cast(x->d, (dg_castkind)ck, to, from, 1, &on, &r, &a);
  return r;
}

/* A binary instruction on a and b. */
static inline dom_val op2(simt_x *x, const uni_ins *i, dom_val a, dom_val b)
{
  switch (i->op) {
  case U_ADD32: return (dom_val)(int64_t)(int32_t)(a + b);
  case U_SUB32: return (dom_val)(int64_t)(int32_t)(a - b);
  case U_MUL32: return (dom_val)(int64_t)(int32_t)(a * b);
  case U_LT32: return (dom_val)((int64_t)a < (int64_t)b);
  case U_LE32: return (dom_val)((int64_t)a <= (int64_t)b);
  case U_GT32: return (dom_val)((int64_t)a > (int64_t)b);
  case U_GE32: return (dom_val)((int64_t)a >= (int64_t)b);
  case U_EQ: return (dom_val)(a == b);
  case U_NE: return (dom_val)(a != b);
  case U_ADD64: return a + b;
  case U_MUL64: return a * b;
  default: return simt_uni_bin(x, i->code, i->t, a, b);     /* U_BIN */
  }
}

/* A leaf instruction's value (U_CONST, U_REG, U_BIDX). */
static inline dom_val leaf(simt_x *x, const uni_ins *i, dom_val *const *reg, int l)
{
  switch (i->op) {
  case U_CONST: return i->imm;
  case U_REG: return reg[i->slot][l];
  default: return simt_uni_const(x, i->t, x->bidx[i->code], 0, false);
  }
}

/* Postfix instructions [i, end) over the stack st holding sp values (lane
 * l of the registers); the bottom value at the end. */
static dom_val run_ins(simt_x *x, const uni_ins *i, const uni_ins *end, dom_val *const *reg, int l,
                       dom_val *st, int sp)
{
  for (; i < end; i++) {
    switch (i->op) {
    case U_CONST: case U_REG: case U_BIDX: st[sp++] = leaf(x, i, reg, l); break;
    case U_UN: {
      static const uint8_t on = 1;
      dom_val a = st[sp - 1];
      x->d->unop(x->d, (dg_unop)i->code, i->t, 1, &on, &st[sp - 1], &a);
      break;
    }
    case U_CAST: st[sp - 1] = simt_uni_cast(x, i->code, i->t, i->t2, st[sp - 1]); break;
    default: sp--, st[sp - 1] = op2(x, i, st[sp - 1], st[sp]); break;
    }
  }
  return st[0];
}

/* The program's value (lane l of the registers). Out of line: the common
 * calls end at the memo. */
static __attribute__((noinline)) dom_val interp(simt_x *x, simt_uprog *p, dom_val *const *reg, int l)
{
  dom_val st[UNI_MAX_STACK];
  return run_ins(x, p->ins, p->ins + p->nins, reg, l, st, 0);
}

bool simt_uni_run(simt_x *x, const dg_expr *e, const msk *k, dom_val *out)
{
  simt_uprog *p = (simt_uprog *)lookup(x, e);
  if (p == &not_pure || (p->bdims & x->pvary)) return false;
  dom_val *const *reg = x->fr->reg;
  const uint8_t *runi = x->fr->runi;
  int l = msk_first(k).lo;
  bool same = p->memo && p->memo_block == x->block;
  for (int s = 0; s < p->nslots; s++) {
    int32_t sl = p->slots[s];
    if (!reg[sl] || !runi[sl]) {
      /* the register that was not uniform is likely not to be next time: test it first */
      for (int j = s; j > 0; j--) p->slots[j] = p->slots[j - 1];
      p->slots[0] = sl;
      p->memo = false;
      return false;
    }
    dom_val v = reg[sl][l];
    same &= v == p->memo_in[s];
    p->memo_in[s] = v;
  }
  x->lane_ops += (uint64_t)(p->nnodes - 1) * (uint64_t)k->cnt;
  if (p->asplit && !same) {
    /* a op leaf whose leaf changed (the inner loop's counter): a's memo,
     * then the leaf and the operation (the program's last two
     * instructions), without the interpreter */
    bool as = p->amemo && p->amemo_block == x->block;
    for (int s = 0; s < p->naslots; s++) {
      dom_val v = reg[p->aslots[s]][l];
      as &= v == p->amemo_in[s];
      p->amemo_in[s] = v;
    }
    if (!as) {
      dom_val st[UNI_MAX_STACK];
      p->amemo = true, p->amemo_block = x->block, p->amemo_val = run_ins(x, p->ins, p->ins + p->asplit, reg, l, st, 0);
    }
    const uni_ins *t = p->ins + p->asplit;
    p->memo = true, p->memo_block = x->block;
    *out = p->memo_out = op2(x, t + 1, p->amemo_val, leaf(x, t, reg, l));
    return true;
  }
  if (!same) p->memo = true, p->memo_block = x->block, p->memo_out = interp(x, p, reg, l);
  *out = p->memo_out;
  return true;
}

/* A conversion of a uniform register ((unsigned)k in threadIdx.x < k): the
 * value simt_uni_run computes for it, without the program's lookup;
 * counts the register's node (the caller counts the root). */
bool simt_uni_castreg(simt_x *x, const dg_expr *e, const msk *k, dom_val *out)
{
  const dg_expr *v = e->a;
  if (e->kind != DG_EX_CAST || e->op != DG_CAST_CONVERT || v->kind != DG_EX_VAR || !v->var
      || (v->var->kind != DG_VAR_LOCAL && v->var->kind != DG_VAR_PARAM) || v->var->addr_taken
      || !scalar_ok(e->type) || !scalar_ok(v->type))
    return false;
  dom_val *reg = x->fr->reg[v->var->slot];
  if (!reg || !x->fr->runi[v->var->slot]) return false;
  x->lane_ops += (uint64_t)k->cnt;
  *out = simt_uni_cast(x, DG_CAST_CONVERT, e->type, v->type, reg[msk_first(k).lo]);
  return true;
}

/* ---- uniform loads --------------------------------------------------------------- */
/* A load every lane makes from one address of a buffer that is written
 * throughout, in bounds: nothing to report, one value (thin). A shared
 * buffer's race cells for it wait in the read log (simt_race_wait_uni).
 * NULL: not such a load. */
dom_val *simt_uni_load(simt_x *x, const simt_lval *lv, const msk *k, dg_span sp)
{
  dg_tykind kd = lv->t->kind;
  int64_t size = kd == DG_TY_F32 || kd == DG_TY_I32 || kd == DG_TY_U32 ? 4
               : kd == DG_TY_F64 || kd == DG_TY_I64 || kd == DG_TY_U64 ? 8 : 0;
  int l = msk_first(k).lo;
  uint32_t id = dom_ptr_buf((dom_val)lv->addr[l]);
  int64_t o = dom_ptr_off((dom_val)lv->addr[l]);
  if (!size || id == 0 || id >= (uint32_t)x->top) return NULL;
  simt_buf *b = &x->m->bufs.v[id];
  if (!b->all_init || o < 0 || o + size > b->mem.size) return NULL;
  if (b->race && !simt_race_wait_uni(x, b, k, o, size, sp)) return NULL;
  if (simt_gsh_ld(x, b)) return NULL;       /* global race cells to look at: lane by lane */
  if (simt_glr_on(x, b)) simt_glr_load_lanes(x, b, k->lo, k->hi, k->b + k->lo, lv->addr + k->lo, size, sp);
  if (x->pk) simt_pack_load1(x, id);
  dom_val *r = simt_vals(x, lv->t);
  const uint8_t *p = b->mem.bytes + o;
  switch (kd) {            /* as fast_access loads them */
  case DG_TY_F32: { float v; memcpy(&v, p, 4); r[l] = dom_of_f((double)v); break; }
  case DG_TY_I32: { int32_t v; memcpy(&v, p, 4); r[l] = (dom_val)(int64_t)v; break; }
  case DG_TY_U32: { uint32_t v; memcpy(&v, p, 4); r[l] = (dom_val)v; break; }
  default: { uint64_t v; memcpy(&v, p, 8); r[l] = v; break; }
  }
  return r;
}
