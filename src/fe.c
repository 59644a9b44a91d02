/* fe.c — the front end's entry points: preprocess, parse with tree-sitter,
 * walk the file's top level (device functions, templates, globals, typedefs,
 * host code and its launches), lower every non-template function, drop the
 * ones with errors (and their callers), keep the tree for instantiation. */
#include "fe_int.h"
#include <string.h>
#include <errno.h>
#include <pthread.h>

dg_func *fe_instance_from_text(fe_state *st, const char *text, bool quiet, TSNode at);

/* ---- node kinds: grammar symbol -> fe_nkind, built once ---------------------- */
static const char *const node_names[] = {
  "",
#define X(n) #n,
  FE_NODES(X)
#undef X
};
static uint8_t *sym_kind;
static uint32_t nsyms;

/* Field ids of the field names the lowering asks for (a name lookup in
 * tree-sitter is a linear string search). */
static struct { const char *name; TSFieldId id; } fields[] = {
  { "alternative", 0 }, { "argument", 0 }, { "arguments", 0 }, { "body", 0 }, { "condition", 0 },
  { "config", 0 }, { "consequence", 0 }, { "declarator", 0 }, { "default_type", 0 },
  { "default_value", 0 }, { "field", 0 }, { "function", 0 }, { "indices", 0 }, { "initializer", 0 },
  { "left", 0 }, { "name", 0 }, { "operator", 0 }, { "parameters", 0 }, { "right", 0 },
  { "scope", 0 }, { "size", 0 }, { "type", 0 }, { "update", 0 }, { "value", 0 },
};
static pthread_once_t kinds_once = PTHREAD_ONCE_INIT;

static void kinds_init_once(void)
{
  const TSLanguage *L = tree_sitter_cuda();
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    fields[i].id = ts_language_field_id_for_name(L, fields[i].name, (uint32_t)strlen(fields[i].name));
  uint32_t n = ts_language_symbol_count(L);
  uint8_t *t = dg_calloc(n, 1);
  for (uint32_t s = 0; s < n; s++) {
    if (ts_language_symbol_type(L, (TSSymbol)s) != TSSymbolTypeRegular) continue;
    const char *name = ts_language_symbol_name(L, (TSSymbol)s);
    for (int k = 1; k < FE_N__COUNT; k++)
      if (!strcmp(node_names[k], name)) { t[s] = (uint8_t)k; break; }
  }
  nsyms = n;
  sym_kind = t;
}

static void kinds_init(void) { pthread_once(&kinds_once, kinds_init_once); }

/* One symbol read: the table maps only named (regular) symbols, so an
 * anonymous node is FE_N_OTHER without asking ts_node_is_named; an ERROR
 * node's symbol is (TSSymbol)-1, the builtin error symbol. */
fe_nkind fe_kind(TSNode n)
{
  if (ts_node_is_null(n)) return FE_N_OTHER;
  TSSymbol s = ts_node_symbol(n);
  if (s == (TSSymbol)-1) return FE_N_ERROR;
  return s < nsyms ? (fe_nkind)sym_kind[s] : FE_N_OTHER;
}

/* ---- positions, text, diagnostics ----------------------------------------------- */
dg_span fe_span(fe_state *st, TSNode n)
{
  if (ts_node_is_null(n)) return (dg_span){ 0, 0, 0 };
  size_t off = ts_node_start_byte(n);
  if (st->have_pp) return pp_span(&st->pp, off);
  size_t lo = 0, hi = st->lines.n;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (st->lines.v[mid] <= off) lo = mid; else hi = mid;
  }
  return (dg_span){ st->file, (uint32_t)lo + 1, (uint32_t)(off - st->lines.v[lo]) + 1 };
}

static void diag_v(fe_state *st, dg_severity sev, dg_span sp, const char *fmt, va_list ap)
{
  char *msg = dg_vprintf(fmt, ap);
  if (st->d) dg_diag_add(st->d, sev, sp, "%s", msg);
  dg_diag_add(&st->m->diags, sev, sp, "%s", msg);
  free(msg);
}

void fe_diag(fe_state *st, dg_severity sev, TSNode n, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  diag_v(st, sev, fe_span(st, n), fmt, ap);
  va_end(ap);
}

dg_expr *fe_err(fe_fn *fn, TSNode n, dg_severity sev, const char *fmt, ...)
{
  if (!fn->failed && !fn->quiet) {
    va_list ap;
    va_start(ap, fmt);
    diag_v(fn->st, sev, fe_span(fn->st, n), fmt, ap);
    va_end(ap);
  }
  fn->failed = true;
  return fe_new_expr(fn, DG_EX_INT, fe_scalar(DG_TY_I32), n);
}

char *fe_text(fe_state *st, TSNode n)
{
  if (ts_node_is_null(n)) return "";
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return dg_arena_strndup(&st->m->arena, st->src + a, b - a);
}

bool fe_text_is(fe_state *st, TSNode n, const char *s)
{
  if (ts_node_is_null(n)) return false;
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return strlen(s) == b - a && !memcmp(st->src + a, s, b - a);
}

TSFieldId fe_field_id(const char *field)
{
  kinds_init();
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    if (fields[i].name[0] == field[0] && !strcmp(fields[i].name, field)) return fields[i].id;
  return ts_language_field_id_for_name(tree_sitter_cuda(), field, (uint32_t)strlen(field));
}

TSNode fe_field_by_id(TSNode n, TSFieldId id)
{
  if (ts_node_is_null(n) || !id) return (TSNode){ 0 };
  return ts_node_child_by_field_id(n, id);
}

TSNode (fe_field)(TSNode n, const char *field)
{
  if (ts_node_is_null(n)) return n;
  return fe_field_by_id(n, fe_field_id(field));
}

/* A cursor: ts_node_child(i) walks from the first child every time. */
bool fe_has_keyword(TSNode n, const char *kw)
{
  if (ts_node_is_null(n)) return false;
  TSTreeCursor cur = ts_tree_cursor_new(n);
  bool found = false;
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more && !found; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode k = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_named(k)) continue;
    const char *t = ts_node_type(k);
    found = t[0] == kw[0] && !strcmp(t, kw);
  }
  ts_tree_cursor_delete(&cur);
  return found;
}

int fe_pragma_unroll(fe_fn *fn, TSNode stmt)
{
  fe_state *st = fn->st;
  if (!st->have_pp) return 0;
  size_t at = ts_node_start_byte(stmt);
  for (size_t i = st->pp.pragmas.n; i-- > 0;) {
    const pp_pragma *p = &st->pp.pragmas.v[i];
    if (p->out_off > at) continue;
    if (p->out_off < fn->prev_end) break;
    const char *s = strstr(p->line_text, "unroll");
    if (!s) continue;
    s += 6;
    while (*s == ' ' || *s == '\t' || *s == '(') s++;
    int v = 0;
    while (*s >= '0' && *s <= '9' && v < 1000000) v = v * 10 + (*s++ - '0');
    return v > 0 ? v : -1;
  }
  return 0;
}

/* ---- the top level ------------------------------------------------------------------ */
static void host_launches(fe_state *st, TSNode n, int depth)
{
  if (depth > 200) return;
  if (fe_kind(n) == FE_N_kernel_call_syntax) {
    TSNode call = ts_node_parent(n);
    TSNode f = fe_field(call, "function");
    dg_host_launch l = { fe_text(st, call), fe_text(st, f), fe_span(st, call) };
    dg_vec_push(&st->m->launches, l);
  }
  TSTreeCursor cur = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode c = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_named(c)) host_launches(st, c, depth + 1);
  }
  ts_tree_cursor_delete(&cur);
}

static TSNode func_declarator(TSNode fdef)
{
  TSNode d = fe_field(fdef, "declarator");
  for (int g = 0; g < 8 && !ts_node_is_null(d) && fe_kind(d) != FE_N_function_declarator; g++)
    d = fe_field(d, "declarator");
  return d;
}

static void add_def_named(fe_state *st, TSNode fdef, TSNode tmpl, const char *qualified);

static const char *dg_buf_tmp_join(fe_state *st, const char *a, const char *b)
{
  char *s = dg_printf("%s::%s", a, b);
  char *r = dg_arena_strdup(&st->m->arena, s);
  free(s);
  return r;
}

static void add_def(fe_state *st, TSNode fdef, TSNode tmpl) { add_def_named(st, fdef, tmpl, NULL); }

static void add_def_named(fe_state *st, TSNode fdef, TSNode tmpl, const char *qualified)
{
  bool kernel = fe_has_keyword(fdef, "__global__"), device = fe_has_keyword(fdef, "__device__");
  if (!kernel && !device) { host_launches(st, fdef, 0); return; }
  TSNode decl = func_declarator(fdef);
  TSNode name = fe_field(decl, "declarator");
  if (fe_kind(name) == FE_N_template_function && !ts_node_is_null(tmpl)) {
    /* template <> float to_f<__half>(__half v): used when an instance matches */
    fe_def *sp = dg_arena_alloc(&st->m->arena, sizeof *sp);
    sp->name = fe_text(st, fe_field(name, "name"));
    sp->node = fdef;
    sp->decl = decl;
    sp->is_kernel = kernel;
    sp->spec_args = fe_field(name, "arguments");
    dg_vec_push(&st->specs, sp);
    return;
  }
  if (qualified && !ts_node_is_null(decl)) {
    fe_def *def = dg_arena_alloc(&st->m->arena, sizeof *def);
    def->name = qualified;
    def->node = fdef;
    def->decl = decl;
    if (!ts_node_is_null(tmpl)) {
      def->is_template = true;
      def->ntparams = fe_tparams(st, fe_field(tmpl, "parameters"), &def->tparams);
      if (def->ntparams < 0) return;
    }
    dg_vec_push(&st->defs, def);
    fe_def_hash_add(st, def);
    return;
  }
  if (ts_node_is_null(decl) || (fe_kind(name) != FE_N_identifier)) {
    if (kernel || !ts_node_is_null(decl))
      fe_diag(st, DG_SEV_UNSUPPORTED, fdef, "this function declaration (operators, methods, qualified names)");
    return;
  }
  fe_def *def = dg_arena_alloc(&st->m->arena, sizeof *def);
  def->name = fe_text(st, name);
  def->node = fdef;
  def->decl = decl;
  def->is_kernel = kernel;
  if (!ts_node_is_null(tmpl)) {
    def->is_template = true;
    def->ntparams = fe_tparams(st, fe_field(tmpl, "parameters"), &def->tparams);
    if (def->ntparams < 0) {
      fe_diag(st, DG_SEV_UNSUPPORTED, tmpl, "template parameters of '%s' (variadic or template template)", def->name);
      return;
    }
    dg_vec_push(&st->m->templates, def->name);
  }
  fe_def *prev = fe_find_def(st, def->name, strlen(def->name));
  if (prev) {
    while (prev->next_same_name) prev = prev->next_same_name;
    prev->next_same_name = def;
  }
  dg_vec_push(&st->defs, def);
  if (!prev) fe_def_hash_add(st, def);
}

static void enum_constants(fe_state *st, TSNode spec);
static void struct_functions(fe_state *st, TSNode spec);

static void global_decl(fe_state *st, TSNode n)
{
  if (fe_kind(fe_field(n, "type")) == FE_N_enum_specifier) enum_constants(st, fe_field(n, "type"));
  bool dev = fe_has_keyword(n, "__device__") || fe_has_keyword(n, "__constant__");
  fe_fn fn = { .st = st, .m = st->m, .global_scope = true };
  uint32_t c = ts_node_named_child_count(n);
  bool is_const = false, constant = false, shared = false;
  for (uint32_t i = 0; i < c; i++) {
    TSNode q = ts_node_named_child(n, i);
    if (fe_kind(q) != FE_N_type_qualifier) continue;
    if (fe_text_is(st, q, "__constant__")) constant = dev = true;
    if (fe_text_is(st, q, "__device__")) dev = true;
    if (fe_text_is(st, q, "__shared__")) shared = true;
    if (fe_text_is(st, q, "const") || fe_text_is(st, q, "constexpr")) is_const = true;
  }
  /* prototypes */
  TSNode d0 = fe_field(n, "declarator");
  if (fe_kind(d0) == FE_N_function_declarator) return;
  fn.quiet = !dev && !shared;
  if (shared) { fe_diag(st, DG_SEV_UNSUPPORTED, n, "__shared__ at file scope"); return; }
  const dg_type *base = NULL;
  if (fe_kind(fe_field(n, "type")) != FE_N_placeholder_type_specifier) base = fe_decl_type(&fn, n, NULL);
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    const char *f = ts_node_field_name_for_child(n, i);
    if (!f || strcmp(f, "declarator")) continue;
    TSNode d = ts_node_child(n, i), name = { 0 };
    fn.failed = false;
    const dg_type *t = base ? fe_declarator(&fn, d, base, is_const, DG_AS_GLOBAL, &name, NULL) : NULL;
    TSNode init = fe_kind(d) == FE_N_init_declarator ? fe_field(d, "value") : (TSNode){ 0 };
    if (!t && !base && !ts_node_is_null(init) && fe_kind(init) != FE_N_initializer_list) {
      fe_declarator(&fn, d, fe_scalar(DG_TY_I32), false, DG_AS_GLOBAL, &name, NULL);
      dg_expr *e = fe_rvalue(&fn, init);
      t = fn.failed ? NULL : e->type;
    }
    if (!t || ts_node_is_null(name)) continue;
    if (dev) {
      if (!ts_node_is_null(init)) { fe_diag(st, DG_SEV_UNSUPPORTED, init, "initialised __device__/__constant__ variable '%s'", fe_text(st, name)); continue; }
      /* the emulator holds each one in memory: 32 GB aborted it, 4 GB took 10 s */
      int64_t bytes = dg_type_size(t), most = constant ? 65536 : (INT64_C(1) << 30);
      if (bytes > most) {
        fe_diag(st, DG_SEV_ERROR, d, constant ? "__constant__ variable of %lld bytes: a GPU has 64 KiB of constant memory"
                                             : "__device__ variable of %lld bytes: more than the emulator holds (1 GiB)",
                (long long)bytes);
        continue;
      }
      dg_var *v = dg_arena_alloc(&st->m->arena, sizeof *v);
      v->name = fe_text(st, name);
      v->type = t;
      v->kind = DG_VAR_GLOBAL;
      v->slot = (int)st->m->globals.n;
      v->addr_taken = true;
      v->is_const = constant;
      v->span = fe_span(st, name);
      dg_vec_push(&st->m->globals, v);
      fe_bind(&fn, v->name, FE_SYM_VAR)->var = v;
      continue;
    }
    /* host side: constants are visible to device code; the rest is an error there */
    int64_t iv; double fv; bool isf;
    if (is_const && dg_type_is_scalar(t) && !ts_node_is_null(init) && fe_kind(init) != FE_N_initializer_list) {
      dg_expr *e = fe_convert(&fn, fe_rvalue(&fn, init), t, init);
      if (!fn.failed && fe_fold(e, &iv, &fv, &isf)) {
        fe_sym *s = fe_bind(&fn, fe_text(st, name), dg_type_is_int(t) ? FE_SYM_CINT : FE_SYM_CFLOAT);
        s->type = t;
        if (dg_type_is_int(t)) s->ival = isf ? (int64_t)fv : iv; else s->fval = isf ? fv : (double)iv;
        continue;
      }
    }
    fe_bind(&fn, fe_text(st, name), FE_SYM_HOSTVAR);
  }
  dg_vec_free(&fn.scope);
}

static void global_typedef(fe_state *st, TSNode n)
{
  fe_fn fn = { .st = st, .m = st->m, .global_scope = true, .quiet = true };
  const dg_type *t = NULL;
  TSNode name;
  if (fe_kind(n) == FE_N_alias_declaration) {
    name = fe_field(n, "name");
    t = fe_type_descriptor(&fn, fe_field(n, "type"));
  } else {
    /* typedef struct [S] { ... } T; */
    TSNode spec = fe_field(n, "type"), d = fe_field(n, "declarator");
    fe_nkind sk = fe_kind(spec);
    if ((sk == FE_N_struct_specifier || sk == FE_N_class_specifier) && !ts_node_is_null(fe_field(spec, "body")) &&
        fe_kind(d) == FE_N_type_identifier) {
      struct_functions(st, spec);
      fe_struct_define(st, spec, fe_text(st, d));
      dg_vec_free(&fn.scope);
      return;
    }
    bool c;
    const dg_type *b = fe_decl_type(&fn, n, &c);
    name = (TSNode){ 0 };
    if (b) t = fe_declarator(&fn, fe_field(n, "declarator"), b, c, DG_AS_GENERIC, &name, NULL);
  }
  if (t && !ts_node_is_null(name)) fe_bind(&fn, fe_text(st, name), FE_SYM_TYPE)->type = t;
}

/* struct Op { __device__ static float apply(float, float); }: a struct of
 * static device functions, usable as a template type argument (Op::apply). */
static void struct_functions(fe_state *st, TSNode spec)
{
  TSNode name = fe_field(spec, "name"), body = fe_field(spec, "body");
  if (ts_node_is_null(name) || ts_node_is_null(body)) return;
  char *sname = fe_text(st, name);
  dg_vec_push(&st->structs, sname);
  uint32_t n = ts_node_named_child_count(body);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_named_child(body, i), tmpl = { 0 };
    if (fe_kind(c) == FE_N_template_declaration) {
      tmpl = c;
      c = ts_node_named_child(c, ts_node_named_child_count(c) - 1);
    }
    if (fe_kind(c) != FE_N_function_definition || !fe_has_keyword(c, "__device__")) continue;
    bool is_static = false;
    for (uint32_t j = 0; j < ts_node_named_child_count(c); j++) {
      TSNode q = ts_node_named_child(c, j);
      if (fe_kind(q) == FE_N_storage_class_specifier && fe_text_is(st, q, "static")) is_static = true;
    }
    if (!is_static) continue;   /* methods need `this`: not supported; only reported if used */
    TSNode decl = func_declarator(c);
    TSNode fname = fe_field(decl, "declarator");
    if (ts_node_is_null(fname)) continue;
    add_def_named(st, c, tmpl, dg_arena_strdup(&st->m->arena, dg_buf_tmp_join(st, sname, fe_text(st, fname))));
  }
}

/* enum { BLOCK = 256, HALF = BLOCK / 2 }: unscoped enumerators are int
 * constants at file scope (scoped ones, enum class, are left to the host). */
static void enum_constants(fe_state *st, TSNode spec)
{
  if (fe_has_keyword(spec, "class") || fe_has_keyword(spec, "struct")) return;
  TSNode body = fe_field(spec, "body");
  fe_fn fn = { .st = st, .m = st->m, .global_scope = true };
  int64_t next = 0;
  uint32_t n = ts_node_named_child_count(body);
  for (uint32_t i = 0; i < n; i++) {
    TSNode e = ts_node_named_child(body, i);
    TSNode name = fe_field(e, "name"), val = fe_field(e, "value");
    if (ts_node_is_null(name)) continue;
    if (!ts_node_is_null(val)) {
      fn.failed = false;
      fn.quiet = true;
      if (!fe_const_int(&fn, val, &next)) continue;
    }
    fe_sym *s = fe_bind(&fn, fe_text(st, name), FE_SYM_CINT);
    s->type = fe_scalar(DG_TY_I32);
    s->ival = next++;
  }
}

static bool text_has_device_kw(fe_state *st, TSNode n)
{
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  for (uint32_t i = a; i + 10 <= b; i++)
    if (st->src[i] == '_' && (!memcmp(st->src + i, "__global__", 10) || !memcmp(st->src + i, "__device__", 10))) return true;
  return false;
}

/* A top-level node other than a function definition that holds a syntax
 * error and mentions __global__/__device__: with a ';' missing before the
 * closing brace tree-sitter reads a whole kernel as a declaration with an
 * initializer list, and the kernel would vanish without a word.  Point at the
 * first ERROR or MISSING node inside. */
TSNode fe_first_error(TSNode n)
{
  TSNode e = n;
  for (int g = 0; g < 1000; g++) {
    uint32_t k = ts_node_child_count(e), i;
    for (i = 0; i < k; i++) {
      TSNode c = ts_node_child(e, i);
      if (ts_node_is_error(c) || ts_node_is_missing(c)) return c;
      if (ts_node_has_error(c)) { e = c; break; }
    }
    if (i == k) break;
  }
  return e;
}

static bool device_syntax_error(fe_state *st, TSNode n)
{
  if (!ts_node_has_error(n) || !text_has_device_kw(st, n)) return false;
  TSNode e = fe_first_error(n);
  if (ts_node_is_missing(e)) fe_diag(st, DG_SEV_ERROR, e, "syntax error: missing '%s'", ts_node_type(e));
  else fe_diag(st, DG_SEV_ERROR, e, "syntax error");
  return true;
}

static void top_level(fe_state *st, TSNode root, int depth)
{
  if (depth > 16 || ts_node_is_null(root)) return;
  /* a cursor: ts_node_named_child(i) walks from the first child every time */
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool more = ts_tree_cursor_goto_first_child(&cur);
  for (; more; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode c = ts_tree_cursor_current_node(&cur);
    if (!ts_node_is_named(c)) continue;
    switch (fe_kind(c)) {
    case FE_N_function_definition: add_def(st, c, (TSNode){ 0 }); break;
    case FE_N_template_declaration: {
      uint32_t k = ts_node_named_child_count(c);
      TSNode inner = k ? ts_node_named_child(c, k - 1) : c;
      if (fe_kind(inner) == FE_N_function_definition) add_def(st, inner, c);
      else host_launches(st, c, 0);
      break;
    }
    case FE_N_declaration: if (!device_syntax_error(st, c)) global_decl(st, c); break;
    case FE_N_template_instantiation: dg_vec_push(&st->explicit_insts, c); break;
    case FE_N_struct_specifier: case FE_N_class_specifier:
      struct_functions(st, c);
      fe_struct_define(st, c, NULL);
      break;
    case FE_N_enum_specifier: enum_constants(st, c); break;
    case FE_N_type_definition: case FE_N_alias_declaration: global_typedef(st, c); break;
    case FE_N_linkage_specification: {
      TSNode b = fe_field(c, "body");
      if (fe_kind(b) == FE_N_function_definition) add_def(st, b, (TSNode){ 0 });
      else if (fe_kind(b) == FE_N_declaration) global_decl(st, b);
      else if (!ts_node_is_null(b)) top_level(st, b, depth + 1);
      break;
    }
    case FE_N_namespace_definition: top_level(st, fe_field(c, "body"), depth + 1); break;
    case FE_N_ERROR:
      if (text_has_device_kw(st, c)) fe_diag(st, DG_SEV_ERROR, c, "syntax error");
      break;
    default:
      host_launches(st, c, 0);
      break;
    }
  }
  ts_tree_cursor_delete(&cur);
}

dg_module *fe_load_file(dg_srcmgr *sm, uint32_t file, const fe_options *opt, dg_diags *d)
{
  kinds_init();
  dg_module *m = dg_calloc(1, sizeof *m);
  fe_state *st = dg_calloc(1, sizeof *st);
  m->sm = sm;
  m->file = file;
  m->fe_private = st;
  st->m = m;
  st->d = d;
  st->file = file;
  static const fe_options none;
  if (!opt) opt = &none;
  if (pp_run(sm, file, opt->defines, opt->ndefines, &st->pp, &m->diags)) {
    st->have_pp = true;
    st->src = st->pp.text;
    st->len = st->pp.len;
    /* #pragma lines would split `for (...) #pragma unroll for (...)` in the
     * grammar; blank them (offsets unchanged) and read hints from pp.pragmas. */
    for (size_t i = 0; i < st->pp.pragmas.n; i++)
      for (size_t o = st->pp.pragmas.v[i].out_off; o < st->pp.len && st->pp.text[o] == '#'; ) {
        while (o < st->pp.len && st->pp.text[o] != '\n') st->pp.text[o++] = ' ';
      }
  } else {
    /* the preprocessor's own errors went to m->diags; copy them to d */
    if (d) for (size_t i = 0; i < m->diags.v.n; i++) dg_diag_add(d, m->diags.v.v[i].sev, m->diags.v.v[i].span, "%s", m->diags.v.v[i].msg);
    pp_result_free(&st->pp);
    memset(&st->pp, 0, sizeof st->pp);
    fe_module_free(m);
    return NULL;
  }
  if (d) for (size_t i = 0; i < m->diags.v.n; i++) dg_diag_add(d, m->diags.v.v[i].sev, m->diags.v.v[i].span, "%s", m->diags.v.v[i].msg);
  if (st->len > UINT32_MAX / 2) {
    fe_diag(st, DG_SEV_ERROR, (TSNode){ 0 }, "%s: file too large", dg_srcmgr_path(sm, file));
    fe_module_free(m);
    return NULL;
  }
  st->parser = ts_parser_new();
  ts_parser_set_language(st->parser, tree_sitter_cuda());
  st->tree = ts_parser_parse_string(st->parser, NULL, st->src, (uint32_t)st->len);
  if (!st->tree) {
    fe_diag(st, DG_SEV_ERROR, (TSNode){ 0 }, "%s: cannot parse", dg_srcmgr_path(sm, file));
    fe_module_free(m);
    return NULL;
  }
  top_level(st, ts_tree_root_node(st->tree), 0);
  /* signatures first, so that calls resolve whatever the order of definitions */
  for (size_t i = 0; i < st->defs.n; i++) {
    fe_def *def = st->defs.v[i];
    if (def->is_template) continue;
    dg_func *f = dg_arena_alloc(&m->arena, sizeof *f);
    f->name = f->base_name = def->name;
    f->is_kernel = def->is_kernel;
    f->span = fe_span(st, def->decl);
    if (fe_signature(st, def, f, NULL, 0)) def->func = f;
    else def->failed = true;
  }
  for (size_t i = 0; i < st->defs.n; i++) {
    fe_def *def = st->defs.v[i];
    if (def->is_template || def->failed) continue;
    dg_vec_push(&m->funcs, def->func);
    if (!fe_lower_func(st, def, def->func, NULL, 0)) def->failed = true;
  }
  for (size_t i = 0; i < st->explicit_insts.n; i++) {
    TSNode d = func_declarator(st->explicit_insts.v[i]);
    TSNode tf = fe_field(d, "declarator");
    if (fe_kind(tf) == FE_N_template_function) fe_instance_from_text(st, fe_text(st, tf), false, tf);
  }
  for (int i = 0; i < opt->ninstantiate; i++)
    fe_instance_from_text(st, opt->instantiate[i], false, (TSNode){ 0 });
  if (opt->instantiate_launches)
    for (size_t i = 0; i < m->launches.n; i++)
      if (strchr(m->launches.v[i].kernel, '<')) fe_instance_from_text(st, m->launches.v[i].kernel, true, (TSNode){ 0 });
  fe_drop_failed(st);
  st->d = NULL;
  return m;
}

dg_module *fe_load(dg_srcmgr *sm, const char *path, const fe_options *opt, dg_diags *d)
{
  uint32_t file = dg_srcmgr_load(sm, path);
  if (!file) {
    if (d) dg_diag_add(d, DG_SEV_ERROR, (dg_span){ 0, 0, 0 }, "cannot read '%s': %s", path, strerror(errno));
    return NULL;
  }
  return fe_load_file(sm, file, opt, d);
}

void fe_module_free(dg_module *m)
{
  if (!m) return;
  fe_state *st = m->fe_private;
  if (st) {
    if (st->tree) ts_tree_delete(st->tree);
    if (st->parser) ts_parser_delete(st->parser);
    if (st->have_pp) pp_result_free(&st->pp);
    dg_vec_free(&st->lines);
    dg_vec_free(&st->defs);
    free(st->def_hash);
    dg_vec_free(&st->globals);
    dg_vec_free(&st->insts);
    dg_vec_free(&st->infos);
    dg_vec_free(&st->specs);
    dg_vec_free(&st->structs);
    dg_vec_free(&st->explicit_insts);
    dg_vec_free(&st->bad_structs);
    free(st);
  }
  dg_vec_free(&m->funcs);
  dg_vec_free(&m->templates);
  dg_vec_free(&m->globals);
  dg_vec_free(&m->launches);
  dg_vec_free(&m->structs);
  dg_diags_free(&m->diags);
  ir_types_free(m);
  dg_arena_free(&m->arena);
  free(m);
}
