/* fe_types.c — C++ types as written in CUDA sources: type names, declarators,
 * the integer promotions and usual arithmetic conversions; scopes. */
#include "fe_int.h"
#include <string.h>
#include <ctype.h>

const dg_type *fe_scalar(dg_tykind k) { return ir_type_scalar(k); }

/* Spellings of scalar type names (primitive_type text and common typedefs). */
static const struct { const char *name; dg_tykind k; } named_scalars[] = {
  { "void", DG_TY_VOID }, { "bool", DG_TY_BOOL }, { "char", DG_TY_I8 },
  { "short", DG_TY_I16 }, { "int", DG_TY_I32 }, { "long", DG_TY_I64 },
  { "unsigned", DG_TY_U32 }, { "signed", DG_TY_I32 }, { "uint", DG_TY_U32 },
  { "float", DG_TY_F32 }, { "double", DG_TY_F64 },
  { "size_t", DG_TY_U64 }, { "ssize_t", DG_TY_I64 }, { "ptrdiff_t", DG_TY_I64 },
  { "intptr_t", DG_TY_I64 }, { "uintptr_t", DG_TY_U64 },
  { "int8_t", DG_TY_I8 }, { "uint8_t", DG_TY_U8 }, { "int16_t", DG_TY_I16 },
  { "uint16_t", DG_TY_U16 }, { "int32_t", DG_TY_I32 }, { "uint32_t", DG_TY_U32 },
  { "int64_t", DG_TY_I64 }, { "uint64_t", DG_TY_U64 },
  { "__half", DG_TY_F16 }, { "half", DG_TY_F16 }, { "__nv_half", DG_TY_F16 },
  { "__nv_bfloat16", DG_TY_BF16 }, { "nv_bfloat16", DG_TY_BF16 },
};

/* Vector type families: name prefix + lane count. */
static const struct { const char *base; dg_tykind k; int lanes_min, lanes_max; } vec_families[] = {
  { "float", DG_TY_F32, 1, 4 }, { "double", DG_TY_F64, 1, 4 }, { "int", DG_TY_I32, 1, 4 },
  { "uint", DG_TY_U32, 1, 4 }, { "char", DG_TY_I8, 1, 4 }, { "uchar", DG_TY_U8, 1, 4 },
  { "short", DG_TY_I16, 1, 4 }, { "ushort", DG_TY_U16, 1, 4 }, { "longlong", DG_TY_I64, 1, 4 },
  { "ulonglong", DG_TY_U64, 1, 4 }, { "long", DG_TY_I64, 1, 4 }, { "ulong", DG_TY_U64, 1, 4 },
  { "__half", DG_TY_F16, 2, 2 }, { "half", DG_TY_F16, 2, 2 },
  { "__nv_bfloat16", DG_TY_BF16, 2, 2 }, { "nv_bfloat16", DG_TY_BF16, 2, 2 },
};

static bool name_eq(const char *a, const char *s, size_t len)
{
  return strlen(a) == len && !memcmp(a, s, len);
}

const dg_type *fe_type_by_name(fe_fn *fn, const char *name, size_t len)
{
  const fe_sym *s = fe_lookup(fn, name, len);
  if (s && s->kind == FE_SYM_TYPE) return s->type;
  for (size_t i = 0; i < sizeof named_scalars / sizeof *named_scalars; i++)
    if (name_eq(named_scalars[i].name, name, len)) return fe_scalar(named_scalars[i].k);
  for (size_t i = 0; i < sizeof vec_families / sizeof *vec_families; i++) {
    size_t bl = strlen(vec_families[i].base);
    if (len == bl + 1 && !memcmp(name, vec_families[i].base, bl) && name[bl] >= '1' && name[bl] <= '4') {
      int lanes = name[bl] - '0';
      if (lanes < vec_families[i].lanes_min || lanes > vec_families[i].lanes_max) continue;
      return ir_type_vec(fn->m, fe_scalar(vec_families[i].k), lanes);
    }
  }
  return NULL;
}

/* "unsigned long long int", "signed char", "long" ... as a sized specifier. */
static const dg_type *sized_type(bool is_unsigned, bool is_signed, int longs, bool is_short, const char *base)
{
  dg_tykind k;
  if (base && !strcmp(base, "char")) k = is_unsigned ? DG_TY_U8 : DG_TY_I8;
  else if (base && !strcmp(base, "double")) k = DG_TY_F64;
  else if (base && !strcmp(base, "float")) k = DG_TY_F32;
  else if (is_short) k = is_unsigned ? DG_TY_U16 : DG_TY_I16;
  else if (longs > 0) k = is_unsigned ? DG_TY_U64 : DG_TY_I64;
  else k = is_unsigned ? DG_TY_U32 : DG_TY_I32;
  (void)is_signed;
  return fe_scalar(k);
}

static const dg_type *type_node(fe_fn *fn, TSNode t)
{
  fe_state *st = fn->st;
  switch (fe_kind(t)) {
  case FE_N_primitive_type:
  case FE_N_type_identifier: {
    uint32_t a = ts_node_start_byte(t), b = ts_node_end_byte(t);
    const dg_type *ty = fe_type_by_name(fn, st->src + a, b - a);
    if (ty) return ty;
    char *name = fe_text(st, t);
    const char *why = fe_struct_why(st, st->src + a, b - a);
    if (!strcmp(name, "dim3"))
      fe_err(fn, t, DG_SEV_UNSUPPORTED, "dim3 in device code");
    else if (why)
      fe_err(fn, t, DG_SEV_UNSUPPORTED, "struct '%s' %s", name, why);
    else
      fe_err(fn, t, DG_SEV_UNSUPPORTED, "type '%s'", name);
    return NULL;
  }
  case FE_N_sized_type_specifier: {
    bool u = false, s = false, sh = false;
    int longs = 0;
    const char *base = NULL;
    uint32_t n = ts_node_child_count(t);
    for (uint32_t i = 0; i < n; i++) {
      TSNode c = ts_node_child(t, i);
      const char *ty = ts_node_type(c);
      if (!strcmp(ty, "unsigned")) u = true;
      else if (!strcmp(ty, "signed")) s = true;
      else if (!strcmp(ty, "long")) longs++;
      else if (!strcmp(ty, "short")) sh = true;
      else if (ts_node_is_named(c)) base = fe_text(st, c);
    }
    return sized_type(u, s, longs, sh, base);
  }
  case FE_N_qualified_identifier: {
    /* std::size_t, ::uint32_t: the last name. */
    TSNode name = fe_field(t, "name");
    if (!ts_node_is_null(name) && fe_kind(name) != FE_N_qualified_identifier)
      return type_node(fn, name);
    fe_err(fn, t, DG_SEV_UNSUPPORTED, "type '%s'", fe_text(st, t));
    return NULL;
  }
  case FE_N_placeholder_type_specifier:
    return NULL;   /* auto: the caller takes the initialiser's type */
  case FE_N_struct_specifier: case FE_N_class_specifier: case FE_N_union_specifier:
    return fe_struct_type(fn, t);
  case FE_N_enum_specifier:
    fe_err(fn, t, DG_SEV_UNSUPPORTED, "enum types");
    return NULL;
  default:
    fe_err(fn, t, DG_SEV_UNSUPPORTED, "type '%s'", fe_text(st, t));
    return NULL;
  }
}

/* The declaration's base type; *is_const when a const qualifier is present. */
const dg_type *fe_decl_type(fe_fn *fn, TSNode decl, bool *is_const)
{
  bool c = false;
  uint32_t n = ts_node_named_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    TSNode q = ts_node_named_child(decl, i);
    if (fe_kind(q) == FE_N_type_qualifier) {
      if (fe_text_is(fn->st, q, "const") || fe_text_is(fn->st, q, "constexpr")) c = true;
    }
  }
  if (is_const) *is_const = c;
  TSNode t = fe_field(decl, "type");
  if (ts_node_is_null(t)) {
    fe_err(fn, decl, DG_SEV_ERROR, "declaration without a type");
    return NULL;
  }
  if (fe_kind(t) == FE_N_placeholder_type_specifier) return NULL;
  return type_node(fn, t);
}

const dg_type *fe_declarator(fe_fn *fn, TSNode d, const dg_type *base, bool base_const,
                             dg_addrspace sp, TSNode *name_node, bool *is_ref)
{
  for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
    switch (fe_kind(d)) {
    case FE_N_identifier: case FE_N_field_identifier: case FE_N_type_identifier:
      *name_node = d;
      return base;
    case FE_N_init_declarator: case FE_N_parenthesized_declarator:
      d = fe_kind(d) == FE_N_init_declarator ? fe_field(d, "declarator") : ts_node_named_child(d, 0);
      break;
    case FE_N_pointer_declarator: case FE_N_abstract_pointer_declarator:
      if (!base) return NULL;
      base = ir_type_ptr(fn->m, base, sp, base_const);
      base_const = false;
      d = fe_field(d, "declarator");
      if (ts_node_is_null(d)) return base;
      break;
    case FE_N_reference_declarator: case FE_N_abstract_reference_declarator:
      if (is_ref) *is_ref = true;
      {
        TSNode c = ts_node_named_child(d, 0);
        if (ts_node_is_null(c)) return base;
        d = c;
      }
      break;
    case FE_N_array_declarator: case FE_N_abstract_array_declarator: {
      if (!base) return NULL;
      TSNode size = fe_field(d, "size");
      int64_t cnt = -1;
      if (!ts_node_is_null(size)) {
        if (!fe_const_int(fn, size, &cnt) || cnt < 0 || cnt > (INT64_C(1) << 40)) {
          fe_err(fn, size, DG_SEV_UNSUPPORTED, "array size that is not a constant");
          return NULL;
        }
      }
      int64_t esz = dg_type_size(base);
      if (cnt > 0 && esz > 0 && cnt > (INT64_C(1) << 40) / esz) {   /* a[1<<40][1<<40]: sizes overflow */
        fe_err(fn, size, DG_SEV_ERROR, "array of more than 2^40 bytes");
        return NULL;
      }
      base = ir_type_array(fn->m, base, cnt);
      d = fe_field(d, "declarator");
      if (ts_node_is_null(d)) return base;
      break;
    }
    case FE_N_function_declarator:
      fe_err(fn, d, DG_SEV_UNSUPPORTED, "function pointers");
      return NULL;
    default:
      fe_err(fn, d, DG_SEV_UNSUPPORTED, "declarator '%s'", fe_text(fn->st, d));
      return NULL;
    }
  }
  fe_err(fn, d, DG_SEV_UNSUPPORTED, "declarator nested too deeply");
  return NULL;
}

const dg_type *fe_type_descriptor(fe_fn *fn, TSNode td)
{
  if (fe_kind(td) != FE_N_type_descriptor) {
    fe_err(fn, td, DG_SEV_ERROR, "expected a type, found '%s'", fe_text(fn->st, td));
    return NULL;
  }
  bool c;
  const dg_type *base = fe_decl_type(fn, td, &c);
  if (!base) {
    if (!fn->failed) fe_err(fn, td, DG_SEV_UNSUPPORTED, "type '%s'", fe_text(fn->st, td));
    return NULL;
  }
  TSNode d = fe_field(td, "declarator");
  if (ts_node_is_null(d)) return base;
  TSNode name = { 0 };
  return fe_declarator(fn, d, base, c, DG_AS_GENERIC, &name, NULL);
}

/* A type spelled in a string (template arguments, builtin signatures). */
const dg_type *fe_type_from_text(fe_fn *fn, const char *s)
{
  bool u = false, sg = false, sh = false, c = false, any_sized = false;
  int longs = 0, ptrs = 0;
  const dg_type *base = NULL;
  const char *sized_base = NULL;
  while (*s) {
    if (isspace((unsigned char)*s)) { s++; continue; }
    if (*s == '*') { ptrs++; s++; continue; }
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == ':')) return NULL;
    const char *w = s;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == ':') s++;
    size_t n = (size_t)(s - w);
    if (n > 5 && !memcmp(w, "std::", 5)) { w += 5; n -= 5; }
    if (name_eq("const", w, n) || name_eq("volatile", w, n) || name_eq("__restrict__", w, n)) { c = c || *w == 'c'; continue; }
    if (name_eq("unsigned", w, n)) { u = any_sized = true; continue; }
    if (name_eq("signed", w, n)) { sg = any_sized = true; continue; }
    if (name_eq("long", w, n)) { longs++; any_sized = true; continue; }
    if (name_eq("short", w, n)) { sh = any_sized = true; continue; }
    if (base || sized_base) return NULL;
    if (name_eq("int", w, n) || name_eq("char", w, n) || name_eq("double", w, n)) {
      sized_base = name_eq("int", w, n) ? "int" : name_eq("char", w, n) ? "char" : "double";
      continue;
    }
    base = fe_type_by_name(fn, w, n);
    if (!base) return NULL;
  }
  if (any_sized || sized_base) {
    if (base) return NULL;
    base = sized_type(u, sg, longs, sh, sized_base);
  }
  if (!base) return NULL;
  for (int i = 0; i < ptrs; i++) {
    base = ir_type_ptr(fn->m, base, DG_AS_GENERIC, c);
    c = false;
  }
  return base;
}

/* ---- conversions -------------------------------------------------------- */
static int int_rank(dg_tykind k)
{
  switch (k) {
  case DG_TY_BOOL: return 0;
  case DG_TY_I8: case DG_TY_U8: return 1;
  case DG_TY_I16: case DG_TY_U16: return 2;
  case DG_TY_I32: case DG_TY_U32: return 3;
  default: return 4;
  }
}

const dg_type *fe_promote(const dg_type *t)
{
  if (t && dg_type_is_int(t) && int_rank(t->kind) < 3) return fe_scalar(DG_TY_I32);
  return t;
}

const dg_type *fe_arith(const dg_type *a, const dg_type *b)
{
  if (a->kind == DG_TY_F64 || b->kind == DG_TY_F64) return fe_scalar(DG_TY_F64);
  if (a->kind == DG_TY_F32 || b->kind == DG_TY_F32) return fe_scalar(DG_TY_F32);
  bool ah = a->kind == DG_TY_F16 || a->kind == DG_TY_BF16, bh = b->kind == DG_TY_F16 || b->kind == DG_TY_BF16;
  if (ah && bh) return a->kind == b->kind ? a : fe_scalar(DG_TY_F32);
  if (ah) return a;
  if (bh) return b;
  a = fe_promote(a);
  b = fe_promote(b);
  if (a->kind == b->kind) return a;
  bool as = dg_type_is_signed(a), bs = dg_type_is_signed(b);
  int ra = int_rank(a->kind), rb = int_rank(b->kind);
  if (as == bs) return ra >= rb ? a : b;
  const dg_type *u = as ? b : a, *s = as ? a : b;
  if (int_rank(u->kind) >= int_rank(s->kind)) return u;
  if (dg_type_size(s) > dg_type_size(u)) return s;
  return fe_scalar(s->kind == DG_TY_I64 ? DG_TY_U64 : DG_TY_U32);
}

/* ---- scopes --------------------------------------------------------------- */
void fe_scope_push(fe_fn *fn) { dg_vec_push(&fn->marks, fn->scope.n); }

void fe_scope_pop(fe_fn *fn)
{
  if (fn->marks.n) fn->scope.n = fn->marks.v[--fn->marks.n];
}

fe_sym *fe_bind(fe_fn *fn, const char *name, fe_symkind kind)
{
  fe_symvec *v = fn->global_scope ? &fn->st->globals : &fn->scope;
  dg_vec_grow(v, 1);
  fe_sym *s = &v->v[v->n++];
  memset(s, 0, sizeof *s);
  s->name = name;
  s->kind = kind;
  return s;
}

const fe_sym *fe_lookup(fe_fn *fn, const char *name, size_t len)
{
  for (size_t i = fn->scope.n; i-- > 0;)
    if (name_eq(fn->scope.v[i].name, name, len)) return &fn->scope.v[i];
  fe_symvec *g = &fn->st->globals;
  for (size_t i = g->n; i-- > 0;)
    if (name_eq(g->v[i].name, name, len)) return &g->v[i];
  return NULL;
}
