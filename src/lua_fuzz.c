/* lua_fuzz.c — fuzzing from the `dirigo` module (scripts): dirigo.fuzz runs a
 * campaign on the emulator and returns its summary as a table,
 * dirigo.replay reruns one witness, dirigo.strategies lists the built-in and
 * Lua strategies. The Lua strategies are loaded on first use and dropped when
 * the last state that opened the module closes. doc/lua-api.md documents it. */
#include "lua_int.h"
#include "lua_fuzz.h"
#include "fuzz_run.h"
#include "fe.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL_MT "dirigo.fuzz.sentinel"

static int nopen;                /* states holding the module: the last one unloads */
static char *load_errors;        /* diagnostics of strategy files that did not load */

static void ensure_strategies(void)
{
  dg_diags d = {0};
  dg_strategies_load(&d);        /* nothing to do when loaded */
  if (d.v.n) {
    dg_buf b = {0};
    for (size_t i = 0; i < d.v.n; i++) {
      if (i) dg_buf_putc(&b, '\n');
      dg_diag_format(&b, dg_strategies_sources(), &d.v.v[i]);
    }
    free(load_errors);
    load_errors = dg_buf_take(&b);
  }
  dg_diags_free(&d);
}

/* ---- strategies defined by a script: dirigo.strategy(name, {help, gen}) ---------- */
typedef struct {
  lua_State *main;               /* the script's main thread; NULL once its state closed */
  int ref;                       /* gen */
  char *name, *src, *err;
  int line;                      /* where gen is defined */
} sstrat;
static DG_VEC(sstrat *) sstrats;
static lua_State *running;       /* the thread running dirigo.fuzz/replay now */
static DG_VEC(const dg_problem *) busy;   /* problems of the campaigns running now (nested) */

bool dgl_problem_busy(const dg_problem *p)
{
  for (size_t i = 0; i < busy.n; i++)
    if (busy.v[i] == p) return true;
  return false;
}

/* Around code that calls gen or on_case: Lua may run, but must not close p. */
static lua_State *enter(lua_State *L, const dg_problem *p)
{
  lua_State *outer = running;
  running = L;
  dg_vec_push(&busy, p);
  return outer;
}

static void leave(lua_State *outer)
{
  running = outer;
  if (--busy.n == 0) {
    free(busy.v);
    memset(&busy, 0, sizeof busy);
  }
}

static lua_State *main_of(lua_State *L)
{
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  lua_State *m = lua_tothread(L, -1);
  lua_pop(L, 1);
  return m;
}

/* One line: Lua's message without its traceback. */
static char *first_line(const char *m)
{
  const char *tb = strstr(m, "\nstack traceback:");
  return tb ? dg_strndup(m, (size_t)(tb - m)) : dg_strdup(m);
}

static bool sgen(void *ud, const fuzz_space *s, int64_t k, dg_rng *r, fuzz_case *c)
{
  sstrat *ss = ud;
  free(ss->err);
  ss->err = NULL;
  lua_State *L = running;
  if (!ss->main || !L || main_of(L) != ss->main) {
    ss->err = dg_printf("strategy '%s' belongs to a script%s", ss->name,
                        ss->main ? " and runs only in its dirigo.fuzz and dirigo.replay" : " that has ended");
    return false;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, ss->ref);
  char *msg;
  dgl_gen_result res = dgl_call_gen(L, -1, s, k, r, c, &msg);
  lua_pop(L, 1);
  if (res == DGL_GEN_ERROR) {
    char *m = first_line(msg);
    ss->err = dg_printf("strategy '%s': %s", ss->name, m);
    free(m);
  } else if (res == DGL_GEN_BAD)
    ss->err = dg_printf("%s:%d: strategy '%s', case %lld: %s", ss->src, ss->line, ss->name, (long long)k, msg);
  free(msg);
  return res == DGL_GEN_CASE;
}

static const char *serror(void *ud) { return ((sstrat *)ud)->err; }

static void sfree(void *ud)
{
  sstrat *ss = ud;
  for (size_t i = 0; i < sstrats.n; i++)
    if (sstrats.v[i] == ss) sstrats.v[i] = sstrats.v[--sstrats.n];
  if (ss->main) luaL_unref(ss->main, LUA_REGISTRYINDEX, ss->ref);
  free(ss->name), free(ss->src), free(ss->err);
  free(ss);
}

/* dirigo.strategy(name, { help = "…", gen = function(space, k, rng) … end }):
 * a strategy for this script's campaigns (doc/strategies.md has gen's contract);
 * defining the same name again replaces gen. */
static int l_strategy(lua_State *L)
{
  const char *name = luaL_checkstring(L, 1);
  luaL_argcheck(L, dgl_strategy_name_ok(name), 1, "use letters, digits and _ - + . (it goes into witnesses)");
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_getfield(L, 2, "help");
  const char *help = lua_tostring(L, -1);
  luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 2, "help must be a string");
  lua_getfield(L, 2, "gen");
  luaL_argcheck(L, lua_isfunction(L, -1), 2, "gen must be a function(space, k, rng)");
  ensure_strategies();
  lua_State *m = main_of(L);
  const fuzz_strategy *old = fuzz_strategy_find(name);
  if (old && old->gen_ud == sgen && ((sstrat *)old->ud)->main == m) {
    sstrat *ss = old->ud;
    luaL_unref(m, LUA_REGISTRYINDEX, ss->ref);
    ss->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
  }
  if (old) return luaL_error(L, "strategy '%s' exists (%s%s)", name, old->origin ? "from " : "built in",
                             old->origin ? old->origin : "");
  lua_Debug ar;
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  sstrat *ss = dg_calloc(1, sizeof *ss);
  ss->main = m;
  ss->name = dg_strdup(name);
  ss->src = dg_strdup(ar.short_src);
  ss->line = ar.linedefined;
  ss->ref = luaL_ref(L, LUA_REGISTRYINDEX);
  fuzz_strategy st = { .name = name, .help = help, .gen_ud = sgen, .error = serror, .ud = ss,
                       .origin = ss->src };
  fuzz_strategy_register(&st, sfree);
  dg_vec_push(&sstrats, ss);
  return 0;
}

static int sentinel_gc(lua_State *L)
{
  lua_State *m = main_of(L);
  for (size_t i = 0; i < sstrats.n; i++)       /* this state's strategies can no longer run */
    if (sstrats.v[i]->main == m) sstrats.v[i]->main = NULL;
  if (--nopen == 0) {
    dg_strategies_unload();
    free(load_errors);
    load_errors = NULL;
  }
  return 0;
}

static const fuzz_strategy *check_strategy(lua_State *L, const char *name)
{
  const fuzz_strategy *st = fuzz_strategy_find(name);
  if (st) return st;
  dg_buf b = {0};
  for (size_t i = 0; i < fuzz_strategy_count(); i++)
    dg_buf_printf(&b, "%s%s", i ? ", " : "", fuzz_strategy_at(i)->name);
  lua_pushfstring(L, "unknown strategy '%s' (strategies: %s)", name, b.s);
  dg_buf_free(&b);
  lua_error(L);
  return NULL;
}

/* The problem's kernels, or a Lua error with the front end's diagnostics. */
static void load_kernels(lua_State *L, const dg_problem *p, emu_kernels *k)
{
  dg_diags d = {0};
  if (emu_kernels_load(k, p, &d)) {
    dg_diags_free(&d);
    return;
  }
  dg_buf b = {0};
  for (size_t i = 0; i < d.v.n; i++) {
    dg_diag_format(&b, &p->sm, &d.v.v[i]);
    dg_buf_putc(&b, '\n');
  }
  for (size_t i = 0; k->mod && i < k->mod->diags.v.n; i++)
    if (k->mod->diags.v.v[i].sev <= DG_SEV_UNSUPPORTED) {
      dg_diag_format(&b, &k->sm, &k->mod->diags.v.v[i]);
      dg_buf_putc(&b, '\n');
    }
  dg_diags_free(&d);
  emu_kernels_free(k);
  if (b.n) b.s[--b.n] = 0;
  lua_pushstring(L, b.s ? b.s : "the kernels do not load");
  dg_buf_free(&b);
  lua_error(L);
}

static void setint(lua_State *L, const char *k, int64_t v) { lua_pushinteger(L, v), lua_setfield(L, -2, k); }
static void setnum(lua_State *L, const char *k, double v) { lua_pushnumber(L, v), lua_setfield(L, -2, k); }
static void setstr(lua_State *L, const char *k, const char *v) { lua_pushstring(L, v), lua_setfield(L, -2, k); }

/* One case's outcome: status, message, shape, the failing element. */
static void push_outcome(lua_State *L, const dg_problem *p, const fuzz_outcome *o)
{
  lua_createtable(L, 0, 8);
  setint(L, "case", o->k);
  setstr(L, "status", fuzz_status_name(o->status));
  setstr(L, "shape", o->c.label);
  setstr(L, "message", o->msg);
  char digest[17];
  snprintf(digest, sizeof digest, "%016" PRIx64, o->input_digest);
  setstr(L, "digest", digest);
  if (o->status == FUZZ_FAIL && o->tensor >= 0 && (size_t)o->tensor < p->tensors.n) {
    setstr(L, "output", p->tensors.v[o->tensor].name);
    lua_createtable(L, o->nidx, 0);
    for (int i = 0; i < o->nidx; i++) {
      lua_pushinteger(L, o->index[i]);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "index");
  }
  if (o->status == FUZZ_PASS || o->status == FUZZ_FAIL) {
    setnum(L, "max_abs_err", o->cmp.max_abs);
    setnum(L, "max_ulp", o->cmp.max_ulp);
  }
}

static int64_t opt_int(lua_State *L, int t, const char *k, int64_t dflt, int64_t min)
{
  int64_t v = dflt;
  if (t && lua_getfield(L, t, k) != LUA_TNIL) {
    int isnum;
    v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || v < min) luaL_error(L, "dirigo.fuzz: opts.%s must be an integer >= %d", k, (int)min);
  }
  if (t) lua_pop(L, 1);
  return v;
}

static bool opt_bool(lua_State *L, int t, const char *k, bool dflt)
{
  bool v = dflt;
  if (t && lua_getfield(L, t, k) != LUA_TNIL) v = lua_toboolean(L, -1);
  if (t) lua_pop(L, 1);
  return v;
}

static const char *const fuzz_opt_names[] = {
  "strategy", "cases", "seed", "shrink", "keep_going", "max_elems", "budget", "on_case", NULL,
};

/* opts.on_case(outcome) after every case; its first error stops the calls and
 * is raised once the campaign has let go of its kernels. */
typedef struct { lua_State *L; const dg_problem *p; int fn, err; } on_case_ctx;

static void on_case(void *ud, const fuzz_outcome *o)
{
  on_case_ctx *c = ud;
  if (c->err != LUA_NOREF) return;
  lua_pushvalue(c->L, c->fn);
  push_outcome(c->L, c->p, o);
  if (lua_pcall(c->L, 1, 0, 0) != LUA_OK) c->err = luaL_ref(c->L, LUA_REGISTRYINDEX);
}

/* dirigo.fuzz(problem [, {strategy=, cases=, seed=, shrink=, keep_going=, max_elems=, budget=, on_case=}]) -> result */
static int l_fuzz(lua_State *L)
{
  dg_problem *p = dgl_problem_check(L, 1);
  int t = lua_isnoneornil(L, 2) ? 0 : (luaL_checktype(L, 2, LUA_TTABLE), 2);
  for (lua_pushnil(L); t && lua_next(L, t); lua_pop(L, 1)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
    const char *const *n = fuzz_opt_names;
    while (*n && strcmp(*n, k)) n++;
    if (!*n) return luaL_error(L, "dirigo.fuzz: unknown option '%s' (options: strategy, cases, seed, shrink, keep_going, max_elems, budget, on_case)", k);
  }
  ensure_strategies();
  const char *name = "boundary+adversarial";
  if (t && lua_getfield(L, t, "strategy") != LUA_TNIL) name = luaL_checkstring(L, -1);
  fuzz_opts o = { .strategy = check_strategy(L, name), .ncases = opt_int(L, t, "cases", 40, 1),
                  .seed = (uint64_t)opt_int(L, t, "seed", 1, 0), .shrink = opt_bool(L, t, "shrink", true),
                  .keep_going = opt_bool(L, t, "keep_going", false),
                  .max_elems = opt_int(L, t, "max_elems", 0, 0) };
  if (t && lua_getfield(L, t, "budget") != LUA_TNIL) o.budget_s = luaL_checknumber(L, -1);
  on_case_ctx oc = { L, p, 0, LUA_NOREF };
  if (t && lua_getfield(L, t, "on_case") != LUA_TNIL) {
    luaL_argcheck(L, lua_isfunction(L, -1), 2, "opts.on_case must be a function(outcome)");
    oc.fn = lua_gettop(L);
    o.progress = on_case;
    o.ud = &oc;
  }
  emu_kernels k;
  load_kernels(L, p, &k);
  fuzz_summary s;
  dg_diags d = {0};
  lua_State *outer = enter(L, p);
  fuzz_campaign(p, &k, &o, &s, &d);       /* no Lua error can interrupt this */
  leave(outer);
  dg_diags_free(&d);
  fuzz_space sp;
  fuzz_space_ctx ctx;
  fuzz_space_init(&sp, &ctx, p, o.max_elems);
  char *w = s.failed ? fuzz_witness(&sp, s.strategy, s.seed, s.first.k, &s.first.c, false) : NULL;
  char *mw = s.shrunk ? fuzz_witness(&sp, s.strategy, s.seed, s.min.k, &s.min.c, true) : NULL;
  emu_kernels_free(&k);
  if (oc.err != LUA_NOREF) {
    free(w), free(mw);
    lua_rawgeti(L, LUA_REGISTRYINDEX, oc.err);
    luaL_unref(L, LUA_REGISTRYINDEX, oc.err);
    return lua_error(L);
  }
  lua_createtable(L, 0, 16);
  setstr(L, "strategy", s.strategy);
  setint(L, "seed", (int64_t)s.seed);
  setint(L, "cases", s.ncases);
  setint(L, "pass", s.npass);
  setint(L, "fail", s.nfail);
  setint(L, "findings", s.nfinding);
  setint(L, "errors", s.nerror);
  setint(L, "skipped", s.nskip);
  setnum(L, "seconds", s.secs);
  setnum(L, "max_abs_err", s.max_abs);
  setnum(L, "max_ulp", s.max_ulp);
  lua_pushboolean(L, s.failed);
  lua_setfield(L, -2, "failed");
  if (s.failed) {
    push_outcome(L, p, &s.first);
    setnum(L, "seconds", s.t_first);
    setstr(L, "witness", w);
    lua_setfield(L, -2, "first");
    setstr(L, "witness", w);
  }
  if (s.shrunk) {
    push_outcome(L, p, &s.min);
    setstr(L, "witness", mw);
    lua_setfield(L, -2, "shrunk");
    setstr(L, "shrunk_witness", mw);
  }
  free(w);
  free(mw);
  return 1;
}

/* dirigo.replay(problem, witness [, {max_elems=}]) -> outcome | nil, message
 * (max_elems as given to dirigo.fuzz: sizes past it are refused) */
static int l_replay(lua_State *L)
{
  dg_problem *p = dgl_problem_check(L, 1);
  const char *w = luaL_checkstring(L, 2);
  int t = lua_istable(L, 3) ? 3 : 0;
  int64_t cap = opt_int(L, t, "max_elems", 0, 0);
  ensure_strategies();
  fuzz_space sp;
  fuzz_space_ctx ctx;
  fuzz_space_init(&sp, &ctx, p, cap);
  fuzz_case c;
  int64_t kk;
  const fuzz_strategy *st;
  uint64_t seed;
  char *err = NULL;
  if (strncmp(w, "fuzz:", 5)) {
    lua_pushnil(L);
    lua_pushfstring(L, "'%s' is not a fuzz witness (fuzz:STRATEGY:SEED:CASE[@SIZES])", w);
    return 2;
  }
  lua_State *outer = enter(L, p);
  bool parsed = fuzz_witness_parse(w, &sp, &c, &kk, &st, &seed, &err);
  leave(outer);
  if (!parsed) {
    lua_pushnil(L);
    lua_pushstring(L, err);
    free(err);
    return 2;
  }
  emu_kernels k;
  load_kernels(L, p, &k);
  fuzz_outcome o;
  fuzz_run_case(p, &k, &sp, &ctx, &c, &o);
  emu_kernels_free(&k);
  o.k = kk;
  push_outcome(L, p, &o);
  setstr(L, "strategy", st->name);
  setint(L, "seed", (int64_t)seed);
  setstr(L, "witness", w);
  return 1;
}

/* dirigo.strategies() -> { {name, help, builtin, file}, … }, diagnostics | nil */
static int l_strategies(lua_State *L)
{
  ensure_strategies();
  size_t n = fuzz_strategy_count();
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const fuzz_strategy *st = fuzz_strategy_at(i);
    lua_createtable(L, 0, 4);
    setstr(L, "name", st->name);
    setstr(L, "help", st->help);
    lua_pushboolean(L, st->origin == NULL);
    lua_setfield(L, -2, "builtin");
    if (st->origin) setstr(L, "file", st->origin);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  if (!load_errors) return 1;
  lua_pushstring(L, load_errors);
  return 2;
}

/* dirigo.dists() -> { {name, help}, … }: the value distributions */
static int l_dists(lua_State *L)
{
  lua_createtable(L, FUZZ_DIST__COUNT, 0);
  for (int d = 0; d < FUZZ_DIST__COUNT; d++) {
    lua_createtable(L, 0, 2);
    setstr(L, "name", fuzz_dists[d].name);
    setstr(L, "help", fuzz_dists[d].help);
    lua_rawseti(L, -2, d + 1);
  }
  return 1;
}

void dgl_fuzz_open(lua_State *L)
{
  static const luaL_Reg fns[] = {
    { "fuzz", l_fuzz }, { "replay", l_replay }, { "strategies", l_strategies }, { "dists", l_dists },
    { "strategy", l_strategy }, { NULL, NULL },
  };
  luaL_setfuncs(L, fns, 0);
  /* the strategies live as long as a state holding the module */
  nopen++;
  lua_newuserdatauv(L, 0, 0);
  if (luaL_newmetatable(L, SENTINEL_MT)) {
    lua_pushcfunction(L, sentinel_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, SENTINEL_MT);
}
