/* ir_types.c — IR types: static scalars, interned derived types (pointers,
 * arrays, vectors) per module, struct types and their layout, and their
 * sizes as on the GPU. */
#include "ir.h"
#include <string.h>

/* One row per kind: spelling, size, signedness, class. */
static const struct { const char *name; int8_t size; bool is_int, is_signed, is_float; } tyinfo[] = {
  [DG_TY_VOID] = { "void", 0, false, false, false },
  [DG_TY_BOOL] = { "bool", 1, true, false, false },
  [DG_TY_I8]   = { "char", 1, true, true, false },
  [DG_TY_U8]   = { "unsigned char", 1, true, false, false },
  [DG_TY_I16]  = { "short", 2, true, true, false },
  [DG_TY_U16]  = { "unsigned short", 2, true, false, false },
  [DG_TY_I32]  = { "int", 4, true, true, false },
  [DG_TY_U32]  = { "unsigned int", 4, true, false, false },
  [DG_TY_I64]  = { "long long", 8, true, true, false },
  [DG_TY_U64]  = { "unsigned long long", 8, true, false, false },
  [DG_TY_F16]  = { "__half", 2, false, true, true },
  [DG_TY_BF16] = { "__nv_bfloat16", 2, false, true, true },
  [DG_TY_F32]  = { "float", 4, false, true, true },
  [DG_TY_F64]  = { "double", 8, false, true, true },
  [DG_TY_PTR]  = { "ptr", 8, false, false, false },
};

static dg_type scalars[DG_TY_F64 + 1];

const dg_type *ir_type_scalar(dg_tykind k)
{
  if (k > DG_TY_F64) return NULL;
  dg_type *t = &scalars[k];
  if (!t->name) { t->kind = k; t->name = tyinfo[k].name; }
  return t;
}

struct ir_typetab { DG_VEC(dg_type *) v; };

/* Vector spellings: CUDA's names by lane type. */
static const char *vec_base(dg_tykind k)
{
  switch (k) {
  case DG_TY_F32: return "float";   case DG_TY_F64: return "double";
  case DG_TY_I32: return "int";     case DG_TY_U32: return "uint";
  case DG_TY_I8:  return "char";    case DG_TY_U8:  return "uchar";
  case DG_TY_I16: return "short";   case DG_TY_U16: return "ushort";
  case DG_TY_I64: return "longlong"; case DG_TY_U64: return "ulonglong";
  case DG_TY_F16: return "__half";  case DG_TY_BF16: return "__nv_bfloat16";
  default: return "vec";
  }
}

static char *type_spell(dg_module *m, const dg_type *t)
{
  const dg_type *e = t->elem;
  switch (t->kind) {
  case DG_TY_PTR: {
    char *s = dg_printf("%s%s *", t->is_const ? "const " : "", e->name);
    char *r = dg_arena_strdup(&m->arena, s);
    free(s);
    return r;
  }
  case DG_TY_ARRAY: {
    /* float[32][4]: this dimension goes before the element's own dimensions. */
    const char *br = e->kind == DG_TY_ARRAY ? strchr(e->name, '[') : NULL;
    char dim[32];
    if (t->count < 0) strcpy(dim, "[]"); else snprintf(dim, sizeof dim, "[%lld]", (long long)t->count);
    char *s = br ? dg_printf("%.*s%s%s", (int)(br - e->name), e->name, dim, br)
                 : dg_printf("%s%s", e->name, dim);
    char *r = dg_arena_strdup(&m->arena, s);
    free(s);
    return r;
  }
  case DG_TY_VEC: {
    char *s = dg_printf("%s%lld", vec_base(e->kind), (long long)t->count);
    char *r = dg_arena_strdup(&m->arena, s);
    free(s);
    return r;
  }
  default: return (char *)e->name;
  }
}

static const dg_type *intern(dg_module *m, dg_tykind k, const dg_type *elem, int64_t count,
                             uint8_t space, bool is_const)
{
  if (!m->types) m->types = dg_calloc(1, sizeof *m->types);
  struct ir_typetab *tt = m->types;
  for (size_t i = 0; i < tt->v.n; i++) {
    dg_type *t = tt->v.v[i];
    if (t->kind == k && t->elem == elem && t->count == count && t->space == space && t->is_const == is_const)
      return t;
  }
  dg_type *t = dg_arena_alloc(&m->arena, sizeof *t);
  t->kind = k; t->elem = elem; t->count = count; t->space = space; t->is_const = is_const;
  t->name = type_spell(m, t);
  dg_vec_push(&tt->v, t);
  return t;
}

const dg_type *ir_type_ptr(dg_module *m, const dg_type *elem, dg_addrspace sp, bool is_const)
{
  return intern(m, DG_TY_PTR, elem, 0, (uint8_t)sp, is_const);
}

const dg_type *ir_type_array(dg_module *m, const dg_type *elem, int64_t count)
{
  return intern(m, DG_TY_ARRAY, elem, count < 0 ? -1 : count, 0, false);
}

const dg_type *ir_type_vec(dg_module *m, const dg_type *elem, int count)
{
  return intern(m, DG_TY_VEC, elem, count, 0, false);
}

/* Appends the scalar leaves of t at byte offset base to v. */
typedef DG_VEC(dg_tyslot) slotvec;
static void leaves(const dg_type *t, int64_t base, slotvec *v)
{
  switch (t->kind) {
  case DG_TY_VEC:
    for (int64_t i = 0; i < t->count; i++) dg_vec_push(v, ((dg_tyslot){ t->elem, base + i * dg_type_size(t->elem) }));
    break;
  case DG_TY_ARRAY:
    for (int64_t i = 0; i < t->count; i++) leaves(t->elem, base + i * dg_type_size(t->elem), v);
    break;
  case DG_TY_STRUCT:
    for (int i = 0; i < t->nslots; i++) dg_vec_push(v, ((dg_tyslot){ t->slots[i].type, base + t->slots[i].offset }));
    break;
  default:
    dg_vec_push(v, ((dg_tyslot){ t, base }));
    break;
  }
}

static bool member_ok(const dg_type *t)
{
  if (!t || t->kind == DG_TY_VOID) return false;
  if (t->kind == DG_TY_ARRAY) return t->count > 0 && member_ok(t->elem);
  return true;
}

/* Scalar slots of a member of type t (saturates above the limit). */
static int64_t nleaves(const dg_type *t)
{
  switch (t->kind) {
  case DG_TY_VEC: return t->count;
  case DG_TY_STRUCT: return t->nslots;
  case DG_TY_ARRAY: {
    int64_t e = nleaves(t->elem);
    return e && t->count > IR_STRUCT_MAX_SLOTS / e ? IR_STRUCT_MAX_SLOTS + 1 : t->count * e;
  }
  default: return 1;
  }
}

const dg_type *ir_type_struct(dg_module *m, const char *name, const dg_field *fields, int n)
{
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    if (!member_ok(fields[i].type)) return NULL;
    total += nleaves(fields[i].type);
    if (total > IR_STRUCT_MAX_SLOTS) return NULL;
  }
  dg_type *t = dg_arena_alloc(&m->arena, sizeof *t);
  dg_field *f = dg_arena_alloc(&m->arena, sizeof *f * (size_t)(n ? n : 1));
  slotvec sv = { 0 };
  int64_t off = 0, align = 1;
  for (int i = 0; i < n; i++) {
    int64_t a = dg_type_align(fields[i].type);
    if (a < 1) a = 1;
    off = (off + a - 1) / a * a;
    f[i].name = dg_arena_strdup(&m->arena, fields[i].name ? fields[i].name : "");
    f[i].type = fields[i].type;
    f[i].offset = off;
    f[i].slot = (int)sv.n;
    leaves(fields[i].type, off, &sv);
    off += dg_type_size(fields[i].type);
    if (a > align) align = a;
  }
  t->kind = DG_TY_STRUCT;
  t->name = dg_arena_strdup(&m->arena, name && *name ? name : "struct <anonymous>");
  t->fields = f;
  t->nfields = n;
  t->align = align;
  t->size = n ? (off + align - 1) / align * align : 1;   /* an empty struct still takes a byte */
  dg_tyslot *sl = dg_arena_alloc(&m->arena, sizeof *sl * (sv.n ? sv.n : 1));
  if (sv.n) memcpy(sl, sv.v, sizeof *sl * sv.n);
  t->slots = sl;
  t->nslots = (int)sv.n;
  dg_vec_free(&sv);
  dg_vec_push(&m->structs, t);
  return t;
}

int ir_struct_field(const dg_type *t, const char *name, size_t len)
{
  if (!t || t->kind != DG_TY_STRUCT) return -1;
  for (int i = 0; i < t->nfields; i++)
    if (strlen(t->fields[i].name) == len && !memcmp(t->fields[i].name, name, len)) return i;
  return -1;
}

bool ir_type_equiv(const dg_type *a, const dg_type *b)
{
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind == DG_TY_STRUCT) return false;   /* nominal */
  if (a->kind <= DG_TY_F64) return true;
  return a->count == b->count && ir_type_equiv(a->elem, b->elem);
}

void ir_types_free(dg_module *m)
{
  if (!m->types) return;
  dg_vec_free(&m->types->v);
  free(m->types);
  m->types = NULL;
}

int64_t dg_type_size(const dg_type *t)
{
  if (!t) return 0;
  switch (t->kind) {
  case DG_TY_ARRAY: return t->count < 0 ? 0 : t->count * dg_type_size(t->elem);
  case DG_TY_VEC: {
    /* float3 is 12 bytes (align 4); 2- and 4-lane vectors are naturally aligned. */
    return t->count * dg_type_size(t->elem);
  }
  case DG_TY_STRUCT: return t->size;
  default: return t->kind < DG_TY_ARRAY ? tyinfo[t->kind].size : 0;
  }
}

int64_t dg_type_align(const dg_type *t)
{
  if (!t) return 1;
  switch (t->kind) {
  case DG_TY_ARRAY: return dg_type_align(t->elem);
  case DG_TY_VEC: {
    int64_t s = dg_type_size(t);
    if (t->count == 3) return dg_type_size(t->elem);
    return s > 16 ? 16 : s;
  }
  case DG_TY_VOID: return 1;
  case DG_TY_STRUCT: return t->align;
  default: return t->kind < DG_TY_ARRAY ? tyinfo[t->kind].size : 1;
  }
}

bool dg_type_is_int(const dg_type *t) { return t && t->kind <= DG_TY_F64 && tyinfo[t->kind].is_int; }
bool dg_type_is_signed(const dg_type *t) { return t && t->kind <= DG_TY_F64 && tyinfo[t->kind].is_signed; }
bool dg_type_is_float(const dg_type *t) { return t && t->kind <= DG_TY_F64 && tyinfo[t->kind].is_float; }
bool dg_type_is_scalar(const dg_type *t)
{
  return t && t->kind > DG_TY_VOID && t->kind <= DG_TY_F64;
}
