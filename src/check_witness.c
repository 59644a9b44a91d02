/* check_witness.c — witness files of the checker: every input value, the
 * sizes and the element, as JSON, so `dirigo replay PROBLEM FILE` runs the
 * same case on the emulator without the solver. A small JSON reader for
 * exactly what we write (objects, arrays, numbers, strings, null). */
#include "check_int.h"
#include <errno.h>
#include <math.h>
#include <string.h>

bool check_witness_write(const char *path, const dg_problem *p, const check_result *r, char **err)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    *err = dg_printf("cannot write %s: %s", path, strerror(errno));
    return false;
  }
  dg_buf b = {0};
  dg_buf_puts(&b, "{\"dirigo_witness\":1,");
  if (p->op_name) {   /* what it was found for: a replay on another op says so */
    dg_buf_puts(&b, "\"op\":");
    dg_buf_json_str(&b, p->op_name);
    dg_buf_putc(&b, ',');
  }
  dg_buf_puts(&b, "\"tensor\":");
  dg_buf_json_str(&b, p->tensors.v[r->tensor].name);
  dg_buf_puts(&b, ",\"index\":[");
  for (int i = 0; i < r->nidx; i++) dg_buf_printf(&b, "%s%lld", i ? "," : "", (long long)r->index[i]);
  dg_buf_printf(&b, "],\"seed\":%llu,\"sizes\":{", (unsigned long long)r->seed);
  for (size_t i = 0; i < r->nsizes && i < p->sizes.n; i++) {
    if (i) dg_buf_putc(&b, ',');
    dg_buf_json_str(&b, p->sizes.v[i].name);
    dg_buf_printf(&b, ":%lld", (long long)r->sizes[i]);
  }
  dg_buf_puts(&b, "},\"kernel_value\":");
  dg_buf_printf(&b, isfinite(r->kernel_value) ? "%.17g" : "null", r->kernel_value);
  dg_buf_puts(&b, ",\"reference_value\":");
  dg_buf_printf(&b, isfinite(r->ref_value) ? "%.17g" : "null", r->ref_value);
  if (r->block_witness)      /* a huge instance: no values; the block (and prefix) to run again */
    dg_buf_printf(&b, ",\"block\":%lld,\"max_lane_ops\":%llu,\"lazy_inputs\":1", (long long)r->witness_block,
                  (unsigned long long)r->witness_ops);
  dg_buf_puts(&b, ",\"inputs\":{");
  bool first = true;
  for (int t = 0; t < r->ntensors && r->inputs; t++) {
    if (!r->inputs[t]) continue;
    fputs(b.s, f);
    b.n = 0;
    dg_buf_printf(&b, "%s\n", first ? "" : ",");
    first = false;
    dg_buf_json_str(&b, p->tensors.v[t].name);
    dg_buf_puts(&b, ":[");
    for (int64_t i = 0; i < r->numel[t]; i++) {
      double v = r->inputs[t][i];
      if (isnan(v)) dg_buf_puts(&b, i ? ",\"nan\"" : "\"nan\"");
      else if (isinf(v)) dg_buf_printf(&b, "%s\"%sinf\"", i ? "," : "", v > 0 ? "+" : "-");
      else dg_buf_printf(&b, "%s%.17g", i ? "," : "", v);
      if (b.n > 1 << 16) { fputs(b.s, f); b.n = 0; b.s[0] = 0; }
    }
    dg_buf_putc(&b, ']');
  }
  dg_buf_puts(&b, "}}\n");
  fputs(b.s, f);
  dg_buf_free(&b);
  bool ok = fclose(f) == 0;
  if (!ok) *err = dg_printf("cannot write %s", path);
  return ok;
}

/* ---- reading ------------------------------------------------------------------------ */
typedef struct jv jv;
typedef enum { J_NULL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;
struct jv {
  jkind kind;
  double num;
  char *str;
  DG_VEC(jv *) items;        /* arrays; objects: values */
  DG_VEC(char *) keys;       /* objects */
};

typedef struct { const char *s; dg_arena *a; const char *err; } jp;

static void ws(jp *p) { while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r') p->s++; }

static jv *jnew(jp *p, jkind k)
{
  jv *v = dg_arena_alloc(p->a, sizeof *v);
  v->kind = k;
  return v;
}

static void jfree(jv *v)
{
  if (!v) return;
  for (size_t i = 0; i < v->items.n; i++) jfree(v->items.v[i]);
  dg_vec_free(&v->items);
  dg_vec_free(&v->keys);
}

static char *jstr(jp *p)
{
  const char *b = ++p->s;
  while (*p->s && *p->s != '"') p->s += p->s[0] == '\\' && p->s[1] ? 2 : 1;
  if (*p->s != '"') { p->err = "unterminated string"; return NULL; }
  char *r = dg_arena_strndup(p->a, b, (size_t)(p->s - b));
  p->s++;
  return r;
}

static jv *jparse(jp *p, int depth)
{
  ws(p);
  if (depth > 32) { p->err = "nested too deeply"; return NULL; }
  if (*p->s == '{' || *p->s == '[') {
    bool obj = *p->s == '{';
    char close = obj ? '}' : ']';
    jv *v = jnew(p, obj ? J_OBJ : J_ARR);
    p->s++;
    ws(p);
    if (*p->s == close) { p->s++; return v; }
    for (;;) {
      ws(p);
      if (obj) {
        if (*p->s != '"') { p->err = "expected a key"; return v; }
        char *k = jstr(p);
        if (!k) return v;
        ws(p);
        if (*p->s != ':') { p->err = "expected ':'"; return v; }
        p->s++;
        dg_vec_push(&v->keys, k);
      }
      jv *x = jparse(p, depth + 1);
      if (!x) x = jnew(p, J_NULL);     /* keys and items stay paired */
      dg_vec_push(&v->items, x);
      if (p->err) return v;
      ws(p);
      if (*p->s == ',') { p->s++; continue; }
      if (*p->s == close) { p->s++; return v; }
      p->err = obj ? "expected ',' or '}'" : "expected ',' or ']'";
      return v;
    }
  }
  if (*p->s == '"') {
    jv *v = jnew(p, J_STR);
    v->str = jstr(p);
    return v->str ? v : NULL;
  }
  if (!strncmp(p->s, "null", 4)) { p->s += 4; return jnew(p, J_NULL); }
  char *end;
  double d = strtod(p->s, &end);
  if (end == p->s) { p->err = "expected a value"; return NULL; }
  p->s = end;
  jv *v = jnew(p, J_NUM);
  v->num = d;
  return v;
}

static jv *jget(const jv *o, const char *key, jkind k)
{
  if (!o || o->kind != J_OBJ) return NULL;
  for (size_t i = 0; i < o->keys.n; i++)
    if (!strcmp(o->keys.v[i], key)) return o->items.v[i]->kind == k ? o->items.v[i] : NULL;
  return NULL;
}

static double jnum(const jv *v)
{
  if (v->kind == J_NUM) return v->num;
  if (v->kind == J_STR && v->str) {
    if (!strcmp(v->str, "nan")) return NAN;
    if (!strcmp(v->str, "+inf")) return INFINITY;
    if (!strcmp(v->str, "-inf")) return -INFINITY;
  }
  return NAN;
}

/* An integer field (a size, an index): a JSON number, integral, of a size a
 * cast to int64_t keeps (1e30 does not convert). */
static bool jint(const jv *v, int64_t *out)
{
  if (!v || v->kind != J_NUM || !(v->num == floor(v->num)) || fabs(v->num) > 4.0e18) return false;
  *out = (int64_t)v->num;
  return true;
}

/* An input element: a number, or "nan" / "+inf" / "-inf" as written. */
static bool jval_ok(const jv *v)
{
  return v->kind == J_NUM ||
         (v->kind == J_STR && v->str && (!strcmp(v->str, "nan") || !strcmp(v->str, "+inf") || !strcmp(v->str, "-inf")));
}

static void fail(check_result *r, const char *path, const char *fmt, const char *x)
{
  r->verdict = CHECK_ERROR;
  free(r->reason);
  char *m = dg_printf(fmt, x);
  r->reason = dg_printf("%s: %s", path, m);
  free(m);
}

void check_witness_replay(const char *path, const dg_problem *p, const emu_kernels *k, check_result *r)
{
  memset(r, 0, sizeof *r);
  r->writer_launch = -1;
  r->tensor = -1;
  size_t len;
  char *text = dg_read_file(path, &len);
  if (!text) { fail(r, path, "cannot read: %s", strerror(errno)); return; }
  dg_arena a = {0};
  jp P = { text, &a, NULL };
  jv *root = jparse(&P, 0);
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  double **in = dg_calloc(p->tensors.n + 1, sizeof *in);
  dg_problem_default_sizes(p, sizes);
  jv *tn = jget(root, "tensor", J_STR), *ix = jget(root, "index", J_ARR), *sz = jget(root, "sizes", J_OBJ);
  jv *ins = jget(root, "inputs", J_OBJ);
  if (P.err || !root) {
    int line = 1, col = 1;
    for (const char *q = text; q < P.s; q++) line += *q == '\n', col = *q == '\n' ? 1 : col + 1;
    r->verdict = CHECK_ERROR;
    r->reason = dg_printf("%s:%d:%d: not a witness: %s", path, line, col, P.err ? P.err : "empty");
    goto out;
  }
  if (!tn || !ix || !ins || !jget(root, "dirigo_witness", J_NUM)) { fail(r, path, "not a dirigo check witness%s", ""); goto out; }
  r->tensor = dg_problem_tensor(p, tn->str);
  if (r->tensor < 0 || p->tensors.v[r->tensor].role != DG_TENSOR_OUTPUT) {
    fail(r, path, "the problem has no output '%s'", tn->str);
    goto out;
  }
  for (size_t i = 0; sz && i < sz->keys.n; i++) {
    int s = dg_problem_size(p, sz->keys.v[i]);
    if (s < 0) { fail(r, path, "the problem has no size '%s'", sz->keys.v[i]); goto out; }
    if (!jint(sz->items.v[i], &sizes[s])) { fail(r, path, "size '%s' is not an integer", sz->keys.v[i]); goto out; }
  }
  dg_diags d = {0};
  bool ok = dg_problem_check_sizes(p, sizes, &d);
  dg_diags_free(&d);
  if (!ok) { fail(r, path, "the witness's sizes break the problem's constraints%s", ""); goto out; }
  const dg_tensor *ts = &p->tensors.v[r->tensor];
  int64_t dims[8];
  if (ix->items.n != ts->shape.n || ts->shape.n > 8 || !dg_problem_shape(p, r->tensor, sizes, dims, NULL)) {
    fail(r, path, "the index does not match the rank of '%s'", ts->name);
    goto out;
  }
  r->nidx = (int)ix->items.n;
  int64_t flat = 0;
  for (int i = 0; i < r->nidx; i++) {
    if (!jint(ix->items.v[i], &r->index[i])) { fail(r, path, "the index of '%s' holds a non-integer", ts->name); goto out; }
    if (r->index[i] < 0 || r->index[i] >= dims[i]) { fail(r, path, "index outside '%s'", ts->name); goto out; }
    flat = flat * dims[i] + r->index[i];
  }
  jv *lz = jget(root, "lazy_inputs", J_NUM), *blk = jget(root, "block", J_NUM), *ops = jget(root, "max_lane_ops", J_NUM);
  if (lz) {             /* a huge instance's engine finding: its block alone again */
    int64_t b, n = 0, seed = 1;
    jv *sd = jget(root, "seed", J_NUM);
    if (!blk || !jint(blk, &b) || b < 0 || (ops && (!jint(ops, &n) || n < 0)) || (sd && !jint(sd, &seed))) {
      fail(r, path, "a witness of lazy inputs needs its block (and max_lane_ops, seed) as integers%s", "");
      goto out;
    }
    int64_t idx[8];
    memcpy(idx, r->index, sizeof idx);
    int t = r->tensor, rank = r->nidx;
    check_block_replay(p, k, sizes, t, idx, rank, (uint64_t)seed, b, (uint64_t)n, r);
    free(r->sizes);
    r->sizes = NULL;
    goto out;
  }
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *it = &p->tensors.v[t];
    if (it->role != DG_TENSOR_INPUT && !it->accumulate) continue;
    jv *arr = jget(ins, it->name, J_ARR);
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    if (!arr || (int64_t)arr->items.n != n) { fail(r, path, "inputs of '%s' missing or of the wrong length", it->name); goto out; }
    for (int64_t i = 0; i < n; i++)
      if (!jval_ok(arr->items.v[i])) { fail(r, path, "inputs of '%s': an element is not a number (nor \"nan\", \"+inf\", \"-inf\")", it->name); goto out; }
    in[t] = dg_malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) in[t][i] = jnum(arr->items.v[i]);
  }
  double got, want;
  r->flat = flat;
  double t0 = dg_now();
  bool differs = check_replay(p, k, sizes, r->tensor, r->index, flat, in, &got, &want, 0, NULL);
  r->t_replay = r->t_total = dg_now() - t0;
  r->have_values = true;
  r->kernel_value = got, r->ref_value = want;
  r->verdict = differs ? CHECK_BUG : CHECK_UNKNOWN;
  r->reason = differs ? dg_printf("kernel %.9g vs reference %.9g (replayed on the emulator)", got, want)
                      : dg_printf("did not reproduce: kernel %.9g, reference %.9g agree within tolerance", got, want);
  simt_event ev;     /* a witness of an engine finding (a division by zero) whose value may be right, or of
                      * a race on global memory (the value the emulator's order gives is not the point) */
  if (check_replay_event(p, k, sizes, in, NULL, SIMT_EV__COUNT, &ev, 0, NULL) && (!differs || ev.gmem)) {
    dg_buf b = {0};
    simt_event_format(&b, &k->sm, &ev);
    free(r->reason);
    r->verdict = check_event_kind_verdict(ev.kind);
    r->reason = dg_printf("%s (replayed on the emulator; kernel %.9g, reference %.9g)", b.s ? b.s : simt_event_name(ev.kind),
                          got, want);
    dg_buf_free(&b);
    r->have_event = true;
    r->event = ev;
  }
  jv *opn = jget(root, "op", J_STR);   /* absent in witnesses written before session 13 */
  if (opn && opn->str && p->op_name && strcmp(opn->str, p->op_name)) {
    char *m = dg_printf("%s (the witness was written for op '%s'; this problem's op is '%s')", r->reason, opn->str,
                        p->op_name);
    free(r->reason);
    r->reason = m;
  }
out:
  r->sizes = sizes;
  r->nsizes = p->sizes.n;
  r->inputs = in;
  r->ntensors = (int)p->tensors.n;
  r->numel = dg_calloc(p->tensors.n + 1, sizeof *r->numel);
  for (size_t t = 0; t < p->tensors.n; t++) if (in[t]) r->numel[t] = dg_problem_numel(p, (int)t, sizes);
  jfree(root);
  dg_arena_free(&a);
  free(text);
}
