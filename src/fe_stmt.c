/* fe_stmt.c — statements and local declarations: blocks, control flow,
 * switch with fallthrough, #pragma unroll hints, locals, local arrays with
 * initialiser lists, __shared__ (static and extern), folded constants. */
#include "fe_int.h"
#include <string.h>

typedef fe_stmtvec stmtvec;

static dg_stmt *new_stmt(fe_fn *fn, dg_stkind k, TSNode at)
{
  dg_stmt *s = dg_arena_alloc(&fn->m->arena, sizeof *s);
  s->kind = k;
  s->span = fe_span(fn->st, at);
  return s;
}

static dg_stmt *block_of(fe_fn *fn, stmtvec *v, TSNode at)
{
  dg_stmt *b = new_stmt(fn, DG_ST_BLOCK, at);
  b->nbody = (int)v->n;
  b->body = dg_arena_alloc(&fn->m->arena, sizeof *b->body * (v->n ? v->n : 1));
  if (v->n) memcpy(b->body, v->v, sizeof *b->body * v->n);
  dg_vec_free(v);
  return b;
}

/* ---- declarations ---------------------------------------------------------- */
typedef DG_VEC(dg_expr *) exprvec;

static void flatten_inits(fe_fn *fn, TSNode list, const dg_type *t, exprvec *out, int depth)
{
  if (depth > 8) { fe_err(fn, list, DG_SEV_UNSUPPORTED, "initialiser nested too deeply"); return; }
  uint32_t n = ts_node_named_child_count(list);
  const dg_type *elem = t->kind == DG_TY_ARRAY ? t->elem : t;
  for (uint32_t i = 0; i < n && !fn->failed; i++) {
    TSNode c = ts_node_named_child(list, i);
    if (fe_kind(c) == FE_N_comment) continue;
    if (fe_kind(c) == FE_N_initializer_list) {
      if (elem->kind == DG_TY_ARRAY) {
        size_t before = out->n;
        flatten_inits(fn, c, elem, out, depth + 1);
        /* a short inner list is padded with zeros up to the row */
        const dg_type *leaf = elem; while (leaf->kind == DG_TY_ARRAY) leaf = leaf->elem;
        int64_t row = dg_type_size(elem) / (dg_type_size(leaf) ? dg_type_size(leaf) : 1);
        while ((int64_t)(out->n - before) < row) dg_vec_push(out, fe_zero(fn, leaf, c));
        continue;
      }
      if (elem->kind == DG_TY_STRUCT || elem->kind == DG_TY_VEC) {   /* MD s[2] = {{a, b}, {c, d}} */
        dg_vec_push(out, fe_aggregate(fn, c, elem));
        continue;
      }
      fe_err(fn, c, DG_SEV_UNSUPPORTED, "nested initialiser list for '%s'", ir_type_name(elem));
      return;
    }
    const dg_type *leaf = elem; while (leaf->kind == DG_TY_ARRAY) leaf = leaf->elem;
    dg_vec_push(out, fe_convert(fn, fe_rvalue(fn, c), leaf, c));
  }
}

static dg_expr *vec_init(fe_fn *fn, TSNode list, const dg_type *t)
{
  uint32_t n = ts_node_named_child_count(list);
  if ((int64_t)n > t->count) return fe_err(fn, list, DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
  dg_expr *e = fe_new_expr(fn, DG_EX_VECBUILD, t, list);
  e->op = -1;
  e->nargs = (int)t->count;
  e->args = dg_arena_alloc(&fn->m->arena, sizeof *e->args * (size_t)t->count);
  for (int i = 0; i < t->count; i++)
    e->args[i] = i < (int)n ? fe_convert(fn, fe_rvalue(fn, ts_node_named_child(list, (uint32_t)i)), t->elem, list)
                            : fe_new_expr(fn, dg_type_is_float(t->elem) ? DG_EX_FLOAT : DG_EX_INT, t->elem, list);
  return e;
}

/* The qualifiers a local declaration spells (a type qualifier, a storage
 * class or the bare keyword), in one pass with a cursor over its children. */
enum { Q_SHARED = 1, Q_EXTERN = 2, Q_CONSTANT = 4, Q_STATIC = 8 };
static const char *const qual_names[] = { "__shared__", "extern", "__constant__", "static" };

static int qual_bit(const char *s, size_t n)
{
  for (int i = 0; i < 4; i++)
    if (strlen(qual_names[i]) == n && !memcmp(qual_names[i], s, n)) return 1 << i;
  return 0;
}

static int qualifiers(fe_fn *fn, TSNode decl)
{
  TSTreeCursor cur = ts_tree_cursor_new(decl);
  int q = 0;
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode c = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_named(c)) {
      fe_nkind k = fe_kind(c);
      if (k == FE_N_type_qualifier || k == FE_N_storage_class_specifier) {
        uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
        q |= qual_bit(fn->st->src + a, b - a);
      }
    } else {
      const char *t = ts_node_type(c);
      q |= qual_bit(t, strlen(t));
    }
  }
  ts_tree_cursor_delete(&cur);
  return q;
}

static dg_var *new_var(fe_fn *fn, TSNode name, const dg_type *t, dg_varkind k)
{
  dg_var *v = dg_arena_alloc(&fn->m->arena, sizeof *v);
  v->name = fe_text(fn->st, name);
  v->type = t;
  v->kind = k;
  v->span = fe_span(fn->st, name);
  return v;
}

static void one_declarator(fe_fn *fn, TSNode decl, TSNode d, const dg_type *base, bool is_const,
                           stmtvec *out)
{
  int q = qualifiers(fn, decl);
  bool shared = q & Q_SHARED, ext = q & Q_EXTERN;
  if (q & Q_CONSTANT) { fe_err(fn, decl, DG_SEV_ERROR, "__constant__ variable inside a function"); return; }
  if ((q & Q_STATIC) && !shared) { fe_err(fn, decl, DG_SEV_UNSUPPORTED, "static local variables"); return; }
  TSNode init = { 0 };
  if (fe_kind(d) == FE_N_init_declarator) init = fe_field(d, "value");
  TSNode name = { 0 };
  bool is_ref = false;
  const dg_type *t = base ? fe_declarator(fn, d, base, is_const, DG_AS_GENERIC, &name, &is_ref) : NULL;
  if (fn->failed) return;
  dg_expr *ie = NULL;
  if (!base) {            /* auto */
    if (ts_node_is_null(init) || fe_kind(init) == FE_N_initializer_list) { fe_err(fn, d, DG_SEV_UNSUPPORTED, "'auto' without an initialiser"); return; }
    fe_declarator(fn, d, fe_scalar(DG_TY_I32), false, DG_AS_GENERIC, &name, &is_ref);
    ie = is_ref ? fe_expr(fn, init) : fe_rvalue(fn, init);
    t = ie->type;
    if (fn->failed) return;
  }
  if (ts_node_is_null(name)) { fe_err(fn, d, DG_SEV_ERROR, "declaration without a name"); return; }
  if (!t || t->kind == DG_TY_VOID) { fe_err(fn, d, DG_SEV_ERROR, "variable of type void"); return; }

  /* Sizes no GPU takes (nvcc refuses them too); the emulator would abort
   * allocating them: 4 GB of __shared__, 1 GB a thread. */
  if (shared && !ext && dg_type_size(t) > 232448) {
    fe_err(fn, d, DG_SEV_ERROR, "__shared__ variable of %lld bytes: a GPU block has at most 227 KiB (232448 bytes)",
           (long long)dg_type_size(t));
    return;
  }
  if (!shared && !is_ref && dg_type_size(t) > 524288) {
    fe_err(fn, d, DG_SEV_ERROR, "local variable of %lld bytes: a GPU thread has at most 512 KiB of local memory",
           (long long)dg_type_size(t));
    return;
  }
  if (shared) {
    if (!ts_node_is_null(init)) { fe_err(fn, init, DG_SEV_ERROR, "__shared__ variables cannot have an initialiser"); return; }
    if (t->kind == DG_TY_ARRAY && t->count < 0 && !ext) { fe_err(fn, d, DG_SEV_ERROR, "unsized __shared__ array must be extern"); return; }
    dg_var *v = new_var(fn, name, t, ext ? DG_VAR_SHARED_EXTERN : DG_VAR_SHARED);
    v->slot = (int)fn->shared.n;
    v->addr_taken = true;
    dg_vec_push(&fn->shared, v);
    fe_bind(fn, v->name, FE_SYM_VAR)->var = v;
    return;
  }
  if (ext) { fe_err(fn, decl, DG_SEV_UNSUPPORTED, "extern local variable"); return; }

  dg_stmt *s = new_stmt(fn, DG_ST_DECL, d);
  if (is_ref) {
    if (ts_node_is_null(init)) { fe_err(fn, d, DG_SEV_ERROR, "reference without an initialiser"); return; }
    if (!ie) ie = fe_expr(fn, init);
    if (fn->failed) return;
    if (ie->kind != DG_EX_VAR && ie->kind != DG_EX_INDEX && ie->kind != DG_EX_DEREF) {
      if (is_const) goto by_value;   /* const T &x = rvalue: a copy behaves the same */
      fe_err(fn, init, DG_SEV_UNSUPPORTED, "reference bound to something that is not a variable or element");
      return;
    }
    if (!ir_type_equiv(ie->type, t)) { fe_err(fn, init, DG_SEV_ERROR, "reference to '%s' bound to '%s'", ir_type_name(t), ir_type_name(ie->type)); return; }
    const dg_type *pt = ir_type_ptr(fn->m, t, DG_AS_GENERIC, is_const);
    dg_var *v = new_var(fn, name, pt, DG_VAR_LOCAL);
    v->by_ref = true;
    dg_expr *ad = fe_new_expr(fn, DG_EX_ADDR, pt, init);
    ad->a = ie;
    for (dg_expr *r = ie; r; r = (r->kind == DG_EX_INDEX && r->a->type->kind == DG_TY_ARRAY) ? r->a : NULL)
      if (r->kind == DG_EX_VAR) r->var->addr_taken = true;
    v->slot = (int)fn->locals.n;
    dg_vec_push(&fn->locals, v);
    s->var = v;
    s->e = ad;
    fe_sym *sym = fe_bind(fn, v->name, FE_SYM_VAR);
    sym->var = v;
    sym->is_ref = true;
    dg_vec_push(out, s);
    return;
  }
by_value:;
  exprvec inits = { 0 };
  if (!ts_node_is_null(init) && !ie) {
    if (fe_kind(init) == FE_N_initializer_list) {
      if (t->kind == DG_TY_ARRAY) flatten_inits(fn, init, t, &inits, 0);
      else if (t->kind == DG_TY_VEC) ie = vec_init(fn, init, t);
      else if (t->kind == DG_TY_STRUCT) ie = fe_aggregate(fn, init, t);
      else if (ts_node_named_child_count(init) == 0) ie = fe_convert(fn, fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), init), t, init);
      else if (ts_node_named_child_count(init) == 1) ie = fe_convert(fn, fe_rvalue(fn, ts_node_named_child(init, 0)), t, init);
      else fe_err(fn, init, DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t));
    } else if (fe_kind(init) == FE_N_argument_list) {
      if (ts_node_named_child_count(init) != 1) fe_err(fn, init, DG_SEV_UNSUPPORTED, "constructor-style initialiser");
      else ie = fe_convert(fn, fe_rvalue(fn, ts_node_named_child(init, 0)), t, init);
    } else {
      if (t->kind == DG_TY_ARRAY) fe_err(fn, init, DG_SEV_ERROR, "array initialised from an expression");
      else ie = fe_convert(fn, fe_rvalue(fn, init), t, init);
    }
  } else if (ie) {
    ie = fe_convert(fn, ie, t, init);
  }
  if (fn->failed) { dg_vec_free(&inits); return; }
  if (t->kind == DG_TY_ARRAY && t->count < 0) {
    if (!inits.n) { dg_vec_free(&inits); fe_err(fn, d, DG_SEV_ERROR, "local array without a size"); return; }
    const dg_type *leaf = t->elem;
    if (leaf->kind == DG_TY_ARRAY) { dg_vec_free(&inits); fe_err(fn, d, DG_SEV_UNSUPPORTED, "unsized multi-dimensional array"); return; }
    t = ir_type_array(fn->m, leaf, (int64_t)inits.n);
  }
  if (t->kind == DG_TY_ARRAY) {
    const dg_type *leaf = t; while (leaf->kind == DG_TY_ARRAY) leaf = leaf->elem;
    int64_t total = dg_type_size(t) / (dg_type_size(leaf) ? dg_type_size(leaf) : 1);
    if ((int64_t)inits.n > total) { dg_vec_free(&inits); fe_err(fn, init, DG_SEV_ERROR, "too many initialisers for '%s'", ir_type_name(t)); return; }
  }
  /* const/constexpr scalars with a constant initialiser are folded at every use. */
  int64_t iv; double fv; bool isf;
  if (is_const && ie && dg_type_is_scalar(t) && fe_fold(ie, &iv, &fv, &isf)) {
    fe_sym *sym = fe_bind(fn, fe_text(fn->st, name), dg_type_is_int(t) ? FE_SYM_CINT : FE_SYM_CFLOAT);
    sym->type = t;
    if (dg_type_is_int(t)) sym->ival = isf ? (int64_t)fv : iv;
    else sym->fval = isf ? fv : (double)iv;
    dg_vec_free(&inits);
    return;
  }
  dg_var *v = new_var(fn, name, t, DG_VAR_LOCAL);
  v->is_const = is_const && t->kind != DG_TY_PTR;   /* const float *p: the pointee is const */
  v->slot = (int)fn->locals.n;
  /* an array lives in memory; so does a scalar declared without a value: its
   * bytes start uninitialised and the engine reports a read before a write
   * (a register would read as 0). Vectors and structs filled member by
   * member (`float4 v; v.x = ...`) stay registers: the check slices those. */
  v->addr_taken = t->kind == DG_TY_ARRAY || (!ie && !inits.n && dg_type_is_scalar(t));
  dg_vec_push(&fn->locals, v);
  s->var = v;
  s->e = ie;
  if (inits.n) {
    s->ninits = (int)inits.n;
    s->inits = dg_arena_alloc(&fn->m->arena, sizeof *s->inits * inits.n);
    memcpy(s->inits, inits.v, sizeof *s->inits * inits.n);
  }
  dg_vec_free(&inits);
  fe_bind(fn, v->name, FE_SYM_VAR)->var = v;
  dg_vec_push(out, s);
}

void fe_local_decl(fe_fn *fn, TSNode decl, fe_stmtvec *out)
{
  bool is_const;
  TSNode tn = fe_field(decl, "type");
  const dg_type *base = NULL;
  if (ts_node_is_null(tn)) { fe_err(fn, decl, DG_SEV_ERROR, "declaration without a type"); return; }
  if (fe_kind(tn) != FE_N_placeholder_type_specifier) {
    base = fe_decl_type(fn, decl, &is_const);
    if (!base) return;
  } else {
    fe_decl_type(fn, decl, &is_const);
  }
  TSFieldId fdecl = fe_field_id("declarator");
  TSTreeCursor cur = ts_tree_cursor_new(decl);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more && !fn->failed; more = ts_tree_cursor_goto_next_sibling(&cur))
    if (ts_tree_cursor_current_field_id(&cur) == fdecl)
      one_declarator(fn, decl, ts_tree_cursor_current_node(&cur), base, is_const, out);
  ts_tree_cursor_delete(&cur);
}

/* ---- statements -------------------------------------------------------------- */
static int unroll_of(fe_fn *fn, TSNode pragma)
{
  TSNode arg = fe_field(pragma, "argument");
  if (ts_node_is_null(arg)) return 0;
  const char *s = fn->st->src + ts_node_start_byte(arg), *e = fn->st->src + ts_node_end_byte(arg);
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  if (e - s < 6 || memcmp(s, "unroll", 6)) return 0;
  s += 6;
  while (s < e && (*s == ' ' || *s == '\t' || *s == '(')) s++;
  int v = 0;
  while (s < e && *s >= '0' && *s <= '9' && v < 1000000) v = v * 10 + (*s++ - '0');
  return v > 0 ? v : -1;
}

static bool is_loop(dg_stmt *s) { return s && (s->kind == DG_ST_FOR || s->kind == DG_ST_WHILE || s->kind == DG_ST_DO); }

/* Statements of a block, appended to out (declarations may give several). */
static void stmt_into(fe_fn *fn, TSNode c, stmtvec *out, int *pending_unroll)
{
  switch (fe_kind(c)) {
  case FE_N_comment: case FE_N_static_assert_declaration: case FE_N_empty_declaration:
  case FE_N_using_declaration:
    return;
  case FE_N_preproc_call: {
    int u = unroll_of(fn, c);
    if (u) *pending_unroll = u;
    return;
  }
  case FE_N_declaration: fe_local_decl(fn, c, out); return;
  case FE_N_type_definition: case FE_N_alias_declaration: {
    TSNode tn = fe_field(c, fe_kind(c) == FE_N_alias_declaration ? "type" : "type");
    TSNode name = fe_kind(c) == FE_N_alias_declaration ? fe_field(c, "name") : fe_field(c, "declarator");
    const dg_type *t = NULL;
    if (fe_kind(c) == FE_N_alias_declaration) t = fe_type_descriptor(fn, tn);
    else {
      bool cst;
      const dg_type *b = fe_decl_type(fn, c, &cst);
      TSNode nm = { 0 };
      if (b) t = fe_declarator(fn, name, b, cst, DG_AS_GENERIC, &nm, NULL);
      name = nm;
    }
    if (t && !ts_node_is_null(name)) { fe_sym *s = fe_bind(fn, fe_text(fn->st, name), FE_SYM_TYPE); s->type = t; }
    return;
  }
  default: break;
  }
  /* the hint stands between the previous statement and this one: read it
   * before the loop's own statements move prev_end */
  int hint = 0;
  fe_nkind k = fe_kind(c);
  if (k == FE_N_for_statement || k == FE_N_while_statement || k == FE_N_do_statement)
    hint = *pending_unroll ? *pending_unroll : fe_pragma_unroll(fn, c);
  fn->prev_end = ts_node_start_byte(c);
  dg_stmt *s = fe_stmt(fn, c);
  if (!s) return;
  if (is_loop(s) && !s->unroll) s->unroll = hint;
  *pending_unroll = 0;
  fn->prev_end = ts_node_end_byte(c);
  dg_vec_push(out, s);
}

dg_stmt *fe_body(fe_fn *fn, TSNode compound)
{
  stmtvec v = { 0 };
  int pending = 0;
  fe_scope_push(fn);
  fn->prev_end = ts_node_start_byte(compound);
  TSTreeCursor cur = ts_tree_cursor_new(compound);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more && !fn->failed; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode c = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_named(c)) stmt_into(fn, c, &v, &pending);
  }
  ts_tree_cursor_delete(&cur);
  fe_scope_pop(fn);
  return block_of(fn, &v, compound);
}

/* A sub-statement that is its own scope (if branches, loop bodies). */
static dg_stmt *sub_stmt(fe_fn *fn, TSNode n)
{
  if (ts_node_is_null(n)) return new_stmt(fn, DG_ST_NOP, n);
  if (fe_kind(n) == FE_N_compound_statement) return fe_body(fn, n);
  stmtvec v = { 0 };
  int pending = 0;
  fe_scope_push(fn);
  stmt_into(fn, n, &v, &pending);
  fe_scope_pop(fn);
  if (v.n == 1) { dg_stmt *s = v.v[0]; dg_vec_free(&v); return s; }
  return block_of(fn, &v, n);
}

/* condition_clause: (expr) or (decl-with-init). */
static dg_expr *clause_cond(fe_fn *fn, TSNode c, stmtvec *decls)
{
  if (fe_kind(c) == FE_N_condition_clause) {
    TSNode init = fe_field(c, "initializer");
    if (!ts_node_is_null(init)) { fe_err(fn, init, DG_SEV_UNSUPPORTED, "if/switch with an init-statement"); return NULL; }
    TSNode v = fe_field(c, "value");
    if (fe_kind(v) == FE_N_declaration) {
      fe_local_decl(fn, v, decls);
      if (fn->failed || !decls->n || !decls->v[decls->n - 1]->var) { if (!fn->failed) fe_err(fn, v, DG_SEV_UNSUPPORTED, "this condition"); return NULL; }
      dg_expr *e = fe_new_expr(fn, DG_EX_VAR, decls->v[decls->n - 1]->var->type, v);
      e->var = decls->v[decls->n - 1]->var;
      return fe_convert(fn, e, fe_scalar(DG_TY_BOOL), v);
    }
    return !ts_node_is_null(v) ? fe_cond(fn, v) : fe_err(fn, c, DG_SEV_ERROR, "missing condition");
  }
  if (fe_kind(c) == FE_N_parenthesized_expression) return fe_cond(fn, ts_node_named_child(c, 0));
  return fe_cond(fn, c);
}

static dg_stmt *wrap_decls(fe_fn *fn, stmtvec *decls, dg_stmt *s, TSNode at)
{
  if (!decls->n) { dg_vec_free(decls); return s; }
  dg_vec_push(decls, s);
  return block_of(fn, decls, at);
}

static dg_stmt *if_stmt(fe_fn *fn, TSNode n)
{
  stmtvec decls = { 0 };
  fe_scope_push(fn);
  dg_expr *c = clause_cond(fn, fe_field(n, "condition"), &decls);
  TSNode alt = fe_field(n, "alternative");
  if (!ts_node_is_null(alt) && fe_kind(alt) == FE_N_else_clause) alt = ts_node_named_child(alt, 0);
  dg_stmt *s;
  int64_t iv; double fv; bool isf;
  if (c && fe_has_keyword(n, "constexpr") && fe_fold(c, &iv, &fv, &isf) && !isf) {
    /* if constexpr: only the taken branch is instantiated */
    s = iv ? sub_stmt(fn, fe_field(n, "consequence")) : sub_stmt(fn, alt);
  } else {
    s = new_stmt(fn, DG_ST_IF, n);
    s->e = c;
    s->then = sub_stmt(fn, fe_field(n, "consequence"));
    if (!ts_node_is_null(alt)) s->els = sub_stmt(fn, alt);
  }
  fe_scope_pop(fn);
  return wrap_decls(fn, &decls, s, n);
}

static dg_stmt *for_stmt(fe_fn *fn, TSNode n)
{
  fe_scope_push(fn);
  dg_stmt *s = new_stmt(fn, DG_ST_FOR, n);
  TSNode init = fe_field(n, "initializer"), cond = fe_field(n, "condition"), upd = fe_field(n, "update");
  if (!ts_node_is_null(init)) {
    if (fe_kind(init) == FE_N_declaration) {
      stmtvec v = { 0 };
      fe_local_decl(fn, init, &v);
      s->init = v.n == 1 ? v.v[0] : block_of(fn, &v, init);
      if (v.n == 1) dg_vec_free(&v);
    } else {
      s->init = new_stmt(fn, DG_ST_EXPR, init);
      s->init->e = fe_expr(fn, init);
    }
  }
  if (!ts_node_is_null(cond)) s->e = fe_cond(fn, cond);
  if (!ts_node_is_null(upd)) s->step = fe_expr(fn, upd);
  fn->loops++;
  s->then = sub_stmt(fn, fe_field(n, "body"));
  fn->loops--;
  fe_scope_pop(fn);
  return s;
}

static dg_stmt *switch_stmt(fe_fn *fn, TSNode n)
{
  stmtvec decls = { 0 };
  fe_scope_push(fn);
  dg_expr *c = NULL;
  TSNode cn = fe_field(n, "condition");
  if (fe_kind(cn) == FE_N_condition_clause && !ts_node_is_null(fe_field(cn, "value")) &&
      fe_kind(fe_field(cn, "value")) != FE_N_declaration) {
    c = fe_rvalue(fn, fe_field(cn, "value"));
    if (!dg_type_is_int(c->type)) c = fe_err(fn, cn, DG_SEV_ERROR, "switch on '%s'", ir_type_name(c->type));
    c = fe_convert(fn, c, fe_promote(c->type), cn);
  } else {
    fe_err(fn, n, DG_SEV_UNSUPPORTED, "this switch condition");
  }
  dg_stmt *s = new_stmt(fn, DG_ST_SWITCH, n);
  s->e = c;
  stmtvec body = { 0 };
  DG_VEC(dg_case) cases = { 0 };
  TSNode b = fe_field(n, "body");
  uint32_t nb = ts_node_is_null(b) ? 0 : ts_node_named_child_count(b);
  int pending = 0;
  fn->switches++;
  for (uint32_t i = 0; i < nb && !fn->failed; i++) {
    TSNode k = ts_node_named_child(b, i);
    if (fe_kind(k) != FE_N_case_statement) { stmt_into(fn, k, &body, &pending); continue; }
    dg_case cs = { 0, false, (int)body.n };
    TSNode val = fe_field(k, "value");
    if (ts_node_is_null(val)) cs.is_default = true;
    else if (!fe_const_int(fn, val, &cs.value)) { if (!fn->failed) fe_err(fn, val, DG_SEV_ERROR, "case label is not an integer constant"); break; }
    for (size_t j = 0; j < cases.n; j++)
      if (cases.v[j].is_default == cs.is_default && (cs.is_default || cases.v[j].value == cs.value)) {
        fe_err(fn, k, DG_SEV_ERROR, "duplicate case label");
        break;
      }
    dg_vec_push(&cases, cs);
    uint32_t nk = ts_node_named_child_count(k);
    for (uint32_t j = 0; j < nk && !fn->failed; j++) {
      TSNode st = ts_node_named_child(k, j);
      if (!ts_node_is_null(val) && ts_node_eq(st, val)) continue;
      stmt_into(fn, st, &body, &pending);
    }
  }
  fn->switches--;
  s->nbody = (int)body.n;
  s->body = dg_arena_alloc(&fn->m->arena, sizeof *s->body * (body.n ? body.n : 1));
  if (body.n) memcpy(s->body, body.v, sizeof *s->body * body.n);
  s->ncases = (int)cases.n;
  s->cases = dg_arena_alloc(&fn->m->arena, sizeof *s->cases * (cases.n ? cases.n : 1));
  if (cases.n) memcpy(s->cases, cases.v, sizeof *s->cases * cases.n);
  dg_vec_free(&body);
  dg_vec_free(&cases);
  fe_scope_pop(fn);
  return wrap_decls(fn, &decls, s, n);
}

dg_stmt *fe_stmt(fe_fn *fn, TSNode n)
{
  if (++fn->depth > 300) { fn->depth--; fe_err(fn, n, DG_SEV_UNSUPPORTED, "statements nested too deeply"); return NULL; }
  dg_stmt *s = NULL;
  switch (fe_kind(n)) {
  case FE_N_compound_statement: s = fe_body(fn, n); break;
  case FE_N_expression_statement:
    if (ts_node_named_child_count(n) == 0) s = new_stmt(fn, DG_ST_NOP, n);
    else {
      s = new_stmt(fn, DG_ST_EXPR, n);
      s->e = fe_expr(fn, ts_node_named_child(n, 0));
    }
    break;
  case FE_N_if_statement: s = if_stmt(fn, n); break;
  case FE_N_for_statement: s = for_stmt(fn, n); break;
  case FE_N_while_statement: {
    stmtvec decls = { 0 };
    fe_scope_push(fn);
    s = new_stmt(fn, DG_ST_WHILE, n);
    s->e = clause_cond(fn, fe_field(n, "condition"), &decls);
    fn->loops++;
    s->then = sub_stmt(fn, fe_field(n, "body"));
    fn->loops--;
    fe_scope_pop(fn);
    if (decls.n) { fe_err(fn, n, DG_SEV_UNSUPPORTED, "declaration in a while condition"); dg_vec_free(&decls); }
    break;
  }
  case FE_N_do_statement:
    s = new_stmt(fn, DG_ST_DO, n);
    fn->loops++;
    s->then = sub_stmt(fn, fe_field(n, "body"));
    fn->loops--;
    {
      stmtvec decls = { 0 };
      s->e = clause_cond(fn, fe_field(n, "condition"), &decls);
      dg_vec_free(&decls);
    }
    break;
  case FE_N_break_statement:
    if (!fn->loops && !fn->switches) fe_err(fn, n, DG_SEV_ERROR, "'break' outside a loop or switch");
    s = new_stmt(fn, DG_ST_BREAK, n);
    break;
  case FE_N_continue_statement:
    if (!fn->loops) fe_err(fn, n, DG_SEV_ERROR, "'continue' outside a loop");
    s = new_stmt(fn, DG_ST_CONTINUE, n);
    break;
  case FE_N_return_statement: {
    s = new_stmt(fn, DG_ST_RETURN, n);
    TSNode v = ts_node_named_child(n, 0);
    if (!ts_node_is_null(v) && fe_kind(v) != FE_N_comment) {
      if (fn->ret->kind == DG_TY_VOID) fe_err(fn, v, DG_SEV_ERROR, "return with a value in a void function");
      else if (fe_kind(v) == FE_N_initializer_list && (fn->ret->kind == DG_TY_STRUCT || fn->ret->kind == DG_TY_VEC))
        s->e = fe_aggregate(fn, v, fn->ret);     /* return {m, d}; */
      else s->e = fe_convert(fn, fe_rvalue(fn, v), fn->ret, v);
    } else if (fn->ret->kind != DG_TY_VOID) {
      fe_err(fn, n, DG_SEV_ERROR, "return without a value in a function returning '%s'", ir_type_name(fn->ret));
    }
    break;
  }
  case FE_N_switch_statement: s = switch_stmt(fn, n); break;
  case FE_N_attributed_statement: {
    uint32_t k = ts_node_named_child_count(n);
    s = k ? fe_stmt(fn, ts_node_named_child(n, k - 1)) : new_stmt(fn, DG_ST_NOP, n);
    break;
  }
  case FE_N_declaration: case FE_N_type_definition: case FE_N_alias_declaration:
  case FE_N_preproc_call: case FE_N_static_assert_declaration: case FE_N_comment:
    s = sub_stmt(fn, n);
    break;
  case FE_N_goto_statement: case FE_N_labeled_statement: fe_err(fn, n, DG_SEV_UNSUPPORTED, "goto and labels"); break;
  case FE_N_for_range_loop: fe_err(fn, n, DG_SEV_UNSUPPORTED, "range-based for"); break;
  case FE_N_try_statement: case FE_N_throw_statement: fe_err(fn, n, DG_SEV_UNSUPPORTED, "exceptions in device code"); break;
  case FE_N_ERROR: fe_err(fn, n, DG_SEV_ERROR, "syntax error"); break;
  default: fe_err(fn, n, DG_SEV_UNSUPPORTED, "statement '%s'", ts_node_type(n)); break;
  }
  fn->depth--;
  return s;
}
