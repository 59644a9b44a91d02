/* lua_spec_fields.c — the spec's remaining fields (dtypes, ranges, launches,
 * constraints, tolerance, defines, template, source, seeded_bug) and the
 * loader's driver, dg_spec_load. */
#include "lua_spec_int.h"
#include <stdlib.h>
#include <errno.h>
#include <string.h>

static bool field_type(sctx *c, int tbl, const char *field, int want, size_t *at)
{
  *at = dgl_spec_key(c, field);
  int ty = lua_getfield(c->L, tbl, field);
  if (ty == want) return true;
  if (ty != LUA_TNIL) dgl_err(c, dgl_span_at(c, c->sfile, *at), "field '%s' must be a %s", field, lua_typename(c->L, want));
  lua_pop(c->L, 1);
  return false;
}

static bool load_dtype(sctx *c)
{
  size_t at;
  c->p->dtype = DG_DT_F32;
  if (!field_type(c, c->spec, "dtype", LUA_TSTRING, &at)) return true;   /* absent, or reported */
  int dt = dg_dtype_parse(lua_tostring(c->L, -1));
  bool good = dt >= 0;
  if (good) c->p->dtype = (dg_dtype)dt;
  else dgl_err(c, dgl_span_at(c, c->sfile, at), "unknown dtype '%s' (f32 f16 bf16 f64 i32 i64 u8 bool)", lua_tostring(c->L, -1));
  lua_pop(c->L, 1);
  return good;
}

/* field = { tensor = value, ... } of the table at tbl (dtypes, ranges), in
 * the order the text lists them: an entry must name a tensor of the op;
 * set() takes it with its value on top of the stack (the span and the
 * key's offset in text for diagnostics) and says whether it was good. */
typedef bool (*tensor_entry_fn)(sctx *c, dg_tensor *t, const char *name, dg_span sp, const char *text, size_t key_at);

static bool each_tensor_entry(sctx *c, int tbl, const char *field, uint32_t file, const char *text, size_t from,
                              tensor_entry_fn set)
{
  lua_State *L = c->L;
  size_t at = dgl_find_key(text, from, field);
  if (lua_getfield(L, tbl, field) != LUA_TTABLE) {
    lua_pop(L, 1);
    return true;
  }
  bool good = true;
  char **keys;
  size_t n = dgl_keys_in_order(L, -1, text, at, &keys);
  for (size_t i = 0; i < n; i++) {
    size_t ko = at == SIZE_MAX ? SIZE_MAX : dgl_find_key(text, at, keys[i]);
    dg_span sp = dgl_span_at(c, file, ko);
    int t = dg_problem_tensor(c->p, keys[i]);
    lua_getfield(L, -1, keys[i]);
    if (t < 0) dgl_err(c, sp, "%s names '%s', which is not a tensor of op '%s'", field, keys[i], c->p->op_name), good = false;
    else good &= set(c, &c->p->tensors.v[t], keys[i], sp, text, ko);
    lua_pop(L, 1);
  }
  dgl_free_keys(keys, n);
  lua_pop(L, 1);
  return good;
}

/* dtypes = { name = "i32" } */
static bool set_dtype(sctx *c, dg_tensor *t, const char *name, dg_span sp, const char *text, size_t key_at)
{
  int dt = lua_isstring(c->L, -1) ? dg_dtype_parse(lua_tostring(c->L, -1)) : -1;
  if (dt < 0) {
    dgl_err(c, sp, "unknown dtype for %s", name);
    return false;
  }
  t->dtype = (dg_dtype)dt;
  return true;
}

/* ranges = { targets = {0, "V-1"} } */
static bool set_range(sctx *c, dg_tensor *t, const char *name, dg_span sp, const char *text, size_t key_at)
{
  lua_State *L = c->L;
  char *lo = NULL, *hi = NULL;
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_rawgeti(L, -1, 1);
    lo = dgl_value_text(L, -1);
    lua_rawgeti(L, -2, 2);
    hi = dgl_value_text(L, -1);
    lua_pop(L, 2);
  }
  bool good = lo && hi;
  if (!good) dgl_err(c, sp, "range of %s must be {lo, hi} (inclusive)", name);
  else {
    dg_pexpr_free(&t->range_lo);
    dg_pexpr_free(&t->range_hi);
    size_t lo_at = key_at == SIZE_MAX ? SIZE_MAX : dgl_find_string(text, key_at, lo);
    size_t hi_at = key_at == SIZE_MAX ? SIZE_MAX : dgl_find_string(text, key_at, hi);
    t->has_range = dg_pexpr_init(&t->range_lo, lo, sp, lo_at, c->p, c->d) &
                   dg_pexpr_init(&t->range_hi, hi, sp, hi_at, c->p, c->d);
    good = t->has_range;
  }
  free(lo);
  free(hi);
  return good;
}

/* ---- launches ------------------------------------------------------------------------ */
static void put_dim(sctx *c, dg_buf *b, int idx, const char *what, bool *good)
{
  lua_State *L = c->L;
  if (lua_type(L, idx) == LUA_TTABLE) {
    dg_buf_puts(b, "dim3(");
    for (lua_Integer i = 1; lua_rawgeti(L, idx, i) != LUA_TNIL; i++) {
      char *t = dgl_value_text(L, -1);
      dg_buf_printf(b, "%s%s", i > 1 ? ", " : "", t ? t : "?");
      *good &= t != NULL;
      free(t);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    dg_buf_putc(b, ')');
    return;
  }
  char *t = dgl_value_text(L, idx);
  if (!t) {
    dgl_err(c, c->p->span, "launch table: %s must be a number, a size expression or a list of them", what);
    *good = false;
  }
  dg_buf_puts(b, t ? t : "1");
  free(t);
}

/* { kernel=, grid=, block=, shared=, args={…} } -> launch syntax. */
static char *compose_table(sctx *c, int idx, dg_span sp, bool *good)
{
  lua_State *L = c->L;
  dg_buf b = {0};
  if (lua_getfield(L, idx, "kernel") != LUA_TSTRING) {
    dgl_err(c, sp, "launch table needs kernel = \"name\"");
    *good = false;
  } else dg_buf_puts(&b, lua_tostring(L, -1));
  lua_pop(L, 1);
  dg_buf_puts(&b, "<<<");
  static const char *const parts[] = { "grid", "block", "shared" };
  for (int k = 0; k < 3; k++) {
    if (lua_getfield(L, idx, parts[k]) == LUA_TNIL) {
      if (k < 2) dgl_err(c, sp, "launch table needs %s = …", parts[k]), *good = false;
      lua_pop(L, 1);
      continue;
    }
    if (k) dg_buf_puts(&b, ", ");
    put_dim(c, &b, lua_gettop(L), parts[k], good);
    lua_pop(L, 1);
  }
  dg_buf_puts(&b, ">>>(");
  if (lua_getfield(L, idx, "args") == LUA_TTABLE)
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
      char *t = dgl_value_text(L, -1);
      if (!t) dgl_err(c, sp, "launch table: argument %lld must be a string or a number", (long long)i), *good = false;
      dg_buf_printf(&b, "%s%s", i > 1 ? ", " : "", t ? t : "?");
      free(t);
      lua_pop(L, 1);
    }
  lua_pop(L, 2);
  dg_buf_putc(&b, ')');
  return dg_buf_take(&b);
}

static bool add_launch(sctx *c, int idx, size_t key)
{
  lua_State *L = c->L;
  dg_span sp = dgl_span_at(c, c->sfile, key);
  bool good = true;
  char *text;
  size_t off = SIZE_MAX;
  if (lua_type(L, idx) == LUA_TSTRING) {
    text = dg_strdup(lua_tostring(L, idx));
    off = key == SIZE_MAX ? SIZE_MAX : dgl_find_string(c->stext, key, text);
  } else if (lua_type(L, idx) == LUA_TTABLE) {
    size_t kk = key == SIZE_MAX ? SIZE_MAX : dgl_find_key(c->stext, key, "kernel");
    if (kk != SIZE_MAX) sp = dgl_span_at(c, c->sfile, kk);
    text = compose_table(c, idx, sp, &good);
  } else {
    dgl_err(c, sp, "a launch is a string kernel<<<grid, block>>>(args) or a table { kernel=, grid=, block=, args= }");
    return false;
  }
  dg_sexpr_err err;
  dg_launch *l = good ? dg_launch_parse(text, &err) : NULL;
  if (good && !l) {
    dg_span at = off == SIZE_MAX ? sp : dg_problem_span_of(c->p, c->sfile, off + err.pos);
    dgl_err(c, at, "bad launch '%s': %s", text, err.msg);
    good = false;
  }
  if (l) {
    l->span = sp;
    l->file_off = off;
    dg_vec_push(&c->p->launches, l);
  }
  free(text);
  return good;
}

static bool load_launches(sctx *c)
{
  lua_State *L = c->L;
  size_t at = dgl_spec_key(c, "launch");
  int ty = lua_getfield(L, c->spec, "launch");
  bool good = true;
  if (ty == LUA_TNIL) {
    dgl_err(c, c->p->span, "missing field 'launch' (kernel<<<grid, block>>>(args))");
    good = false;
  } else if (ty == LUA_TTABLE && lua_getfield(L, -1, "kernel") == LUA_TNIL) {
    lua_pop(L, 1);
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
      good &= add_launch(c, lua_gettop(L), at);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!c->p->launches.n && good) dgl_err(c, dgl_span_at(c, c->sfile, at), "field 'launch' is an empty list"), good = false;
  } else {
    if (ty == LUA_TTABLE) lua_pop(L, 1);
    good = add_launch(c, lua_gettop(L), at);
  }
  lua_pop(L, 1);
  return good;
}

/* ---- constraints, tolerance, the small fields ----------------------------------------- */
static bool load_constraints_from(sctx *c, int tbl, uint32_t file, const char *text, size_t from, bool from_op)
{
  lua_State *L = c->L;
  size_t at = dgl_find_key(text, from, "constraints");
  if (lua_getfield(L, tbl, "constraints") != LUA_TTABLE) {
    bool bad = !lua_isnil(L, -1);
    if (bad) dgl_err(c, dgl_span_at(c, file, at), "field 'constraints' must be a list of strings");
    lua_pop(L, 1);
    return !bad;
  }
  bool good = true;
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
    if (lua_type(L, -1) != LUA_TSTRING) {
      dgl_err(c, dgl_span_at(c, file, at), "constraint %lld must be a string (\"C %% 4 == 0\")", (long long)i);
      good = false;
    } else {
      const char *s = lua_tostring(L, -1);
      dg_constraint k = { .from_op = from_op };
      good &= dg_pexpr_init(&k.e, s, dgl_span_at(c, file, at), at == SIZE_MAX ? SIZE_MAX : dgl_find_string(text, at, s),
                            c->p, c->d);
      if (k.e.e) dg_vec_push(&c->p->constraints, k);
      else dg_pexpr_free(&k.e);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return good;
}

static bool read_tol(lua_State *L, int idx, dg_tol *t)
{
  bool a = lua_getfield(L, idx, "atol") == LUA_TNUMBER, r = lua_getfield(L, idx, "rtol") == LUA_TNUMBER;
  t->atol = lua_tonumber(L, -2);
  t->rtol = lua_tonumber(L, -1);
  lua_pop(L, 2);
  return a && r;
}

static bool load_tolerance(sctx *c)
{
  lua_State *L = c->L;
  bool good = true;
  if (lua_getfield(L, c->op, "tolerance") == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      int dt = lua_type(L, -2) == LUA_TSTRING ? dg_dtype_parse(lua_tostring(L, -2)) : -1;
      dg_dtype_tol x;
      if (dt >= 0 && lua_istable(L, -1) && read_tol(L, lua_gettop(L), &x.tol)) {
        x.dtype = (dg_dtype)dt;
        dg_vec_push(&c->p->op_tol, x);
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  size_t at;
  if (field_type(c, c->spec, "tolerance", LUA_TTABLE, &at)) {
    c->p->has_tol = read_tol(L, lua_gettop(L), &c->p->tol);
    if (!c->p->has_tol) dgl_err(c, dgl_span_at(c, c->sfile, at), "tolerance needs atol = … and rtol = …"), good = false;
    lua_pop(L, 1);
  }
  return good;
}

static bool load_small(sctx *c)
{
  lua_State *L = c->L;
  dg_problem *p = c->p;
  bool good = true;
  size_t at;
  if (field_type(c, c->spec, "defines", LUA_TTABLE, &at)) {
    char **keys;
    size_t n = dgl_keys_in_order(L, -1, c->stext, at, &keys);
    for (size_t i = 0; i < n; i++) {
      lua_getfield(L, -1, keys[i]);
      char *v = lua_type(L, -1) == LUA_TBOOLEAN ? dg_strdup(lua_toboolean(L, -1) ? "1" : "0") : dgl_value_text(L, -1);
      lua_pop(L, 1);
      if (!v) {
        dgl_err(c, dgl_span_at(c, c->sfile, dgl_find_key(c->stext, at, keys[i])), "define %s must be a string or a number", keys[i]);
        good = false;
        continue;
      }
      pp_define d = { dg_strdup(keys[i]), v };
      dg_vec_push(&p->defines, d);
    }
    dgl_free_keys(keys, n);
    lua_pop(L, 1);
  }
  int ty = lua_getfield(L, c->spec, "template");
  if (ty == LUA_TTABLE) {
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
      char *v = dgl_value_text(L, -1);
      if (v) dg_vec_push(&p->templ, v);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  } else if (ty != LUA_TNIL) {
    char *v = dgl_value_text(L, -1);
    if (v) dg_vec_push(&p->templ, v);
  }
  lua_pop(L, 1);
  char *dir = dg_dirname(p->spec_path);
  if (field_type(c, c->spec, "source", LUA_TSTRING, &at)) {
    p->source = dg_path_join(dir, lua_tostring(L, -1));
    p->source_span = dgl_span_at(c, c->sfile, at);
    lua_pop(L, 1);
  }
  free(dir);
  ty = lua_getfield(L, c->spec, "seeded_bug");
  if (ty == LUA_TSTRING) p->bug_pattern = dg_strdup(lua_tostring(L, -1));
  else if (ty == LUA_TTABLE) {
    if (lua_getfield(L, -1, "pattern") == LUA_TSTRING) p->bug_pattern = dg_strdup(lua_tostring(L, -1));
    if (lua_getfield(L, -2, "detail") == LUA_TSTRING) p->bug_detail = dg_strdup(lua_tostring(L, -1));
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return good;
}

static const char *const known_fields[] = {
  "source", "defines", "template", "op", "attrs", "sizes", "dtype", "dtypes", "ranges", "launch",
  "constraints", "scratch", "tolerance", "seeded_bug", "ref", "ref_all", "name", "description", NULL,
};

static void warn_unknown(sctx *c)
{
  char **keys;
  size_t n = dgl_keys_in_order(c->L, c->spec, c->stext, c->sbase, &keys);
  for (size_t i = 0; i < n; i++) {
    const char *const *k = known_fields;
    while (*k && strcmp(*k, keys[i])) k++;
    if (*k) continue;
    const char *near = dgl_closest(keys[i], known_fields, sizeof known_fields / sizeof *known_fields - 1);
    dg_span at = dgl_span_at(c, c->sfile, dgl_spec_key(c, keys[i]));
    if (near)
      dg_diag_add(c->d, DG_SEV_WARNING, at, "unknown field '%s' in the problem (ignored; did you mean '%s'?)",
                  keys[i], near);
    else
      dg_diag_add(c->d, DG_SEV_WARNING, at, "unknown field '%s' in the problem (ignored)", keys[i]);
  }
  dgl_free_keys(keys, n);
}

/* ---- the driver ---------------------------------------------------------------------- */
static bool is_cu(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh"));
}

/* Runs the spec chunk; leaves the problem table on the stack. */
static bool run_spec(sctx *c, const char *path)
{
  const dg_srcfile *f = &c->p->sm.files.v[c->sfile];
  char *chunk = NULL;
  size_t len = f->len;
  if (is_cu(path)) {
    const char *err;
    size_t off;
    chunk = dgl_cu_block_chunk(f->text, f->len, &err, &off);
    if (!chunk) {
      /* FILE.cu given where FILE.lua beside it was meant: name the spec */
      char *spec = dg_printf("%.*s.lua", (int)(strrchr(path, '.') - path), path);
      FILE *sf = !strncmp(err, "no /*", 5) ? fopen(spec, "r") : NULL;
      if (sf) fclose(sf);
      dgl_err(c, dg_problem_span_of(c->p, c->sfile, off), "%s%s%s", err, sf ? "; its spec is " : "", sf ? spec : "");
      free(spec);
      return false;
    }
  }
  dgl_push_env(c->L, DGL_ENV_SPEC);
  bool good = dgl_run_chunk(c->L, chunk ? chunk : f->text, len, path, -1, c->p, c->sfile, c->d);
  free(chunk);
  lua_remove(c->L, good ? -2 : -1);
  if (!good) return false;
  if (lua_type(c->L, -1) != LUA_TTABLE) {
    lua_pop(c->L, 1);
    lua_getfield(c->L, LUA_REGISTRYINDEX, "dirigo.problem");
  }
  if (lua_type(c->L, -1) != LUA_TTABLE) {
    dgl_err(c, (dg_span){ c->sfile, 1, 1 }, "a spec must return problem { … }");
    return false;
  }
  return true;
}

static bool load_all(sctx *c, const char *path)
{
  if (!run_spec(c, path)) return false;
  c->spec = lua_gettop(c->L);
  const char *pw = strstr(c->stext, is_cu(path) ? "dirigo:" : "problem");
  c->sbase = pw ? (size_t)(pw - c->stext) : 0;
  c->p->span = dg_problem_span_of(c->p, c->sfile, c->sbase);
  warn_unknown(c);   /* first: a misspelt field explains the "missing field" error that follows */
  if (!dgl_load_op(c)) return false;
  bool good = dgl_load_attrs(c) & load_dtype(c);
  good &= dgl_load_sizes(c);
  good &= dgl_load_tensors(c);
  good &= dgl_load_scratch(c);
  size_t ofrom = c->ofile == c->sfile ? c->sbase : 0;
  /* the op's entries first, then the spec's */
  good &= each_tensor_entry(c, c->op, "dtypes", c->ofile, c->otext, ofrom, set_dtype)
        & each_tensor_entry(c, c->spec, "dtypes", c->sfile, c->stext, c->sbase, set_dtype);
  good &= each_tensor_entry(c, c->op, "ranges", c->ofile, c->otext, ofrom, set_range)
        & each_tensor_entry(c, c->spec, "ranges", c->sfile, c->stext, c->sbase, set_range);
  good &= load_launches(c);
  good &= load_constraints_from(c, c->op, c->ofile, c->otext, ofrom, true);
  good &= load_constraints_from(c, c->spec, c->sfile, c->stext, c->sbase, false);
  good &= load_tolerance(c) & load_small(c);
  if (is_cu(path) && !c->p->source) c->p->source = dg_strdup(path);
  return good;
}

/* The reference: spec.ref overrides op.ref; ref_all (the batch form) comes
 * from where ref comes from, so a spec's ref never runs next to the op's
 * ref_all. Hands L to the problem on success. */
static bool install_ref(sctx *c)
{
  lua_State *L = c->L;
  int from = c->spec;
  if (lua_getfield(L, c->spec, "ref") == LUA_TNIL) {
    lua_pop(L, 1);
    lua_getfield(L, c->op, "ref");
    from = c->op;
  }
  int ty = lua_getfield(L, from, "ref_all");
  if (ty != LUA_TNIL && ty != LUA_TFUNCTION && ty != LUA_TTABLE) {
    dgl_err(c, from == c->op && c->ofile ? (dg_span){ c->ofile, 1, 1 } : c->p->span,
            "ref_all of op '%s' is a %s (a function, or a table of them by output)", c->p->op_name,
            lua_typename(L, ty));
    lua_pop(L, 2);
    return false;
  }
  lua_insert(L, -2);
  if (lua_type(L, -1) != LUA_TFUNCTION && lua_type(L, -1) != LUA_TTABLE) {
    dgl_err(c, c->ofile ? (dg_span){ c->ofile, 1, 1 } : c->p->span, "op '%s' has no ref (a function, or a table of them by output)",
            c->p->op_name);
    return false;
  }
  dgl_ref_install(L, c->p, -1, -2, c->attrs);
  lua_pop(L, 2);
  return true;
}

dg_problem *dg_spec_load(const char *path, dg_diags *d)
{
  dg_problem *p = dg_problem_new();
  p->spec_path = dg_strdup(path);
  sctx c = { .p = p, .d = d };
  c.sfile = dg_srcmgr_load(&p->sm, path);
  if (!c.sfile) {
    int why = errno;
    c.sfile = dg_srcmgr_add(&p->sm, path, dg_strdup(""), 0);
    dg_diag_add(d, DG_SEV_ERROR, (dg_span){ c.sfile, 1, 1 }, "cannot read the spec: %s", strerror(why));
    return p;
  }
  c.stext = p->sm.files.v[c.sfile].text;
  c.L = dgl_newstate();
  int errs = d->nerrors;
  bool good = load_all(&c, path) && d->nerrors == errs;
  if (good && install_ref(&c)) {
    /* L belongs to the reference now */
    dg_problem_finish(p, d);
    return p;
  }
  lua_close(c.L);
  if (d->nerrors == errs) dg_diag_add(d, DG_SEV_ERROR, p->span, "problem could not be loaded");
  return p;
}

char **dg_ops_list(size_t *n) { return dgl_op_list(n); }
char *dg_ops_find(const char *name) { return dgl_op_find(name); }
