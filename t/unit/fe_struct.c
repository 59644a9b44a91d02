/* t/unit/fe_struct.c — front end: struct types (layout as nvcc, typedefs,
 * nested members), member access through values, pointers, references and
 * arrays, aggregate initialisation (nested, elided braces, {}), copies,
 * structs through device functions and templates, the IR printer, and the
 * diagnostics of what stays unsupported. */
#include "fe_help.h"

static const dg_type *struct_named(fe_t *t, const char *name)
{
  for (size_t i = 0; t->m && i < t->m->structs.n; i++)
    if (!strcmp(t->m->structs.v[i]->name, name)) return t->m->structs.v[i];
  return NULL;
}

static int64_t off_of(const dg_type *s, const char *field)
{
  int i = s ? ir_struct_field(s, field, strlen(field)) : -1;
  return i < 0 ? -1 : s->fields[i].offset;
}

static void test_layout(void)
{
  fe_t *t = fe_t_load(
    "struct MD { float m, d; };\n"
    "typedef struct { float mean, m2; int n; } Welford;\n"
    "struct P { MD a; float2 v; double x; char c; };\n"
    "struct Q { char c; int i; short s; };\n"
    "struct V { char c; float4 q; };\n"
    "struct A { float v[3]; unsigned char tag; };\n"
    "class K { public: __half h; int *p; };\n"
    "struct E { struct { int a, b; } in; bool f; };\n");
  is_str(t->diags, "", "struct definitions: no diagnostics");
  const dg_type *md = struct_named(t, "MD"), *w = struct_named(t, "Welford"), *p = struct_named(t, "P");
  const dg_type *q = struct_named(t, "Q"), *v = struct_named(t, "V"), *a = struct_named(t, "A");
  const dg_type *k = struct_named(t, "K"), *e = struct_named(t, "E");
  ok(md && md->kind == DG_TY_STRUCT && md->nfields == 2, "MD is a struct of two fields");
  ok(md && dg_type_size(md) == 8 && dg_type_align(md) == 4, "MD: 8 bytes, align 4");
  ok(md && md->nslots == 2 && md->slots[1].offset == 4 && md->slots[1].type->kind == DG_TY_F32, "MD: two f32 slots");
  ok(w && dg_type_size(w) == 12 && off_of(w, "n") == 8, "typedef struct {...} Welford: named by the typedef, n at 8");
  ok(p && off_of(p, "a") == 0 && off_of(p, "v") == 8 && off_of(p, "x") == 16 && off_of(p, "c") == 24,
     "P: MD at 0, float2 at 8, double at 16, char at 24");
  ok(p && dg_type_size(p) == 32 && dg_type_align(p) == 8, "P: 32 bytes (tail padding), align 8");
  ok(p && p->nslots == 6 && p->fields[1].slot == 2 && p->slots[4].offset == 16, "P: six slots, float2 from slot 2");
  ok(q && off_of(q, "i") == 4 && off_of(q, "s") == 8 && dg_type_size(q) == 12, "Q: int aligned to 4, size 12");
  ok(v && off_of(v, "q") == 16 && dg_type_size(v) == 32 && dg_type_align(v) == 16, "V: float4 aligned to 16");
  ok(a && off_of(a, "tag") == 12 && dg_type_size(a) == 16 && a->nslots == 4, "A: float[3] then a byte, 16 bytes, 4 slots");
  ok(k && off_of(k, "p") == 8 && dg_type_size(k) == 16, "class with public data members: pointer at 8");
  ok(e && off_of(e, "f") == 8 && e->fields[0].type->kind == DG_TY_STRUCT, "nested anonymous struct member");
  fe_t_free(t);
}

static void test_access(void)
{
  const char *src =
    "struct MD { float m, d; };\n"
    "struct P { MD a; float2 v; int n; };\n"
    "__device__ void bump(MD &o, float by) { o.d += by; o.m = fmaxf(o.m, by); }\n"
    "__global__ void k(float *y, MD *ms, P *ps, int n) {\n"
    "  __shared__ MD s[32];\n"
    "  MD x = ms[threadIdx.x];\n"
    "  s[threadIdx.x] = x;\n"
    "  s[threadIdx.x].d = ps->a.m + ps[1].v.y;\n"
    "  MD *q = &s[0];\n"
    "  q->m = (q + 1)->d;\n"
    "  bump(s[threadIdx.x], 2.0f);\n"
    "  bump(x, 1.0f);\n"
    "  bump(ps->a, 3.0f);\n"
    "  float *pm = &x.m;\n"
    "  y[0] = *pm + x.d + sizeof(MD) + sizeof(P);\n"
    "  const MD *c = reinterpret_cast<const MD *>(y);\n"
    "  y[1] = c[n].d;\n"
    "  ps[0].n++;\n"
    "}\n";
  fe_t *t = fe_t_load(src);
  is_str(t->diags, "", "member access: no diagnostics");
  char *ir = fe_t_func(t, "k");
  has_str(ir, "MD x = ms[threadIdx.x];", "struct copy from memory");
  has_str(ir, "s[threadIdx.x] = x;", "struct copy into shared memory");
  has_str(ir, "s[threadIdx.x].d = (ps->a.m + ps[1].v.y);", "fields through arrays, pointers, nested structs and vectors");
  has_str(ir, "q->m = (q + 1)->d;", "-> on a pointer expression");
  has_str(ir, "bump(&s[threadIdx.x], 2.0f);", "reference to an element of a struct array");
  has_str(ir, "bump(&ps->a, 3.0f);", "reference to a member");
  has_str(ir, "float * pm = &x.m;", "address of a member");
  has_str(ir, "+ (float)8ull) + (float)24ull)", "sizeof of structs");
  has_str(ir, "ptrcast<const MD *>(y)", "reinterpret_cast to a struct pointer");
  has_str(ir, "ps[0].n++;", "increment of a member");
  free(ir);
  ir = fe_t_func(t, "bump");
  has_str(ir, "__device__ void bump(ref MD * o, float by)", "struct by reference");
  has_str(ir, "o->d += by;", "compound assignment to a member through the reference");
  free(ir);
  dg_func *k = fe_find(t->m, "k");
  bool x_mem = false;
  for (int i = 0; k && i < k->nslots; i++) if (!strcmp(k->locals[i]->name, "x")) x_mem = k->locals[i]->addr_taken;
  ok(x_mem, "a struct whose member's address is taken lives in memory");
  fe_t_free(t);
}

static void test_init(void)
{
  const char *src =
    "struct MD { float m, d; };\n"
    "struct P { MD a; float2 v; double x; char c; };\n"
    "__device__ MD mk(float a, float b) { return {a, b}; }\n"
    "__device__ MD mk2(float a) { return MD{a, 1}; }\n"
    "__device__ MD zero() { return MD(); }\n"
    "__device__ float dsum(MD a, const MD &b) { return a.d + b.d; }\n"
    "__global__ void k(float *y) {\n"
    "  MD a = {1.0f, 2.0f};\n"
    "  MD b{y[0], 0};\n"
    "  MD z = {};\n"
    "  MD h = {3};\n"
    "  P nested = {{1, 2}, {3, 4}, 5, 6};\n"
    "  P elided = {1, 2, 3, 4, 5};\n"
    "  P mixed = {a, 7};\n"
    "  MD arr[3] = {{1, 2}, {3, 4}};\n"
    "  a = {a.d, a.m};\n"
    "  b = y[1] > 0 ? a : b;\n"
    "  y[3] = dsum({1, 2}, {y[4]});\n"
    "  y[0] = arr[(int)y[2]].d + nested.x + elided.a.d + mixed.v.x + z.m + h.d;\n"
    "}\n";
  fe_t *t = fe_t_load(src);
  is_str(t->diags, "", "initialisers: no diagnostics");
  char *ir = fe_t_func(t, "k");
  has_str(ir, "MD a = MD{1.0f, 2.0f};", "= {a, b}");
  has_str(ir, "MD b = MD{y[0], (float)0};", "T x{a, b} with conversions");
  has_str(ir, "MD z = MD{0.0f, 0.0f};", "{} zero-initialises");
  has_str(ir, "MD h = MD{(float)3, 0.0f};", "a short list pads with zeros");
  has_str(ir, "P nested = P{MD{(float)1, (float)2}, float2{(float)3, (float)4}, (double)5, (char)6};", "nested lists");
  has_str(ir, "P elided = P{MD{(float)1, (float)2}, float2{(float)3, (float)4}, (double)5, 0/*char*/};", "brace elision");
  has_str(ir, "P mixed = P{a, float2{(float)7, 0.0f}, 0.0, 0/*char*/};", "a whole struct as a member's initialiser");
  has_str(ir, "MD[3] arr = {MD{(float)1, (float)2}, MD{(float)3, (float)4}};", "array of structs from nested lists");
  has_str(ir, "a = MD{a.d, a.m};", "assignment from a brace list");
  has_str(ir, "b = ((y[1] > (float)0) ? a : b);", "?: of structs");
  has_str(ir, "y[3] = dsum(MD{(float)1, (float)2}, MD{y[4], 0.0f});", "brace lists as arguments take the parameter's type");
  free(ir);
  ir = fe_t_func(t, "mk");
  has_str(ir, "return MD{a, b};", "return {a, b}");
  free(ir);
  ir = fe_t_func(t, "mk2");
  has_str(ir, "return MD{a, (float)1};", "return T{a, b}");
  free(ir);
  ir = fe_t_func(t, "zero");
  has_str(ir, "return MD{0.0f, 0.0f};", "T() is zero");
  free(ir);
  fe_t_free(t);
}

static void test_templates(void)
{
  const char *src =
    "struct MD { float m, d; };\n"
    "template <typename T> __device__ T pick(T a, T b, bool c) { return c ? a : b; }\n"
    "template <typename T> __global__ void copy(T *y, const T *x) { T v = x[threadIdx.x]; y[threadIdx.x] = pick<T>(v, x[0], true); }\n"
    "__global__ void k(MD *y, const MD *x) { y[0] = pick(x[0], x[1], false); }\n";
  fe_t *t = fe_t_load(src);
  is_str(t->diags, "", "templates over structs: no diagnostics");
  dg_diags d = { 0 };
  dg_func *f = fe_instantiate(t->m, "copy<MD>", &d);
  ok(f != NULL && d.v.n == 0, "copy<MD> instantiates");
  ok(f && f->params[0]->type->elem == struct_named(t, "MD"), "T bound to the struct type");
  ok(fe_find(t->m, "pick<MD>") != NULL, "pick<MD> deduced from struct arguments");
  char *ir = fe_t_func(t, "copy<MD>");
  has_str(ir, "MD v = x[threadIdx.x];", "T v is a struct local");
  free(ir);
  dg_diags_free(&d);
  fe_t_free(t);
}

static void test_printer(void)
{
  fe_t *t = fe_t_load("struct S { char c; double x; float v[2]; };\n");
  dg_buf b = { 0 };
  dg_buf_puts(&b, "");
  if (t->m && t->m->structs.n) ir_print_struct(&b, t->m->structs.v[0]);
  is_str(b.s, "struct S {  // 24 bytes, align 8\n  char c;  // @0\n  double x;  // @8\n  float v[2];  // @16\n};\n",
         "ir_print_struct: fields, offsets, size");
  dg_buf_free(&b);
  fe_t_free(t);
}

static void test_diagnostics(void)
{
  const char *md = "struct MD { float m, d; };\n";
  char *s;
#define WITH_MD(body, want, name) do { s = dg_printf("%s%s", md, body); diag_is(s, want, name); free(s); } while (0)
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2}; y[0] = x.q; }",
          "t.cu:2:55: error: no member 'q' in 'MD'", "unknown member, at its name");
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2, 3}; }", "error: too many initialisers for 'MD'", "too many initialisers");
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2}; y[0] = x; }", "error: cannot convert 'MD' to 'float'", "struct used as a float");
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2}; x = x + x; }", "unsupported: operator '+' on 'MD' and 'MD'", "arithmetic on structs");
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2}; if (x) y[0] = 1; }", "error: condition of type 'MD'", "struct as a condition");
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2}; x = __shfl_xor_sync(0xffffffff, x, 1); }",
          "error: '__shfl_xor_sync' on a struct ('MD'): apply it to each member", "shuffle of a whole struct");
  WITH_MD("__global__ void k(MD x) { }", "t.cu:2:19: unsupported: struct parameter of a kernel ('MD')", "kernel struct parameter");
  WITH_MD("__global__ void k(float *y) { const MD c = {1, 2}; c.m = 3; }", "error: assignment of const variable 'c'", "member of a const struct");
  WITH_MD("__global__ void k(float *y) { MD x = {1, 2}; y[0] = x.len(); }",
          "t.cu:2:53: unsupported: method call 'x.len' (member functions are not supported: make it a __device__ function taking the object)", "method call");
  WITH_MD("__global__ void k(float *y, MD *p) { y[0] = p->len(); }", "unsupported: method call 'p->len'", "method call through a pointer");
  WITH_MD("__global__ void k(float *y) { y[0] = fmaxf({1}, 2); }", "t.cu:2:38: unsupported: initializer list as argument 1 of 'fmaxf'", "brace list to a builtin");
  diag_is("__global__ void k(float *y) { struct L { int a; } l; }", "unsupported: struct definitions inside a function", "local struct definition");
  diag_is("struct B { int f : 3; };\n__global__ void k(B *y) { }", "t.cu:2:19: unsupported: struct 'B' has bit-fields", "bit-fields");
  diag_is("struct B { float f = 1; };\n__global__ void k(B *y) { }", "unsupported: struct 'B' has default member initialisers", "default member initialisers");
  diag_is("struct B { float f; __device__ ~B() {} };\n__global__ void k(B *y) { }", "unsupported: struct 'B' has a destructor", "destructor");
  diag_is("struct A { float f; };\nstruct B : A { float g; };\n__global__ void k(B *y) { }", "unsupported: struct 'B' has base classes", "base classes");
  diag_is("struct B { float4 q; dim3 g; };\n__global__ void k(B *y) { }", "unsupported: struct 'B' has a member of unsupported type 'dim3'", "member of an unsupported type");
  diag_is("struct B { float v[64][65]; };\n__global__ void k(B *y) { }", "unsupported: struct 'B' is too large (more than 4096 scalar members)", "struct too large");
  {
    dg_buf b = { 0 };                /* anonymous members nested 200 deep: refused, no crash */
    dg_buf_puts(&b, "struct D { ");
    for (int i = 0; i < 200; i++) dg_buf_puts(&b, "struct { ");
    dg_buf_puts(&b, "int a; ");
    for (int i = 0; i < 200; i++) dg_buf_puts(&b, "} m; ");
    dg_buf_puts(&b, "};\n__global__ void k(D *y) { }");
    diag_is(b.s, "t.cu:2:19: unsupported: struct 'D' has a member of unsupported type 'struct { struct { struct { struct { stru...'",
            "structs nested too deeply are refused");
    dg_buf_free(&b);
  }
  diag_is("union U { float f; int i; };\n__global__ void k(float *y) { union U u; }", "unsupported: union types", "unions");
  /* a struct that only host code uses may have anything in it */
  lowers_to("#include <vector>\nstruct Host { std::vector<int> v; Host() {} };\n__global__ void k(float *y) { y[0] = 1; }",
            "y[0] = (float)1;", "an unsupported struct unused by device code gives no diagnostic");
  /* methods in a struct with data: the data is usable, calls are reported */
  lowers_to("struct M { float a; __device__ float twice() const { return 2 * a; } };\n"
            "__global__ void k(float *y, M *m) { y[0] = m->a; }", "y[0] = m->a;", "data of a struct with methods");
#undef WITH_MD
}

int main(void)
{
  test_layout();
  test_access();
  test_init();
  test_templates();
  test_printer();
  test_diagnostics();
  return tap_done();
}
