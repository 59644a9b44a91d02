/* fe_call.c — calls (device functions, template instances, builtins from
 * builtins.def with their generic T resolved), casts and vector literals. */
#include "fe_int.h"
#include <string.h>
#include <stdlib.h>

dg_expr *fe_call(fe_fn *fn, TSNode n);
dg_expr *fe_cast_expr(fe_fn *fn, TSNode n);
dg_expr *fe_compound_literal(fe_fn *fn, TSNode n);

/* ---- builtin signatures ------------------------------------------------- */
typedef struct {
  char ret[40];
  char params[6][40];
  bool optional[6];
  int nparams;
  bool variadic;
} sig_t_;

static void parse_sig(const char *sig, sig_t_ *s)
{
  memset(s, 0, sizeof *s);
  const char *p = strchr(sig, '(');
  size_t rl = p ? (size_t)(p - sig) : strlen(sig);
  if (rl >= sizeof s->ret) rl = sizeof s->ret - 1;
  memcpy(s->ret, sig, rl);
  if (!p) return;
  p++;
  while (*p && *p != ')' && s->nparams < 6) {
    const char *q = p;
    while (*q && *q != ',' && *q != ')') q++;
    size_t l = (size_t)(q - p);
    if (l == 3 && !memcmp(p, "...", 3)) s->variadic = true;
    else if (l) {
      if (p[l - 1] == '?') { s->optional[s->nparams] = true; l--; }
      if (l >= sizeof s->params[0]) l = sizeof s->params[0] - 1;
      memcpy(s->params[s->nparams], p, l);
      s->nparams++;
    }
    p = *q == ',' ? q + 1 : q;
  }
}

static bool is_T(const char *p) { return !strcmp(p, "T"); }
static bool is_Tptr(const char *p) { return !strcmp(p, "T*") || !strcmp(p, "const T*"); }

static const dg_type *sig_type(fe_fn *fn, const char *p, const dg_type *T)
{
  if (is_T(p)) return T;
  if (is_Tptr(p)) return T ? ir_type_ptr(fn->m, T, DG_AS_GENERIC, p[0] == 'c') : NULL;
  if (!strcmp(p, "__half2")) return ir_type_vec(fn->m, fe_scalar(DG_TY_F16), 2);
  return fe_type_from_text(fn, p);
}

/* A brace list passed as an argument, not yet typed (lower_args). */
static bool list_arg(const dg_expr *e) { return e->kind == DG_EX_VECBUILD && e->nargs < 0; }

static dg_expr *no_list_args(fe_fn *fn, TSNode n, dg_expr **args, int nargs, const char *callee)
{
  for (int i = 0; i < nargs; i++)
    if (list_arg(args[i])) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "initializer list as argument %d of '%s'", i + 1, callee);
  return NULL;
}

static dg_expr *intrinsic(fe_fn *fn, int id, TSNode n, dg_expr **args, int nargs, const dg_type *explicit_T)
{
  const dg_intrin_info *in = &dg_intrins[id];
  dg_expr *bad = no_list_args(fn, n, args, nargs, in->name);
  if (bad) return bad;
  sig_t_ s;
  parse_sig(in->sig, &s);
  int need = 0;
  for (int i = 0; i < s.nparams; i++) if (!s.optional[i]) need++;
  if (nargs < need || (!s.variadic && nargs > s.nparams))
    return fe_err(fn, n, DG_SEV_ERROR, "'%s' takes %d argument%s, %d given", in->name,
                  s.nparams, s.nparams == 1 ? "" : "s", nargs);
  if (in->cls == DG_IC_IGNORE) {
    /* printf and friends: no effect on values; the arguments are dropped. */
    dg_expr *e = fe_new_expr(fn, DG_EX_INTRIN, fe_scalar(DG_TY_I32), n);
    e->op = id;
    return e;
  }
  const dg_type *T = explicit_T;
  for (int i = 0; i < nargs && i < s.nparams && !T; i++)
    if (is_Tptr(s.params[i])) {
      if (args[i]->type->kind != DG_TY_PTR)
        return fe_err(fn, n, DG_SEV_ERROR, "argument %d of '%s' must be a pointer, not '%s'", i + 1, in->name, ir_type_name(args[i]->type));
      T = args[i]->type->elem;
    }
  for (int i = 0; i < nargs && i < s.nparams && !explicit_T; i++)
    if (is_T(s.params[i])) {
      const dg_type *a = args[i]->type;
      if (!T) T = a;
      else if (dg_type_is_scalar(T) && dg_type_is_scalar(a)) T = fe_arith(T, a);
    }
  if (T && dg_type_is_int(T) && in->cls <= DG_IC_MATH_ISINF && in->cls != DG_IC_MATH_MAX &&
      in->cls != DG_IC_MATH_MIN && in->cls != DG_IC_MATH_ABS)
    T = fe_scalar(DG_TY_F64);     /* exp(int) is exp(double) */
  if (T && (in->cls == DG_IC_MATH_MAX || in->cls == DG_IC_MATH_MIN || in->cls == DG_IC_MATH_ABS) && dg_type_is_int(T))
    T = fe_promote(T);
  if (T && T->kind == DG_TY_STRUCT)
    return fe_err(fn, n, DG_SEV_ERROR, "'%s' on a struct ('%s'): apply it to each member", in->name, ir_type_name(T));
  const dg_type *ret = sig_type(fn, s.ret, T);
  if (!ret) return fe_err(fn, n, DG_SEV_ERROR, "cannot deduce the type of '%s'", in->name);
  dg_expr **cv = dg_arena_alloc(&fn->m->arena, sizeof *cv * (size_t)(nargs ? nargs : 1));
  for (int i = 0; i < nargs; i++) {
    const dg_type *pt = i < s.nparams ? sig_type(fn, s.params[i], T) : NULL;
    if (!pt) return fe_err(fn, n, DG_SEV_ERROR, "argument %d of '%s'", i + 1, in->name);
    if (pt->kind == DG_TY_PTR && args[i]->type->kind == DG_TY_PTR && ir_type_equiv(pt->elem, args[i]->type->elem))
      cv[i] = args[i];   /* const-ness and address space of the pointer stay */
    else
      cv[i] = fe_convert(fn, args[i], pt, n);
  }
  dg_expr *e;
  if (in->cls == DG_IC_VEC_BUILD && ret->kind == DG_TY_VEC) {
    e = fe_new_expr(fn, DG_EX_VECBUILD, ret, n);
    for (int i = 0; i < nargs; i++) cv[i] = fe_convert(fn, cv[i], ret->elem, n);
  } else {
    e = fe_new_expr(fn, DG_EX_INTRIN, ret, n);
  }
  e->op = id;
  e->args = cv;
  e->nargs = nargs;
  return e;
}

/* ---- casts ----------------------------------------------------------------- */
static dg_expr *cast_to(fe_fn *fn, dg_expr *a, const dg_type *to, TSNode n, bool reinterpret)
{
  a = fe_decay(fn, a);
  const dg_type *from = a->type;
  if (!to || fn->failed) return a;
  if (to == from) return a;
  dg_castkind ck;
  if (to->kind == DG_TY_VOID) return a;
  if (dg_type_is_scalar(to) && dg_type_is_scalar(from)) return fe_convert(fn, a, to, n);
  if (to->kind == DG_TY_PTR && from->kind == DG_TY_PTR) ck = DG_CAST_PTR;
  else if (to->kind == DG_TY_PTR && dg_type_is_int(from)) ck = DG_CAST_INT2PTR;
  else if (dg_type_is_int(to) && from->kind == DG_TY_PTR) {
    if (!reinterpret && dg_type_size(to) < 8) return fe_err(fn, n, DG_SEV_ERROR, "cast of a pointer to '%s'", ir_type_name(to));
    ck = DG_CAST_PTR2INT;
  } else if (ir_type_equiv(to, from)) return a;
  else return fe_err(fn, n, DG_SEV_ERROR, "cannot cast '%s' to '%s'", ir_type_name(from), ir_type_name(to));
  dg_expr *e = fe_new_expr(fn, DG_EX_CAST, to, n);
  e->op = ck;
  e->a = a;
  return e;
}

dg_expr *fe_cast_expr(fe_fn *fn, TSNode n)
{
  const dg_type *to = fe_type_descriptor(fn, fe_field(n, "type"));
  dg_expr *a = fe_expr(fn, fe_field(n, "value"));
  return cast_to(fn, a, to, n, true);
}

static int count_args(TSNode args) { return ts_node_is_null(args) ? 0 : (int)ts_node_named_child_count(args); }


static dg_expr **lower_args(fe_fn *fn, TSNode args, int *nargs, bool keep_strings)
{
  int n = count_args(args), k = 0;
  dg_expr **v = dg_arena_alloc(&fn->m->arena, sizeof *v * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    TSNode a = ts_node_named_child(args, (uint32_t)i);
    if (fe_kind(a) == FE_N_comment) continue;
    if (keep_strings && (fe_kind(a) == FE_N_string_literal || fe_kind(a) == FE_N_concatenated_string)) {
      v[k++] = fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), a);
      continue;
    }
    if (fe_kind(a) == FE_N_initializer_list) {
      /* f({a, b}): typed by the parameter it meets (call_func); ival: the child */
      dg_expr *e = fe_new_expr(fn, DG_EX_VECBUILD, fe_scalar(DG_TY_VOID), a);
      e->nargs = -1;
      e->ival = i;
      v[k++] = e;
      continue;
    }
    v[k++] = fe_rvalue(fn, a);
  }
  *nargs = k;
  return v;
}

/* A call of a device function: arguments converted to the parameter types,
 * by-reference parameters get the address of their argument. */
static dg_expr *call_func(fe_fn *fn, dg_func *f, TSNode n, TSNode an, dg_expr **args, int nargs)
{
  if (fn->failed) return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
  if (nargs != f->nparams)
    return fe_err(fn, n, DG_SEV_ERROR, "'%s' takes %d argument%s, %d given", f->name, f->nparams, f->nparams == 1 ? "" : "s", nargs);
  for (int i = 0; i < nargs; i++) {
    dg_var *p = f->params[i];
    if (list_arg(args[i]) && !p->by_ref) {
      args[i] = fe_aggregate(fn, ts_node_named_child(an, (uint32_t)args[i]->ival), p->type);
      continue;
    }
    if (p->by_ref) {
      dg_expr *a = args[i];
      if (a->kind != DG_EX_VAR && a->kind != DG_EX_INDEX && a->kind != DG_EX_DEREF && a->kind != DG_EX_FIELD)
        return fe_err(fn, ts_node_named_child(an, (uint32_t)i), DG_SEV_UNSUPPORTED,
                      "argument %d of '%s' binds a reference to something that is not a variable or element", i + 1, f->name);
      if (!ir_type_equiv(a->type, p->type->elem))
        return fe_err(fn, ts_node_named_child(an, (uint32_t)i), DG_SEV_ERROR, "argument %d of '%s': reference to '%s' from '%s'",
                      i + 1, f->name, ir_type_name(p->type->elem), ir_type_name(a->type));
      dg_expr *ad = fe_new_expr(fn, DG_EX_ADDR, p->type, ts_node_named_child(an, (uint32_t)i));
      ad->a = a;
      for (dg_expr *r = a; r; r = ((r->kind == DG_EX_INDEX && r->a->type->kind == DG_TY_ARRAY) || r->kind == DG_EX_FIELD) ? r->a : NULL)
        if (r->kind == DG_EX_VAR) r->var->addr_taken = true;
      args[i] = ad;
    } else {
      args[i] = fe_convert(fn, args[i], p->type, ts_node_named_child(an, (uint32_t)i));
    }
  }
  dg_expr *e = fe_new_expr(fn, DG_EX_CALL, f->ret, n);
  e->func = f;
  e->args = args;
  e->nargs = nargs;
  dg_vec_push(&fn->callees, f);
  return e;
}

static const struct { const char *name; bool reinterpret; } cast_kw[] = {
  { "static_cast", false }, { "reinterpret_cast", true }, { "const_cast", true },
};

/* The function a qualified name ends in (b::f, b::f<T>) is a function or template of the
 * file: what a call of the name alone would call. */
static bool flat_callable(fe_fn *fn, TSNode name)
{
  while (fe_kind(name) == FE_N_qualified_identifier) name = fe_field(name, "name");
  if (fe_kind(name) == FE_N_template_function) name = fe_field(name, "name");
  if (ts_node_is_null(name) || fe_kind(name) != FE_N_identifier) return false;
  const char *s = fn->st->src + ts_node_start_byte(name);
  size_t len = ts_node_end_byte(name) - ts_node_start_byte(name);
  const fe_sym *sym = fe_lookup(fn, s, len);
  if (sym) return sym->kind == FE_SYM_FUNC;
  return fe_find_def(fn->st, s, len) != NULL;
}

dg_expr *fe_call(fe_fn *fn, TSNode n)
{
  TSNode fnode = fe_field(n, "function"), argsn = fe_field(n, "arguments");
  if (ts_node_is_null(fnode)) return fe_err(fn, n, DG_SEV_ERROR, "bad call");
  if (!ts_node_is_null(fe_field(n, "config")) || fe_kind(ts_node_named_child(n, 1)) == FE_N_kernel_call_syntax)
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "kernel launch in device code");
  if (fe_kind(fnode) == FE_N_lambda_expression) return fe_err(fn, fnode, DG_SEV_UNSUPPORTED, "lambda expressions");
  TSNode name = fnode, targs = { 0 };
  if (fe_kind(fnode) == FE_N_template_function) {
    name = fe_field(fnode, "name");
    targs = fe_field(fnode, "arguments");
    for (size_t i = 0; i < sizeof cast_kw / sizeof *cast_kw; i++)
      if (fe_text_is(fn->st, name, cast_kw[i].name)) {
        if (count_args(targs) != 1 || count_args(argsn) != 1) return fe_err(fn, n, DG_SEV_ERROR, "bad %s", cast_kw[i].name);
        const dg_type *to = fe_type_descriptor(fn, ts_node_named_child(targs, 0));
        return cast_to(fn, fe_expr(fn, ts_node_named_child(argsn, 0)), to, n, cast_kw[i].reinterpret);
      }
  }
  if (fe_kind(name) == FE_N_qualified_identifier) {
    TSNode scope = fe_field(name, "scope");
    if (!ts_node_is_null(scope) && !fe_text_is(fn->st, scope, "std")) {
      /* Op::apply(...) with Op a struct of static device functions */
      const char *sn = fe_struct_name(fn, fn->st->src + ts_node_start_byte(scope), ts_node_end_byte(scope) - ts_node_start_byte(scope));
      TSNode mn = fe_field(name, "name");
      if (sn && fe_kind(mn) == FE_N_identifier) {
        char *q = dg_printf("%s::%s", sn, fe_text(fn->st, mn));
        fe_def *def = fe_find_def(fn->st, q, strlen(q));
        free(q);
        if (def) {
          int nargs;
          dg_expr **args = lower_args(fn, argsn, &nargs, false);
          if (fn->failed) return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
          dg_func *f = fe_call_target(fn, def, (TSNode){ 0 }, n, args, nargs);
          if (!f) return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
          return call_func(fn, f, n, argsn, args, nargs);
        }
      }
      /* ns::f(...): namespaces are flattened (fe.c), so f itself when it is a function */
      if (!flat_callable(fn, fe_field(name, "name")))
        return fe_err(fn, n, DG_SEV_UNSUPPORTED, "call of '%s'", fe_text(fn->st, fnode));
    }
    name = fe_field(name, "name");
    while (fe_kind(name) == FE_N_qualified_identifier) name = fe_field(name, "name");   /* a::b::f, ::a::f */
    if (fe_kind(name) == FE_N_template_function) {
      targs = fe_field(name, "arguments");
      name = fe_field(name, "name");
    }
  }
  if (fe_kind(name) == FE_N_primitive_type || fe_kind(name) == FE_N_type_identifier) {
    /* functional cast: float(x), __half(x) */
    const dg_type *to = fe_type_by_name(fn, fn->st->src + ts_node_start_byte(name), ts_node_end_byte(name) - ts_node_start_byte(name));
    if (!to) return fe_err(fn, name, DG_SEV_UNSUPPORTED, "type '%s'", fe_text(fn->st, name));
    if (count_args(argsn) != 1) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "constructor call with %d arguments", count_args(argsn));
    return cast_to(fn, fe_expr(fn, ts_node_named_child(argsn, 0)), to, n, false);
  }
  if (fe_kind(name) != FE_N_identifier) {
    if (fe_kind(name) == FE_N_field_expression)
      return fe_err(fn, n, DG_SEV_UNSUPPORTED, "method call '%s' (member functions are not supported: make it a __device__ function taking the object)",
                    fe_text(fn->st, name));
    return fe_err(fn, n, DG_SEV_UNSUPPORTED, "call of '%s'", fe_text(fn->st, fnode));
  }
  const char *s = fn->st->src + ts_node_start_byte(name);
  size_t len = ts_node_end_byte(name) - ts_node_start_byte(name);
  const fe_sym *sym = fe_lookup(fn, s, len);
  if (sym && sym->kind == FE_SYM_FUNC) {
    int nargs;
    dg_expr **args = lower_args(fn, argsn, &nargs, false);
    return call_func(fn, sym->func, n, argsn, args, nargs);
  }
  if (sym && sym->kind == FE_SYM_TYPE) {
    if (sym->type && sym->type->kind == DG_TY_STRUCT && count_args(argsn) == 0) return fe_zero(fn, sym->type, n);   /* T() */
    if (count_args(argsn) != 1) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "constructor call with %d arguments", count_args(argsn));
    return cast_to(fn, fe_expr(fn, ts_node_named_child(argsn, 0)), sym->type, n, false);
  }
  if (sym) return fe_err(fn, name, DG_SEV_ERROR, "'%.*s' is not a function", (int)len, s);
  fe_def *def = fe_find_def(fn->st, s, len);
  if (def) {
    int nargs;
    dg_expr **args = lower_args(fn, argsn, &nargs, false);
    if (fn->failed) return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
    dg_func *f = fe_call_target(fn, def, targs, n, args, nargs);
    if (!f) {
      if (!fn->failed) fe_err(fn, n, DG_SEV_ERROR, "cannot call '%.*s'", (int)len, s);
      return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
    }
    return call_func(fn, f, n, argsn, args, nargs);
  }
  char nm[64];
  if (len >= sizeof nm) return fe_err(fn, name, DG_SEV_ERROR, "use of undeclared function '%.*s'", (int)len, s);
  memcpy(nm, s, len);
  nm[len] = 0;
  int id = dg_intrin_lookup(nm);
  if (id < 0 && (!strcmp(nm, "expm1f") || !strcmp(nm, "expm1"))) {
    /* expm1(x) is lowered as exp(x) - 1: equal in the real-number model; the
     * rounding differs only in absolute terms below the tolerances */
    int nargs;
    dg_expr **args = lower_args(fn, argsn, &nargs, false);
    if (fn->failed) return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
    dg_expr *e = intrinsic(fn, dg_intrin_lookup(nm[5] == 'f' ? "expf" : "exp"), n, args, nargs, NULL);
    if (fn->failed) return e;
    dg_expr *one = fe_new_expr(fn, DG_EX_FLOAT, e->type, n);
    one->fval = 1.0;
    dg_expr *sub = fe_new_expr(fn, DG_EX_BINARY, e->type, n);
    sub->op = DG_BIN_SUB;
    sub->a = e;
    sub->b = one;
    return sub;
  }
  if (id < 0) return fe_err(fn, name, DG_SEV_ERROR, "use of undeclared function '%s'", nm);
  const dg_type *explicit_T = NULL;
  if (!ts_node_is_null(targs)) {
    if (count_args(targs) != 1) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "template arguments to '%s'", nm);
    explicit_T = fe_type_descriptor(fn, ts_node_named_child(targs, 0));
  }
  int nargs;
  dg_expr **args = lower_args(fn, argsn, &nargs, dg_intrins[id].cls == DG_IC_IGNORE);
  if (fn->failed) return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
  return intrinsic(fn, id, n, args, nargs, explicit_T);
}

/* T{a, b, ...} and T(a) for vector and scalar types. */
dg_expr *fe_compound_literal(fe_fn *fn, TSNode n)
{
  TSNode tn = fe_field(n, "type"), vn = fe_field(n, "value");
  const dg_type *t = NULL;
  if (fe_kind(tn) == FE_N_type_descriptor) t = fe_type_descriptor(fn, tn);
  else if (!ts_node_is_null(tn))
    t = fe_type_by_name(fn, fn->st->src + ts_node_start_byte(tn), ts_node_end_byte(tn) - ts_node_start_byte(tn));
  if (!t) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "compound literal '%s'", fe_text(fn->st, n));
  if (t->kind == DG_TY_STRUCT && fe_kind(vn) == FE_N_initializer_list) return fe_aggregate(fn, vn, t);
  int nargs;
  dg_expr **args = lower_args(fn, vn, &nargs, false);
  if (fn->failed) return fe_new_expr(fn, DG_EX_INT, t, n);
  dg_expr *bad = no_list_args(fn, n, args, nargs, ir_type_name(t));
  if (bad) return bad;
  if (dg_type_is_scalar(t)) {
    if (nargs > 1) return fe_err(fn, n, DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
    if (!nargs) { dg_expr *z = fe_new_expr(fn, dg_type_is_float(t) ? DG_EX_FLOAT : DG_EX_INT, t, n); return z; }
    return fe_convert(fn, args[0], t, n);
  }
  if (t->kind != DG_TY_VEC) return fe_err(fn, n, DG_SEV_UNSUPPORTED, "compound literal of type '%s'", ir_type_name(t));
  if (nargs > t->count) return fe_err(fn, n, DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
  dg_expr **lanes = dg_arena_alloc(&fn->m->arena, sizeof *lanes * (size_t)t->count);
  for (int i = 0; i < t->count; i++) {
    if (i < nargs) lanes[i] = fe_convert(fn, args[i], t->elem, n);
    else {
      lanes[i] = fe_new_expr(fn, dg_type_is_float(t->elem) ? DG_EX_FLOAT : DG_EX_INT, t->elem, n);
    }
  }
  dg_expr *e = fe_new_expr(fn, DG_EX_VECBUILD, t, n);
  e->op = -1;
  e->args = lanes;
  e->nargs = (int)t->count;
  return e;
}
