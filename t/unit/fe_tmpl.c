/* t/unit/fe_tmpl.c — front end: templates, calls, builtins, vectors, casts,
 * host code, and every diagnostic. */
#include "fe_help.h"

static void test_templates(void)
{
  const char *src =
    "template <typename T, unsigned int BS, bool POW2>\n"
    "__global__ void reduce6(const T *x, T *y, int n) {\n"
    "  __shared__ T s[BS];\n"
    "  T v = POW2 ? x[threadIdx.x] : (T)0;\n"
    "  s[threadIdx.x] = v + (T)BS;\n"
    "  if (BS >= 256) __syncthreads();\n"
    "  y[0] = s[0];\n"
    "}\n";
  fe_t *t = fe_t_load(src);
  is_str(t->diags, "", "template file: no diagnostics");
  is_int(t->m->funcs.n, 0, "templates are not lowered until instantiated");
  ok(t->m->templates.n == 1 && !strcmp(t->m->templates.v[0], "reduce6"), "template listed");
  dg_diags d = { 0 };
  dg_func *f = fe_instantiate(t->m, "reduce6<float, 256, true>", &d);
  ok(f && d.v.n == 0, "instantiated reduce6<float, 256, true>");
  if (f) {
    is_str(f->name, "reduce6<float, 256, true>", "canonical name");
    is_str(f->base_name, "reduce6", "base name");
    is_str(ir_type_name(f->params[0]->type), "const float *", "T bound to float in params");
    ok(f->nshared == 1 && f->shared[0]->type->count == 256, "BS sizes the shared array");
  }
  ok(fe_instantiate(t->m, "reduce6<float,256,1>", &d) == f, "same instance again (bool written as 1)");
  ok(fe_find(t->m, "reduce6<float,256,true>") == f, "fe_find ignores spaces");
  dg_func *g = fe_instantiate(t->m, "reduce6<int, 64u, false>", &d);
  ok(g && g != f && !strcmp(g->name, "reduce6<int, 64, false>"), "second instance with other arguments");
  char *ir = fe_t_func(t, "reduce6<int, 64, false>");
  has_str(ir, "int v = (false ? x[threadIdx.x] : 0);", "bool parameter folded to a constant");
  has_str(ir, "if ((64u >= (unsigned int)256))", "integer parameter substituted");
  free(ir);
  ok(!fe_instantiate(t->m, "reduce6<float>", &d), "missing template arguments fail");
  has_str(d.v.n ? d.v.v[d.v.n - 1].msg : "", "no value for template parameter 'BS'", "and say which");
  ok(!fe_instantiate(t->m, "nosuch<int>", &d), "unknown template fails");
  ok(!fe_instantiate(t->m, "reduce6<float, notanumber, true>", &d), "bad argument fails");
  dg_diags_free(&d);
  fe_t_free(t);

  /* device functions as template arguments, defaults, deduction */
  const char *src2 =
    "__device__ float matmul_tri4(float a, float b) { return a * b; }\n"
    "template <float (*MM)(float, float), int R = 4>\n"
    "__global__ void trimul(float *y, const float *x) { y[threadIdx.x] = MM(x[0], (float)R); }\n"
    "template <typename T> __device__ T twice(T v) { return v + v; }\n"
    "template <int N> __device__ int sumto() { return N; }\n"
    "__global__ void user(float *y, int *z) { y[0] = twice(y[1]); z[0] = twice(z[1]) + sumto<3>(); }\n";
  t = fe_t_load(src2);
  is_str(t->diags, "", "function template arguments: no diagnostics");
  f = fe_instantiate(t->m, "trimul<matmul_tri4>", NULL);
  ok(f && !strcmp(f->name, "trimul<matmul_tri4, 4>"), "trimul<matmul_tri4> with default R");
  ir = fe_t_func(t, "trimul<matmul_tri4, 4>");
  has_str(ir, "y[threadIdx.x] = matmul_tri4(x[0], (float)4);", "MM(...) calls the bound function");
  free(ir);
  ok(fe_find(t->m, "twice<float>") && fe_find(t->m, "twice<int>"), "deduced twice<float> and twice<int>");
  ok(fe_find(t->m, "sumto<3>") != NULL, "explicit sumto<3>()");
  ir = fe_t_func(t, "user");
  has_str(ir, "z[0] = (twice<int>(z[1]) + sumto<3>());", "calls of instances");
  free(ir);
  fe_t_free(t);

  /* explicit specialisation + explicit instantiation; functor structs */
  t = fe_t_load(
    "template <typename T> __device__ float to_f(T v) { return (float)v; }\n"
    "template <> __device__ float to_f<double>(double v) { return (float)(v * 2.0); }\n"
    "struct MaxOp { __device__ static float apply(float a, float b) { return fmaxf(a, b); } };\n"
    "template <typename Op, typename T> __global__ void k(float *y, const T *x) { y[0] = Op::apply(to_f(x[0]), 1.0f); }\n"
    "template __global__ void k<MaxOp, double>(float *, const double *);\n");
  is_str(t->diags, "", "specialisation: no diagnostics");
  ir = fe_t_func(t, "to_f<double>");
  has_str(ir, "(v * 2.0)", "the specialisation's body is used");
  free(ir);
  ir = fe_t_func(t, "k<MaxOp, double>");
  has_str(ir, "y[0] = MaxOp::apply(to_f<double>(x[0]), 1.0f);", "explicit instantiation at load, Op::apply");
  free(ir);
  fe_t_free(t);

  /* options: instantiation requests and launches */
  const char *inst[] = { "sc<2>" };
  fe_options o = { NULL, 0, inst, 1, true };
  t = fe_t_load_opts("template <int S> __global__ void sc(float *y) { y[0] *= S; }\n"
                     "template <typename T> __global__ void cp(T *y) { y[0] = y[1]; }\n"
                     "void host(float *y) { cp<float><<<1, 32>>>(y); cp<T><<<1, 1>>>(y); }\n", &o);
  is_str(t->diags, "", "options: no diagnostics (cp<T> in host code skipped quietly)");
  ok(fe_find(t->m, "sc<2>") && fe_find(t->m, "cp<float>"), "requested and launched instances built");
  ok(t->m->launches.n == 2 && !strcmp(t->m->launches.v[0].kernel, "cp<float>"), "launches recorded with template arguments");
  fe_t_free(t);
  t = fe_t_load("template <int N> __device__ int r() { return r<N + 1>(); }\n__global__ void k(int *y) { y[0] = r<0>(); }\n");
  has_str(t->diags, "nested more than 64 deep", "runaway recursive instantiation stops");
  ok(!fe_find(t->m, "k"), "and its caller is dropped");
  fe_t_free(t);
}

static void test_builtins(void)
{
  lowers_to("__global__ void k(int *y, int a, unsigned b) { y[0] = max(a, 3); y[1] = min(a, b); }",
            "y[0] = max<int>(a, 3);", "max with int args stays int");
  lowers_to("__global__ void k(int *y, int a, unsigned b) { y[1] = min(a, b); }",
            "y[1] = (int)min<unsigned int>((unsigned int)a, b);", "min(int, unsigned) is unsigned");
  lowers_to("__global__ void k(float *y, int a) { y[0] = max(y[1], a); }", "y[0] = max<float>(y[1], (float)a);", "max(float, int) is float");
  lowers_to("__global__ void k(double *y, int a) { y[0] = exp(a); }", "y[0] = exp<double>((double)a);", "exp(int) is exp(double)");
  lowers_to("__global__ void k(float *y) { y[0] = expf(1); y[1] = __expf(y[0]) + rsqrtf(2.0f); }", "y[0] = expf((float)1);", "float builtin converts its argument");
  lowers_to("__global__ void k(float *y) { atomicAdd(&y[0], 1); }", "atomicAdd<float>(&y[0], (float)1);", "atomicAdd: T from the pointer");
  lowers_to("__global__ void k(float *y) { float v = y[0]; v += __shfl_down_sync(0xffffffff, v, 16); y[0] = v; }",
            "v += __shfl_down_sync<float>(4294967295u, v, (unsigned int)16);", "shuffle: T from the value, offset unsigned");
  lowers_to("__global__ void k(float *y) { __syncthreads(); __syncwarp(); __threadfence(); }", "__syncthreads();", "barriers");
  lowers_to("__global__ void k(const float *x, float *y) { y[0] = __ldg(&x[1]) + __ldg(x); }", "__ldg<float>(&x[1])", "__ldg");
  lowers_to("__global__ void k(float *y) { printf(\"%d %f\\n\", threadIdx.x, y[0]); }", "printf();", "printf arguments dropped");
  lowers_to("__global__ void k(float *y, int n) { y[0] = std::max(y[1], 0.0f) + ::fminf(y[2], 1.0f); }", "max<float>(y[1], 0.0f)", "std:: and :: prefixes");
  lowers_to("__global__ void k(float *y) { y[0] = FLT_MAX; y[1] = -INFINITY; y[2] = CUDART_INF_F; }", "y[1] = -INFINITY;", "math header constants");
  lowers_to("__global__ void k(float *y) { y[0] = expm1f(y[1]); }", "y[0] = (expf(y[1]) - 1.0f);", "expm1f as exp - 1");
}

static void test_vectors_casts(void)
{
  lowers_to("__global__ void k(float *y, const float *x) { float4 v = reinterpret_cast<const float4 *>(x)[threadIdx.x]; v.x *= 2.0f;"
            " reinterpret_cast<float4 *>(y)[threadIdx.x] = v; }",
            "float4 v = ptrcast<const float4 *>(x)[threadIdx.x];", "reinterpret_cast of a pointer");
  lowers_to("__global__ void k(float *y) { float4 v = make_float4(1, 2, 3, 4); y[0] = v.w; float2 q = {y[0], 1}; y[1] = q.y; }",
            "float4 v = float4{(float)1, (float)2, (float)3, (float)4};", "make_float4 is VECBUILD with converted lanes");
  lowers_to("__global__ void k(float *y) { float2 q = {y[0], 1}; y[1] = q.y; }", "float2 q = float2{y[0], (float)1};", "vector initialiser list");
  lowers_to("__global__ void k(float *y, const float4 *p) { y[0] = p->z + p[1].x; }", "(*p.z + p[1].x)", "-> on a vector pointer");
  lowers_to("#include <cuda_fp16.h>\n__global__ void k(__half *y, const __half2 *x) { __half2 h = x[0]; y[0] = __hadd(h.x, h.y); y[1] = __float2half(1.0f); }",
            "y[0] = __hadd<__half>(h.x, h.y);", "half2 lanes and half builtins");
  lowers_to("__global__ void k(int *y, float f) { y[0] = (int)f + static_cast<int>(f * 2) + int(f); }", "((int)f + (int)(f * (float)2))", "C-style, static_cast and functional casts");
  lowers_to("__global__ void k(int *y, float f) { y[0] = __float_as_int(f); }", "y[0] = __float_as_int(f);", "bit reinterpretation builtin");
  lowers_to("__global__ void k(float *y) { unsigned long long a = (unsigned long long)y; y[0] = a; }", "ptr2int<unsigned long long>(y)", "pointer to integer");
  lowers_to("#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16 *y, float f) { y[0] = __float2bfloat16(f); }", "__float2bfloat16(f)", "bfloat16");
}

static void test_refs_calls(void)
{
  fe_t *t = fe_t_load("__device__ void acc(float &a, const float &b) { a += b; }\n"
                      "__global__ void k(float *y) { float s = 0; acc(s, y[0]); acc(y[1], 2.0f); float &r = y[2]; r = s; }\n");
  is_str(t->diags, "", "references: no diagnostics");
  dg_func *f = fe_find(t->m, "acc");
  ok(f && f->params[0]->by_ref && f->params[0]->type->kind == DG_TY_PTR, "T& parameter is a by_ref pointer");
  ok(f && !f->params[1]->by_ref && f->params[1]->type->kind == DG_TY_F32, "const T& parameter is by value");
  has_str(t->ir, "*a += b;", "uses of a reference dereference it");
  has_str(t->ir, "acc(&s, y[0]);", "callers pass the address");
  has_str(t->ir, "ref float * r = &y[2];", "local reference");
  has_str(t->ir, "*r = s;", "assignment through a local reference");
  fe_t_free(t);
  lowers_to("__device__ float sq(float v);\n__global__ void k(float *y) { y[0] = sq(2); }\n__device__ float sq(float v) { return v * v; }",
            "y[0] = sq((float)2);", "prototype, call before the definition, argument converted");
  lowers_to("__device__ inline static float f(float a) { return a; }\n__device__ __forceinline__ int g(int a) { return a; }\n"
            "__global__ void k(float *y) { y[0] = f(g(1)); }", "y[0] = f((float)g(1));", "inline/static/forceinline device functions");
  /* namespaces are flattened: a qualified call names the function */
  lowers_to("namespace ops { __device__ float twice(float v) { return v + v; }\n"
            "template <typename T> __device__ T half_of(T v) { return v / 2; } }\n"
            "__global__ void k(float *y) { y[0] = ops::twice(y[1]) + ops::half_of<float>(y[2]) + ::ops::twice(1.0f); }",
            "y[0] = ((twice(y[1]) + half_of<float>(y[2])) + twice(1.0f));", "ns::f(...) and ns::f<T>(...) call f");
  lowers_to("namespace cfg { constexpr int TILE = 4; __device__ float g; }\n"
            "__global__ void k(float *y) { y[0] = cfg::TILE * cfg::g; }",
            "y[0] = ((float)4 * g);", "ns::NAME names the namespace's constant or variable");
}

static void test_host(void)
{
  fe_t *t = fe_t_load("#include <torch/extension.h>\n__global__ void k(float *y) { y[0] = 1; }\n"
                      "torch::Tensor fwd(torch::Tensor x) { auto y = torch::empty_like(x); k<<<dim3(4, 1), 256, 0>>>(y.data_ptr<float>()); return y; }\n"
                      "int main() { float *d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }\n"
                      "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &fwd, \"f\"); }\n");
  is_str(t->diags, "", "host code: no diagnostics");
  is_int(t->m->funcs.n, 1, "only the kernel is lowered");
  is_int(t->m->launches.n, 2, "two launches recorded");
  if (t->m->launches.n == 2) {
    is_str(t->m->launches.v[0].text, "k<<<dim3(4, 1), 256, 0>>>(y.data_ptr<float>())", "launch text");
    is_int(t->m->launches.v[1].span.line, 4, "launch line");
  }
  fe_t_free(t);
}

static void test_diagnostics(void)
{
  diag_is("__global__ void k(float *y) { y[0] = nope; }", "t.cu:1:38: error: use of undeclared identifier 'nope'", "undeclared identifier with file:line:col");
  diag_is("__global__ void k(float *y) { y[0] = expf(1, 2); }", "error: 'expf' takes 1 argument, 2 given", "builtin arity");
  diag_is("__device__ float f(float a) { return a; }\n__global__ void k(float *y) { y[0] = f(); }", "error: 'f' takes 1 argument, 0 given", "device function arity");
  diag_is("__global__ void k(float *y) { y[0] = nosuchfn(1); }", "error: use of undeclared function 'nosuchfn'", "undeclared function");
  diag_is("__global__ void k(float *y) { float4 v; y[0] = v * 2.0f; }", "unsupported: operator '*' on 'float4' and 'float'", "operator on a vector");
  diag_is("__global__ void k(float *y) { y[0] = y[0] % 2.0f; }", "error: invalid operands 'float' and 'float' to '%'", "%s", "% on floats");
  diag_is("__global__ void k(float *y) { int *p = y; }", "error: cannot convert 'float *' to 'int *'", "pointer conversion");
  diag_is("__global__ void k(float *y) { goto end; end: ; }", "unsupported: goto and labels", "goto");
  diag_is("struct S { float a; __device__ S(float v) : a(v) {} };\n__global__ void k(S *y) { }",
          "t.cu:2:19: unsupported: struct 'S' has a constructor (member functions are not supported)", "struct with a constructor");
  diag_is("__global__ void k(float *y) { dim3 b(1); }", "unsupported: dim3 in device code", "dim3 in device code");
  diag_is("__global__ void k(float *y) { y[0] = [](){ return 1; }(); }", "unsupported: lambda expressions", "lambdas");
  diag_is("__global__ void k(float *y) { const float c = y[0]; c = 2; }", "error: assignment of const variable", "assignment to const");
  diag_is("__global__ void k(float *y) { break; }", "error: 'break' outside a loop or switch", "break outside loop");
  diag_is("__global__ int k(float *y) { return 1; }", "error: a __global__ function must return void", "kernel returning a value");
  diag_is("__device__ float f() { return; }", "error: return without a value", "missing return value");
  diag_is("__global__ void k(float *y) { y[0] = 1 +; }", "error: syntax error", "syntax error");
  diag_is("__global__ void k(float *y, int n) { switch (n) { case 1: case 1: break; } }", "error: duplicate case label", "duplicate case");
  diag_is("__global__ void k(float *y, int n) { switch (n) { case n: break; } }", "case label is not an integer constant", "non-constant case");
  diag_is("__global__ void k(float *y, int n) { float a[n]; }", "unsupported: array size that is not a constant", "variable-length array");
  diag_is("__global__ void k(float *y) { __shared__ float s[4] = {0}; }", "cannot have an initialiser", "shared with initialiser");
  diag_is("__global__ void k(float *y) { y[0] = threadIdx; }", "'threadIdx' used without .x, .y or .z", "bare threadIdx");
  diag_is("__global__ void k(float *y) { y[0] = threadIdx.w; }", "no member 'w' in threadIdx", "threadIdx.w");
  diag_is("int hostv = 3;\n__global__ void k(int *y) { y[0] = hostv; }", "host variable 'hostv' used in device code", "host variable in device code");

  /* one bad function does not take the others down; its callers go with it */
  diag_is("__device__ float bad(float a) { return a + undefined_x; }\n__global__ void k(float *y) { y[0] = bad(1.0f); }",
          "t.cu:2:38: error: 'bad' cannot be called (its definition has errors)", "call of a function defined earlier with errors");
  fe_t *t = fe_t_load("__device__ float bad(float a);\n"
                      "__global__ void uses_bad(float *y) { y[0] = bad(1.0f); }\n"
                      "__global__ void fine(float *y) { y[0] = 1.0f; }\n"
                      "__device__ float bad(float a) { return a + undefined_x; }\n");
  ok(t->m != NULL, "module loads with errors");
  ok(fe_find(t->m, "fine") && !fe_find(t->m, "bad") && !fe_find(t->m, "uses_bad"), "bad and its caller dropped, fine kept");
  ok(t->d.nerrors >= 1, "errors counted");
  has_str(t->diags, "note: 'uses_bad' dropped: it calls 'bad', which has errors", "the caller's note");
  fe_t_free(t);
}

static void test_garbage(void)
{
  static const char *inputs[] = {
    "", "}", "__global__", "__global__ void", "__global__ void k(", "__global__ void k() {",
    "template <", "template <typename T> __global__ void k(T x) { x.y.z = 1; }",
    "__global__ void k(int *y) { y[0] = ((((((((((((((((((((1)))))))))))))))))))); }",
    "__global__ void k(int *y) { y = y[y]; y[0][0] = 1; *1 = 2; &1; }",
    "__global__ void k(int *y) { int a[2] = {1, 2, 3}; int b[1][1] = {{1, 2}}; }",
    "__global__ void k(int *y) { y[0] = 99999999999999999999999; y[1] = 0x; y[2] = 1e; }",
    "#define A(x) x x\n__global__ void k(int *y) { A(y[0] = 1;) }",
    "__global__ void k(void) { } __global__ void k(void) { }",
    "__global__ void k(float4 v) { v.q = 1; v.x.y = 2; }",
    "__device__ int r(int n) { return n ? r(n - 1) : 0; } __global__ void k(int *y) { y[0] = r(3); }",
  };
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    fe_t *t = fe_t_load(inputs[i]);
    ok(t->m != NULL || t->d.nerrors > 0, "garbage input %zu handled", i);
    fe_t_free(t);
  }
  /* deep nesting does not overflow the stack */
  dg_buf b = { 0 };
  dg_buf_puts(&b, "__global__ void k(int *y) { y[0] = ");
  for (int i = 0; i < 3000; i++) dg_buf_putc(&b, '(');
  dg_buf_putc(&b, '1');
  for (int i = 0; i < 3000; i++) dg_buf_putc(&b, ')');
  dg_buf_puts(&b, "; }");
  fe_t *t = fe_t_load(b.s);
  has_str(t->diags, "nested too deeply", "deep nesting reported");
  fe_t_free(t);
  dg_buf_free(&b);
}

int main(void)
{
  test_templates();
  test_builtins();
  test_vectors_casts();
  test_refs_calls();
  test_host();
  test_diagnostics();
  test_garbage();
  return tap_done();
}
