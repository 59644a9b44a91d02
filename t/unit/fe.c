/* t/unit/fe.c — front end: kernels, parameters, statements, memory spaces. */
#include "fe_help.h"

#define K(body) "__global__ void k(float *y, const float *__restrict__ x, int n, unsigned u) {\n" body "\n}\n"

static void test_elementwise(void)
{
  fe_t *t = fe_t_load(K("int i = blockIdx.x * blockDim.x + threadIdx.x;\n if (i < n) y[i] = 2.0f * x[i];"));
  is_str(t->diags, "", "elementwise: no diagnostics");
  ok(t->m && t->m->funcs.n == 1, "one function");
  dg_func *f = fe_find(t->m, "k");
  ok(f && f->is_kernel, "k is a kernel");
  if (f) {
    is_int(f->nparams, 4, "4 params");
    is_str(ir_type_name(f->params[1]->type), "const float *", "const float * __restrict__ param");
    is_int(f->params[0]->type->space, DG_AS_GLOBAL, "kernel pointers are global");
    is_int(f->nslots, 5, "params then the local i");
    is_int(f->body->nbody, 2, "two statements");
    dg_stmt *s = f->body->body[0];
    ok(s->kind == DG_ST_DECL && s->e->kind == DG_EX_CAST && s->e->op == DG_CAST_CONVERT, "unsigned index converted to int explicitly");
    ok(s->e->a->type == ir_type_scalar(DG_TY_U32), "blockIdx.x * blockDim.x + threadIdx.x is unsigned");
    dg_stmt *iff = f->body->body[1];
    ok(iff->kind == DG_ST_IF && iff->e->type->kind == DG_TY_BOOL, "if condition is bool");
    dg_expr *as = iff->then->e;
    ok(as->kind == DG_EX_ASSIGN && as->a->kind == DG_EX_INDEX && as->b->kind == DG_EX_BINARY, "y[i] = 2.0f * x[i]");
  }
  has_str(t->ir, "int i = (int)((blockIdx.x * blockDim.x) + threadIdx.x);", "printed IR");
  has_str(t->ir, "y[i] = (2.0f * x[i]);", "printed store");
  fe_t_free(t);
}

static void test_type_rules(void)
{
  lowers_to(K("unsigned a = u - n;"), "unsigned int a = (u - (unsigned int)n);", "unsigned - int is unsigned");
  lowers_to(K("float a = n * 1.5f;"), "float a = ((float)n * 1.5f);", "int * float is float");
  lowers_to(K("char c = 3; int a = c + c;"), "int a = ((int)c + (int)c);", "char promoted to int");
  lowers_to(K("const float *p = x + n;"), "const float * p = (x + n);", "ptr + i");
  lowers_to(K("float a = *(x + 1) + x[2];"), "*(x + 1)", "deref of ptr + 1");
  fe_t *t = fe_t_load(K("const float *p = x + n; const float *q = x - 1;"));
  dg_func *f = fe_find(t->m, "k");
  ok(f && f->body->body[0]->e->kind == DG_EX_BINARY && f->body->body[0]->e->op == DG_BIN_PTRADD, "ptr + i is PTRADD");
  ok(f && f->body->body[1]->e->op == DG_BIN_PTRADD && f->body->body[1]->e->b->kind == DG_EX_UNARY, "ptr - i is PTRADD of -i");
  fe_t_free(t);
  lowers_to(K("long long d = (x + 4) - x;"), "long long d = ((x + 4) - x);", "ptr - ptr");
  lowers_to(K("int a = n << 2; unsigned b = u >> n;"), "unsigned int b = (u >> n);", "shift keeps the left type");
  lowers_to(K("char c = 1; int s = c << 1;"), "int s = ((int)c << 1);", "shift promotes the left operand");
  lowers_to(K("long long a = n + 1ll;"), "long long a = ((long long)n + 1ll);", "int + long long");
  lowers_to(K("unsigned long long a = u + 1ull;"), "((unsigned long long)u + 1ull)", "unsigned + unsigned long long");
  lowers_to(K("double d = x[0] * 2.0;"), "double d = ((double)x[0] * 2.0);", "float * double literal is double");
  lowers_to(K("int a = 7 / 2; float b = 7 / 2.0f;"), "int a = (7 / 2);", "int / int");
  lowers_to(K("bool b = n > 2 && u != 0;"), "bool b = ((n > 2) && (u != (unsigned int)0));", "&& of comparisons");
  lowers_to(K("int a = n ? 1 : 2; float b = n ? 1 : 2.0f;"), "float b = ((n != 0) ? (float)1 : 2.0f);", "?: common type, int condition tested against 0");
  lowers_to(K("int a = -u;"), "int a = (int)(-u);", "unary minus on unsigned stays unsigned");
  lowers_to(K("float a = 3; int b = 2.5f;"), "int b = (int)2.5f;", "implicit float->int conversion");
  lowers_to(K("int a = sizeof(float4) + sizeof n;"), "(int)(16ull + 4ull)", "sizeof");
  lowers_to(K("int a = 0x7fffffff; unsigned b = 0xffffffff; long long c = 4294967296;"), "unsigned int b = 4294967295u;", "hex literal that does not fit int is unsigned");
  lowers_to(K("long long c = 4294967296;"), "long long c = 4294967296ll;", "decimal literal that does not fit int is long");
}

static void test_compound_assign(void)
{
  lowers_to(K("y[0] += x[1];"), "y[0] += x[1];", "float += float");
  lowers_to(K("int a = 0; a += 1.5f;"), "a = (int)((float)a + 1.5f);", "int += float computes in float");
  lowers_to(K("float a = 0; a += n;"), "a += (float)n;", "float += int converts the right side");
  lowers_to(K("const float *p = x; p += 4; p -= n;"), "p += 4;", "pointer +=");
  lowers_to(K("int a = 0; a++; --a;"), "a++;", "postfix increment");
  lowers_to(K("int a = 0; a <<= u;"), "a <<= u;", "shift assign keeps the count type");
}

static void test_statements(void)
{
  lowers_to(K("float s = 0;\n#pragma unroll 4\nfor (int j = 0; j < 8; ++j) s += x[j];\n y[0] = s;"), "#pragma unroll 4\n  for (int j = 0; (j < 8); ++j)", "for with unroll hint");
  lowers_to(K("#pragma unroll\nfor (int j = 0; j < 8; j++) { if (j == 3) continue; if (j == 5) break; }"), "#pragma unroll\n  for", "full unroll hint");
  lowers_to(K("int j = 0; while (j < n) { j++; } do { j--; } while (j > 0);"), "do {\n    j--;\n  } while ((j > 0));", "while and do");
  lowers_to(K("switch (n) { case 1: y[0] = 1; case 2: y[1] = 2; break; default: return; }"),
            "switch (n) {\n  case 1:\n    y[0] = (float)1;\n  case 2:\n    y[1] = (float)2;\n    break;\n  default:\n    return;\n  }",
            "switch with fallthrough and default");
  fe_t *t = fe_t_load(K("switch (n) { case 1: case 2: break; default: return; }"));
  dg_func *f = fe_find(t->m, "k");
  dg_stmt *sw = f ? f->body->body[0] : NULL;
  ok(sw && sw->kind == DG_ST_SWITCH && sw->ncases == 3 && sw->cases[0].first == 0 && sw->cases[1].first == 0 &&
     sw->cases[2].is_default && sw->cases[2].first == 1, "case indices point into the body");
  fe_t_free(t);
  lowers_to(K("if (n) { y[0] = 1; } else if (u) y[1] = 2; else return;"), "} else if ((u != 0u))", "else if chains");
  lowers_to(K("int a = n > 0 ? n : -n; (void)a;"), "int a = ((n > 0) ? n : -n);", "conditional");
  lowers_to(K("static_assert(sizeof(int) == 4, \"x\"); y[0] = 0;"), "y[0] = (float)0;", "static_assert ignored");
}

static void test_locals_and_memory(void)
{
  lowers_to(K("float a[3] = {1.f, 2.f, 3.f}; y[0] = a[n];"), "float[3] a = {1.0f, 2.0f, 3.0f};", "local array with initialiser");
  lowers_to(K("float a[] = {1.f, 2.f}; y[0] = a[1];"), "float[2] a = {1.0f, 2.0f};", "unsized local array sized by its initialiser");
  lowers_to(K("int m[2][2] = {{1, 2}, {3}}; y[0] = m[1][0];"), "int[2][2] m = {1, 2, 3, 0};", "2-D initialiser flattened row-major");
  fe_t *t = fe_t_load(K("__shared__ float s[32][4]; extern __shared__ float dyn[];\n s[threadIdx.x][0] = x[0]; dyn[1] = s[0][1];"));
  is_str(t->diags, "", "shared: no diagnostics");
  dg_func *f = fe_find(t->m, "k");
  ok(f && f->nshared == 2, "two shared variables");
  if (f && f->nshared == 2) {
    ok(f->shared[0]->kind == DG_VAR_SHARED && f->shared[0]->type->kind == DG_TY_ARRAY && f->shared[0]->type->count == 32, "static shared float[32][4]");
    is_str(ir_type_name(f->shared[0]->type), "float[32][4]", "its type spelled");
    ok(f->shared[1]->kind == DG_VAR_SHARED_EXTERN && f->shared[1]->type->count < 0, "extern shared unsized");
    is_int(f->shared[1]->slot, 1, "shared slot is the index");
  }
  has_str(t->ir, "s[threadIdx.x][0] = x[0];", "2-D shared index");
  fe_t_free(t);
  t = fe_t_load("__constant__ float c[16];\n__device__ int counter;\n__global__ void k(float *y) { y[0] = c[threadIdx.x]; counter = 1; }\n");
  is_str(t->diags, "", "globals: no diagnostics");
  ok(t->m->globals.n == 2 && t->m->globals.v[0]->kind == DG_VAR_GLOBAL && t->m->globals.v[1]->slot == 1, "__constant__ and __device__ globals");
  fe_t_free(t);
  lowers_to("constexpr int BS = 128; const int HALF = BS / 2;\n__global__ void k(float *y) { __shared__ float s[HALF]; s[0] = BS; y[0] = s[0]; }",
            "__shared__ float[64] s;", "file-scope constexpr folded into an array size");
  lowers_to(K("const int W = 4; float a[W * 2]; a[0] = W; y[0] = a[0];"), "a[0] = (float)4;", "local const int folded at use");
  lowers_to(K("auto v = x[0] * 2; auto j = n + 1u; y[j] = v;"), "unsigned int j = ((unsigned int)n + 1u);", "auto takes the initialiser's type");
  lowers_to(K("typedef float real; using idx = unsigned int; real r = 1; idx q = 2; y[q] = r;"), "unsigned int q = (unsigned int)2;", "typedef and using");
}

static void test_threads(void)
{
  fe_t *t = fe_t_load(K("y[0] = threadIdx.y + blockIdx.z + blockDim.x + gridDim.y + warpSize;"));
  is_str(t->diags, "", "builtins: no diagnostics");
  has_str(t->ir, "threadIdx.y", "threadIdx.y");
  has_str(t->ir, "gridDim.y", "gridDim.y");
  has_str(t->ir, "(unsigned int)warpSize", "warpSize is int");
  fe_t_free(t);
}

static void test_types(void)
{
  fe_t *t = fe_t_load("__global__ void k(float *y) { }");
  dg_module *m = t->m;
  const dg_type *f32 = ir_type_scalar(DG_TY_F32), *f16 = ir_type_scalar(DG_TY_F16);
  const dg_type *f4 = ir_type_vec(m, f32, 4), *h2 = ir_type_vec(m, f16, 2), *f3 = ir_type_vec(m, f32, 3);
  ok(f4 == ir_type_vec(m, f32, 4), "vector types are interned");
  ok(ir_type_ptr(m, f32, DG_AS_GLOBAL, true) == ir_type_ptr(m, f32, DG_AS_GLOBAL, true), "pointer types are interned");
  ok(ir_type_ptr(m, f32, DG_AS_GLOBAL, false) != ir_type_ptr(m, f32, DG_AS_SHARED, false), "space is part of a pointer's identity");
  ok(ir_type_equiv(ir_type_ptr(m, f32, DG_AS_GLOBAL, false), ir_type_ptr(m, f32, DG_AS_SHARED, true)), "but not of equivalence");
  is_int(dg_type_size(f4), 16, "sizeof float4");
  is_int(dg_type_align(f4), 16, "alignof float4");
  is_int(dg_type_size(f3), 12, "sizeof float3");
  is_int(dg_type_align(f3), 4, "alignof float3");
  is_int(dg_type_size(h2), 4, "sizeof __half2");
  is_str(ir_type_name(h2), "__half2", "__half2 spelled");
  is_str(ir_type_name(f4), "float4", "float4 spelled");
  is_int(dg_type_size(ir_type_array(m, ir_type_array(m, f32, 4), 32)), 512, "sizeof float[32][4]");
  is_int(dg_type_size(ir_type_ptr(m, f32, DG_AS_GENERIC, false)), 8, "pointers are 8 bytes");
  is_int(dg_type_size(ir_type_scalar(DG_TY_BOOL)), 1, "sizeof bool");
  ok(dg_type_is_int(ir_type_scalar(DG_TY_BOOL)) && !dg_type_is_signed(ir_type_scalar(DG_TY_U8)) &&
     dg_type_is_float(ir_type_scalar(DG_TY_BF16)) && !dg_type_is_scalar(f4), "type classes");
  fe_t_free(t);
  lowers_to("enum { BLOCK = 256, HALF = BLOCK / 2, NEXT };\n__global__ void k(float *y) { __shared__ float s[HALF]; s[0] = NEXT; y[0] = s[0]; }",
            "s[0] = (float)129;", "unscoped enum constants");
}

int main(void)
{
  test_elementwise();
  test_type_rules();
  test_compound_assign();
  test_statements();
  test_locals_and_memory();
  test_threads();
  test_types();
  return tap_done();
}
