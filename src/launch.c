/* launch.c — parser for CUDA launch syntax: kernel name, template arguments,
 * the <<<…>>> configuration and the argument list, split at top-level commas. */
#include "launch.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { size_t b, e; } range;   /* [b, e) in the launch text */
typedef DG_VEC(range) ranges;

static bool has_scope(const char *s, size_t b, size_t e)   /* "::" in s[b, e) */
{
  for (size_t i = b; i + 1 < e; i++)
    if (s[i] == ':' && s[i + 1] == ':') return true;
  return false;
}

static bool lerr(dg_sexpr_err *err, size_t pos, const char *msg)
{
  err->pos = pos;
  snprintf(err->msg, sizeof err->msg, "%s", msg);
  return false;
}

static range trim(const char *s, range r)
{
  while (r.b < r.e && isspace((unsigned char)s[r.b])) r.b++;
  while (r.e > r.b && isspace((unsigned char)s[r.e - 1])) r.e--;
  return r;
}

/* Splits s[r] at commas outside (), [], {} (and <> when angles is set). */
static bool split(const char *s, range r, bool angles, ranges *out, dg_sexpr_err *err)
{
  int depth = 0;
  size_t start = r.b, outer = r.b;
  for (size_t i = r.b; i < r.e; i++) {
    char c = s[i];
    bool tag_angle = !angles && (c == '<' || c == '>') && has_scope(s, start, i);
    if (c == '(' || c == '[' || c == '{' || ((angles || tag_angle) && c == '<')) {
      if (depth++ == 0) outer = i;
    } else if (c == ')' || c == ']' || c == '}' || ((angles || tag_angle) && c == '>')) {
      if (--depth < 0) return lerr(err, i, "unbalanced brackets");
    } else if (c == ',' && depth == 0) {
      dg_vec_push(out, trim(s, (range){ start, i }));
      start = i + 1;
    }
  }
  if (depth != 0) return lerr(err, outer, "unbalanced brackets: this one is not closed");
  dg_vec_push(out, trim(s, (range){ start, r.e }));
  return true;
}

static dg_sexpr *parse_at(const char *s, range r, dg_sexpr_err *err)
{
  char *t = dg_strndup(s + r.b, r.e - r.b);
  dg_sexpr *e = dg_sexpr_parse(t, err);
  free(t);
  if (!e) err->pos += r.b;
  return e;
}

static bool starts(const char *s, range r, const char *p)
{
  size_t n = strlen(p);
  return r.e - r.b >= n && !strncmp(s + r.b, p, n);
}

static bool parse_dim(const char *s, range r, dg_dim3 *d, dg_sexpr_err *err)
{
  r = trim(s, r);
  if (r.b == r.e) return lerr(err, r.b, "empty launch dimension");
  range inner = r;
  bool list = false;
  if (starts(s, r, "dim3") && s[r.e - 1] == ')') {
    size_t p = r.b + 4;
    while (p < r.e && isspace((unsigned char)s[p])) p++;
    if (s[p] != '(') return lerr(err, p, "expected '(' after dim3");
    inner = (range){ p + 1, r.e - 1 }, list = true;
  } else if (s[r.b] == '{' && s[r.e - 1] == '}') inner = (range){ r.b + 1, r.e - 1 }, list = true;
  ranges parts = {0};
  if (list) {
    if (!split(s, inner, false, &parts, err)) return dg_vec_free(&parts), false;
  } else dg_vec_push(&parts, r);
  bool good = parts.n >= 1 && parts.n <= 3;
  if (!good) lerr(err, r.b, "a launch dimension has 1 to 3 components");
  for (size_t i = 0; good && i < parts.n; i++) {
    d->off[i] = parts.v[i].b;
    d->e[i] = parse_at(s, parts.v[i], err);
    good = d->e[i] != NULL;
  }
  d->n = (int)parts.n;
  dg_vec_free(&parts);
  return good;
}

static bool is_float_lit(const char *t, double *f)
{
  if (!strpbrk(t, ".eE") || strstr(t, "0x") || strstr(t, "0X")) return false;
  char *end;
  *f = strtod(t, &end);
  if (end == t) return false;
  if (*end == 'f' || *end == 'F') end++;
  return *end == 0;
}

static bool parse_arg(const char *s, range r, dg_launch_arg *a, dg_sexpr_err *err)
{
  a->text = dg_strndup(s + r.b, r.e - r.b);
  a->off = r.b;
  const char *t = a->text;
  if (!*t) return lerr(err, r.b, "empty launch argument");
  if (!strcmp(t, "NULL") || !strcmp(t, "nullptr")) a->kind = DG_ARG_NULL;
  else if (!strcmp(t, "true") || !strcmp(t, "false")) a->kind = DG_ARG_BOOL, a->i = t[0] == 't';
  else if (strstr(t, "::") || (strlen(t) > 2 && !strcmp(t + strlen(t) - 2, "{}"))) a->kind = DG_ARG_TAG;
  else if (is_float_lit(t, &a->f)) a->kind = DG_ARG_FLOAT;
  else {
    a->kind = DG_ARG_EXPR;
    a->expr = parse_at(s, r, err);
    if (!a->expr) return false;
  }
  return true;
}

static void parse_targs(dg_launch *l, const char *s, range r, dg_sexpr_err *err, bool *good)
{
  ranges parts = {0};
  if (!split(s, r, true, &parts, err)) *good = false;
  for (size_t i = 0; *good && i < parts.n; i++) {
    if (parts.v[i].b == parts.v[i].e) *good = lerr(err, parts.v[i].b, "empty template argument");
    else dg_vec_push(&l->targs, dg_strndup(s + parts.v[i].b, parts.v[i].e - parts.v[i].b));
  }
  dg_vec_free(&parts);
}

/* kernel[<targs>] before "<<<" */
static bool parse_head(dg_launch *l, const char *s, range r, dg_sexpr_err *err)
{
  r = trim(s, r);
  size_t lt = r.b;
  while (lt < r.e && s[lt] != '<') lt++;
  range name = trim(s, (range){ r.b, lt });
  size_t i = name.b;
  while (i < name.e && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':')) i++;
  if (name.b == name.e || i != name.e || isdigit((unsigned char)s[name.b]))
    return lerr(err, name.b, "expected a kernel name before '<<<'");
  l->kernel = dg_strndup(s + name.b, name.e - name.b);
  if (lt == r.e) return true;
  if (s[r.e - 1] != '>') return lerr(err, r.e, "expected '>' closing the template arguments");
  bool good = true;
  parse_targs(l, s, (range){ lt + 1, r.e - 1 }, err, &good);
  return good;
}

dg_launch *dg_launch_parse(const char *text, dg_sexpr_err *err)
{
  dg_launch *l = dg_calloc(1, sizeof *l);
  l->text = dg_strdup(text);
  l->file_off = SIZE_MAX;
  const char *s = l->text;
  size_t len = strlen(s);
  const char *open = strstr(s, "<<<");
  const char *close = open ? strstr(open + 3, ">>>") : NULL;
  bool good = true;
  if (!open) good = lerr(err, 0, "expected '<<<' (kernel<<<grid, block>>>(args))");
  else if (!close) good = lerr(err, (size_t)(open - s) + 3, "expected '>>>' closing the launch configuration");
  if (good) good = parse_head(l, s, (range){ 0, (size_t)(open - s) }, err);
  ranges cfg = {0};
  if (good) good = split(s, (range){ (size_t)(open - s) + 3, (size_t)(close - s) }, false, &cfg, err);
  if (good && (cfg.n < 2 || cfg.n > 4))
    good = lerr(err, (size_t)(open - s) + 3, "the launch configuration is grid, block[, shared[, stream]]");
  if (good) good = parse_dim(s, cfg.v[0], &l->grid, err) && parse_dim(s, cfg.v[1], &l->block, err);
  if (good && cfg.n >= 3) {
    l->shared_off = cfg.v[2].b;
    l->shared = parse_at(s, cfg.v[2], err);
    good = l->shared != NULL;
  }
  if (good && cfg.n == 4) l->stream = dg_strndup(s + cfg.v[3].b, cfg.v[3].e - cfg.v[3].b);
  dg_vec_free(&cfg);
  if (good) {
    range rest = trim(s, (range){ (size_t)(close - s) + 3, len });
    if (rest.b < rest.e && s[rest.e - 1] == ';') rest = trim(s, (range){ rest.b, rest.e - 1 });
    if (rest.b == rest.e || s[rest.b] != '(') good = lerr(err, rest.b, "expected '(' and the kernel arguments");
    else if (s[rest.e - 1] != ')') good = lerr(err, rest.e, "expected ')' closing the kernel arguments");
    ranges args = {0};
    range inner = trim(s, (range){ rest.b + 1, rest.e - 1 });
    if (good && inner.b < inner.e) good = split(s, inner, false, &args, err);
    for (size_t i = 0; good && i < args.n; i++) {
      dg_launch_arg a = {0};
      good = parse_arg(s, args.v[i], &a, err);
      dg_vec_push(&l->args, a);
    }
    dg_vec_free(&args);
  }
  if (!good) {
    dg_launch_free(l);
    return NULL;
  }
  return l;
}

void dg_launch_free(dg_launch *l)
{
  if (!l) return;
  for (int i = 0; i < 3; i++) {
    dg_sexpr_free(l->grid.e[i]);
    dg_sexpr_free(l->block.e[i]);
  }
  dg_sexpr_free(l->shared);
  for (size_t i = 0; i < l->targs.n; i++) free(l->targs.v[i]);
  dg_vec_free(&l->targs);
  for (size_t i = 0; i < l->args.n; i++) {
    free(l->args.v[i].text);
    dg_sexpr_free(l->args.v[i].expr);
  }
  dg_vec_free(&l->args);
  free(l->kernel);
  free(l->stream);
  free(l->text);
  free(l);
}

static bool eval_dim(const dg_dim3 *d, const dg_symtab *st, int64_t out[3], dg_sexpr_err *err)
{
  for (int i = 0; i < 3; i++) {
    out[i] = 1;
    if (i >= d->n) continue;
    if (!dg_sexpr_eval(d->e[i], st, &out[i], err)) {
      err->pos += d->off[i];
      return false;
    }
    if (out[i] < 1) {
      err->pos = d->off[i];
      snprintf(err->msg, sizeof err->msg, "launch dimension is %lld (must be at least 1)", (long long)out[i]);
      return false;
    }
  }
  return true;
}

bool dg_launch_dims(const dg_launch *l, const dg_symtab *st, int64_t grid[3], int64_t block[3],
                    int64_t *shared, dg_sexpr_err *err)
{
  if (!eval_dim(&l->grid, st, grid, err) || !eval_dim(&l->block, st, block, err)) return false;
  *shared = 0;
  if (l->shared && !dg_sexpr_eval(l->shared, st, shared, err)) {
    err->pos += l->shared_off;
    return false;
  }
  if (*shared < 0) {
    err->pos = l->shared_off;
    snprintf(err->msg, sizeof err->msg, "dynamic shared memory is %lld bytes", (long long)*shared);
    return false;
  }
  /* A GPU block has at most 227 KiB; the emulator takes more (huge cases of
   * conv2d ask ~320 KB) but not what it cannot allocate (100 GB aborted it). */
  if (*shared > ((int64_t)1 << 30)) {
    err->pos = l->shared_off;
    snprintf(err->msg, sizeof err->msg, "dynamic shared memory is %lld bytes (the emulator takes at most 1 GiB; a GPU block 227 KiB)",
             (long long)*shared);
    return false;
  }
  return true;
}
