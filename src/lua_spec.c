/* lua_spec.c — a problem spec (Lua table) and its op (lua/ops/NAME.lua, or
 * inline) turned into an engine dg_problem: op loading, attributes, sizes and
 * tensors. The remaining fields (launches, constraints, …) are in
 * lua_spec_fields.c. Every error names file:line:col through lua_locate.c. */
#include "lua_spec_int.h"
#include <stdlib.h>
#include <string.h>

/* ---- positions ------------------------------------------------------------------ */
dg_span dgl_span_at(sctx *c, uint32_t file, size_t off)
{
  if (off == SIZE_MAX) return c->p->span;
  return dg_problem_span_of(c->p, file, off);
}

size_t dgl_spec_key(sctx *c, const char *key) { return dgl_find_key(c->stext, c->sbase, key); }

void dgl_err(sctx *c, dg_span sp, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *m = dg_vprintf(fmt, ap);
  va_end(ap);
  dg_diag_add(c->d, DG_SEV_ERROR, sp, "%s", m);
  free(m);
}

/* A value as the text of an expression or a template/define argument. */
char *dgl_value_text(lua_State *L, int i)
{
  switch (lua_type(L, i)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, i)) return dg_printf("%lld", (long long)lua_tointeger(L, i));
    return dg_printf("%.17g", lua_tonumber(L, i));
  case LUA_TBOOLEAN: return dg_strdup(lua_toboolean(L, i) ? "true" : "false");
  case LUA_TSTRING: return dg_strdup(lua_tostring(L, i));
  default: return NULL;
  }
}

/* Keys of the table at idx, in the order they are written in text (after from). */
size_t dgl_keys_in_order(lua_State *L, int idx, const char *text, size_t from, char ***out)
{
  idx = lua_absindex(L, idx);
  DG_VEC(char *) k = {0};
  DG_VEC(size_t) pos = {0};
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) continue;
    const char *s = lua_tostring(L, -1);
    dg_vec_push(&k, dg_strdup(s));
    dg_vec_push(&pos, text ? dgl_find_key(text, from == SIZE_MAX ? 0 : from, s) : SIZE_MAX);
  }
  for (size_t i = 1; i < k.n; i++)      /* insertion sort: by position, then by name */
    for (size_t j = i; j > 0; j--) {
      bool swap = pos.v[j] < pos.v[j - 1] || (pos.v[j] == pos.v[j - 1] && strcmp(k.v[j], k.v[j - 1]) < 0);
      if (!swap) break;
      char *t = k.v[j]; k.v[j] = k.v[j - 1]; k.v[j - 1] = t;
      size_t q = pos.v[j]; pos.v[j] = pos.v[j - 1]; pos.v[j - 1] = q;
    }
  dg_vec_free(&pos);
  *out = k.v;
  return k.n;
}

void dgl_free_keys(char **k, size_t n)
{
  for (size_t i = 0; i < n; i++) free(k[i]);
  free(k);
}

/* ---- the op ---------------------------------------------------------------------- */
static size_t edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (lb >= 64) return SIZE_MAX;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

const char *dgl_closest(const char *name, const char *const *cands, size_t n)
{
  size_t best = 3;
  const char *pick = NULL;
  for (size_t i = 0; i < n; i++) {
    size_t dist = edit_distance(name, cands[i]);
    if (dist < best) best = dist, pick = cands[i];
  }
  return pick;
}

/* The closest op name within two edits, or NULL; caller frees. */
static char *suggest_op(const char *name)
{
  size_t n;
  char **names = dgl_op_list(&n);
  const char *near = dgl_closest(name, (const char *const *)names, n);
  char *pick = near ? dg_strdup(near) : NULL;
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return pick;
}

static bool load_op_file(sctx *c, const char *name, dg_span use)
{
  char *path = dgl_op_find(name);
  if (!path) {
    char *s = suggest_op(name);
    if (s) dgl_err(c, use, "unknown op '%s' (did you mean '%s'?)", name, s);
    else dgl_err(c, use, "unknown op '%s' (dirigo run -e 'for _, n in ipairs(dirigo.ops()) do print(n) end' lists them)", name);
    free(s);
    return false;
  }
  c->ofile = dg_srcmgr_load(&c->p->sm, path);
  if (!c->ofile) {
    dgl_err(c, use, "cannot read op file %s", path);
    free(path);
    return false;
  }
  c->otext = c->p->sm.files.v[c->ofile].text;
  c->p->op_path = path;
  dgl_push_env(c->L, DGL_ENV_OP);
  bool good = dgl_run_chunk(c->L, c->otext, c->p->sm.files.v[c->ofile].len, path, -1, c->p, c->ofile, c->d);
  lua_remove(c->L, good ? -2 : -1);
  if (!good) return false;
  if (lua_type(c->L, -1) != LUA_TTABLE) {
    dgl_err(c, (dg_span){ c->ofile, 1, 1 }, "an op file must return op \"%s\" { … }", name);
    lua_pop(c->L, 1);
    return false;
  }
  return true;
}

bool dgl_load_op(sctx *c)
{
  lua_State *L = c->L;
  size_t key = dgl_spec_key(c, "op");
  int ty = lua_getfield(L, c->spec, "op");
  if (ty == LUA_TSTRING) {
    const char *name = lua_tostring(L, -1);
    c->p->op_name = dg_strdup(name);
    size_t at = dgl_find_string(c->stext, key == SIZE_MAX ? c->sbase : key, name);
    lua_pop(L, 1);
    if (!load_op_file(c, c->p->op_name, dgl_span_at(c, c->sfile, at == SIZE_MAX ? key : at))) return false;
  } else if (ty == LUA_TTABLE) {
    c->ofile = c->sfile;                /* inline op: positions are in the spec */
    c->otext = c->stext;
    lua_getfield(L, -1, "name");
    c->p->op_name = dg_strdup(lua_isstring(L, -1) ? lua_tostring(L, -1) : "inline");
    lua_pop(L, 1);
  } else {
    lua_pop(L, 1);
    dgl_err(c, dgl_span_at(c, c->sfile, key), ty == LUA_TNIL ? "missing field 'op' (the name of an op in lua/ops/, or an op table)"
                                                         : "field 'op' must be an op name or an op table");
    return false;
  }
  c->op = lua_gettop(L);
  if (lua_getfield(L, c->op, "inputs") != LUA_TTABLE || lua_getfield(L, c->op, "outputs") != LUA_TTABLE) {
    dgl_err(c, (dg_span){ c->ofile, 1, 1 }, "op '%s' needs tables 'inputs' and 'outputs'", c->p->op_name);
    lua_settop(L, c->op);
    return false;
  }
  lua_settop(L, c->op);
  return true;
}

/* ---- attributes ------------------------------------------------------------------ */
static bool add_attr(sctx *c, const char *name, int vi, dg_span sp)
{
  lua_State *L = c->L;
  dg_attr a = { .name = dg_strdup(name) };
  switch (lua_type(L, vi)) {
  case LUA_TNUMBER:
    a.f = lua_tonumber(L, vi);
    if (lua_isinteger(L, vi)) a.kind = DG_ATTR_INT, a.i = lua_tointeger(L, vi);
    else a.kind = DG_ATTR_FLOAT;
    break;
  case LUA_TBOOLEAN: a.kind = DG_ATTR_BOOL, a.i = lua_toboolean(L, vi), a.f = (double)a.i; break;
  case LUA_TSTRING: a.kind = DG_ATTR_STR, a.s = dg_strdup(lua_tostring(L, vi)); break;
  case LUA_TTABLE:
    a.kind = DG_ATTR_LIST;
    for (lua_Integer i = 1; lua_rawgeti(L, vi, i) == LUA_TNUMBER; i++) {
      dg_vec_push(&a.list, lua_tonumber(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    break;
  default:
    dgl_err(c, sp, "attribute '%s' is a %s (a number, boolean, string or list expected)", name, luaL_typename(L, vi));
    free(a.name);
    return false;
  }
  int old = dg_problem_attr(c->p, name);
  if (old >= 0) {          /* the spec overrides the op's default */
    dg_attr *o = &c->p->attrs.v[old];
    free(o->name);
    free(o->s);
    dg_vec_free(&o->list);
    *o = a;
  } else dg_vec_push(&c->p->attrs, a);
  return true;
}

/* Merges op.attrs and spec.attrs into c->attrs (a Lua table) and p->attrs. */
bool dgl_load_attrs(sctx *c)
{
  lua_State *L = c->L;
  bool good = true;
  lua_newtable(L);
  c->attrs = lua_gettop(L);
  const struct { int tbl; uint32_t file; const char *text; size_t from; } src[2] = {
    { c->op, c->ofile, c->otext, c->ofile == c->sfile ? c->sbase : 0 },
    { c->spec, c->sfile, c->stext, c->sbase },
  };
  for (int s = 0; s < 2; s++) {
    size_t at = dgl_find_key(src[s].text, src[s].from, "attrs");
    int ty = lua_getfield(L, src[s].tbl, "attrs");
    if (ty != LUA_TTABLE) {
      if (ty != LUA_TNIL) dgl_err(c, dgl_span_at(c, src[s].file, at), "field 'attrs' must be a table"), good = false;
      lua_pop(L, 1);
      continue;
    }
    char **keys;
    size_t n = dgl_keys_in_order(L, -1, src[s].text, at, &keys);
    for (size_t i = 0; i < n; i++) {
      lua_getfield(L, -1, keys[i]);
      size_t ko = at == SIZE_MAX ? SIZE_MAX : dgl_find_key(src[s].text, at, keys[i]);
      good &= add_attr(c, keys[i], lua_gettop(L), dgl_span_at(c, src[s].file, ko));
      lua_setfield(L, c->attrs, keys[i]);
    }
    dgl_free_keys(keys, n);
    lua_pop(L, 1);
  }
  return good;
}

/* ---- sizes ------------------------------------------------------------------------- */
static void op_size_info(sctx *c, dg_size *z)
{
  lua_State *L = c->L;
  int top = lua_gettop(L);
  if (lua_getfield(L, c->op, "sizes") == LUA_TTABLE && lua_getfield(L, -1, z->name) == LUA_TTABLE) {
    z->from_op = true;
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
      if (lua_isinteger(L, -1)) dg_vec_push(&z->candidates, lua_tointeger(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  if (lua_getfield(L, c->op, "realistic") == LUA_TTABLE && lua_getfield(L, -1, z->name) != LUA_TNIL &&
      lua_isinteger(L, -1))
    z->has_realistic = true, z->realistic = lua_tointeger(L, -1);
  lua_settop(L, top);
}

/* Every size the spec gives, and then the op's sizes it did not give (an error). */
bool dgl_load_sizes(sctx *c)
{
  lua_State *L = c->L;
  size_t at = dgl_spec_key(c, "sizes");
  if (lua_getfield(L, c->spec, "sizes") != LUA_TTABLE) {
    dgl_err(c, dgl_span_at(c, c->sfile, at), lua_isnil(L, -1) ? "missing field 'sizes' (values of the op's size symbols)"
                                                             : "field 'sizes' must be a table");
    lua_pop(L, 1);
    return false;
  }
  bool good = true;
  char **keys;
  size_t n = dgl_keys_in_order(L, -1, c->stext, at, &keys);
  for (size_t i = 0; i < n; i++) {
    size_t ko = at == SIZE_MAX ? SIZE_MAX : dgl_find_key(c->stext, at, keys[i]);
    lua_getfield(L, -1, keys[i]);
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0) {
      dgl_err(c, dgl_span_at(c, c->sfile, ko), "size '%s' must be a non-negative integer", keys[i]);
      good = false;
    } else if (dg_problem_attr(c->p, keys[i]) >= 0) {
      dgl_err(c, dgl_span_at(c, c->sfile, ko), "'%s' is an attribute of the op, not a size (set it in attrs)", keys[i]);
      good = false;
    } else {
      dg_size z = { .name = dg_strdup(keys[i]), .value = lua_tointeger(L, -1) };
      lua_pop(L, 1);
      op_size_info(c, &z);
      dg_vec_push(&c->p->sizes, z);
      continue;
    }
    lua_pop(L, 1);
  }
  dgl_free_keys(keys, n);
  lua_pop(L, 1);
  /* the op's declared size symbols must all have values */
  if (lua_getfield(L, c->op, "sizes") == LUA_TTABLE) {
    n = dgl_keys_in_order(L, -1, NULL, 0, &keys);
    for (size_t i = 0; i < n; i++)
      if (dg_problem_size(c->p, keys[i]) < 0 && dg_problem_attr(c->p, keys[i]) < 0) {
        dgl_err(c, dgl_span_at(c, c->sfile, at), "no value for size '%s' of op '%s' (add %s = … to sizes)", keys[i],
                c->p->op_name, keys[i]);
        good = false;
      }
    dgl_free_keys(keys, n);
  }
  lua_pop(L, 1);
  return good;
}

/* ---- tensors ----------------------------------------------------------------------- */
/* The shape at the top of the stack (a list, or a function of the attributes). */
static bool read_shape(sctx *c, dg_tensor *t, uint32_t file, const char *text, size_t key)
{
  lua_State *L = c->L;
  dg_span sp = dgl_span_at(c, file, key);
  if (lua_type(L, -1) == LUA_TFUNCTION) {
    lua_pushcfunction(L, dgl_msgh);
    lua_insert(L, -2);
    lua_pushvalue(L, c->attrs);
    /* the user's Lua, run while loading: bounded as a spec file is */
    int rc = dg_lua_pcall_bounded(L, 1, 1, -3, 200, "the shape function ");
    if (rc != LUA_OK) {
      dgl_diag_from_msg(c->p, file, lua_tostring(L, -1), c->d);
      lua_pop(L, 2);
      lua_pushnil(L);
      return false;
    }
    lua_remove(L, -2);
  }
  if (lua_type(L, -1) != LUA_TTABLE) {
    dgl_err(c, sp, "the shape of %s must be a list of sizes", t->name);
    return false;
  }
  bool good = true;
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    char *txt = lua_type(L, -1) == LUA_TBOOLEAN ? NULL : dgl_value_text(L, -1);
    lua_pop(L, 1);
    if (!txt) {
      dgl_err(c, sp, "dimension %lld of %s must be a number or a size expression", (long long)i - 1, t->name);
      good = false;
      continue;
    }
    size_t off = key == SIZE_MAX ? SIZE_MAX : dgl_find_string(text, key, txt);
    dg_pexpr x = {0};
    good &= dg_pexpr_init(&x, txt, sp, off, c->p, c->d);
    dg_vec_push(&t->shape, x);
    free(txt);
  }
  return good;
}

static bool in_list(lua_State *L, int tbl, const char *field, const char *name)
{
  bool found = false;
  if (lua_getfield(L, tbl, field) == LUA_TTABLE)
    for (lua_Integer i = 1; !found && lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
      found = lua_isstring(L, -1) && !strcmp(lua_tostring(L, -1), name);
      lua_pop(L, 1);
    }
  lua_pop(L, 1);
  return found;
}

static bool flag_set(lua_State *L, int tbl, const char *field, const char *name)
{
  bool v = false;
  if (lua_getfield(L, tbl, field) == LUA_TTABLE) {
    lua_getfield(L, -1, name);
    v = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return v;
}

static bool load_role(sctx *c, const char *field, dg_tensor_role role, int *count)
{
  lua_State *L = c->L;
  size_t from = c->ofile == c->sfile ? c->sbase : 0;
  size_t at = dgl_find_key(c->otext, from, field);
  lua_getfield(L, c->op, field);
  char **keys;
  size_t n = dgl_keys_in_order(L, -1, c->otext, at, &keys);
  bool good = true;
  for (size_t i = 0; i < n; i++) {
    dg_tensor t = { .name = dg_strdup(keys[i]), .role = role, .dtype = c->p->dtype };
    size_t ko = at == SIZE_MAX ? SIZE_MAX : dgl_find_key(c->otext, at, keys[i]);
    t.span = dgl_span_at(c, c->ofile, ko);
    lua_getfield(L, -1, keys[i]);
    good &= read_shape(c, &t, c->ofile, c->otext, ko);
    lua_pop(L, 1);
    t.accumulate = role == DG_TENSOR_OUTPUT && in_list(L, c->op, "accumulate", keys[i]);
    t.positive = flag_set(L, c->op, "positive", keys[i]);
    dg_vec_push(&c->p->tensors, t);
    ++*count;
  }
  dgl_free_keys(keys, n);
  lua_pop(L, 1);
  return good;
}

bool dgl_load_tensors(sctx *c)
{
  return load_role(c, "inputs", DG_TENSOR_INPUT, &c->p->n_inputs) &
         load_role(c, "outputs", DG_TENSOR_OUTPUT, &c->p->n_outputs);
}

/* scratch = { part = { shape = {"N"}, dtype = "f32", zero_bytes = "4" } } */
bool dgl_load_scratch(sctx *c)
{
  lua_State *L = c->L;
  size_t at = dgl_spec_key(c, "scratch");
  int ty = lua_getfield(L, c->spec, "scratch");
  bool good = true;
  if (ty != LUA_TTABLE) {
    if (ty != LUA_TNIL) dgl_err(c, dgl_span_at(c, c->sfile, at), "field 'scratch' must be a table of buffers"), good = false;
    lua_pop(L, 1);
    return good;
  }
  char **keys;
  size_t n = dgl_keys_in_order(L, -1, c->stext, at, &keys);
  for (size_t i = 0; i < n; i++) {
    size_t ko = at == SIZE_MAX ? SIZE_MAX : dgl_find_key(c->stext, at, keys[i]);
    dg_span sp = dgl_span_at(c, c->sfile, ko);
    if (dg_problem_tensor(c->p, keys[i]) >= 0) {
      dgl_err(c, sp, "scratch buffer '%s' has the name of a tensor of the op", keys[i]);
      good = false;
      continue;
    }
    dg_tensor t = { .name = dg_strdup(keys[i]), .role = DG_TENSOR_SCRATCH, .dtype = c->p->dtype, .span = sp };
    if (lua_getfield(L, -1, keys[i]) != LUA_TTABLE) {
      dgl_err(c, sp, "scratch buffer '%s' must be a table { shape = …, dtype = …, zero_bytes = … }", keys[i]);
      good = false;
    } else {
      lua_getfield(L, -1, "shape");
      good &= read_shape(c, &t, c->sfile, c->stext, ko);
      lua_pop(L, 1);
      if (lua_getfield(L, -1, "dtype") == LUA_TSTRING) {
        int dt = dg_dtype_parse(lua_tostring(L, -1));
        if (dt < 0) dgl_err(c, sp, "unknown dtype '%s'", lua_tostring(L, -1)), good = false;
        else t.dtype = (dg_dtype)dt;
      }
      lua_pop(L, 1);
      if (lua_getfield(L, -1, "zero_bytes") != LUA_TNIL) {
        char *txt = dgl_value_text(L, -1);
        size_t zk = ko == SIZE_MAX ? SIZE_MAX : dgl_find_key(c->stext, ko, "zero_bytes");
        size_t off = txt && zk != SIZE_MAX ? dgl_find_string(c->stext, zk, txt) : SIZE_MAX;
        if (txt) good &= dg_pexpr_init(&t.zero_bytes, txt, dgl_span_at(c, c->sfile, zk), off, c->p, c->d);
        else dgl_err(c, sp, "zero_bytes must be a number or a size expression"), good = false;
        free(txt);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    dg_vec_push(&c->p->tensors, t);
    c->p->n_scratch++;
  }
  dgl_free_keys(keys, n);
  lua_pop(L, 1);
  return good;
}

/* Size symbols used in shapes that neither the op's sizes nor attrs name, but
 * the spec gives, were added by load_sizes; the rest are reported by finish. */
