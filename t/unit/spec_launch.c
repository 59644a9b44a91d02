/* spec_launch.c — launch syntax and the engine side of a problem (no Lua):
 * a hand-built problem, argument resolution, constraints, shapes, a C reference. */
#include "problem.h"
#include "../tap.h"

static dg_launch *lp(const char *text, dg_sexpr_err *err) { return dg_launch_parse(text, err); }

static void launch_syntax(void)
{
  dg_sexpr_err err;
  dg_launch *l = lp("softmax_warp<<<(N+3)/4, 128>>>(y, x, N, C)", &err);
  ok(l != NULL, "plain launch parses");
  is_str(l->kernel, "softmax_warp", "kernel name");
  is_int(l->grid.n, 1, "grid has one component");
  is_int(l->args.n, 4, "four arguments");
  is_str(l->args.v[1].text, "x", "second argument text");
  is_int(l->args.v[3].off, 40, "offset of C");
  dg_launch_free(l);

  l = lp("reduce6<float, 256, true><<<dim3(M, (N+31)/32), {32, 8, 1}, 256*4, stream>>>"
         "(out, in, 1.0f, -2.5e-3, true, NULL, nullptr, std::bool_constant<false>{}, "
         "std::integral_constant<int, 4>{}, M*N, C/4);", &err);
  ok(l != NULL, "full launch parses%s", l ? "" : err.msg);
  if (l) {
    is_int(l->targs.n, 3, "three template args");
    is_str(l->targs.v[2], "true", "template arg verbatim");
    is_int(l->grid.n, 2, "dim3 grid with two components");
    is_int(l->block.n, 3, "brace block with three");
    ok(l->shared != NULL, "dynamic shared bytes");
    is_str(l->stream, "stream", "stream kept verbatim");
    is_int(l->args.n, 11, "eleven arguments");
    is_int(l->args.v[2].kind, DG_ARG_FLOAT, "1.0f is a float");
    ok(l->args.v[3].f == -2.5e-3, "negative float value");
    is_int(l->args.v[4].kind, DG_ARG_BOOL, "true is a bool");
    is_int(l->args.v[5].kind, DG_ARG_NULL, "NULL");
    is_int(l->args.v[6].kind, DG_ARG_NULL, "nullptr");
    is_int(l->args.v[7].kind, DG_ARG_TAG, "tag expression");
    is_str(l->args.v[8].text, "std::integral_constant<int, 4>{}", "tag with a comma inside <>");
    is_int(l->args.v[9].kind, DG_ARG_EXPR, "M*N is an expression");
    const char *nm[] = { "M", "N" };
    int64_t vv[] = { 5, 100 };
    dg_symtab st = { nm, vv, 2 };
    int64_t g[3], b[3], sh;
    ok(dg_launch_dims(l, &st, g, b, &sh, &err) && g[0] == 5 && g[1] == 4 && g[2] == 1 && b[1] == 8 && sh == 1024,
       "dims evaluate");
    vv[0] = 0;
    ok(!dg_launch_dims(l, &st, g, b, &sh, &err) && strstr(err.msg, "at least 1"), "zero grid refused");
    dg_launch_free(l);
  }

  static const struct { const char *text; size_t pos; const char *msg; } bad[] = {
    { "k(x, y)", 0, "expected '<<<'" },
    { "k<<<1, 2(x)", 4, "expected '>>>'" },
    { "<<<1, 2>>>(x)", 0, "kernel name" },
    { "k<<<1>>>(x)", 4, "grid, block" },
    { "k<<<N+, 2>>>(x)", 6, "expression expected" },
    { "k<<<1, 2>>>(x, , y)", 15, "empty launch argument" },
    { "k<<<1, 2>>>(x, (y)", 15, "not closed" },
    { "k<<<1, 2>>>", 11, "expected '('" },
    { "k<<<dim3(1,2,3,4), 2>>>(x)", 4, "1 to 3 components" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    l = lp(bad[i].text, &err);
    ok(!l && err.pos == bad[i].pos && strstr(err.msg, bad[i].msg), "bad launch '%s' at %zu", bad[i].text, bad[i].pos);
    if (l || err.pos != bad[i].pos || !strstr(err.msg, bad[i].msg)) printf("#   got %zu: %s\n", err.pos, l ? "parsed" : err.msg);
    dg_launch_free(l);
  }
}

/* A C reference: y[n][c] = x[n][c] * scale + c (reads through data or read()). */
static dg_ref_status cref_eval(void *self, const dg_ref_env *env, int t, const int64_t *idx,
                               dg_refval *out, char **err)
{
  int64_t C = env->sizes[1];
  if (idx[1] == C - 1) return DG_REF_NIL;       /* a padding column: unchecked */
  if (env->data) {
    out->is_sym = false;
    out->num = env->data[0][idx[0] * C + idx[1]] * 2 + (double)idx[1];
    return DG_REF_OK;
  }
  dg_refval x;
  if (!env->read(env->ud, 0, idx, &x)) return *err = dg_strdup("read failed"), DG_REF_ERROR;
  dg_symval a[2] = { x.sym, env->sym->constant(env->sym->ud, 2) };
  dg_symval m = env->sym->apply(env->sym->ud, DG_VOP_MUL, a);
  dg_symval b[2] = { m, env->sym->constant(env->sym->ud, (double)idx[1]) };
  *out = (dg_refval){ .is_sym = true, .sym = env->sym->apply(env->sym->ud, DG_VOP_ADD, b) };
  return DG_REF_OK;
}
static const dg_ref_ops cref = { "c", cref_eval, NULL, NULL };

/* Fake symbolic domain: a term is a string in a table; ids index it. */
static DG_VEC(char *) terms;
static dg_symval tconst(void *ud, double v) { dg_vec_push(&terms, dg_printf("%g", v)); return (dg_symval)terms.n - 1; }
static dg_symval tapply(void *ud, dg_vop op, const dg_symval *a)
{
  dg_buf b = {0};
  dg_buf_printf(&b, "%s(", dg_vop_info[op].name);
  for (int i = 0; i < dg_vop_info[op].arity; i++) dg_buf_printf(&b, "%s%s", i ? "," : "", terms.v[a[i]]);
  dg_buf_putc(&b, ')');
  dg_vec_push(&terms, dg_buf_take(&b));
  return (dg_symval)terms.n - 1;
}
static bool tread(void *ud, int t, const int64_t *idx, dg_refval *out)
{
  dg_vec_push(&terms, dg_printf("x[%lld][%lld]", (long long)idx[0], (long long)idx[1]));
  *out = (dg_refval){ .is_sym = true, .sym = (dg_symval)terms.n - 1 };
  return true;
}

static void add_tensor(dg_problem *p, const char *name, dg_tensor_role role, const char *d0, const char *d1, dg_diags *d)
{
  dg_tensor t = { .name = dg_strdup(name), .role = role };
  dg_pexpr x = {0};
  dg_pexpr_init(&x, d0, (dg_span){0}, SIZE_MAX, p, d);
  dg_vec_push(&t.shape, x);
  dg_pexpr_init(&x, d1, (dg_span){0}, SIZE_MAX, p, d);
  dg_vec_push(&t.shape, x);
  dg_vec_push(&p->tensors, t);
}

static void problem_engine(void)
{
  dg_problem *p = dg_problem_new();
  dg_diags d = {0};
  /* a spec file, so that positions are real */
  const char *spec = "constraints = { \"C % 4 == 0\" }\nlaunch = \"k<<<N, 32>>>(y, x, eps, C/4, Z)\"\n";
  uint32_t f = dg_srcmgr_add(&p->sm, "s.lua", dg_strdup(spec), strlen(spec));
  add_tensor(p, "x", DG_TENSOR_INPUT, "N", "C", &d);
  add_tensor(p, "y", DG_TENSOR_OUTPUT, "N", "C - 0", &d);
  p->n_inputs = p->n_outputs = 1;
  dg_size n = { .name = dg_strdup("N"), .value = 3 }, c = { .name = dg_strdup("C"), .value = 8 };
  dg_vec_push(&p->sizes, n);
  dg_vec_push(&p->sizes, c);
  dg_attr eps = { .name = dg_strdup("eps"), .kind = DG_ATTR_FLOAT, .f = 1e-5 };
  dg_vec_push(&p->attrs, eps);
  dg_constraint k = {0};
  ok(dg_pexpr_init(&k.e, "C % 4 == 0", (dg_span){ f, 1, 17 }, 17, p, &d), "constraint parses");
  dg_vec_push(&p->constraints, k);
  dg_sexpr_err err;
  dg_launch *l = dg_launch_parse("k<<<N, 32>>>(y, x, eps, C/4, Z)", &err);
  l->span = (dg_span){ f, 2, 10 };
  l->file_off = (size_t)(strchr(spec, 'k') - spec);
  dg_vec_push(&p->launches, l);

  ok(!dg_problem_finish(p, &d), "unknown launch argument refused");
  dg_buf b = {0};
  if (d.v.n) dg_diag_format(&b, &p->sm, &d.v.v[d.v.n - 1]);
  has_str(b.s, "s.lua:2:40: error: unknown name 'Z'", "diagnostic names the argument's column");
  dg_buf_free(&b);
  dg_diags_free(&d);

  /* drop Z, finish again */
  free(l->args.v[4].text);
  dg_sexpr_free(l->args.v[4].expr);
  l->args.n = 4;
  ok(dg_problem_finish(p, &d), "problem finishes");
  is_int(l->args.v[0].kind, DG_ARG_TENSOR, "y resolves to a tensor");
  is_int(l->args.v[0].index, 1, "y is tensor 1");
  is_int(l->args.v[2].kind, DG_ARG_ATTR, "eps resolves to an attribute");
  int64_t sizes[2] = { 3, 8 }, v, dims[2];
  ok(dg_problem_arg_int(p, 0, 3, sizes, &v, &d) && v == 2, "C/4 evaluates to 2");
  ok(dg_problem_shape(p, 1, sizes, dims, &d) && dims[0] == 3 && dims[1] == 8, "shape of y");
  is_int(dg_problem_numel(p, 0, sizes), 24, "numel of x");
  sizes[1] = 10;
  ok(!dg_problem_check_sizes(p, sizes, &d), "C = 10 breaks a constraint");
  if (d.v.n) dg_diag_format(&b, &p->sm, &d.v.v[0]);
  is_str(b.s, "s.lua:1:18: error: sizes break the kernel's constraint 'C % 4 == 0' (C = 10)", "constraint named");
  dg_buf_free(&b);
  dg_diags_free(&d);
  dg_tol tol = dg_problem_tol(p, 1);
  ok(tol.atol == dg_dtypes[DG_DT_F32].atol && tol.rtol == dg_dtypes[DG_DT_F32].rtol, "default f32 tolerance from dtype.h");

  /* the reference through the engine's entry points */
  p->ref = (dg_ref){ &cref, NULL };
  sizes[1] = 4;
  double x[12];
  for (int i = 0; i < 12; i++) x[i] = i;
  const double *data[2] = { x, NULL };
  dg_ref_env env = { .sizes = sizes, .data = data };
  dg_refval r;
  char *e = NULL;
  int64_t idx[2] = { 1, 2 };
  ok(dg_problem_ref_eval(p, &env, 1, idx, &r, &e) == DG_REF_OK && r.num == 6 * 2 + 2, "concrete element");
  ok(dg_problem_ref_eval(p, &env, 0, idx, &r, &e) == DG_REF_ERROR && e && strstr(e, "not an output"), "input refused");
  free(e);
  double out[12];
  uint8_t def[12];
  ok(dg_problem_ref_eval_all(p, &env, 1, out, def, NULL) == DG_REF_OK && out[5] == 5 * 2 + 1 && def[5] && !def[3],
     "batch fallback, nil element undefined");
  dg_sym_ops so = { tconst, tapply, NULL };
  dg_ref_env senv = { .sizes = sizes, .read = tread, .sym = &so };
  ok(dg_problem_ref_eval(p, &senv, 1, idx, &r, NULL) == DG_REF_OK && r.is_sym, "symbolic element");
  is_str(terms.v[r.sym], "add(mul(x[1][2],2),2)", "term built through the vtable");
  for (size_t i = 0; i < terms.n; i++) free(terms.v[i]);
  dg_vec_free(&terms);
  dg_problem_free(p);
}

int main(void)
{
  launch_syntax();
  problem_engine();
  double a[3] = { 1, 0, 5 };
  ok(dg_vop_num(DG_VOP_WHERE, a) == 0 && dg_vop_lookup("rsqrt") == DG_VOP_RSQRT, "vop table");
  return tap_done();
}
