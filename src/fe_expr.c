/* fe_expr.c — expressions: literals, names, operators with C++ typing
 * (promotions, usual arithmetic conversions, pointer arithmetic), every
 * implicit conversion made an explicit DG_EX_CAST. Calls and casts are in
 * fe_call.c. */
#include "fe_int.h"
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <math.h>
#include <float.h>

dg_expr *fe_new_expr(fe_fn *fn, dg_exkind k, const dg_type *t, TSNode at)
{
  dg_expr *e = dg_arena_alloc(&fn->m->arena, sizeof *e);
  e->kind = k;
  e->type = t;
  e->span = fe_span(fn->st, at);
  return e;
}

static dg_expr *mk_int(fe_fn *fn, int64_t v, dg_tykind k, TSNode at)
{
  dg_expr *e = fe_new_expr(fn, DG_EX_INT, fe_scalar(k), at);
  e->ival = v;
  return e;
}

static dg_expr *mk_float(fe_fn *fn, double v, dg_tykind k, TSNode at)
{
  dg_expr *e = fe_new_expr(fn, DG_EX_FLOAT, fe_scalar(k), at);
  e->fval = k == DG_TY_F32 ? (double)(float)v : v;
  return e;
}

static dg_expr *mk_cast(fe_fn *fn, dg_expr *a, const dg_type *to, dg_castkind ck, TSNode at)
{
  dg_expr *e = fe_new_expr(fn, DG_EX_CAST, to, at);
  e->op = ck;
  e->a = a;
  e->span = a->span;
  return e;
}

static dg_expr *mk_bin(fe_fn *fn, dg_binop op, dg_expr *a, dg_expr *b, const dg_type *t, TSNode at)
{
  dg_expr *e = fe_new_expr(fn, DG_EX_BINARY, t, at);
  e->op = op;
  e->a = a;
  e->b = b;
  return e;
}

static bool is_null_const(const dg_expr *e)
{
  return (e->kind == DG_EX_INT && e->ival == 0 && dg_type_is_int(e->type)) ||
         (e->kind == DG_EX_CAST && e->op == DG_CAST_INT2PTR && e->a->kind == DG_EX_INT && e->a->ival == 0);
}

/* The variable an lvalue lives in (through indexing and lanes), for the
 * address space of decayed arrays and &x. */
static dg_var *root_var(const dg_expr *e)
{
  while (e && (e->kind == DG_EX_INDEX || e->kind == DG_EX_LANE || e->kind == DG_EX_FIELD)) {
    if (e->kind == DG_EX_INDEX && e->a->type->kind == DG_TY_PTR) return NULL;
    e = e->a;
  }
  return e && e->kind == DG_EX_VAR ? e->var : NULL;
}

static dg_addrspace var_space(const dg_var *v)
{
  if (!v) return DG_AS_GENERIC;
  switch (v->kind) {
  case DG_VAR_SHARED: case DG_VAR_SHARED_EXTERN: return DG_AS_SHARED;
  case DG_VAR_GLOBAL: return DG_AS_GLOBAL;
  default: return DG_AS_LOCAL;
  }
}

dg_expr *fe_decay(fe_fn *fn, dg_expr *e)
{
  if (e->type->kind != DG_TY_ARRAY) return e;
  dg_var *v = root_var(e);
  if (v) v->addr_taken = true;
  const dg_type *pt = ir_type_ptr(fn->m, e->type->elem, var_space(v), false);
  return mk_cast(fn, e, pt, DG_CAST_PTR, (TSNode){ 0 });
}

dg_expr *fe_convert(fe_fn *fn, dg_expr *e, const dg_type *to, TSNode at)
{
  if (!to || !e->type || e->type == to) return e;
  e = fe_decay(fn, e);
  const dg_type *from = e->type;
  if (from == to) return e;
  if (to->kind == DG_TY_VOID) return e;
  if (dg_type_is_scalar(from) && dg_type_is_scalar(to)) {
    if (to->kind == DG_TY_BOOL && from->kind != DG_TY_BOOL) {
      /* x != 0, typed in x's own type, keeps float -0.0/NaN semantics exact. */
      dg_expr *z = dg_type_is_float(from) ? mk_float(fn, 0, from->kind, at) : mk_int(fn, 0, from->kind, at);
      return mk_bin(fn, DG_BIN_NE, e, z, to, at);
    }
    return mk_cast(fn, e, to, DG_CAST_CONVERT, at);
  }
  if (to->kind == DG_TY_PTR) {
    if (from->kind == DG_TY_PTR) {
      if (ir_type_equiv(from->elem, to->elem) || from->elem->kind == DG_TY_VOID || to->elem->kind == DG_TY_VOID)
        return ir_type_equiv(from, to) ? e : mk_cast(fn, e, to, DG_CAST_PTR, at);
    } else if (is_null_const(e)) {
      return mk_cast(fn, e, to, DG_CAST_INT2PTR, at);
    }
  }
  if (to->kind == DG_TY_BOOL && from->kind == DG_TY_PTR) {
    dg_expr *z = mk_cast(fn, mk_int(fn, 0, DG_TY_I32, at), from, DG_CAST_INT2PTR, at);
    return mk_bin(fn, DG_BIN_NE, e, z, to, at);
  }
  if (ir_type_equiv(from, to)) return e;
  return fe_err(fn, at, DG_SEV_ERROR, "cannot convert '%s' to '%s'", ir_type_name(from), ir_type_name(to));
}

dg_expr *fe_rvalue(fe_fn *fn, TSNode n) { return fe_decay(fn, fe_expr(fn, n)); }

dg_expr *fe_cond(fe_fn *fn, TSNode n)
{
  dg_expr *e = fe_rvalue(fn, n);
  if (!dg_type_is_scalar(e->type) && e->type->kind != DG_TY_PTR)
    return fe_err(fn, n, DG_SEV_ERROR, "condition of type '%s'", ir_type_name(e->type));
  return fe_convert(fn, e, fe_scalar(DG_TY_BOOL), n);
}

/* ---- literals -------------------------------------------------------------- */
static dg_expr *number(fe_fn *fn, TSNode n)
{
  char buf[128];
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  size_t len = 0;
  for (uint32_t i = a; i < b && len + 1 < sizeof buf; i++)
    if (fn->st->src[i] != '\'') buf[len++] = fn->st->src[i];
  buf[len] = 0;
  bool hex = len > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
  bool bin = len > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B');
  bool isf = hex ? strpbrk(buf, "pP") != NULL : strpbrk(buf, ".eE") != NULL;
  if (isf) {
    dg_tykind k = DG_TY_F64;
    if (len && (buf[len - 1] == 'f' || buf[len - 1] == 'F')) { k = DG_TY_F32; buf[--len] = 0; }
    else if (len && (buf[len - 1] == 'l' || buf[len - 1] == 'L')) buf[--len] = 0;
    char *end;
    double v = strtod(buf, &end);
    if (*end) return fe_err(fn, n, DG_SEV_ERROR, "bad number '%s'", fe_text(fn->st, n));
    return mk_float(fn, v, k, n);
  }
  bool u = false;
  int l = 0;
  while (len) {
    char c = buf[len - 1];
    if (c == 'u' || c == 'U') u = true;
    else if (c == 'l' || c == 'L') l++;
    else break;
    buf[--len] = 0;
  }
  if (!len || (!hex && !bin && len && (buf[len - 1] == 'f' || buf[len - 1] == 'F')))
    return fe_err(fn, n, DG_SEV_ERROR, "bad number '%s'", fe_text(fn->st, n));
  char *end;
  errno = 0;
  unsigned long long v = bin ? strtoull(buf + 2, &end, 2) : strtoull(buf, &end, hex ? 16 : (buf[0] == '0' ? 8 : 10));
  if (*end) return fe_err(fn, n, DG_SEV_ERROR, "bad number '%s'", fe_text(fn->st, n));
  if (errno == ERANGE) return fe_err(fn, n, DG_SEV_ERROR, "integer literal '%s' too large", fe_text(fn->st, n));
  bool dec = !hex && !bin && buf[0] != '0';
  dg_tykind k;
  if (u) k = (!l && v <= UINT32_MAX) ? DG_TY_U32 : DG_TY_U64;
  else if (!l && v <= INT32_MAX) k = DG_TY_I32;
  else if (!l && !dec && v <= UINT32_MAX) k = DG_TY_U32;
  else if (v <= INT64_MAX) k = DG_TY_I64;
  else k = DG_TY_U64;
  return mk_int(fn, (int64_t)v, k, n);
}

static dg_expr *char_lit(fe_fn *fn, TSNode n)
{
  const char *s = fn->st->src + ts_node_start_byte(n);
  size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
  if (len == 3 && s[0] == '\'') return mk_int(fn, (signed char)s[1], DG_TY_I8, n);
  if (len == 4 && s[1] == '\\') {
    static const char esc[] = "n\nt\t0\0r\r\\\\''";
    for (int i = 0; i + 1 < (int)sizeof esc; i += 2)
      if (esc[i] == s[2]) return mk_int(fn, esc[i + 1], DG_TY_I8, n);
  }
  return fe_err(fn, n, DG_SEV_UNSUPPORTED, "character literal %.*s", (int)len, s);
}

/* Macros of system headers that kernels use as constants (the preprocessor
 * does not read system headers). */
static const struct { const char *name; double v; dg_tykind k; } known_consts[] = {
  { "FLT_MAX", FLT_MAX, DG_TY_F32 }, { "FLT_MIN", FLT_MIN, DG_TY_F32 },
  { "FLT_EPSILON", FLT_EPSILON, DG_TY_F32 }, { "DBL_MAX", DBL_MAX, DG_TY_F64 },
  { "DBL_MIN", DBL_MIN, DG_TY_F64 }, { "DBL_EPSILON", DBL_EPSILON, DG_TY_F64 },
  { "INFINITY", INFINITY, DG_TY_F32 }, { "HUGE_VALF", INFINITY, DG_TY_F32 },
  { "HUGE_VAL", INFINITY, DG_TY_F64 }, { "NAN", NAN, DG_TY_F32 },
  { "CUDART_INF_F", INFINITY, DG_TY_F32 }, { "CUDART_NAN_F", NAN, DG_TY_F32 },
  { "CUDART_INF", INFINITY, DG_TY_F64 }, { "CUDART_PI_F", 3.14159265358979323846, DG_TY_F32 },
  { "M_PI", 3.14159265358979323846, DG_TY_F64 }, { "M_E", 2.7182818284590452354, DG_TY_F64 },
  { "M_SQRT2", 1.41421356237309504880, DG_TY_F64 }, { "M_SQRT1_2", 0.70710678118654752440, DG_TY_F64 },
  { "M_2_SQRTPI", 1.12837916709551257390, DG_TY_F64 }, { "M_LN2", 0.69314718055994530942, DG_TY_F64 },
  { "M_LOG2E", 1.4426950408889634074, DG_TY_F64 },
  { "INT_MAX", INT32_MAX, DG_TY_I32 }, { "INT_MIN", INT32_MIN, DG_TY_I32 },
  { "UINT_MAX", UINT32_MAX, DG_TY_U32 }, { "LLONG_MAX", 9223372036854775807.0, DG_TY_I64 },
};

static const struct { const char *name; dg_builtin bi; } builtin_vars[] = {
  { "threadIdx", DG_BI_THREADIDX }, { "blockIdx", DG_BI_BLOCKIDX },
  { "blockDim", DG_BI_BLOCKDIM }, { "gridDim", DG_BI_GRIDDIM },
};

static int builtin_var(const char *s, size_t len)
{
  for (int i = 0; i < 4; i++)
    if (strlen(builtin_vars[i].name) == len && !memcmp(builtin_vars[i].name, s, len)) return i;
  return -1;
}

static dg_expr *var_ref(fe_fn *fn, dg_var *v, bool is_ref, TSNode at)
{
  dg_expr *e = fe_new_expr(fn, DG_EX_VAR, v->type, at);
  e->var = v;
  if (!is_ref) return e;
  dg_expr *d = fe_new_expr(fn, DG_EX_DEREF, v->type->elem, at);
  d->a = e;
  return d;
}

static dg_expr *identifier(fe_fn *fn, TSNode n)
{
  fe_state *st = fn->st;
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  const char *s = st->src + a;
  size_t len = b - a;
  const fe_sym *sym = fe_lookup(fn, s, len);
  if (sym) {
    switch (sym->kind) {
    case FE_SYM_VAR: return var_ref(fn, sym->var, sym->is_ref, n);
    case FE_SYM_CINT: {
      dg_expr *e = fe_new_expr(fn, DG_EX_INT, sym->type, n);
      e->ival = sym->ival;
      return e;
    }
    case FE_SYM_CFLOAT: return mk_float(fn, sym->fval, sym->type->kind, n);
    case FE_SYM_TYPE: return fe_err(fn, n, DG_SEV_ERROR, "type '%.*s' used as a value", (int)len, s);
    case FE_SYM_FUNC: return fe_err(fn, n, DG_SEV_UNSUPPORTED, "function '%.*s' used as a value", (int)len, s);
    case FE_SYM_HOSTVAR: return fe_err(fn, n, DG_SEV_ERROR, "host variable '%.*s' used in device code", (int)len, s);
    }
  }
  if (len == 8 && !memcmp(s, "warpSize", 8)) {
    dg_expr *e = fe_new_expr(fn, DG_EX_BUILTIN, fe_scalar(DG_TY_I32), n);
    e->op = DG_BI_WARPSIZE;
    return e;
  }
  if (builtin_var(s, len) >= 0)
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "'%.*s' used without .x, .y or .z", (int)len, s);
  if ((len == 4 && !memcmp(s, "NULL", 4)))
    return mk_cast(fn, mk_int(fn, 0, DG_TY_I32, n), ir_type_ptr(fn->m, fe_scalar(DG_TY_VOID), DG_AS_GENERIC, false),
                   DG_CAST_INT2PTR, n);
  for (size_t i = 0; i < sizeof known_consts / sizeof *known_consts; i++)
    if (strlen(known_consts[i].name) == len && !memcmp(known_consts[i].name, s, len)) {
      if (dg_type_is_int(fe_scalar(known_consts[i].k)))
        return mk_int(fn, (int64_t)known_consts[i].v, known_consts[i].k, n);
      return mk_float(fn, known_consts[i].v, known_consts[i].k, n);
    }
  if (fe_find_def(st, s, len))
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "function '%.*s' used as a value", (int)len, s);
  return fe_err(fn, n, DG_SEV_ERROR, "use of undeclared identifier '%.*s'", (int)len, s);
}

static dg_expr *field(fe_fn *fn, TSNode n)
{
  TSNode arg = fe_field(n, "argument"), fld = fe_field(n, "field");
  if (ts_node_is_null(arg) || ts_node_is_null(fld)) return fe_err(fn, n, DG_SEV_ERROR, "bad member access");
  const char *f = fn->st->src + ts_node_start_byte(fld);
  size_t flen = ts_node_end_byte(fld) - ts_node_start_byte(fld);
  int lane = flen == 1 ? (f[0] == 'x' ? 0 : f[0] == 'y' ? 1 : f[0] == 'z' ? 2 : f[0] == 'w' ? 3 : -1) : -1;
  bool arrow = fe_has_keyword(n, "->");
  if (fe_kind(arg) == FE_N_identifier && !arrow) {
    uint32_t a = ts_node_start_byte(arg), b = ts_node_end_byte(arg);
    int bi = builtin_var(fn->st->src + a, b - a);
    if (bi >= 0 && !fe_lookup(fn, fn->st->src + a, b - a)) {
      if (lane < 0 || lane > 2) return fe_err(fn, fld, DG_SEV_ERROR, "no member '%.*s' in %s", (int)flen, f, builtin_vars[bi].name);
      dg_expr *e = fe_new_expr(fn, DG_EX_BUILTIN, fe_scalar(DG_TY_U32), n);
      e->op = builtin_vars[bi].bi;
      e->dim = lane;
      return e;
    }
  }
  dg_expr *base = fe_expr(fn, arg);
  if (arrow) {
    base = fe_decay(fn, base);
    if (base->type->kind != DG_TY_PTR) return fe_err(fn, n, DG_SEV_ERROR, "'->' on non-pointer type '%s'", ir_type_name(base->type));
    dg_expr *d = fe_new_expr(fn, DG_EX_DEREF, base->type->elem, arg);
    d->a = base;
    base = d;
  }
  if (base->type->kind == DG_TY_STRUCT) return fe_member(fn, base, fld, n);
  if (base->type->kind != DG_TY_VEC) {
    if (fn->failed) return base;
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "member '%.*s' of type '%s'", (int)flen, f, ir_type_name(base->type));
  }
  if (lane < 0 || lane >= base->type->count)
    return fe_err(fn, fld, DG_SEV_ERROR, "no member '%.*s' in '%s'", (int)flen, f, ir_type_name(base->type));
  dg_expr *e = fe_new_expr(fn, DG_EX_LANE, base->type->elem, n);
  e->a = base;
  e->ival = lane;
  return e;
}

static dg_expr *subscript(fe_fn *fn, TSNode n)
{
  TSNode arg = fe_field(n, "argument"), idx = fe_field(n, "indices");
  if (ts_node_is_null(arg) || ts_node_is_null(idx)) return fe_err(fn, n, DG_SEV_ERROR, "bad subscript");
  if (fe_kind(idx) == FE_N_subscript_argument_list) {
    if (ts_node_named_child_count(idx) != 1) return fe_err(fn, idx, DG_SEV_UNSUPPORTED, "subscript with %u indices", ts_node_named_child_count(idx));
    idx = ts_node_named_child(idx, 0);
  }
  dg_expr *base = fe_expr(fn, arg);
  if (base->type->kind != DG_TY_PTR && base->type->kind != DG_TY_ARRAY) {
    if (fn->failed) return base;
    return fe_err(fn, n, DG_SEV_ERROR, "subscript of non-pointer type '%s'", ir_type_name(base->type));
  }
  if (base->type->elem->kind == DG_TY_VOID) return fe_err(fn, n, DG_SEV_ERROR, "subscript of 'void *'");
  dg_expr *i = fe_rvalue(fn, idx);
  if (!dg_type_is_int(i->type)) return fe_err(fn, idx, DG_SEV_ERROR, "array index of type '%s'", ir_type_name(i->type));
  i = fe_convert(fn, i, fe_promote(i->type), idx);
  if (base->type->kind == DG_TY_ARRAY) { dg_var *v = root_var(base); if (v) v->addr_taken = true; }
  dg_expr *e = fe_new_expr(fn, DG_EX_INDEX, base->type->elem, n);
  e->a = base;
  e->b = i;
  return e;
}

/* ---- operators ----------------------------------------------------------- */
static const struct { const char *tok; dg_binop op; } binops[] = {
  { "+", DG_BIN_ADD }, { "-", DG_BIN_SUB }, { "*", DG_BIN_MUL }, { "/", DG_BIN_DIV },
  { "%", DG_BIN_MOD }, { "<<", DG_BIN_SHL }, { ">>", DG_BIN_SHR }, { "&", DG_BIN_AND },
  { "|", DG_BIN_OR }, { "^", DG_BIN_XOR }, { "==", DG_BIN_EQ }, { "!=", DG_BIN_NE },
  { "<", DG_BIN_LT }, { "<=", DG_BIN_LE }, { ">", DG_BIN_GT }, { ">=", DG_BIN_GE },
};

static dg_binop binop_of(const char *tok, size_t len)
{
  for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
    if (strlen(binops[i].tok) == len && !memcmp(binops[i].tok, tok, len)) return binops[i].op;
  return DG_BIN_NONE;
}

static bool is_cmp(dg_binop op) { return op >= DG_BIN_EQ && op <= DG_BIN_GE; }

/* a op b, both rvalues; the C++ typing of binary operators. */
static dg_expr *binary(fe_fn *fn, dg_binop op, dg_expr *a, dg_expr *b, TSNode n)
{
  const dg_type *ta = a->type, *tb = b->type;
  if (fn->failed && (!ta || !tb)) return a;
  bool pa = ta->kind == DG_TY_PTR, pb = tb->kind == DG_TY_PTR;
  if (pa || pb) {
    if (op == DG_BIN_ADD && pa != pb) {
      dg_expr *p = pa ? a : b, *i = pa ? b : a;
      if (!dg_type_is_int(i->type)) return fe_err(fn, n, DG_SEV_ERROR, "pointer arithmetic with '%s'", ir_type_name(i->type));
      return mk_bin(fn, DG_BIN_PTRADD, p, fe_convert(fn, i, fe_promote(i->type), n), p->type, n);
    }
    if (op == DG_BIN_SUB && pa && !pb) {
      if (!dg_type_is_int(tb)) return fe_err(fn, n, DG_SEV_ERROR, "pointer arithmetic with '%s'", ir_type_name(tb));
      dg_expr *neg = fe_new_expr(fn, DG_EX_UNARY, fe_scalar(DG_TY_I64), n);
      neg->op = DG_UN_NEG;
      neg->a = fe_convert(fn, b, fe_scalar(DG_TY_I64), n);
      return mk_bin(fn, DG_BIN_PTRADD, a, neg, ta, n);
    }
    if (op == DG_BIN_SUB && pa && pb) {
      if (!ir_type_equiv(ta->elem, tb->elem)) return fe_err(fn, n, DG_SEV_ERROR, "difference of unrelated pointers");
      return mk_bin(fn, DG_BIN_PTRDIFF, a, b, fe_scalar(DG_TY_I64), n);
    }
    if (is_cmp(op)) {
      if (pa && !pb) b = fe_convert(fn, b, ta, n);
      else if (pb && !pa) a = fe_convert(fn, a, tb, n);
      else if (!ir_type_equiv(ta, tb)) b = fe_convert(fn, b, ta, n);
      return mk_bin(fn, op, a, b, fe_scalar(DG_TY_BOOL), n);
    }
    return fe_err(fn, n, DG_SEV_ERROR, "invalid operands '%s' and '%s' to '%s'", ir_type_name(ta), ir_type_name(tb), ir_binop_name(op));
  }
  if (!dg_type_is_scalar(ta) || !dg_type_is_scalar(tb)) {
    if (fn->failed) return a;
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "operator '%s' on '%s' and '%s'", ir_binop_name(op), ir_type_name(ta), ir_type_name(tb));
  }
  if (op == DG_BIN_SHL || op == DG_BIN_SHR) {
    if (!dg_type_is_int(ta) || !dg_type_is_int(tb))
      return fe_err(fn, n, DG_SEV_ERROR, "shift of '%s' by '%s'", ir_type_name(ta), ir_type_name(tb));
    const dg_type *t = fe_promote(ta);
    return mk_bin(fn, op, fe_convert(fn, a, t, n), fe_convert(fn, b, fe_promote(tb), n), t, n);
  }
  const dg_type *t = fe_arith(ta, tb);
  if ((op == DG_BIN_MOD || op == DG_BIN_AND || op == DG_BIN_OR || op == DG_BIN_XOR) && !dg_type_is_int(t))
    return fe_err(fn, n, DG_SEV_ERROR, "invalid operands '%s' and '%s' to '%s'", ir_type_name(ta), ir_type_name(tb), ir_binop_name(op));
  a = fe_convert(fn, a, t, n);
  b = fe_convert(fn, b, t, n);
  return mk_bin(fn, op, a, b, is_cmp(op) ? fe_scalar(DG_TY_BOOL) : t, n);
}

static const char *op_token(fe_fn *fn, TSNode n, size_t *len)
{
  TSNode op = fe_field(n, "operator");
  if (ts_node_is_null(op)) { *len = 0; return ""; }
  *len = ts_node_end_byte(op) - ts_node_start_byte(op);
  return fn->st->src + ts_node_start_byte(op);
}

static dg_expr *binary_expr(fe_fn *fn, TSNode n)
{
  size_t len;
  const char *tok = op_token(fn, n, &len);
  TSNode l = fe_field(n, "left"), r = fe_field(n, "right");
  if (ts_node_is_null(l) || ts_node_is_null(r)) return fe_err(fn, n, DG_SEV_ERROR, "bad expression");
  if (len == 2 && (!memcmp(tok, "&&", 2) || !memcmp(tok, "||", 2))) {
    dg_expr *e = fe_new_expr(fn, tok[0] == '&' ? DG_EX_LAND : DG_EX_LOR, fe_scalar(DG_TY_BOOL), n);
    e->a = fe_cond(fn, l);
    e->b = fe_cond(fn, r);
    return e;
  }
  dg_binop op = binop_of(tok, len);
  if (op == DG_BIN_NONE) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "operator '%.*s'", (int)len, tok);
  dg_expr *a = fe_rvalue(fn, l), *b = fe_rvalue(fn, r);
  return binary(fn, op, a, b, n);
}

static bool is_lvalue(const dg_expr *e)
{
  switch (e->kind) {
  case DG_EX_VAR: case DG_EX_INDEX: case DG_EX_DEREF: return true;
  case DG_EX_LANE: case DG_EX_FIELD: return is_lvalue(e->a);
  default: return false;
  }
}

static dg_expr *need_lvalue(fe_fn *fn, dg_expr *e, TSNode n, const char *what)
{
  if (!is_lvalue(e)) return fe_err(fn, n, DG_SEV_ERROR, "%s needs an lvalue", what);
  const dg_expr *v = e;
  while (v->kind == DG_EX_LANE || v->kind == DG_EX_FIELD || (v->kind == DG_EX_INDEX && v->a->type->kind == DG_TY_ARRAY)) v = v->a;
  if (v->kind == DG_EX_VAR && v->var->is_const && !v->var->by_ref)
    return fe_err(fn, n, DG_SEV_ERROR, "%s of const variable '%s'", what, v->var->name);
  return e;
}

static bool side_effect_free(const dg_expr *e)
{
  if (!e) return true;
  switch (e->kind) {
  case DG_EX_ASSIGN: case DG_EX_INCDEC: case DG_EX_CALL: case DG_EX_INTRIN: return false;
  default: return side_effect_free(e->a) && side_effect_free(e->b) && side_effect_free(e->c);
  }
}

static dg_expr *assign(fe_fn *fn, TSNode n)
{
  size_t len;
  const char *tok = op_token(fn, n, &len);
  TSNode l = fe_field(n, "left"), r = fe_field(n, "right");
  if (ts_node_is_null(l) || ts_node_is_null(r)) return fe_err(fn, n, DG_SEV_ERROR, "bad assignment");
  dg_expr *a = need_lvalue(fn, fe_expr(fn, l), l, "assignment");
  if (fn->failed) return a;
  if (a->type->kind == DG_TY_ARRAY) return fe_err(fn, n, DG_SEV_ERROR, "assignment to an array");
  if (fe_kind(r) == FE_N_initializer_list && len == 1 && (a->type->kind == DG_TY_STRUCT || a->type->kind == DG_TY_VEC)) {
    dg_expr *e = fe_new_expr(fn, DG_EX_ASSIGN, a->type, n);     /* x = {a, b} */
    e->a = a;
    e->b = fe_aggregate(fn, r, a->type);
    return e;
  }
  dg_expr *b = fe_rvalue(fn, r);
  dg_expr *e = fe_new_expr(fn, DG_EX_ASSIGN, a->type, n);
  e->a = a;
  if (len == 1) {
    e->b = fe_convert(fn, b, a->type, r);
    return e;
  }
  dg_binop op = binop_of(tok, len - 1);
  if (op == DG_BIN_NONE || tok[len - 1] != '=') return fe_err(fn, n, DG_SEV_UNSUPPORTED, "operator '%.*s'", (int)len, tok);
  const dg_type *ta = a->type;
  if (ta->kind == DG_TY_PTR) {
    if (op != DG_BIN_ADD && op != DG_BIN_SUB) return fe_err(fn, n, DG_SEV_ERROR, "invalid pointer '%.*s'", (int)len, tok);
    dg_expr *sum = binary(fn, op, a, b, n);   /* a PTRADD with the (negated) count */
    e->op = DG_BIN_PTRADD;
    e->b = sum->kind == DG_EX_BINARY ? sum->b : sum;
    return e;
  }
  /* a op= b is kept as one node when computing in a's type is what C++ does:
   * b converted to a's type. Otherwise (int a, float b; float a, double b;
   * narrow a with / % >>), a = (A)(a op b) with a duplicated, which is exact
   * when a has no side effects. */
  dg_expr *full = binary(fn, op, a, b, n);
  if (fn->failed) return full;
  const dg_type *ct = full->type;
  bool same = ct == ta || (dg_type_is_int(ta) && fe_promote(ta) == ct && dg_type_is_int(b->type) &&
                           op != DG_BIN_DIV && op != DG_BIN_MOD && op != DG_BIN_SHR);
  if (op == DG_BIN_SHL || op == DG_BIN_SHR) same = same && ct == ta;
  if (same) {
    e->op = op;
    e->b = (op == DG_BIN_SHL || op == DG_BIN_SHR) ? full->b : fe_convert(fn, b, ta, r);
    return e;
  }
  if (!side_effect_free(a))
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "mixed-type '%.*s' on an lvalue with side effects", (int)len, tok);
  e->b = fe_convert(fn, full, ta, n);
  return e;
}

static dg_expr *update(fe_fn *fn, TSNode n)
{
  TSNode arg = fe_field(n, "argument");
  size_t len;
  const char *tok = op_token(fn, n, &len);
  if (ts_node_is_null(arg) || len != 2) return fe_err(fn, n, DG_SEV_ERROR, "bad increment");
  dg_expr *a = need_lvalue(fn, fe_expr(fn, arg), arg, tok[0] == '+' ? "increment" : "decrement");
  if (fn->failed) return a;
  if (!dg_type_is_scalar(a->type) && a->type->kind != DG_TY_PTR)
    return fe_err(fn, n, DG_SEV_ERROR, "increment of '%s'", ir_type_name(a->type));
  dg_expr *e = fe_new_expr(fn, DG_EX_INCDEC, a->type, n);
  e->op = tok[0] == '+' ? DG_BIN_ADD : DG_BIN_SUB;
  e->post = ts_node_start_byte(arg) == ts_node_start_byte(n);
  e->a = a;
  return e;
}

static dg_expr *unary(fe_fn *fn, TSNode n)
{
  TSNode arg = fe_field(n, "argument");
  size_t len;
  const char *tok = op_token(fn, n, &len);
  if (ts_node_is_null(arg) || len != 1) return fe_err(fn, n, DG_SEV_ERROR, "bad unary expression");
  if (tok[0] == '!') {
    dg_expr *e = fe_new_expr(fn, DG_EX_UNARY, fe_scalar(DG_TY_BOOL), n);
    e->op = DG_UN_NOT;
    e->a = fe_cond(fn, arg);
    return e;
  }
  dg_expr *a = fe_rvalue(fn, arg);
  if (!dg_type_is_scalar(a->type)) {
    if (fn->failed) return a;
    return fe_err(fn, n, DG_SEV_ERROR, "unary '%c' on '%s'", tok[0], ir_type_name(a->type));
  }
  const dg_type *t = fe_promote(a->type);
  a = fe_convert(fn, a, t, n);
  if (tok[0] == '+') return a;
  if (tok[0] == '~' && !dg_type_is_int(t)) return fe_err(fn, n, DG_SEV_ERROR, "'~' on '%s'", ir_type_name(t));
  dg_expr *e = fe_new_expr(fn, DG_EX_UNARY, t, n);
  e->op = tok[0] == '-' ? DG_UN_NEG : DG_UN_BITNOT;
  e->a = a;
  return e;
}

static dg_expr *pointer_expr(fe_fn *fn, TSNode n)
{
  TSNode arg = fe_field(n, "argument");
  size_t len;
  const char *tok = op_token(fn, n, &len);
  if (ts_node_is_null(arg)) return fe_err(fn, n, DG_SEV_ERROR, "bad expression");
  if (tok[0] == '*') {
    dg_expr *a = fe_rvalue(fn, arg);
    if (a->type->kind != DG_TY_PTR || a->type->elem->kind == DG_TY_VOID) {
      if (fn->failed) return a;
      return fe_err(fn, n, DG_SEV_ERROR, "dereference of '%s'", ir_type_name(a->type));
    }
    dg_expr *e = fe_new_expr(fn, DG_EX_DEREF, a->type->elem, n);
    e->a = a;
    return e;
  }
  dg_expr *a = fe_expr(fn, arg);
  if (fn->failed) return a;
  if (!is_lvalue(a)) return fe_err(fn, n, DG_SEV_ERROR, "address of an rvalue");
  if (a->kind == DG_EX_LANE) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "address of a vector lane");
  dg_var *v = root_var(a);
  if (v) v->addr_taken = true;
  dg_expr *e = fe_new_expr(fn, DG_EX_ADDR, ir_type_ptr(fn->m, a->type, var_space(v), false), n);
  e->a = a;
  return e;
}

static dg_expr *conditional(fe_fn *fn, TSNode n)
{
  TSNode c = fe_field(n, "condition"), t = fe_field(n, "consequence"), f = fe_field(n, "alternative");
  if (ts_node_is_null(c) || ts_node_is_null(t) || ts_node_is_null(f)) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "'?:' without a middle operand");
  dg_expr *e = fe_new_expr(fn, DG_EX_COND, NULL, n);
  e->a = fe_cond(fn, c);
  dg_expr *b = fe_rvalue(fn, t), *d = fe_rvalue(fn, f);
  const dg_type *tb = b->type, *td = d->type, *rt;
  if (dg_type_is_scalar(tb) && dg_type_is_scalar(td)) rt = tb->kind == DG_TY_BOOL && td->kind == DG_TY_BOOL ? tb : fe_arith(tb, td);
  else if (tb->kind == DG_TY_PTR && td->kind != DG_TY_PTR) rt = tb;
  else if (td->kind == DG_TY_PTR && tb->kind != DG_TY_PTR) rt = td;
  else if (ir_type_equiv(tb, td)) rt = tb;
  else if (fn->failed) rt = tb;
  else return fe_err(fn, n, DG_SEV_ERROR, "operands of '?:' have types '%s' and '%s'", ir_type_name(tb), ir_type_name(td));
  e->b = fe_convert(fn, b, rt, t);
  e->c = fe_convert(fn, d, rt, f);
  e->type = rt;
  return e;
}

static dg_expr *sizeof_expr(fe_fn *fn, TSNode n)
{
  TSNode t = fe_field(n, "type"), v = fe_field(n, "value");
  const dg_type *ty = NULL;
  if (!ts_node_is_null(t)) ty = fe_type_descriptor(fn, t);
  else if (!ts_node_is_null(v)) {
    /* sizeof(float4): the grammar cannot tell a type name in parentheses from a value */
    TSNode in = v;
    while (fe_kind(in) == FE_N_parenthesized_expression && ts_node_named_child_count(in) == 1) in = ts_node_named_child(in, 0);
    if (fe_kind(in) == FE_N_identifier) {
      const fe_sym *s = fe_lookup(fn, fn->st->src + ts_node_start_byte(in), ts_node_end_byte(in) - ts_node_start_byte(in));
      if (!s || s->kind == FE_SYM_TYPE)
        ty = fe_type_by_name(fn, fn->st->src + ts_node_start_byte(in), ts_node_end_byte(in) - ts_node_start_byte(in));
    }
    if (!ty) ty = fe_expr(fn, v)->type;
  }
  if (!ty) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "sizeof of this operand");
  if (ty->kind == DG_TY_ARRAY && ty->count < 0) return fe_err(fn, n, DG_SEV_ERROR, "sizeof of an unsized array");
  return mk_int(fn, dg_type_size(ty), DG_TY_U64, n);
}

dg_expr *fe_call(fe_fn *fn, TSNode n);       /* fe_call.c */
dg_expr *fe_cast_expr(fe_fn *fn, TSNode n);
dg_expr *fe_compound_literal(fe_fn *fn, TSNode n);

dg_expr *fe_expr(fe_fn *fn, TSNode n)
{
  if (ts_node_is_null(n)) return fe_err(fn, n, DG_SEV_ERROR, "missing expression");
  if (++fn->depth > 400) {
    fn->depth--;
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "expression nested too deeply");
  }
  dg_expr *e;
  switch (fe_kind(n)) {
  case FE_N_number_literal: e = number(fn, n); break;
  case FE_N_true: e = mk_int(fn, 1, DG_TY_BOOL, n); break;
  case FE_N_false: e = mk_int(fn, 0, DG_TY_BOOL, n); break;
  case FE_N_null: case FE_N_nullptr:
    e = mk_cast(fn, mk_int(fn, 0, DG_TY_I32, n), ir_type_ptr(fn->m, fe_scalar(DG_TY_VOID), DG_AS_GENERIC, false), DG_CAST_INT2PTR, n);
    break;
  case FE_N_char_literal: e = char_lit(fn, n); break;
  case FE_N_identifier: e = identifier(fn, n); break;
  case FE_N_qualified_identifier: {
    TSNode name = fe_field(n, "name");
    TSNode scope = fe_field(n, "scope");
    if (!ts_node_is_null(name) && (ts_node_is_null(scope) || fe_text_is(fn->st, scope, "std")))
      e = fe_expr(fn, name);
    else if (!ts_node_is_null(name) && fe_kind(name) == FE_N_identifier &&
             !fe_struct_name(fn, fn->st->src + ts_node_start_byte(scope), ts_node_end_byte(scope) - ts_node_start_byte(scope)) &&
             fe_lookup(fn, fn->st->src + ts_node_start_byte(name), ts_node_end_byte(name) - ts_node_start_byte(name)))
      e = fe_expr(fn, name);   /* ns::TILE: namespaces are flattened (fe.c); a struct's member is not this */
    else
      e = fe_err(fn, n, DG_SEV_UNSUPPORTED, "qualified name '%s'", fe_text(fn->st, n));
    break;
  }
  case FE_N_field_expression: e = field(fn, n); break;
  case FE_N_subscript_expression: e = subscript(fn, n); break;
  case FE_N_binary_expression: e = binary_expr(fn, n); break;
  case FE_N_unary_expression: e = unary(fn, n); break;
  case FE_N_pointer_expression: e = pointer_expr(fn, n); break;
  case FE_N_update_expression: e = update(fn, n); break;
  case FE_N_assignment_expression: e = assign(fn, n); break;
  case FE_N_conditional_expression: e = conditional(fn, n); break;
  case FE_N_sizeof_expression: e = sizeof_expr(fn, n); break;
  case FE_N_parenthesized_expression:
    e = ts_node_named_child_count(n) == 1 ? fe_expr(fn, ts_node_named_child(n, 0))
                                          : fe_err(fn, n, DG_SEV_UNSUPPORTED, "this parenthesised expression");
    break;
  case FE_N_comma_expression: {
    e = fe_new_expr(fn, DG_EX_COMMA, NULL, n);
    e->a = fe_expr(fn, fe_field(n, "left"));
    e->b = fe_expr(fn, fe_field(n, "right"));
    e->type = e->b->type;
    break;
  }
  case FE_N_call_expression: e = fe_call(fn, n); break;
  case FE_N_cast_expression: e = fe_cast_expr(fn, n); break;
  case FE_N_compound_literal_expression: e = fe_compound_literal(fn, n); break;
  case FE_N_string_literal: case FE_N_concatenated_string: case FE_N_raw_string_literal:
    e = fe_err(fn, n, DG_SEV_UNSUPPORTED, "string literal outside printf");
    break;
  case FE_N_lambda_expression: e = fe_err(fn, n, DG_SEV_UNSUPPORTED, "lambda expressions"); break;
  case FE_N_new_expression: case FE_N_delete_expression: e = fe_err(fn, n, DG_SEV_UNSUPPORTED, "new/delete in device code"); break;
  case FE_N_initializer_list: e = fe_err(fn, n, DG_SEV_UNSUPPORTED, "initializer list here"); break;
  case FE_N_ERROR: e = fe_err(fn, n, DG_SEV_ERROR, "syntax error"); break;
  default:
    e = fe_err(fn, n, DG_SEV_UNSUPPORTED, "expression '%s' (%s)", fe_text(fn->st, n), ts_node_type(n));
    break;
  }
  fn->depth--;
  if (!e->type) e->type = fe_scalar(DG_TY_I32);   /* only after an error */
  return e;
}

/* ---- constant folding (array sizes, case labels, template arguments) ----- */
static int64_t wrap(int64_t v, const dg_type *t)
{
  switch (t->kind) {
  case DG_TY_BOOL: return v != 0;
  case DG_TY_I8: return (int8_t)v;   case DG_TY_U8: return (uint8_t)v;
  case DG_TY_I16: return (int16_t)v; case DG_TY_U16: return (uint16_t)v;
  case DG_TY_I32: return (int32_t)v; case DG_TY_U32: return (uint32_t)v;
  default: return v;
  }
}

bool fe_fold(const dg_expr *e, int64_t *iv, double *fv, bool *isf)
{
  int64_t a = 0, b = 0;
  double fa = 0, fb = 0;
  bool af = false, bf = false;
  switch (e->kind) {
  case DG_EX_INT: *iv = e->ival; *isf = false; return true;
  case DG_EX_FLOAT: *fv = e->fval; *isf = true; return true;
  case DG_EX_CAST:
    if (e->op != DG_CAST_CONVERT || !fe_fold(e->a, &a, &fa, &af)) return false;
    if (dg_type_is_float(e->type)) { *fv = af ? fa : (dg_type_is_signed(e->a->type) ? (double)a : (double)(uint64_t)a); *isf = true; return true; }
    if (af) { if (!(fa > -9.2e18 && fa < 9.2e18)) return false; a = (int64_t)fa; }
    *iv = wrap(a, e->type); *isf = false; return true;
  case DG_EX_UNARY:
    if (!fe_fold(e->a, &a, &fa, &af)) return false;
    *isf = af;
    if (af) { if (e->op != DG_UN_NEG) return false; *fv = -fa; return true; }
    *iv = wrap(e->op == DG_UN_NEG ? (int64_t)(0 - (uint64_t)a) : e->op == DG_UN_NOT ? !a : ~a, e->type);
    return true;
  case DG_EX_COND:
    if (!fe_fold(e->a, &a, &fa, &af) || af) return false;
    return fe_fold(a ? e->b : e->c, iv, fv, isf);
  case DG_EX_LAND: case DG_EX_LOR:
    if (!fe_fold(e->a, &a, &fa, &af) || !fe_fold(e->b, &b, &fb, &bf) || af || bf) return false;
    *iv = e->kind == DG_EX_LAND ? (a && b) : (a || b); *isf = false; return true;
  case DG_EX_BINARY: {
    if (!fe_fold(e->a, &a, &fa, &af) || !fe_fold(e->b, &b, &fb, &bf)) return false;
    if (af || bf) {
      if (!af) fa = (double)a;
      if (!bf) fb = (double)b;
      double r;
      switch (e->op) {
      case DG_BIN_ADD: r = fa + fb; break; case DG_BIN_SUB: r = fa - fb; break;
      case DG_BIN_MUL: r = fa * fb; break; case DG_BIN_DIV: r = fa / fb; break;
      case DG_BIN_EQ: *iv = fa == fb; *isf = false; return true;
      case DG_BIN_NE: *iv = fa != fb; *isf = false; return true;
      case DG_BIN_LT: *iv = fa < fb; *isf = false; return true;
      case DG_BIN_LE: *iv = fa <= fb; *isf = false; return true;
      case DG_BIN_GT: *iv = fa > fb; *isf = false; return true;
      case DG_BIN_GE: *iv = fa >= fb; *isf = false; return true;
      default: return false;
      }
      *fv = e->type->kind == DG_TY_F32 ? (double)(float)r : r;
      *isf = true;
      return true;
    }
    bool sg = dg_type_is_signed(e->a->type);
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int64_t r;
    switch (e->op) {
    case DG_BIN_ADD: r = (int64_t)(ua + ub); break;
    case DG_BIN_SUB: r = (int64_t)(ua - ub); break;
    case DG_BIN_MUL: r = (int64_t)(ua * ub); break;
    case DG_BIN_DIV: case DG_BIN_MOD:
      if (b == 0 || (sg && b == -1 && a == INT64_MIN)) return false;
      if (sg) r = e->op == DG_BIN_DIV ? a / b : a % b;
      else r = (int64_t)(e->op == DG_BIN_DIV ? ua / ub : ua % ub);
      break;
    case DG_BIN_SHL: if (b < 0 || b >= 64) return false; r = (int64_t)(ua << b); break;
    case DG_BIN_SHR: if (b < 0 || b >= 64) return false; r = sg ? a >> b : (int64_t)(ua >> b); break;
    case DG_BIN_AND: r = a & b; break; case DG_BIN_OR: r = a | b; break; case DG_BIN_XOR: r = a ^ b; break;
    case DG_BIN_EQ: r = a == b; break; case DG_BIN_NE: r = a != b; break;
    case DG_BIN_LT: r = sg ? a < b : ua < ub; break; case DG_BIN_LE: r = sg ? a <= b : ua <= ub; break;
    case DG_BIN_GT: r = sg ? a > b : ua > ub; break; case DG_BIN_GE: r = sg ? a >= b : ua >= ub; break;
    default: return false;
    }
    *iv = wrap(r, e->type);
    *isf = false;
    return true;
  }
  default: return false;
  }
}

bool fe_const_int(fe_fn *fn, TSNode n, int64_t *out)
{
  dg_expr *e = fe_rvalue(fn, n);
  int64_t iv;
  double fv;
  bool isf;
  if (fn->failed || !dg_type_is_int(e->type) || !fe_fold(e, &iv, &fv, &isf) || isf) return false;
  *out = iv;
  return true;
}
