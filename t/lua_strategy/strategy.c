/* t/lua_strategy/strategy.c — the strategy registry and Lua strategies from C:
 * loading (shipped and a user's directory), what gen sees and returns,
 * replay from (seed, k), the sandbox, errors at file:line, unload and reload.
 * Runs under valgrind (no leaks across load/unload). */
#include "../tap.h"
#include "fuzz.h"
#include "lua_fuzz.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void put(const char *name, const char *text)
{
  char path[512];
  snprintf(path, sizeof path, "%s/dirigo/strategies/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) abort();
  fputs(text, f);
  fclose(f);
}

static bool gen(const char *name, const fuzz_space *s, int64_t k, uint64_t seed, fuzz_case *c)
{
  const fuzz_strategy *st = fuzz_strategy_find(name);
  if (!st) return false;
  memset(c, 0, sizeof *c);
  dg_rng r;
  c->seed = fuzz_case_seed(seed, k);
  dg_rng_seed(&r, c->seed);
  return fuzz_strategy_gen(st, s, k, &r, c);
}

static bool small_c(void *ud, const int64_t *sizes) { return sizes[1] <= 50; }

static bool is_prime(int64_t v)
{
  if (v < 2) return false;
  for (int64_t i = 2; i * i <= v; i++)
    if (v % i == 0) return false;
  return true;
}

static int ndiag_at(const dg_diags *d, const char *file, uint32_t line, const char *text)
{
  int n = 0;
  const dg_srcmgr *sm = dg_strategies_sources();
  for (size_t i = 0; i < d->v.n; i++) {
    const dg_diag *g = &d->v.v[i];
    const char *p = dg_srcmgr_path(sm, g->span.file);
    size_t lp = strlen(p), lf = strlen(file);
    n += lp >= lf && !strcmp(p + lp - lf, file) && g->span.line == line && strstr(g->msg, text);
  }
  return n;
}

int main(void)
{
  snprintf(dir, sizeof dir, "%s/dg_lstrat_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) return 1;
  char sub[300];
  snprintf(sub, sizeof sub, "%s/dirigo", dir);
  mkdir(sub, 0700);
  snprintf(sub, sizeof sub, "%s/dirigo/strategies", dir);
  mkdir(sub, 0700);
  setenv("XDG_CONFIG_HOME", dir, 1);
  setenv("DIRIGO_DATADIR", DG_DATADIR, 1);

  put("mixed.lua",
      "return strategy \"mixed\" {\n"
      "  help = \"per-input values\",\n"
      "  gen = function(space, k, rng)\n"
      "    assert(math.random == nil and os == nil and io == nil and require == nil)\n"
      "    local v = { x = space.dists[k % #space.dists + 1] }\n"
      "    return { sizes = { C = rng:int(1, 50) }, values = v }\n"
      "  end,\n"
      "}\n");
  put("space.lua",
      "return strategy \"space\" {\n"
      "  help = \"reads the space\",\n"
      "  gen = function(space, k, rng)\n"
      "    assert(space.sizes[2].name == 'C' and space.sizes[2].default == 100)\n"
      "    assert(#space.sizes[2].candidates == 3 and space.sizes[2].candidates[3] == 33)\n"
      "    assert(space.defaults.N == 4 and space.block[1] == 64 and space.inner == 'C')\n"
      "    assert(space.inputs[1].name == 'x' and space.inputs[1].inner == 'C')\n"
      "    assert(space.inputs[2].name == 'idx' and space.inputs[2].index_valued)\n"
      "    if not space:admissible({ C = 60 + k }) then return nil end\n"
      "    return { sizes = { C = 60 + k } }\n"
      "  end,\n"
      "}\n");
  put("errors.lua",
      "local kept\n"
      "return strategy \"errors\" {\n"
      "  help = \"each case a different mistake\",\n"
      "  gen = function(space, k, rng)\n"
      "    if k == 0 then return { sizes = { Q = 3 } } end\n"
      "    if k == 1 then return { values = { x = 'gauss' } } end\n"
      "    if k == 2 then return 42 end\n"
      "    if k == 3 then kept = rng; return {} end\n"
      "    if k == 4 then return { sizes = { C = kept:below(3) } } end\n"
      "    if k == 5 then error({}) end\n"
      "    if k == 6 then return { sizes = { C = 0 } } end\n"
      "    if k == 8 then return setmetatable({}, { __index = function() error('no') end }) end\n"
      "    if k == 9 then return space:admissible({ c = 3 }) and {} end\n"
      "    return nil\n"
      "  end,\n"
      "}\n");
  put("syntax.lua", "return strategy \"syntax\" {\n  help = 'x',\n  gen = function(space, k rng) end,\n}\n");
  put("nogen.lua", "return strategy \"nogen\" {\n  help = 'x',\n}\n");
  put("plain.lua", "return { name = 'plain' }\n");
  put("builtin.lua", "return strategy \"regular\" { help = 'x', gen = function() end }\n");
  put("badname.lua", "\nreturn strategy \"a:b\" { help = 'x', gen = function() end }\n");

  dg_diags d = {0};
  dg_strategies_load(&d);
  const fuzz_strategy *ts = fuzz_strategy_find("tail-sweep"), *pr = fuzz_strategy_find("primes");
  ok(ts && ts->origin && strstr(ts->origin, "lua/strategies/tail_sweep.lua"), "tail-sweep loads from the data dir");
  ok(pr && !pr->gen && pr->gen_ud, "primes is a run-time strategy");
  ok(fuzz_strategy_find("boundary") == fuzz_strategy_at(1), "built-ins keep their places");
  ok(fuzz_strategy_find("mixed") && fuzz_strategy_find("space") && fuzz_strategy_find("errors"),
     "the user's strategies load");
  ok(!fuzz_strategy_find("syntax") && !fuzz_strategy_find("nogen") && !fuzz_strategy_find("plain"),
     "broken files do not register");
  is_int(ndiag_at(&d, "strategies/syntax.lua", 3, "expected"), 1, "syntax error at syntax.lua:3");
  is_int(ndiag_at(&d, "strategies/nogen.lua", 1, "gen must be a function"), 1, "missing gen at nogen.lua:1");
  is_int(ndiag_at(&d, "strategies/plain.lua", 1, "returns strategy \"name\""), 1, "a plain table is refused");
  is_int(ndiag_at(&d, "strategies/builtin.lua", 1, "'regular' is built in"), 1, "a built-in name is refused");
  is_int(ndiag_at(&d, "strategies/badname.lua", 2, "no ':' or '@'"), 1, "a name that breaks witnesses is refused");
  is_int(d.nerrors, 5, "five broken files, five errors");
  dg_diags_free(&d);
  fuzz_strategy again = { .name = "primes", .gen = NULL, .gen_ud = NULL };
  ok(!fuzz_strategy_register(&again, NULL), "register refuses a taken name");

  static const int64_t ccands[] = { 1, 32, 33 };
  fuzz_space sp = { .nsyms = 2, .syms = { "N", "C" }, .defaults = { 4, 100 },
                    .cands = { NULL, ccands }, .ncands = { 0, 3 }, .block = { 64 }, .nblock = 1,
                    .ninputs = 2, .input_names = { "x", "idx" }, .input_inner = { 1, 0 },
                    .input_has_range = { false, true } };
  /* tail-sweep: C walks 1, 64+1, 63, 64+63, 33, … with max-last, then negative inside
   * one block and large-offset after a full one (session 9); N stays */
  static const int64_t want_c[] = { 1, 1, 65, 65, 63, 63, 127, 127, 33, 33, 97 };
  bool tails = true;
  for (int k = 0; k < 11; k++) {
    fuzz_case c;
    tails &= gen("tail-sweep", &sp, k, 1, &c) && c.sizes[0] == 4 && c.sizes[1] == want_c[k] &&
             c.dist[0] == (k % 2 == 0 ? FUZZ_DIST_MAX_LAST : k % 4 == 1 ? FUZZ_DIST_NEGATIVE : FUZZ_DIST_LARGE_OFFSET);
  }
  fuzz_case c1, c2;
  ok(tails, "tail-sweep: 1, b-1, b/2+1 first, each in one block and after a full one");
  bool seen[128] = {0}, all = true;
  for (int k = 0; k < 4 * 63; k++)
    if (gen("tail-sweep", &sp, k, 1, &c1) && c1.sizes[1] < 128) seen[c1.sizes[1]] = true;
  for (int t = 1; t < 128; t++) all &= seen[t] == (t != 64);
  ok(all, "tail-sweep: every tail of 64 in 4*63 cases, none divisible");
  bool primes = true, replay = true;
  for (int k = 0; k < 30; k++) {
    primes &= gen("primes", &sp, k, 9, &c1) && is_prime(c1.sizes[0]) && is_prime(c1.sizes[1]);
    gen("primes", &sp, k, 9, &c2);
    replay &= !memcmp(c1.sizes, c2.sizes, sizeof c1.sizes) && c1.dist[0] == c2.dist[0];
  }
  bool pow2 = true, pow2_replay = true;
  for (int k = 0; k < 30; k++) {
    pow2 &= gen("pow2-edge", &sp, k, 2, &c1);
    for (int i = 0; i < 2; i++) {
      int64_t v = c1.sizes[i];
      pow2 &= v == 1 || (((v + 1) & v) == 0) || (((v - 1) & (v - 2)) == 0);
    }
    gen("pow2-edge", &sp, k, 2, &c2);
    pow2_replay &= !memcmp(c1.sizes, c2.sizes, sizeof c1.sizes) && c1.dist[0] == c2.dist[0];
  }
  ok(pow2, "pow2-edge: every size 1 or 2^j-1 or 2^j+1");
  ok(pow2_replay, "pow2-edge: a case replays from (seed, k)");
  ok(primes, "primes: every size prime");
  ok(replay, "primes: a case replays from (seed, k)");
  gen("primes", &sp, 0, 9, &c1);
  int differ = 0;
  for (int s = 10; s < 20; s++) differ += gen("primes", &sp, 0, s, &c2) && memcmp(c1.sizes, c2.sizes, sizeof c1.sizes);
  ok(differ > 3, "primes: other seeds, other sizes (%d of 10)", differ);

  bool mixed = gen("mixed", &sp, 5, 1, &c1) && c1.dist[0] == 5 && c1.dist[1] == FUZZ_DIST_NORMAL &&
               c1.sizes[0] == 4 && c1.sizes[1] >= 1 && c1.sizes[1] <= 50;
  ok(mixed, "values by input; others normal; sizes not given keep the defaults");
  ok(gen("space", &sp, 0, 1, &c1) && c1.sizes[1] == 60, "gen sees the space (sizes, candidates, block, inputs)");
  sp.admissible = small_c;
  ok(!gen("space", &sp, 0, 1, &c1) && !fuzz_strategy_error(fuzz_strategy_find("space")),
     "space:admissible uses the campaign's constraints; nil is no case, not an error");
  sp.admissible = NULL;

  const fuzz_strategy *es = fuzz_strategy_find("errors");
  ok(gen("errors", &sp, 3, 1, &c1) && !fuzz_strategy_error(es), "errors: a good case (that keeps its rng)");
  static const struct { int k; const char *msg; } errs[] = {
    { 0, "errors.lua:4: error: strategy 'errors', case 0: case.sizes: 'Q' is not a size of this problem (sizes: N, C)" },
    { 1, "errors.lua:4: error: strategy 'errors', case 1: unknown value distribution 'gauss' for input x (known: normal," },
    { 2, "errors.lua:4: error: strategy 'errors', case 2: gen returned a number" },
    { 4, "errors.lua:9: error: strategy 'errors': the rng is only valid inside the gen call" },
    { 5, "errors.lua:4: error: strategy 'errors': (error object is a table value)" },
    { 6, "case.sizes.C must be an integer >= 1" },
  };
  for (size_t i = 0; es && i < sizeof errs / sizeof *errs; i++) {
    ok(!gen("errors", &sp, errs[i].k, 1, &c1), "errors: case %d gives no case", errs[i].k);
    const char *e = fuzz_strategy_error(es);
    has_str(e ? e : "(none)", errs[i].msg, "errors: case %d says why", errs[i].k);
  }
  gen("errors", &sp, 0, 1, &c1);
  ok(gen("errors", &sp, 3, 1, &c1) && !fuzz_strategy_error(es), "errors: a good case clears the error");
  ok(!gen("errors", &sp, 7, 1, &c1) && !fuzz_strategy_error(es), "errors: nil is no case, no error");
  ok(gen("errors", &sp, 8, 1, &c1) && c1.sizes[1] == 100, "errors: a case's metamethods are not called");
  ok(!gen("errors", &sp, 9, 1, &c1) && fuzz_strategy_error(es) &&
     strstr(fuzz_strategy_error(es), "errors.lua:13: error: strategy 'errors': space:admissible: 'c' is not a size"),
     "errors: space:admissible refuses a size the problem does not have");

  size_t n = fuzz_strategy_count();
  dg_strategies_unload();
  ok(!fuzz_strategy_find("tail-sweep") && fuzz_strategy_find("boundary") && fuzz_strategy_count() == 7,
     "unload leaves the built-ins");
  dg_strategies_load(&d);
  is_int(fuzz_strategy_count(), n, "load again: the same strategies");
  ok(gen("tail-sweep", &sp, 4, 1, &c1) && c1.sizes[1] == 63, "and they run");
  dg_diags_free(&d);
  dg_strategies_unload();

  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("# could not remove %s\n", dir);
  return tap_done();
}
