/* simt_build.h — a tiny IR builder for the SIMT engine's tests: kernels
 * written by hand as trees, each node stamped with line `L` of a pretend
 * file 1 so detections can be checked by line. Everything lives in arena B. */
#ifndef DG_SIMT_BUILD_H
#define DG_SIMT_BUILD_H
#include "ir.h"
#include <stdarg.h>
#pragma GCC diagnostic ignored "-Wunused-function"

static dg_arena B;
static uint32_t L = 1;
static dg_type TY[DG_TY__COUNT];
#define SP ((dg_span){ 1, L, 1 })
#define T_VOID (&TY[DG_TY_VOID])
#define T_BOOL (&TY[DG_TY_BOOL])
#define T_INT (&TY[DG_TY_I32])
#define T_UINT (&TY[DG_TY_U32])
#define T_U8 (&TY[DG_TY_U8])
#define T_LONG (&TY[DG_TY_I64])
#define T_F16 (&TY[DG_TY_F16])
#define T_BF16 (&TY[DG_TY_BF16])
#define T_F32 (&TY[DG_TY_F32])
#define T_F64 (&TY[DG_TY_F64])

static void b_init(void)
{
  for (int k = 0; k < DG_TY__COUNT; k++) TY[k].kind = (dg_tykind)k, TY[k].name = "t";
}

static const dg_type *mk_ty(dg_tykind k, const dg_type *e, int64_t n)
{
  dg_type *t = dg_arena_alloc(&B, sizeof *t);
  t->kind = k, t->elem = e, t->count = n, t->name = "t";
  return t;
}
#define PTR(e) mk_ty(DG_TY_PTR, e, 0)
#define ARR(e, n) mk_ty(DG_TY_ARRAY, e, n)
#define VEC(e, n) mk_ty(DG_TY_VEC, e, n)

static dg_expr *ex(dg_exkind k, const dg_type *t)
{
  dg_expr *e = dg_arena_alloc(&B, sizeof *e);
  e->kind = k, e->type = t, e->span = SP;
  return e;
}
static dg_expr *IT(const dg_type *t, int64_t v) { dg_expr *e = ex(DG_EX_INT, t); e->ival = v; return e; }
#define I(v) IT(T_INT, v)
static dg_expr *FT(const dg_type *t, double v) { dg_expr *e = ex(DG_EX_FLOAT, t); e->fval = v; return e; }
#define F(v) FT(T_F32, (float)(v))
static dg_expr *V(dg_var *v) { dg_expr *e = ex(DG_EX_VAR, v->type); e->var = v; return e; }
static dg_expr *BI(int which, int dim) { dg_expr *e = ex(DG_EX_BUILTIN, T_INT); e->op = which, e->dim = dim; return e; }
#define TID(d) BI(DG_BI_THREADIDX, d)
#define BID(d) BI(DG_BI_BLOCKIDX, d)
#define BDIM(d) BI(DG_BI_BLOCKDIM, d)
static dg_expr *BIN(int op, dg_expr *a, dg_expr *b)
{
  bool cmp = op >= DG_BIN_EQ && op <= DG_BIN_GE;
  dg_expr *e = ex(DG_EX_BINARY, cmp ? T_BOOL : op == DG_BIN_PTRDIFF ? T_LONG : a->type);
  e->op = op, e->a = a, e->b = b;
  return e;
}
#define ADD(a, b) BIN(DG_BIN_ADD, a, b)
#define SUB(a, b) BIN(DG_BIN_SUB, a, b)
#define MUL(a, b) BIN(DG_BIN_MUL, a, b)
#define LT(a, b) BIN(DG_BIN_LT, a, b)
static dg_expr *UN(int op, dg_expr *a) { dg_expr *e = ex(DG_EX_UNARY, op == DG_UN_NOT ? T_BOOL : a->type); e->op = op, e->a = a; return e; }
static dg_expr *IDX(dg_expr *a, dg_expr *b) { dg_expr *e = ex(DG_EX_INDEX, a->type->elem); e->a = a, e->b = b; return e; }
static dg_expr *DEREF(dg_expr *a) { dg_expr *e = ex(DG_EX_DEREF, a->type->elem); e->a = a; return e; }
static dg_expr *ADDR(dg_expr *a) { dg_expr *e = ex(DG_EX_ADDR, PTR(a->type)); e->a = a; return e; }
static dg_expr *ASGOP(int op, dg_expr *a, dg_expr *b) { dg_expr *e = ex(DG_EX_ASSIGN, a->type); e->op = op, e->a = a, e->b = b; return e; }
#define ASG(a, b) ASGOP(DG_BIN_NONE, a, b)
static dg_expr *INC(dg_expr *a, bool post) { dg_expr *e = ex(DG_EX_INCDEC, a->type); e->op = DG_BIN_ADD, e->a = a, e->post = post; return e; }
static dg_expr *CASTK(int k, const dg_type *t, dg_expr *a) { dg_expr *e = ex(DG_EX_CAST, t); e->op = k, e->a = a; return e; }
#define CAST(t, a) CASTK(DG_CAST_CONVERT, t, a)
#define PCAST(t, a) CASTK(DG_CAST_PTR, t, a)
static dg_expr *LANE(dg_expr *a, int i) { dg_expr *e = ex(DG_EX_LANE, a->type->elem); e->a = a, e->ival = i; return e; }
static dg_expr *COND(dg_expr *c, dg_expr *a, dg_expr *b) { dg_expr *e = ex(DG_EX_COND, a->type); e->a = c, e->b = a, e->c = b; return e; }
static dg_expr *LOGIC(dg_exkind k, dg_expr *a, dg_expr *b) { dg_expr *e = ex(k, T_BOOL); e->a = a, e->b = b; return e; }
#define LAND(a, b) LOGIC(DG_EX_LAND, a, b)
#define LOR(a, b) LOGIC(DG_EX_LOR, a, b)

static dg_expr *callv(dg_exkind k, const dg_type *t, int op, dg_func *f, va_list ap)
{
  dg_expr *e = ex(k, t), *a;
  e->op = op, e->func = f;
  e->args = dg_arena_alloc(&B, sizeof *e->args * 8);
  while ((a = va_arg(ap, dg_expr *))) e->args[e->nargs++] = a;
  return e;
}
static dg_expr *intrin_(const dg_type *t, int id, ...)
{
  va_list ap;
  va_start(ap, id);
  dg_expr *e = callv(DG_EX_INTRIN, t, id, NULL, ap);
  va_end(ap);
  return e;
}
#define IN(t, id, ...) intrin_(t, DG_IN_##id, __VA_ARGS__, NULL)
#define IN0(t, id) intrin_(t, DG_IN_##id, NULL)
static dg_expr *call_(dg_func *f, ...)
{
  va_list ap;
  va_start(ap, f);
  dg_expr *e = callv(DG_EX_CALL, f->ret, 0, f, ap);
  va_end(ap);
  return e;
}
#define CALL(f, ...) call_(f, __VA_ARGS__, NULL)
static dg_expr *vecb_(const dg_type *t, ...)
{
  va_list ap;
  va_start(ap, t);
  dg_expr *e = callv(DG_EX_VECBUILD, t, 0, NULL, ap);
  va_end(ap);
  return e;
}
#define VECB(t, ...) vecb_(t, __VA_ARGS__, NULL)

/* statements */
static dg_stmt *st(dg_stkind k) { dg_stmt *s = dg_arena_alloc(&B, sizeof *s); s->kind = k, s->span = SP; return s; }
static dg_stmt *EXPR(dg_expr *e) { dg_stmt *s = st(DG_ST_EXPR); s->e = e; return s; }
static dg_stmt *DECL(dg_var *v, dg_expr *init) { dg_stmt *s = st(DG_ST_DECL); s->var = v, s->e = init; return s; }
static dg_stmt *IF(dg_expr *c, dg_stmt *t, dg_stmt *e) { dg_stmt *s = st(DG_ST_IF); s->e = c, s->then = t, s->els = e; return s; }
static dg_stmt *FOR(dg_stmt *init, dg_expr *c, dg_expr *step, dg_stmt *body)
{
  dg_stmt *s = st(DG_ST_FOR);
  s->init = init, s->e = c, s->step = step, s->then = body;
  return s;
}
static dg_stmt *WHILE(dg_expr *c, dg_stmt *body) { dg_stmt *s = st(DG_ST_WHILE); s->e = c, s->then = body; return s; }
static dg_stmt *DO(dg_stmt *body, dg_expr *c) { dg_stmt *s = st(DG_ST_DO); s->e = c, s->then = body; return s; }
#define BRK st(DG_ST_BREAK)
#define CONT st(DG_ST_CONTINUE)
static dg_stmt *RET(dg_expr *e) { dg_stmt *s = st(DG_ST_RETURN); s->e = e; return s; }
static dg_stmt *blk_(dg_stmt *first, ...)
{
  dg_stmt *s = st(DG_ST_BLOCK), *x;
  s->body = dg_arena_alloc(&B, sizeof *s->body * 32);
  va_list ap;
  va_start(ap, first);
  for (x = first; x; x = va_arg(ap, dg_stmt *)) s->body[s->nbody++] = x;
  va_end(ap);
  return s;
}
#define BLK(...) blk_(__VA_ARGS__, NULL)

/* functions */
static dg_func *FN(const char *name, const dg_type *ret, bool kernel)
{
  dg_func *f = dg_arena_alloc(&B, sizeof *f);
  f->name = f->base_name = name, f->ret = ret, f->is_kernel = kernel, f->span = SP;
  f->params = dg_arena_alloc(&B, sizeof *f->params * 16);
  f->locals = dg_arena_alloc(&B, sizeof *f->locals * 64);
  f->shared = dg_arena_alloc(&B, sizeof *f->shared * 16);
  return f;
}
static dg_var *var_(dg_func *f, const char *name, const dg_type *t, dg_varkind k)
{
  dg_var *v = dg_arena_alloc(&B, sizeof *v);
  v->name = name, v->type = t, v->kind = k, v->span = SP;
  v->addr_taken = t->kind == DG_TY_ARRAY;
  if (k == DG_VAR_LOCAL || k == DG_VAR_PARAM) { v->slot = f->nslots; f->locals[f->nslots++] = v; }
  if (k == DG_VAR_PARAM) f->params[f->nparams++] = v;
  if (k == DG_VAR_SHARED || k == DG_VAR_SHARED_EXTERN) { v->slot = f->nshared; f->shared[f->nshared++] = v; }
  return v;
}
#define PARAM(f, n, t) var_(f, n, t, DG_VAR_PARAM)
#define LOCAL(f, n, t) var_(f, n, t, DG_VAR_LOCAL)
#define SHARED(f, n, t) var_(f, n, t, DG_VAR_SHARED)

#endif
