/* fe_struct.c — struct and class types: definitions at file scope (data
 * members laid out as nvcc does, ir_type_struct), member access (a.f, p->f),
 * aggregate initialisation ({a, b}, {}, nested lists, brace elision) and
 * zero values. A struct whose definition the engine cannot honour (a
 * constructor, a base class, bit-fields, default member initialisers) is
 * remembered with the reason, reported where device code uses it; member
 * functions other than static ones are reported where they are called. */
#include "fe_int.h"
#include <string.h>

typedef DG_VEC(dg_expr *) exprvec;
typedef DG_VEC(dg_field) fieldvec;

/* ---- definitions --------------------------------------------------------------- */
static void bad_struct(fe_state *st, const char *name, const char *why)
{
  if (!name) return;
  fe_badstruct b = { name, dg_arena_strdup(&st->m->arena, why) };
  dg_vec_push(&st->bad_structs, b);
}

const char *fe_struct_why(fe_state *st, const char *name, size_t len)
{
  for (size_t i = st->bad_structs.n; i-- > 0;)
    if (strlen(st->bad_structs.v[i].name) == len && !memcmp(st->bad_structs.v[i].name, name, len))
      return st->bad_structs.v[i].why;
  return NULL;
}

static bool is_static(fe_state *st, TSNode n)
{
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; i++) {
    TSNode q = ts_node_named_child(n, i);
    if (fe_kind(q) == FE_N_storage_class_specifier && fe_text_is(st, q, "static")) return true;
  }
  return false;
}

/* The fields of one field_declaration appended to out; false with *why set. */
static bool field_decl(fe_fn *fn, TSNode fd, fieldvec *out, char **why)
{
  fe_state *st = fn->st;
  TSNode d0 = fe_field(fd, "declarator");
  if (fe_kind(d0) == FE_N_function_declarator) return true;   /* a method's prototype */
  if (is_static(st, fd)) return true;                          /* static data: not part of the layout */
  uint32_t nc = ts_node_named_child_count(fd);
  for (uint32_t i = 0; i < nc; i++)
    if (fe_kind(ts_node_named_child(fd, i)) == FE_N_bitfield_clause) { *why = dg_printf("has bit-fields"); return false; }
  if (!ts_node_is_null(fe_field(fd, "default_value"))) { *why = dg_printf("has default member initialisers"); return false; }
  fn->failed = false;
  const dg_type *base = fe_decl_type(fn, fd, NULL);
  if (!base) {
    const char *tt = fe_text(st, fe_field(fd, "type"));
    *why = dg_printf("has a member of unsupported type '%.40s%s'", tt, strlen(tt) > 40 ? "..." : "");
    return false;
  }
  uint32_t k = ts_node_child_count(fd);
  for (uint32_t i = 0; i < k; i++) {
    const char *f = ts_node_field_name_for_child(fd, i);
    if (!f || strcmp(f, "declarator")) continue;
    TSNode d = ts_node_child(fd, i), name = { 0 };
    bool ref = false;
    const dg_type *t = fe_declarator(fn, d, base, false, DG_AS_GENERIC, &name, &ref);
    if (!t || fn->failed || ts_node_is_null(name)) { *why = dg_printf("has an unsupported member '%.40s'", fe_text(st, d)); return false; }
    if (ref) { *why = dg_printf("has a reference member '%s'", fe_text(st, name)); return false; }
    if (t->kind == DG_TY_ARRAY && t->count <= 0) { *why = dg_printf("has an unsized array member '%s'", fe_text(st, name)); return false; }
    const dg_type *leaf = t;
    while (leaf->kind == DG_TY_ARRAY) leaf = leaf->elem;
    if (leaf->kind == DG_TY_VOID) { *why = dg_printf("has a member '%s' of type void", fe_text(st, name)); return false; }
    dg_field fl = { fe_text(st, name), t, 0, 0 };
    dg_vec_push(out, fl);
  }
  return true;
}

/* A function_definition inside the body: constructors and destructors make
 * the struct unusable; other methods only their calls. */
static bool member_func(fe_state *st, TSNode fdef, const char *sname, char **why)
{
  TSNode d = fe_field(fdef, "declarator");
  for (int g = 0; g < 8 && !ts_node_is_null(d) && fe_kind(d) != FE_N_function_declarator; g++) d = fe_field(d, "declarator");
  TSNode nm = fe_field(d, "declarator");
  if (fe_kind(nm) == FE_N_destructor_name) { *why = dg_printf("has a destructor (member functions are not supported)"); return false; }
  if (ts_node_is_null(fe_field(fdef, "type")) && sname && fe_text_is(st, nm, sname)) {
    *why = dg_printf("has a constructor (member functions are not supported)");
    return false;
  }
  return true;
}

const dg_type *fe_struct_define(fe_state *st, TSNode spec, const char *alias)
{
  TSNode name = fe_field(spec, "name"), body = fe_field(spec, "body");
  if (ts_node_is_null(body)) return NULL;
  if (st->struct_depth >= 32) return NULL;     /* anonymous structs nested absurdly deep */
  st->struct_depth++;
  const char *sname = !ts_node_is_null(name) ? fe_text(st, name) : alias;
  fe_fn fn = { .st = st, .m = st->m, .global_scope = true, .quiet = true };
  fieldvec fields = { 0 };
  char *why = NULL;
  bool has_static = false;
  uint32_t n = ts_node_named_child_count(spec);
  for (uint32_t i = 0; i < n && !why; i++)
    if (fe_kind(ts_node_named_child(spec, i)) == FE_N_base_class_clause) why = dg_printf("has base classes");
  n = ts_node_named_child_count(body);
  for (uint32_t i = 0; i < n && !why; i++) {
    TSNode c = ts_node_named_child(body, i);
    switch (fe_kind(c)) {
    case FE_N_field_declaration: field_decl(&fn, c, &fields, &why); break;
    case FE_N_function_definition:
      if (is_static(st, c)) has_static = true;
      else member_func(st, c, ts_node_is_null(name) ? NULL : sname, &why);
      break;
    case FE_N_template_declaration: has_static = true; break;
    case FE_N_declaration:            /* Op(float) = default; and friends */
      if (fe_kind(fe_field(c, "declarator")) == FE_N_function_declarator && ts_node_is_null(fe_field(c, "type")))
        why = dg_printf("declares a constructor (member functions are not supported)");
      break;
    default: break;
    }
  }
  const dg_type *t = NULL;
  if (!why && fields.n) {
    t = ir_type_struct(st->m, sname, fields.v, (int)fields.n);
    if (!t) why = dg_printf("is too large (more than %d scalar members)", IR_STRUCT_MAX_SLOTS);
  }
  if (why) {
    bad_struct(st, sname, why);
    if (alias && alias != sname) bad_struct(st, alias, why);
    free(why);
    t = NULL;
  } else if (t && sname) {
    /* a file-scope name; one that also has static device functions keeps its scope */
    fe_sym *s = fe_bind(&fn, sname, FE_SYM_TYPE);
    s->type = t;
    s->scope = has_static && !ts_node_is_null(name) ? sname : NULL;
    if (alias && alias != sname) fe_bind(&fn, alias, FE_SYM_TYPE)->type = t;
  }
  dg_vec_free(&fields);
  dg_vec_free(&fn.scope);
  st->struct_depth--;
  return t;
}

/* The type a struct_specifier names where a type is expected. */
const dg_type *fe_struct_type(fe_fn *fn, TSNode spec)
{
  fe_state *st = fn->st;
  TSNode name = fe_field(spec, "name"), body = fe_field(spec, "body");
  if (fe_kind(spec) == FE_N_union_specifier) { fe_err(fn, spec, DG_SEV_UNSUPPORTED, "union types"); return NULL; }
  if (!ts_node_is_null(body)) {
    if (!fn->global_scope) { fe_err(fn, spec, DG_SEV_UNSUPPORTED, "struct definitions inside a function"); return NULL; }
    const dg_type *t = fe_struct_define(st, spec, NULL);
    if (!t) fe_err(fn, spec, DG_SEV_UNSUPPORTED, "this struct type");
    return t;
  }
  if (ts_node_is_null(name)) { fe_err(fn, spec, DG_SEV_ERROR, "struct without a name or body"); return NULL; }
  uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
  const dg_type *t = fe_type_by_name(fn, st->src + a, b - a);
  if (t) return t;
  const char *why = fe_struct_why(st, st->src + a, b - a);
  if (why) fe_err(fn, name, DG_SEV_UNSUPPORTED, "struct '%s' %s", fe_text(st, name), why);
  else fe_err(fn, name, DG_SEV_UNSUPPORTED, "type 'struct %s'", fe_text(st, name));
  return NULL;
}

/* ---- member access ----------------------------------------------------------------- */
dg_expr *fe_member(fe_fn *fn, dg_expr *base, TSNode fld, TSNode at)
{
  const dg_type *t = base->type;
  uint32_t a = ts_node_start_byte(fld), b = ts_node_end_byte(fld);
  int i = ir_struct_field(t, fn->st->src + a, b - a);
  if (i < 0) return fe_err(fn, fld, DG_SEV_ERROR, "no member '%s' in '%s'", fe_text(fn->st, fld), ir_type_name(t));
  dg_expr *e = fe_new_expr(fn, DG_EX_FIELD, t->fields[i].type, at);
  e->a = base;
  e->ival = i;
  return e;
}

/* A VECBUILD of t from the args in v (freed). */
static dg_expr *build(fe_fn *fn, const dg_type *t, exprvec *v, TSNode at)
{
  dg_expr *e = fe_new_expr(fn, DG_EX_VECBUILD, t, at);
  e->op = -1;
  e->nargs = (int)v->n;
  e->args = dg_arena_alloc(&fn->m->arena, sizeof *e->args * (v->n ? v->n : 1));
  if (v->n) memcpy(e->args, v->v, sizeof *e->args * v->n);
  dg_vec_free(v);
  return e;
}

/* ---- zero values ---------------------------------------------------------------------- */
static void zero_args(fe_fn *fn, const dg_type *t, TSNode at, exprvec *out);

dg_expr *fe_zero(fe_fn *fn, const dg_type *t, TSNode at)
{
  if (t->kind == DG_TY_PTR) {
    dg_expr *z = fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), at);
    dg_expr *c = fe_new_expr(fn, DG_EX_CAST, t, at);
    c->op = DG_CAST_INT2PTR;
    c->a = z;
    return c;
  }
  if (t->kind == DG_TY_VEC || t->kind == DG_TY_STRUCT) {
    exprvec v = { 0 };
    if (t->kind == DG_TY_VEC)
      for (int64_t i = 0; i < t->count; i++) dg_vec_push(&v, fe_zero(fn, t->elem, at));
    else
      for (int i = 0; i < t->nfields; i++) zero_args(fn, t->fields[i].type, at, &v);
    return build(fn, t, &v, at);
  }
  return fe_new_expr(fn, dg_type_is_float(t) ? DG_EX_FLOAT : DG_EX_INT, t, at);
}

/* The args a member of type t contributes to a struct VECBUILD (arrays: one per element). */
static void zero_args(fe_fn *fn, const dg_type *t, TSNode at, exprvec *out)
{
  if (t->kind == DG_TY_ARRAY) {
    for (int64_t i = 0; i < t->count; i++) zero_args(fn, t->elem, at, out);
    return;
  }
  dg_vec_push(out, fe_zero(fn, t, at));
}

/* ---- aggregate initialisation ------------------------------------------------------------- */
/* The items of one brace list, each lowered at most once. */
typedef struct {
  TSNode list;
  uint32_t n, pos;
  dg_expr *cur;           /* item pos lowered (NULL: not yet) */
} icur;

static TSNode item(icur *c) { return ts_node_named_child(c->list, c->pos); }

static void skip_comments(icur *c)
{
  while (c->pos < c->n && fe_kind(item(c)) == FE_N_comment) c->pos++;
}

static bool more(icur *c) { skip_comments(c); return c->pos < c->n; }

static dg_expr *peek(fe_fn *fn, icur *c)
{
  if (!c->cur) c->cur = fe_rvalue(fn, item(c));
  return c->cur;
}

static void next(icur *c) { c->pos++, c->cur = NULL; }

static void fill_list(fe_fn *fn, const dg_type *t, icur *c, exprvec *out, int depth);

static bool aggregate(const dg_type *t)
{
  return t->kind == DG_TY_STRUCT || t->kind == DG_TY_ARRAY || t->kind == DG_TY_VEC;
}

/* One member of type t from the items at c (brace elision: an aggregate
 * member without its own braces takes as many items as it needs). */
static void fill_member(fe_fn *fn, const dg_type *t, icur *c, exprvec *out, TSNode at, int depth)
{
  if (fn->failed) return;
  if (depth > 16) { fe_err(fn, at, DG_SEV_UNSUPPORTED, "initialiser nested too deeply"); return; }
  if (!more(c)) { zero_args(fn, t, at, out); return; }
  TSNode it = item(c);
  if (fe_kind(it) == FE_N_initializer_list) {
    next(c);
    icur sub = { it, ts_node_named_child_count(it), 0, NULL };
    if (t->kind == DG_TY_ARRAY) { fill_list(fn, t, &sub, out, depth + 1); }
    else if (aggregate(t)) {
      exprvec v = { 0 };
      fill_list(fn, t, &sub, &v, depth + 1);
      if (!fn->failed && more(&sub)) fe_err(fn, item(&sub), DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
      dg_vec_push(out, build(fn, t, &v, it));
    } else {
      /* a scalar in braces: {x} or {} */
      if (!more(&sub)) dg_vec_push(out, fe_zero(fn, t, it));
      else {
        dg_vec_push(out, fe_convert(fn, peek(fn, &sub), t, item(&sub)));
        next(&sub);
      }
      if (more(&sub)) fe_err(fn, it, DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
    }
    return;
  }
  if (aggregate(t)) {
    dg_expr *e = peek(fn, c);
    if (fn->failed) return;
    if (t->kind != DG_TY_ARRAY && ir_type_equiv(e->type, t)) {   /* a whole member: MD{inner, 1} */
      dg_vec_push(out, e);
      next(c);
      return;
    }
    if (t->kind == DG_TY_ARRAY) { fill_list(fn, t, c, out, depth + 1); return; }   /* elided braces */
    exprvec v = { 0 };                /* a struct or vector member from the items that follow */
    fill_list(fn, t, c, &v, depth + 1);
    dg_vec_push(out, build(fn, t, &v, at));
    return;
  }
  dg_expr *e = peek(fn, c);
  dg_vec_push(out, fe_convert(fn, e, t, item(c)));
  next(c);
}

/* Every member of aggregate t, in order, from the items at c. */
static void fill_list(fe_fn *fn, const dg_type *t, icur *c, exprvec *out, int depth)
{
  TSNode at = c->list;
  switch (t->kind) {
  case DG_TY_STRUCT:
    for (int i = 0; i < t->nfields && !fn->failed; i++) fill_member(fn, t->fields[i].type, c, out, at, depth);
    break;
  case DG_TY_ARRAY:
    for (int64_t i = 0; i < t->count && !fn->failed; i++) fill_member(fn, t->elem, c, out, at, depth);
    break;
  case DG_TY_VEC:
    for (int64_t i = 0; i < t->count && !fn->failed; i++) fill_member(fn, t->elem, c, out, at, depth);
    break;
  default:
    fill_member(fn, t, c, out, at, depth);
    break;
  }
}

dg_expr *fe_aggregate(fe_fn *fn, TSNode list, const dg_type *t)
{
  if (t->kind != DG_TY_STRUCT && t->kind != DG_TY_VEC)
    return fe_err(fn, list, DG_SEV_UNSUPPORTED, "initializer list for '%s'", ir_type_name(t));
  icur c = { list, ts_node_named_child_count(list), 0, NULL };
  exprvec v = { 0 };
  fill_list(fn, t, &c, &v, 0);
  if (!fn->failed && more(&c)) fe_err(fn, item(&c), DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
  return build(fn, t, &v, list);
}
