/* fe_func.c — functions: signatures, bodies, templates (parameters,
 * arguments, deduction, instances with canonical names), call resolution. */
#include "fe_int.h"
#include <string.h>
#include <stdlib.h>
#include <ctype.h>

static void fn_init(fe_fn *fn, fe_state *st)
{
  memset(fn, 0, sizeof *fn);
  fn->st = st;
  fn->m = st->m;
}

static void fn_free(fe_fn *fn)
{
  dg_vec_free(&fn->scope);
  dg_vec_free(&fn->marks);
  dg_vec_free(&fn->locals);
  dg_vec_free(&fn->shared);
  dg_vec_free(&fn->callees);
}

static bool def_is(const fe_def *d, const char *name, size_t len)
{
  return !strncmp(d->name, name, len) && d->name[len] == 0;
}

/* A def with a new name: into the table if it has room (else the next
 * lookup rebuilds it with every def). */
void fe_def_hash_add(fe_state *st, fe_def *d)
{
  if (st->def_hash_cap < st->defs.n * 2 + 16) return;
  size_t h = dg_hash_bytes(d->name, strlen(d->name), 0) & (st->def_hash_cap - 1);
  while (st->def_hash[h] && strcmp(st->def_hash[h]->name, d->name)) h = (h + 1) & (st->def_hash_cap - 1);
  if (!st->def_hash[h]) st->def_hash[h] = d;
}

/* Defs are found by name in a hash (calls are many, files can hold hundreds
 * of functions); the table is rebuilt when defs grow past half of it. */
fe_def *fe_find_def(fe_state *st, const char *name, size_t len)
{
  if (st->def_hash_cap < st->defs.n * 2 + 16) {
    size_t cap = 64;
    while (cap < st->defs.n * 4) cap *= 2;
    free(st->def_hash);
    st->def_hash = dg_calloc(cap, sizeof *st->def_hash);
    st->def_hash_cap = cap;
    for (size_t i = 0; i < st->defs.n; i++) {
      fe_def *d = st->defs.v[i];
      size_t h = dg_hash_bytes(d->name, strlen(d->name), 0) & (cap - 1);
      while (st->def_hash[h] && strcmp(st->def_hash[h]->name, d->name)) h = (h + 1) & (cap - 1);
      if (!st->def_hash[h]) st->def_hash[h] = d;
    }
  }
  size_t h = dg_hash_bytes(name, len, 0) & (st->def_hash_cap - 1);
  for (; st->def_hash[h]; h = (h + 1) & (st->def_hash_cap - 1))
    if (def_is(st->def_hash[h], name, len)) return st->def_hash[h];
  return NULL;
}

const char *fe_struct_name(fe_fn *fn, const char *name, size_t len)
{
  const fe_sym *s = fe_lookup(fn, name, len);
  if (s) return s->kind == FE_SYM_TYPE ? s->scope : NULL;
  for (size_t i = 0; i < fn->st->structs.n; i++)
    if (strlen(fn->st->structs.v[i]) == len && !memcmp(fn->st->structs.v[i], name, len)) return fn->st->structs.v[i];
  return NULL;
}

/* ---- template parameters ------------------------------------------------------ */
int fe_tparams(fe_state *st, TSNode list, fe_tparam **out)
{
  uint32_t n = ts_node_named_child_count(list);
  fe_tparam *v = dg_arena_alloc(&st->m->arena, sizeof *v * (n ? n : 1));
  int k = 0;
  for (uint32_t i = 0; i < n; i++) {
    TSNode p = ts_node_named_child(list, i);
    fe_tparam *tp = &v[k];
    memset(tp, 0, sizeof *tp);
    TSNode name = { 0 };
    switch (fe_kind(p)) {
    case FE_N_type_parameter_declaration: case FE_N_optional_type_parameter_declaration:
      tp->kind = FE_TP_TYPE;
      name = fe_kind(p) == FE_N_optional_type_parameter_declaration ? fe_field(p, "name") : ts_node_named_child(p, 0);
      tp->deflt = fe_field(p, "default_type");
      break;
    case FE_N_parameter_declaration: case FE_N_optional_parameter_declaration: {
      TSNode d = fe_field(p, "declarator");
      tp->kind = FE_TP_VALUE;
      tp->type_node = p;
      tp->deflt = fe_field(p, "default_value");
      for (int g = 0; g < 8 && !ts_node_is_null(d); g++) {
        fe_nkind k2 = fe_kind(d);
        if (k2 == FE_N_identifier) { name = d; break; }
        if (k2 == FE_N_function_declarator) tp->kind = FE_TP_FUNC;
        d = (k2 == FE_N_parenthesized_declarator) ? ts_node_named_child(d, 0) : fe_field(d, "declarator");
      }
      break;
    }
    default:
      return -1;   /* variadic, template template: not supported */
    }
    if (ts_node_is_null(name)) return -1;
    tp->name = fe_text(st, name);
    k++;
  }
  *out = v;
  return k;
}

void fe_bind_targs(fe_fn *fn, const fe_def *def, const fe_targ *args, int nargs)
{
  for (int i = 0; i < nargs && i < def->ntparams; i++) {
    const fe_targ *a = &args[i];
    fe_sym *s = fe_bind(fn, def->tparams[i].name,
                        a->kind == FE_TP_TYPE ? FE_SYM_TYPE : a->kind == FE_TP_FUNC ? FE_SYM_FUNC : FE_SYM_CINT);
    s->type = a->type;
    s->scope = a->scope;
    s->ival = a->ival;
    s->func = a->func;
  }
}

char *fe_inst_name(fe_state *st, const fe_def *def, const fe_targ *args, int nargs)
{
  dg_buf b = { 0 };
  dg_buf_printf(&b, "%s<", def->name);
  for (int i = 0; i < nargs; i++) {
    if (i) dg_buf_puts(&b, ", ");
    const fe_targ *a = &args[i];
    if (a->kind == FE_TP_TYPE) dg_buf_puts(&b, a->scope ? a->scope : ir_type_name(a->type));
    else if (a->kind == FE_TP_FUNC) dg_buf_puts(&b, a->func->name);
    else if (a->type->kind == DG_TY_BOOL) dg_buf_puts(&b, a->ival ? "true" : "false");
    else if (dg_type_is_signed(a->type)) dg_buf_printf(&b, "%lld", (long long)a->ival);
    else dg_buf_printf(&b, "%llu", (unsigned long long)a->ival);
  }
  dg_buf_putc(&b, '>');
  char *r = dg_arena_strdup(&st->m->arena, b.s);
  dg_buf_free(&b);
  return r;
}

/* Type of a value parameter (int N, bool B, unsigned M), given earlier args. */
static const dg_type *value_param_type(fe_fn *fn, const fe_tparam *tp)
{
  TSNode t = fe_field(tp->type_node, "type");
  if (fe_kind(t) == FE_N_placeholder_type_specifier) return fe_scalar(DG_TY_I32);
  bool c;
  const dg_type *ty = fe_decl_type(fn, tp->type_node, &c);
  if (ty && !dg_type_is_int(ty)) {
    fe_err(fn, tp->type_node, DG_SEV_UNSUPPORTED, "template parameter of type '%s'", ir_type_name(ty));
    return NULL;
  }
  return ty;
}

/* Fills the defaults of args[have..ntparams) in the scope of the earlier ones. */
static bool fill_defaults(fe_fn *fn, const fe_def *def, fe_targ *args, int have, TSNode at)
{
  for (int i = have; i < def->ntparams; i++) {
    const fe_tparam *tp = &def->tparams[i];
    fe_scope_push(fn);
    fe_bind_targs(fn, def, args, i);
    if (ts_node_is_null(tp->deflt)) {
      fe_scope_pop(fn);
      fe_err(fn, at, DG_SEV_ERROR, "no value for template parameter '%s' of '%s'", tp->name, def->name);
      return false;
    }
    args[i].kind = tp->kind;
    if (tp->kind == FE_TP_TYPE) args[i].type = fe_type_descriptor(fn, tp->deflt);
    else if (tp->kind == FE_TP_VALUE) {
      args[i].type = value_param_type(fn, tp);
      int64_t v;
      if (args[i].type && fe_const_int(fn, tp->deflt, &v)) args[i].ival = v;
      else if (!fn->failed) fe_err(fn, tp->deflt, DG_SEV_UNSUPPORTED, "default template argument that is not a constant");
    } else {
      fe_err(fn, tp->deflt, DG_SEV_UNSUPPORTED, "default function template argument");
    }
    fe_scope_pop(fn);
    if (fn->failed || (args[i].kind != FE_TP_FUNC && !args[i].type && !args[i].scope)) return false;
  }
  return true;
}

/* ---- signatures and bodies -------------------------------------------------- */
static dg_var *param_var(fe_fn *fn, TSNode p, bool kernel)
{
  if (fe_kind(p) == FE_N_variadic_parameter_declaration) {
    fe_err(fn, p, DG_SEV_UNSUPPORTED, "variadic parameters");
    return NULL;
  }
  bool c;
  const dg_type *base = fe_decl_type(fn, p, &c);
  if (!base) {
    if (!fn->failed) fe_err(fn, p, DG_SEV_UNSUPPORTED, "'auto' parameters");
    return NULL;
  }
  TSNode d = fe_field(p, "declarator"), name = { 0 };
  bool ref = false;
  const dg_type *t = base;
  if (!ts_node_is_null(d)) t = fe_declarator(fn, d, base, c, kernel ? DG_AS_GLOBAL : DG_AS_GENERIC, &name, &ref);
  if (!t) return NULL;
  if (t->kind == DG_TY_ARRAY) t = ir_type_ptr(fn->m, t->elem, kernel ? DG_AS_GLOBAL : DG_AS_GENERIC, c);
  if (kernel && t->kind == DG_TY_STRUCT && !ref) {
    fe_err(fn, p, DG_SEV_UNSUPPORTED, "struct parameter of a kernel ('%s')", ir_type_name(t));
    return NULL;
  }
  dg_var *v = dg_arena_alloc(&fn->m->arena, sizeof *v);
  v->name = ts_node_is_null(name) ? "" : fe_text(fn->st, name);
  v->kind = DG_VAR_PARAM;
  v->span = fe_span(fn->st, ts_node_is_null(name) ? p : name);
  v->is_const = c && t->kind != DG_TY_PTR;
  if (ref && !c) {
    if (kernel) { fe_err(fn, p, DG_SEV_ERROR, "reference parameter of a kernel"); return NULL; }
    t = ir_type_ptr(fn->m, t, DG_AS_GENERIC, false);
    v->by_ref = true;
    v->is_const = false;
  }
  v->type = t;
  return v;
}

bool fe_signature(fe_state *st, fe_def *def, dg_func *f, const fe_targ *targs, int ntargs)
{
  fe_fn fn;
  fn_init(&fn, st);
  fe_bind_targs(&fn, def, targs, ntargs);
  const dg_type *ret = fe_decl_type(&fn, def->node, NULL);
  if (!ret && !fn.failed) fe_err(&fn, def->node, DG_SEV_UNSUPPORTED, "'auto' return type");
  /* pointer-returning functions: the declarator wraps the function declarator */
  TSNode d = fe_field(def->node, "declarator");
  for (int g = 0; g < 8 && ret && fe_kind(d) == FE_N_pointer_declarator; g++) {
    ret = ir_type_ptr(st->m, ret, DG_AS_GENERIC, false);
    d = fe_field(d, "declarator");
  }
  if (fe_kind(d) == FE_N_reference_declarator && !fn.failed) fe_err(&fn, d, DG_SEV_UNSUPPORTED, "functions returning a reference");
  f->ret = ret ? ret : fe_scalar(DG_TY_VOID);
  if (def->is_kernel && ret && ret->kind != DG_TY_VOID && !fn.failed)
    fe_err(&fn, def->node, DG_SEV_ERROR, "a __global__ function must return void");
  TSNode plist = fe_field(def->decl, "parameters");
  uint32_t n = ts_node_is_null(plist) ? 0 : ts_node_named_child_count(plist);
  DG_VEC(dg_var *) ps = { 0 };
  for (uint32_t i = 0; i < n && !fn.failed; i++) {
    TSNode p = ts_node_named_child(plist, i);
    if (fe_kind(p) == FE_N_comment) continue;
    if (n == 1 && fe_text_is(st, p, "void")) break;
    dg_var *v = param_var(&fn, p, def->is_kernel);
    if (v) { v->slot = (int)ps.n; dg_vec_push(&ps, v); }
  }
  f->nparams = (int)ps.n;
  f->params = dg_arena_alloc(&st->m->arena, sizeof *f->params * (ps.n ? ps.n : 1));
  if (ps.n) memcpy(f->params, ps.v, sizeof *f->params * ps.n);
  dg_vec_free(&ps);
  bool ok = !fn.failed;
  fn_free(&fn);
  return ok;
}

static void record_info(fe_state *st, dg_func *f, fe_fn *fn, bool ok)
{
  fe_finfo fi = { f, NULL, (int)fn->callees.n, ok };
  if (fn->callees.n) {
    fi.callees = dg_arena_alloc(&st->m->arena, sizeof *fi.callees * fn->callees.n);
    memcpy(fi.callees, fn->callees.v, sizeof *fi.callees * fn->callees.n);
  }
  dg_vec_push(&st->infos, fi);
}

bool fe_lower_func(fe_state *st, fe_def *def, dg_func *f, const fe_targ *targs, int ntargs)
{
  fe_fn fn;
  fn_init(&fn, st);
  fn.f = f;
  fn.ret = f->ret;
  fe_bind_targs(&fn, def, targs, ntargs);
  fe_scope_push(&fn);
  for (int i = 0; i < f->nparams; i++) {
    dg_var *p = f->params[i];
    dg_vec_push(&fn.locals, p);
    if (p->name[0]) {
      fe_sym *s = fe_bind(&fn, p->name, FE_SYM_VAR);
      s->var = p;
      s->is_ref = p->by_ref;
    }
  }
  TSNode body = fe_field(def->node, "body");
  if (ts_node_has_error(def->node)) {
    TSNode e = fe_first_error(def->node);   /* point at the first syntax error inside */
    fe_err(&fn, e, DG_SEV_ERROR, ts_node_is_missing(e) ? "syntax error: missing '%s'" : "syntax error%s",
           ts_node_is_missing(e) ? ts_node_type(e) : "");
  } else if (fe_kind(body) != FE_N_compound_statement) {
    fe_err(&fn, def->node, DG_SEV_UNSUPPORTED, "function without a body");
  } else {
    f->body = fe_body(&fn, body);
  }
  bool ok = !fn.failed;
  if (ok) {
    f->nslots = (int)fn.locals.n;
    f->locals = dg_arena_alloc(&st->m->arena, sizeof *f->locals * (fn.locals.n ? fn.locals.n : 1));
    if (fn.locals.n) memcpy(f->locals, fn.locals.v, sizeof *f->locals * fn.locals.n);
    f->nshared = (int)fn.shared.n;
    f->shared = dg_arena_alloc(&st->m->arena, sizeof *f->shared * (fn.shared.n ? fn.shared.n : 1));
    if (fn.shared.n) memcpy(f->shared, fn.shared.v, sizeof *f->shared * fn.shared.n);
  }
  record_info(st, f, &fn, ok);
  fn_free(&fn);
  return ok;
}

/* ---- instances ------------------------------------------------------------------ */
static bool targs_equal(const fe_targ *a, const fe_targ *b, int n)
{
  for (int i = 0; i < n; i++) {
    if (a[i].kind != b[i].kind) return false;
    switch (a[i].kind) {
    case FE_TP_TYPE:
      if (a[i].type != b[i].type || !a[i].scope != !b[i].scope || (a[i].scope && strcmp(a[i].scope, b[i].scope))) return false;
      break;
    case FE_TP_VALUE: if (a[i].ival != b[i].ival) return false; break;
    case FE_TP_FUNC: if (a[i].func != b[i].func) return false; break;
    }
  }
  return true;
}

static bool targ_from_node(fe_fn *fn, const fe_tparam *tp, TSNode a, fe_targ *out);
static bool finish_value_types(fe_fn *fn, fe_def *def, fe_targ *args, int nargs);

/* The explicit specialisation of def for args, if the file has one. */
static fe_def *find_spec(fe_state *st, fe_def *def, const fe_targ *args, int nargs)
{
  for (size_t i = 0; i < st->specs.n; i++) {
    fe_def *sp = st->specs.v[i];
    if (strcmp(sp->name, def->name) || (int)ts_node_named_child_count(sp->spec_args) != nargs) continue;
    fe_fn fn;
    fn_init(&fn, st);
    fn.quiet = true;
    fe_targ *sa = dg_arena_alloc(&st->m->arena, sizeof *sa * (size_t)(nargs ? nargs : 1));
    bool ok = true;
    for (int j = 0; j < nargs && ok; j++)
      ok = targ_from_node(&fn, &def->tparams[j], ts_node_named_child(sp->spec_args, (uint32_t)j), &sa[j]);
    ok = ok && finish_value_types(&fn, def, sa, nargs) && targs_equal(sa, args, nargs);
    fn_free(&fn);
    if (ok) return sp;
  }
  return NULL;
}

dg_func *fe_instance(fe_state *st, fe_def *def, fe_targ *args, int nargs, TSNode at)
{
  for (size_t i = 0; i < st->insts.n; i++) {
    fe_inst *in = st->insts.v[i];
    if (in->def == def && in->nargs == nargs && targs_equal(in->args, args, nargs))
      return in->failed ? NULL : in->func;
  }
  fe_inst *in = dg_arena_alloc(&st->m->arena, sizeof *in);
  in->def = def;
  in->nargs = nargs;
  in->args = dg_arena_alloc(&st->m->arena, sizeof *in->args * (size_t)(nargs ? nargs : 1));
  memcpy(in->args, args, sizeof *args * (size_t)nargs);
  dg_vec_push(&st->insts, in);
  dg_func *f = dg_arena_alloc(&st->m->arena, sizeof *f);
  f->name = fe_inst_name(st, def, args, nargs);
  f->base_name = def->name;
  f->is_kernel = def->is_kernel;
  f->span = fe_span(st, def->decl);
  in->func = f;       /* visible to recursive calls while its body is lowered */
  fe_def *spec = find_spec(st, def, args, nargs);
  if (++st->inst_depth > 64) {
    fe_diag(st, DG_SEV_UNSUPPORTED, at, "template instantiation nested more than 64 deep (%s)", f->name);
    in->failed = true;
  } else if (spec) {
    if (!fe_signature(st, spec, f, NULL, 0) || !fe_lower_func(st, spec, f, NULL, 0)) in->failed = true;
  } else if (!fe_signature(st, def, f, args, nargs) || !fe_lower_func(st, def, f, args, nargs)) {
    in->failed = true;
  }
  st->inst_depth--;
  if (in->failed) {
    fe_diag(st, DG_SEV_NOTE, at, "in the instance '%s'", f->name);
    return NULL;
  }
  dg_vec_push(&st->m->funcs, f);
  return f;
}

/* Deduces T from a parameter declared T, T*, const T*, T& against an argument type. */
static void deduce(fe_fn *fn, fe_def *def, TSNode param, const dg_type *at, fe_targ *args, bool *known)
{
  TSNode tn = fe_field(param, "type");
  if (fe_kind(tn) != FE_N_type_identifier) return;
  for (int i = 0; i < def->ntparams; i++) {
    if (def->tparams[i].kind != FE_TP_TYPE || known[i] || !fe_text_is(fn->st, tn, def->tparams[i].name)) continue;
    TSNode d = fe_field(param, "declarator");
    for (int g = 0; g < 8 && !ts_node_is_null(d) && at; g++) {
      if (fe_kind(d) == FE_N_pointer_declarator) at = at->kind == DG_TY_PTR ? at->elem : NULL;
      else if (fe_kind(d) == FE_N_array_declarator) at = at->kind == DG_TY_PTR ? at->elem : NULL;
      else if (fe_kind(d) != FE_N_reference_declarator) break;
      d = fe_kind(d) == FE_N_reference_declarator ? ts_node_named_child(d, 0) : fe_field(d, "declarator");
    }
    if (!at) return;
    args[i].kind = FE_TP_TYPE;
    args[i].type = at;
    known[i] = true;
  }
}

/* One explicit template argument written in device code. */
static bool targ_from_node(fe_fn *fn, const fe_tparam *tp, TSNode a, fe_targ *out)
{
  out->kind = tp->kind;
  if (tp->kind == FE_TP_TYPE) {
    TSNode tn = fe_field(a, "type");
    if (fe_kind(tn) == FE_N_type_identifier && ts_node_is_null(fe_field(a, "declarator"))) {
      const char *sn = fe_struct_name(fn, fn->st->src + ts_node_start_byte(tn), ts_node_end_byte(tn) - ts_node_start_byte(tn));
      if (sn) {
        out->scope = sn;
        out->type = fe_type_by_name(fn, sn, strlen(sn));   /* a struct with data as well */
        return true;
      }
    }
    out->type = fe_type_descriptor(fn, a);
    return out->type != NULL;
  }
  /* `f` and `N` are parsed as type descriptors; look the name up. */
  TSNode nm = a;
  if (fe_kind(a) == FE_N_type_descriptor) nm = fe_field(a, "type");
  if (fe_kind(nm) == FE_N_type_identifier || fe_kind(nm) == FE_N_identifier) {
    const char *s = fn->st->src + ts_node_start_byte(nm);
    size_t len = ts_node_end_byte(nm) - ts_node_start_byte(nm);
    const fe_sym *sym = fe_lookup(fn, s, len);
    if (sym && sym->kind == FE_SYM_FUNC) { out->kind = FE_TP_FUNC; out->func = sym->func; return true; }
    if (sym && sym->kind == FE_SYM_CINT) { out->kind = FE_TP_VALUE; out->type = sym->type; out->ival = sym->ival; goto typed; }
    fe_def *d = fe_find_def(fn->st, s, len);
    if (d && !d->is_template && d->func) { out->kind = FE_TP_FUNC; out->func = d->func; return true; }
    if (tp->kind == FE_TP_FUNC) { fe_err(fn, a, DG_SEV_ERROR, "'%.*s' is not a device function", (int)len, s); return false; }
  }
  if (tp->kind == FE_TP_FUNC) { fe_err(fn, a, DG_SEV_UNSUPPORTED, "function template argument '%s'", fe_text(fn->st, a)); return false; }
  if (fe_kind(a) == FE_N_type_descriptor) { fe_err(fn, a, DG_SEV_ERROR, "'%s' is not a constant", fe_text(fn->st, a)); return false; }
  if (!fe_const_int(fn, a, &out->ival)) {
    if (!fn->failed) fe_err(fn, a, DG_SEV_ERROR, "template argument '%s' is not a constant", fe_text(fn->st, a));
    return false;
  }
typed:;
  return true;
}

static bool finish_value_types(fe_fn *fn, fe_def *def, fe_targ *args, int nargs)
{
  for (int i = 0; i < nargs; i++) {
    const fe_tparam *tp = &def->tparams[i];
    if (tp->kind != FE_TP_VALUE || args[i].kind != FE_TP_VALUE) continue;
    fe_scope_push(fn);
    fe_bind_targs(fn, def, args, i);
    const dg_type *t = value_param_type(fn, tp);
    fe_scope_pop(fn);
    if (!t) return false;
    args[i].type = t;
    int64_t v = args[i].ival;
    switch (t->kind) {
    case DG_TY_BOOL: v = v != 0; break;
    case DG_TY_I32: v = (int32_t)v; break;
    case DG_TY_U32: v = (uint32_t)v; break;
    case DG_TY_I8: v = (int8_t)v; break;
    case DG_TY_U8: v = (uint8_t)v; break;
    case DG_TY_I16: v = (int16_t)v; break;
    case DG_TY_U16: v = (uint16_t)v; break;
    default: break;
    }
    args[i].ival = v;
  }
  return true;
}

dg_func *fe_call_target(fe_fn *fn, fe_def *def, TSNode targs, TSNode at, dg_expr **args, int nargs)
{
  /* overloads: the first definition of this name whose arity fits */
  fe_def *pick = NULL;
  for (fe_def *d = def; d; d = d->next_same_name) {
    TSNode pl = fe_field(d->decl, "parameters");
    int np = ts_node_is_null(pl) ? 0 : (int)ts_node_named_child_count(pl);
    if (np == 1 && fe_text_is(fn->st, ts_node_named_child(pl, 0), "void")) np = 0;
    if (np != nargs) continue;
    if (!ts_node_is_null(targs) && !d->is_template) continue;
    if (!pick) pick = d;
    if (!d->is_template && d->func) {
      bool exact = true;
      for (int i = 0; i < nargs && exact; i++) {
        const dg_type *pt = d->func->params[i]->by_ref ? d->func->params[i]->type->elem : d->func->params[i]->type;
        exact = ir_type_equiv(pt, args[i]->type);
      }
      if (exact) { pick = d; break; }
    }
  }
  if (!pick) pick = def;
  if (!pick->is_template) {
    if (!pick->func || pick->failed) {
      fe_err(fn, at, DG_SEV_ERROR, "'%s' cannot be called (its definition has errors)", pick->name);
      return NULL;
    }
    return pick->func;
  }
  int ntp = pick->ntparams;
  fe_targ *ta = dg_arena_alloc(&fn->m->arena, sizeof *ta * (size_t)(ntp ? ntp : 1));
  bool *known = dg_arena_alloc(&fn->m->arena, sizeof *known * (size_t)(ntp ? ntp : 1));
  int given = ts_node_is_null(targs) ? 0 : (int)ts_node_named_child_count(targs);
  if (given > ntp) { fe_err(fn, at, DG_SEV_ERROR, "too many template arguments for '%s'", pick->name); return NULL; }
  for (int i = 0; i < given; i++) {
    if (!targ_from_node(fn, &pick->tparams[i], ts_node_named_child(targs, (uint32_t)i), &ta[i])) return NULL;
    known[i] = true;
  }
  TSNode pl = fe_field(pick->decl, "parameters");
  for (int i = 0; i < nargs; i++) deduce(fn, pick, ts_node_named_child(pl, (uint32_t)i), args[i]->type, ta, known);
  int have = 0;
  while (have < ntp && known[have]) have++;
  for (int i = have; i < ntp; i++)
    if (known[i]) { fe_err(fn, at, DG_SEV_UNSUPPORTED, "template argument deduction for '%s'", pick->name); return NULL; }
  if (!fill_defaults(fn, pick, ta, have, at)) return NULL;
  if (!finish_value_types(fn, pick, ta, ntp)) return NULL;
  dg_func *f = fe_instance(fn->st, pick, ta, ntp, at);
  if (!f && !fn->failed) fe_err(fn, at, DG_SEV_ERROR, "'%s' cannot be instantiated here", pick->name);
  return f;
}

/* ---- instances from strings ("reduce6<float, 256, true>") ----------------------- */
static char *trim(char *s)
{
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

static bool targ_from_text(fe_fn *fn, const fe_tparam *tp, const char *s, fe_targ *out)
{
  out->kind = tp->kind;
  const fe_sym *sym = fe_lookup(fn, s, strlen(s));
  fe_def *d = fe_find_def(fn->st, s, strlen(s));
  if (tp->kind == FE_TP_FUNC || (tp->kind == FE_TP_VALUE && d && !d->is_template)) {
    if (!d || d->is_template || !d->func) return false;
    out->kind = FE_TP_FUNC;
    out->func = d->func;
    return true;
  }
  if (tp->kind == FE_TP_TYPE) {
    if ((out->scope = fe_struct_name(fn, s, strlen(s)))) {
      out->type = fe_type_by_name(fn, s, strlen(s));
      return true;
    }
    return (out->type = fe_type_from_text(fn, s)) != NULL;
  }
  if (!strcmp(s, "true") || !strcmp(s, "false")) { out->ival = s[0] == 't'; return true; }
  if (sym && sym->kind == FE_SYM_CINT) { out->ival = sym->ival; return true; }
  char *end;
  long long v = strtoll(s, &end, 0);
  while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') end++;
  if (end == s || *end) return false;
  out->ival = v;
  return true;
}

/* Parses "name<a, b>" against the module's templates. *def is NULL when the
 * name is not a template; returns the number of arguments, -1 on error (with
 * *bad pointing at the offending argument text, owned by the caller's buf). */
dg_func *fe_instance_from_text(fe_state *st, const char *text, bool quiet, TSNode at);

dg_func *fe_instance_from_text(fe_state *st, const char *text, bool quiet, TSNode at)
{
  fe_fn fn;
  fn_init(&fn, st);
  fn.quiet = quiet;
  char *buf = dg_strdup(text), *lt = strchr(buf, '<');
  dg_func *res = NULL;
  char *name = trim(buf);
  if (lt) *lt = 0;
  name = trim(name);
  fe_def *def = fe_find_def(st, name, strlen(name));
  while (def && !def->is_template) def = def->next_same_name;
  if (!def) {
    if (!quiet) fe_diag(st, DG_SEV_ERROR, at, "'%s' is not a template in this file", name);
    goto out;
  }
  fe_targ *args = dg_arena_alloc(&st->m->arena, sizeof *args * (size_t)(def->ntparams ? def->ntparams : 1));
  int n = 0;
  if (lt) {
    char *p = lt + 1, *close = strrchr(p, '>');
    if (!close || *trim(close + 1)) {
      if (!quiet) fe_diag(st, DG_SEV_ERROR, at, "bad template instance '%s'", text);
      goto out;
    }
    *close = 0;
    int depth = 0;
    char *start = p;
    for (char *q = p;; q++) {
      if (*q == '<' || *q == '(') depth++;
      else if (*q == '>' || *q == ')') depth--;
      if ((*q == ',' && depth == 0) || !*q) {
        bool last = !*q;
        *q = 0;
        char *a = trim(start);
        if (*a || !last || n) {
          if (n >= def->ntparams) {
            if (!quiet) fe_diag(st, DG_SEV_ERROR, at, "too many template arguments in '%s'", text);
            goto out;
          }
          if (!targ_from_text(&fn, &def->tparams[n], a, &args[n])) {
            if (!quiet) fe_diag(st, DG_SEV_ERROR, at, "bad template argument '%s' for parameter '%s' of '%s'", a, def->tparams[n].name, def->name);
            goto out;
          }
          n++;
        }
        if (last) break;
        start = q + 1;
      }
    }
  }
  if (!fill_defaults(&fn, def, args, n, at) || !finish_value_types(&fn, def, args, def->ntparams)) goto out;
  res = fe_instance(st, def, args, def->ntparams, at);
out:
  free(buf);
  fn_free(&fn);
  return res;
}
