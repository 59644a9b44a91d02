/* spec_load.c — the Lua side of problem specs: good and bad specs with their
 * diagnostics (file:line:col), the reference in its three uses (concrete
 * element, concrete batch, symbolic through a string-building value domain),
 * and every spec under samples/ loaded with one reference element evaluated. */
#include "lua_spec.h"
#include "../tap.h"
#include "problem_inputs.h"
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>

#define SPECS DG_DATADIR "/t/data/specs/"

static char *diag_text(const dg_problem *p, const dg_diags *d)
{
  dg_buf b = {0};
  for (size_t i = 0; i < d->v.n; i++) {
    dg_diag_format(&b, &p->sm, &d->v.v[i]);
    dg_buf_putc(&b, '\n');
  }
  return dg_buf_take(&b);
}

/* Loads a bad spec and checks that its diagnostics contain want. */
static void bad(const char *file, const char *want)
{
  dg_diags d = {0};
  char *path = dg_printf(SPECS "%s", file);
  dg_problem *p = dg_spec_load(path, &d);
  char *t = diag_text(p, &d);
  ok(d.nerrors > 0, "%s is refused", file);
  has_str(t, want, "%s: diagnostic", file);
  free(t);
  free(path);
  dg_diags_free(&d);
  dg_problem_free(p);
}

static dg_problem *good(const char *path, dg_diags *d)
{
  dg_problem *p = dg_spec_load(path, d);
  if (d->nerrors) {
    char *t = diag_text(p, d);
    printf("# %s", t);
    free(t);
  }
  return p;
}


static void inline_spec(void)
{
  dg_diags d = {0};
  dg_problem *p = good(SPECS "good_inline.lua", &d);
  is_int(d.nerrors, 0, "inline op spec loads");
  is_str(p->op_name, "axpb", "inline op named");
  is_int(p->n_inputs, 2, "two inputs");
  is_str(p->tensors.v[0].name, "x", "inputs in written order (x)");
  is_str(p->tensors.v[1].name, "w", "inputs in written order (w)");
  is_int(p->n_scratch, 1, "one scratch buffer");
  int part = dg_problem_tensor(p, "part");
  is_int(p->tensors.v[part].role, DG_TENSOR_SCRATCH, "part is scratch");
  int64_t sizes[4], zb = 0;
  dg_problem_default_sizes(p, sizes);
  ok(dg_problem_zero_bytes(p, part, sizes, &zb, &d) && zb == 8, "zero_bytes evaluates");
  is_int(dg_problem_numel(p, part, sizes), 2, "scratch shape N / BLK");
  is_int(p->attrs.v[dg_problem_attr(p, "b")].i, 5, "spec attr overrides the op's");
  is_int(p->launches.n, 2, "two launches (a pipeline)");
  is_str(p->launches.v[1]->kernel, "k2", "table-form launch");
  is_int(p->launches.v[0]->targs.n, 2, "template args of the launch");
  is_int(p->launches.v[0]->args.v[3].kind, DG_ARG_ATTR, "a float attr as an argument");
  is_int(p->launches.v[0]->args.v[4].kind, DG_ARG_EXPR, "an int attr as an argument");
  is_int(p->launches.v[1]->args.v[0].kind, DG_ARG_TENSOR, "scratch named in args");
  is_int(p->launches.v[1]->args.v[4].kind, DG_ARG_FLOAT, "number arg in a table launch");
  int64_t g[3], b[3], sh;
  ok(dg_problem_launch_dims(p, 1, sizes, g, b, &sh, &d) && b[0] == 2 && g[0] == 1, "table-form dims");
  is_int(p->defines.n, 2, "defines");
  is_str(p->defines.v[1].value, "1", "boolean define is 1");
  is_int(p->templ.n, 3, "template list");
  ok(p->has_tol && p->tol.rtol == 1e-2, "tolerance override");
  is_str(p->bug_pattern, "none", "seeded bug pattern kept");
  has_str(p->source, "t/data/specs/k.cu", "source relative to the spec");
  sizes[0] = 6;
  ok(!dg_problem_check_sizes(p, sizes, &d), "N = 6 breaks N %% BLK == 0");
  char *t = diag_text(p, &d);
  has_str(t, "good_inline.lua:19:20: error: sizes break the kernel's constraint 'N % BLK == 0' (N = 6, BLK = 4)",
          "constraint named with its position");
  free(t);
  dg_diags_free(&d);

  /* concrete: one element and the batch */
  dg_problem_default_sizes(p, sizes);
  double x[8], w[8], out[8];
  uint8_t def[8];
  for (int i = 0; i < 8; i++) x[i] = i, w[i] = 10 * i;
  const double *data[4] = { x, w, NULL, NULL };
  dg_ref_env env = { .sizes = sizes, .data = data };
  int y = dg_problem_tensor(p, "y");
  int64_t idx[1] = { 3 };
  dg_refval v;
  char *err = NULL;
  ok(dg_problem_ref_eval(p, &env, y, idx, &v, &err) == DG_REF_OK && v.num == 2.0 * 3 + 5 * 30, "concrete element");
  ok(dg_problem_ref_eval_all(p, &env, y, out, def, &err) == DG_REF_OK && out[7] == 14 + 350 && def[0], "batch path");
  idx[0] = 8;
  ok(dg_problem_ref_eval(p, &env, y, idx, &v, &err) == DG_REF_ERROR && err && strstr(err, "out of range"), "index out of range refused");
  free(err);
  dg_problem_free(p);
}

/* The fake symbolic domain: a term is a string; ids index a list. */
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
  const dg_problem *p = ud;
  const dg_tensor *tt = &p->tensors.v[t];
  if (tt->has_range) {                   /* index-valued: concrete */
    *out = (dg_refval){ .num = 1 };
    return true;
  }
  dg_buf b = {0};
  dg_buf_puts(&b, tt->name);
  for (size_t k = 0; k < tt->shape.n; k++) dg_buf_printf(&b, "[%lld]", (long long)idx[k]);
  dg_vec_push(&terms, dg_buf_take(&b));
  *out = (dg_refval){ .is_sym = true, .sym = (dg_symval)terms.n - 1 };
  return true;
}
static void free_terms(void)
{
  for (size_t i = 0; i < terms.n; i++) free(terms.v[i]);
  dg_vec_free(&terms);
}

static const char *sym_eval(dg_problem *p, const char *out, const int64_t *idx, dg_ref_status *st)
{
  static const dg_sym_ops so = { tconst, tapply, NULL };
  int64_t sizes[16];
  dg_problem_default_sizes(p, sizes);
  dg_ref_env env = { .sizes = sizes, .read = tread, .sym = &so, .ud = p };
  dg_refval v;
  char *err = NULL;
  *st = dg_problem_ref_eval(p, &env, dg_problem_tensor(p, out), idx, &v, &err);
  if (err) printf("# %s\n", err);
  if (err && *st == DG_REF_ERROR) has_str(err, "symbolic value (an index-valued input needs a range)", "the message says why");
  free(err);
  return *st == DG_REF_OK && v.is_sym ? terms.v[v.sym] : NULL;
}

static void symbolic(void)
{
  dg_diags d = {0};
  dg_problem *p = good(SPECS "good_inline.lua", &d);
  dg_ref_status st;
  int64_t idx[2] = { 2, 0 };
  is_str(sym_eval(p, "y", idx, &st), "add(mul(2,x[2]),mul(5,w[2]))", "symbolic reference through the vtable");
  dg_problem_free(p);
  dg_diags_free(&d);

  p = good(SPECS "argmax_small.lua", &d);
  idx[0] = 1;
  is_str(sym_eval(p, "y", idx, &st),
         "where(gt(x[1][2],max(x[1][0],x[1][1])),2,where(gt(x[1][1],x[1][0]),1,0))",
         "where() with a symbolic condition");
  dg_problem_free(p);
  dg_diags_free(&d);

  p = good(SPECS "sym_index.lua", &d);
  idx[0] = 1;
  ok(!sym_eval(p, "y", idx, &st) && st == DG_REF_ERROR, "a symbolic value used as an index is an error");
  dg_problem_free(p);
  dg_diags_free(&d);

  p = good(DG_DATADIR "/samples/loss/cross_entropy.cu", &d);
  if (!d.nerrors) {
    idx[0] = 0;
    const char *s = sym_eval(p, "loss", idx, &st);
    ok(s && strstr(s, "log(") && strstr(s, "x[0][1]"), "ranged input read as a concrete index (x[n][targets[n]])");
  } else ok(0, "cross_entropy sample loads");
  dg_problem_free(p);
  dg_diags_free(&d);
  free_terms();
}

static void bad_specs(void)
{
  bad("bad_noop.lua", "bad_noop.lua:3:13: error: unknown op 'softmx' (did you mean 'softmax'?)");
  bad("bad_launch_arg.lua", "bad_launch_arg.lua:5:29: error: unknown name 'z' in the arguments of k");
  bad("bad_sexpr.lua", "bad_sexpr.lua:5:26: error: bad launch");
  bad("bad_constraint.lua", "bad_constraint.lua:5:31: error: sizes break the kernel's constraint 'C % 4 == 0' (C = 10)");
  bad("bad_missing.lua", "bad_missing.lua:4:3: error: no value for size 'C' of op 'softmax'");
  bad("bad_missing.lua", "bad_missing.lua:1:8: error: missing field 'launch'");
  /* a misspelt field: the warning names the field it resembles, before the error it causes */
  bad("bad_field_typo.lua", "bad_field_typo.lua:4:3: warning: unknown field 'sizez' in the problem (ignored; did you mean 'sizes'?)");
  bad("bad_op_typo.lua", "bad_op_typo.lua:3:3: warning: unknown field 'opp' in the problem (ignored; did you mean 'op'?)");
  bad("bad_syntax.lua", "bad_syntax.lua:4:3: error: '}' expected (to close '{' at line 1) near 'sizes'");
  bad("bad_runtime.lua", "bad_runtime.lua:5:1: error: attempt to index a nil value (local 'sizes')");
  bad("bad_sandbox.lua", "bad_sandbox.lua:1:11: error: 'io' is not available: specs and op files run in a sandbox without os, io, package, debug, require, dofile, loadfile and collectgarbage");
  bad("bad_tensor_name.lua", "bad_tensor_name.lua:4:14: error: dtypes names 'target', which is not a tensor");
  bad("bad_dtype_name.lua", "bad_dtype_name.lua:4:14: error: unknown dtype for targets");
  bad("bad_range_name.lua", "bad_range_name.lua:4:36: error: ranges names 'target', which is not a tensor of op 'cross_entropy'");
  bad("bad_range_shape.lua", "bad_range_shape.lua:4:14: error: range of targets must be {lo, hi} (inclusive)");
  {   /* dtypes and ranges together: each entry lands on its tensor */
    dg_diags d = {0};
    dg_problem *p = good(SPECS "typed_ranges.lua", &d);
    int tg = dg_problem_tensor(p, "targets"), x = dg_problem_tensor(p, "x");
    int64_t sizes[2], lo = -1, hi = -1;
    dg_problem_default_sizes(p, sizes);
    ok(!d.nerrors && tg >= 0 && x >= 0, "typed_ranges.lua loads");
    ok(tg >= 0 && p->tensors.v[tg].dtype == DG_DT_I64 && x >= 0 && p->tensors.v[x].dtype == DG_DT_F16,
       "dtypes: targets i64, x f16");
    ok(tg >= 0 && dg_problem_range(p, tg, sizes, &lo, &hi, NULL) && lo == 1 && hi == 6, "ranges: targets in [1, V-2] = [1, 6]");
    ok(x >= 0 && !p->tensors.v[x].has_range, "x has no range");
    dg_problem_free(p);
    dg_diags_free(&d);
  }
  bad("bad_block.cu", "bad_block.cu:4:54: error: unknown name 'q'");
  bad("late_block.cu", "late_block.cu:2:24: error: the /* dirigo: … */ block must come first in the file (only comments before it)");
  {   /* the rule every reader of .cu files shares (loader, sweep, workbench) */
    const char *late;
    ok(dg_spec_block("// a note\n/* other */\n  /*\n dirigo: op = 'relu' */", &late) != NULL && !late,
       "dg_spec_block: // and /* */ comments before the block");
    ok(!dg_spec_block("int x;\n/* dirigo: */", &late) && late, "dg_spec_block: code before the block (late)");
    ok(!dg_spec_block("/* dirigo is not a block */ int y;", &late) && !late, "dg_spec_block: no block");
    ok(!dg_spec_block("/* unclosed", NULL), "dg_spec_block: an unclosed comment");
  }
  bad("bad_loop.lua", "bad_loop.lua:2:1: error: the file runs too long");
  bad("no_such_spec.lua", "no_such_spec.lua:1:1: error: cannot read the spec");

  /* an error inside a ref: the message and a traceback naming the user's file */
  dg_diags d = {0};
  dg_problem *p = good(SPECS "bad_ref.lua", &d);
  int64_t sizes[1] = { 4 }, idx[1] = { 3 };
  double x[4] = { 0 };
  const double *data[2] = { x, NULL };
  dg_ref_env env = { .sizes = sizes, .data = data };
  dg_refval v;
  char *err = NULL;
  ok(!d.nerrors && dg_problem_ref_eval(p, &env, 1, idx, &v, &err) == DG_REF_ERROR, "ref error reported");
  has_str(err, "bad_ref.lua:9: x: index 4 out of range [0,4) in dim 0", "ref error names file and line");
  has_str(err, "stack traceback:\n\t", "trimmed traceback");
  ok(err && !strstr(err, "[C]"), "traceback without C frames");
  free(err);
  dg_problem_free(p);
  dg_diags_free(&d);

  p = good(SPECS "block.cu", &d);
  is_int(d.nerrors, 0, ".cu with a dirigo block loads");
  has_str(p->source, "block.cu", "the .cu is its own source");
  dg_problem_free(p);
  dg_diags_free(&d);
}

/* Every spec under samples/: loads, and one reference element evaluates. */
static void walk(const char *dir, void (*fn)(const char *))
{
  DIR *dd = opendir(dir);
  if (!dd) return;
  DG_VEC(char *) names = {0};
  for (struct dirent *e; (e = readdir(dd)); )
    if (e->d_name[0] != '.') dg_vec_push(&names, dg_printf("%s/%s", dir, e->d_name));
  closedir(dd);
  for (size_t i = 0; i < names.n; i++) {
    struct stat sb;
    const char *n = names.v[i];
    size_t l = strlen(n);
    if (stat(n, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      if (l < 8 || strcmp(n + l - 8, "/scripts")) walk(n, fn);   /* samples/scripts: dirigo run scripts */
    }
    else if (l > 4 && !strcmp(n + l - 4, ".lua")) fn(n);
    else if (l > 3 && !strcmp(n + l - 3, ".cu")) {
      size_t len;
      char *text = dg_read_file(n, &len);
      if (text && strstr(text, "dirigo:")) fn(n);
      free(text);
    }
    free(names.v[i]);
  }
  dg_vec_free(&names);
}

/* A numeric value domain behind the symbolic vtable: ids index doubles. The
 * symbolic path (userdata values, where/max on values) must give what the
 * concrete path gives. */
static DG_VEC(double) nums;
static const double *const *num_data;
static dg_symval nconst(void *ud, double v) { dg_vec_push(&nums, v); return (dg_symval)nums.n - 1; }
static dg_symval napply(void *ud, dg_vop op, const dg_symval *a)
{
  double x[3];
  for (int i = 0; i < dg_vop_info[op].arity; i++) x[i] = nums.v[a[i]];
  dg_vec_push(&nums, dg_vop_num(op, x));
  return (dg_symval)nums.n - 1;
}
static bool nread(void *ud, int t, const int64_t *idx, dg_refval *out)
{
  const dg_problem *p = ud;
  const dg_tensor *tt = &p->tensors.v[t];
  int64_t sizes[32], dims[8], flat = 0;
  dg_problem_default_sizes(p, sizes);
  dg_problem_shape(p, t, sizes, dims, NULL);
  for (size_t k = 0; k < tt->shape.n; k++) flat = flat * dims[k] + idx[k];
  double v = num_data[t][flat];
  if (tt->has_range) *out = (dg_refval){ .num = v };
  else *out = (dg_refval){ .is_sym = true, .sym = nconst(NULL, v) };
  return true;
}

static bool same_num(double a, double b) { return a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-12 * fabs(b); }

static int nsamples;
static void one_sample(const char *path)
{
  const char *rel = strstr(path, "samples/");
  dg_diags d = {0};
  dg_problem *p = good(path, &d);
  nsamples++;
  ok(!d.nerrors, "%s loads", rel);
  if (!d.nerrors) {
    int64_t sizes[32];
    dg_problem_default_sizes(p, sizes);
    dg_rng rng;
    dg_rng_seed(&rng, 42);
    inputs in;
    make_inputs(p, sizes, &in, &rng);
    dg_ref_env env = { .sizes = sizes, .data = (const double *const *)in.data };
    bool all = true;
    for (size_t t = 0; t < p->tensors.n; t++) {
      if (p->tensors.v[t].role != DG_TENSOR_OUTPUT) continue;
      int64_t dims[8], idx[8];
      size_t rank = p->tensors.v[t].shape.n;
      dg_problem_shape(p, (int)t, sizes, dims, NULL);
      for (size_t k = 0; k < rank; k++) idx[k] = dims[k] / 2;    /* a middle element */
      dg_refval v, w;
      char *err = NULL;
      dg_ref_status s = dg_problem_ref_eval(p, &env, (int)t, idx, &v, &err);
      if (s == DG_REF_ERROR || (s == DG_REF_OK && (v.is_sym || !isfinite(v.num)))) {
        all = false;
        printf("# %s: %s\n", p->tensors.v[t].name, err ? err : "not a finite number");
      }
      free(err);
      err = NULL;
      static const dg_sym_ops no = { nconst, napply, NULL };
      num_data = (const double *const *)in.data;
      dg_ref_env senv = { .sizes = sizes, .read = nread, .sym = &no, .ud = p };
      dg_ref_status s2 = dg_problem_ref_eval(p, &senv, (int)t, idx, &w, &err);
      double wv = w.is_sym ? nums.v[w.sym] : w.num;
      if (s2 != s || (s == DG_REF_OK && !same_num(wv, v.num))) {
        all = false;
        printf("# %s: symbolic path %s: %.17g vs %.17g\n", p->tensors.v[t].name, err ? err : "differs", wv, v.num);
      }
      free(err);
      dg_vec_free(&nums);
    }
    ok(all, "%s: a reference element of every output, concrete and through the symbolic path", rel);
    free_inputs(&in);
  }
  dg_problem_free(p);
  dg_diags_free(&d);
}

int main(void)
{
  setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
  unsetenv("DIRIGO_DATADIR");
  inline_spec();
  symbolic();
  bad_specs();
  walk(DG_DATADIR "/samples", one_sample);
  ok(nsamples >= 20, "samples found (%d)", nsamples);
  return tap_done();
}
