/* simt_warp.c — warp shuffles (with width), votes, atomics on global and
 * shared memory, a shared-memory tree reduction, and deterministic replay
 * of scheduling orders by seed. */
#include "simt.h"
#include "simt_build.h"
#include "../tap.h"

static simt_launch launch1(uint32_t grid, uint32_t block)
{
  return (simt_launch){ .grid = { grid, 1, 1 }, .block = { block, 1, 1 } };
}
static simt_arg abuf(int b) { return (simt_arg){ .kind = SIMT_ARG_BUF, .buf = b }; }
static int nevents(simt *m) { size_t n; simt_events(m, &n); return (int)n; }
static const simt_event *find_ev(simt *m, simt_evkind k)
{
  size_t n;
  const simt_event *e = simt_events(m, &n);
  for (size_t i = 0; i < n; i++) if (e[i].kind == k) return &e[i];
  return NULL;
}

#define FULL IT(T_UINT, 0xffffffffu)

/* out[t] = e(t) over one block of nt threads (ints) */
static void run_ints(dg_expr *(*mk)(dg_var *t), int nt, int32_t *out, simt **keep)
{
  dg_func *k = FN("w", T_VOID, true);
  dg_var *o = PARAM(k, "o", PTR(T_INT)), *t = LOCAL(k, "t", T_INT);
  k->body = BLK(DECL(t, TID(0)), EXPR(ASG(IDX(V(o), V(t)), CAST(T_INT, mk(t)))));
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "o", T_INT, 4 * nt, 0);
  simt_launch Ln = launch1(1, (uint32_t)nt);
  simt_arg a = abuf(b);
  simt_run(m, k, &Ln, &a, 1);
  simt_buf_read(m, b, 0, out, 4 * nt);
  if (keep) *keep = m;
  else simt_free(m);
}

static dg_expr *e_down(dg_var *t) { return IN(T_INT, __SHFL_DOWN_SYNC, FULL, MUL(V(t), I(10)), IT(T_UINT, 1)); }
static dg_expr *e_up8(dg_var *t) { return IN(T_INT, __SHFL_UP_SYNC, FULL, V(t), IT(T_UINT, 2), I(8)); }
static dg_expr *e_xor(dg_var *t) { return IN(T_INT, __SHFL_XOR_SYNC, FULL, V(t), I(5)); }
static dg_expr *e_bcast(dg_var *t) { return IN(T_INT, __SHFL_SYNC, FULL, V(t), I(3), I(16)); }
static dg_expr *e_ballot(dg_var *t) { return IN(T_UINT, __BALLOT_SYNC, FULL, BIN(DG_BIN_AND, V(t), I(1))); }
static dg_expr *e_any(dg_var *t) { return IN(T_INT, __ANY_SYNC, FULL, BIN(DG_BIN_EQ, V(t), I(40))); }
static dg_expr *e_all(dg_var *t) { return IN(T_INT, __ALL_SYNC, FULL, LT(V(t), I(40))); }
static dg_expr *e_active(dg_var *t)
{
  return COND(LT(V(t), I(5)), CAST(T_INT, IN0(T_UINT, __ACTIVEMASK)), I(-1));
}
/* warp sum by xor butterfly: for (o = 16; o > 0; o >>= 1) v += shfl_xor(v, o) */
static dg_func *k_wsum(void)
{
  dg_func *k = FN("wsum", T_VOID, true);
  dg_var *out = PARAM(k, "o", PTR(T_F32)), *t = LOCAL(k, "t", T_INT), *v = LOCAL(k, "v", T_F32), *o = LOCAL(k, "off", T_INT);
  k->body = BLK(DECL(t, TID(0)), DECL(v, CAST(T_F32, V(t))),
    FOR(DECL(o, I(16)), BIN(DG_BIN_GT, V(o), I(0)), ASGOP(DG_BIN_SHR, V(o), I(1)),
        EXPR(ASGOP(DG_BIN_ADD, V(v), IN(T_F32, __SHFL_XOR_SYNC, FULL, V(v), V(o))))),
    EXPR(ASG(IDX(V(out), V(t)), V(v))));
  return k;
}

static void test_warp(void)
{
  int32_t o[64];
  run_ints(e_down, 64, o, NULL);
  ok(o[0] == 10 && o[30] == 310 && o[31] == 310 && o[63] == 630, "__shfl_down_sync: last lane keeps its value");
  run_ints(e_up8, 32, o, NULL);
  ok(o[0] == 0 && o[1] == 1 && o[2] == 0 && o[9] == 9 && o[10] == 8 && o[15] == 13, "__shfl_up_sync width 8");
  run_ints(e_xor, 32, o, NULL);
  ok(o[0] == 5 && o[5] == 0 && o[31] == 26, "__shfl_xor_sync");
  run_ints(e_bcast, 64, o, NULL);
  ok(o[0] == 3 && o[15] == 3 && o[16] == 19 && o[40] == 35, "__shfl_sync broadcast per 16-lane group");
  run_ints(e_ballot, 64, o, NULL);
  ok((uint32_t)o[0] == 0xaaaaaaaau && (uint32_t)o[63] == 0xaaaaaaaau, "__ballot_sync");
  run_ints(e_any, 64, o, NULL);
  ok(o[0] == 0 && o[32] == 1, "__any_sync per warp");
  run_ints(e_all, 64, o, NULL);
  ok(o[0] == 1 && o[32] == 0, "__all_sync per warp");
  run_ints(e_active, 32, o, NULL);
  ok(o[0] == 0x1f && o[4] == 0x1f && o[5] == -1, "__activemask under divergence");

  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "o", T_F32, 4 * 64, 0);
  simt_launch Ln = launch1(1, 64);
  simt_arg a = abuf(b);
  simt_run(m, k_wsum(), &Ln, &a, 1);
  float f[64];
  simt_buf_read(m, b, 0, f, sizeof f);
  ok(f[0] == 496 && f[31] == 496 && f[32] == 1520, "warp sum by xor butterfly");
  is_int(nevents(m), 0, "no events");
  simt_free(m);

  /* a shuffle from a lane that is not active: reported, own value kept */
  dg_func *k = FN("sh", T_VOID, true);
  dg_var *out = PARAM(k, "o", PTR(T_INT)), *t = LOCAL(k, "t", T_INT);
  L = 44;
  k->body = BLK(DECL(t, TID(0)), IF(LT(V(t), I(16)),
    EXPR(ASG(IDX(V(out), V(t)), IN(T_INT, __SHFL_DOWN_SYNC, IT(T_UINT, 0xffff), V(t), IT(T_UINT, 8)))), NULL));
  m = simt_new(NULL);
  b = simt_buf_new(m, "o", T_INT, 4 * 32, 0);
  simt_launch L32 = launch1(1, 32);
  a = abuf(b);
  simt_run(m, k, &L32, &a, 1);
  const simt_event *e = find_ev(m, SIMT_EV_SHFL_INACTIVE);
  ok(e && e->span.line == 44 && e->thread == 8, "shuffle from an inactive lane: reported for lane 8 at line 44");
  simt_free(m);
}

/* atomics: cnt[0] += 1, fsum[0] += t*0.5, mx = max, CAS loop-free swap */
static void test_atomics(void)
{
  dg_func *k = FN("atom", T_VOID, true);
  dg_var *ci = PARAM(k, "ci", PTR(T_INT)), *cf = PARAM(k, "cf", PTR(T_F32)), *old = PARAM(k, "old", PTR(T_INT));
  dg_var *t = LOCAL(k, "t", T_INT), *g = LOCAL(k, "g", T_INT);
  dg_var *sh = SHARED(k, "sh", ARR(T_INT, 1));
  k->body = BLK(DECL(t, TID(0)), DECL(g, ADD(MUL(BID(0), BDIM(0)), TID(0))),
    IF(BIN(DG_BIN_EQ, V(t), I(0)), EXPR(ASG(IDX(V(sh), I(0)), I(0))), NULL),
    EXPR(IN0(T_VOID, __SYNCTHREADS)),
    EXPR(IN(T_INT, ATOMICADD, ADDR(IDX(V(sh), I(0))), I(1))),
    EXPR(IN(T_INT, ATOMICADD, ADDR(IDX(V(ci), I(0))), I(1))),
    EXPR(IN(T_F32, ATOMICADD, ADDR(IDX(V(cf), I(0))), MUL(CAST(T_F32, V(g)), F(0.5)))),
    EXPR(IN(T_INT, ATOMICMAX, ADDR(IDX(V(ci), I(1))), BIN(DG_BIN_XOR, V(g), I(37)))),
    EXPR(IN(T_INT, ATOMICMIN, ADDR(IDX(V(ci), I(2))), SUB(I(100), V(g)))),
    EXPR(ASG(IDX(V(old), V(g)), IN(T_INT, ATOMICEXCH, ADDR(IDX(V(ci), I(3))), V(g)))),
    EXPR(IN(T_INT, ATOMICCAS, ADDR(IDX(V(ci), I(4))), I(0), ADD(V(g), I(1000)))),
    EXPR(IN(T_INT, ATOMICOR, ADDR(IDX(V(ci), I(5))), BIN(DG_BIN_SHL, I(1), BIN(DG_BIN_MOD, V(g), I(31))))),
    EXPR(IN0(T_VOID, __SYNCTHREADS)),
    IF(BIN(DG_BIN_EQ, V(t), I(0)), EXPR(IN(T_INT, ATOMICADD, ADDR(IDX(V(ci), I(6))), IDX(V(sh), I(0)))), NULL));
  int32_t init[7] = { 0, -5, 1000, -1, 0, 0, 0 };
  uint64_t seeds[] = { 0, 1, 2, 3 };
  int32_t first_old[4];
  for (int s = 0; s < 4; s++) {
    simt *m = simt_new(NULL);
    int bi = simt_buf_new(m, "ci", T_INT, sizeof init, 0), bf = simt_buf_new(m, "cf", T_F32, 4, 0);
    int bo = simt_buf_new(m, "old", T_INT, 4 * 256, 0);
    simt_buf_write(m, bi, 0, init, sizeof init);
    float z = 0;
    simt_buf_write(m, bf, 0, &z, 4);
    simt_launch Ln = launch1(4, 64);
    Ln.seed = seeds[s];
    simt_arg a[] = { abuf(bi), abuf(bf), abuf(bo) };
    simt_run(m, k, &Ln, a, 3);
    int32_t r[7];
    float fs;
    simt_buf_read(m, bi, 0, r, sizeof r);
    simt_buf_read(m, bf, 0, &fs, 4);
    int32_t ol[256];
    simt_buf_read(m, bo, 0, ol, sizeof ol);
    first_old[s] = ol[0];
    if (s == 0) {
      int mx = -5, orv = 0;
      for (int g = 0; g < 256; g++) mx = (g ^ 37) > mx ? (g ^ 37) : mx, orv |= 1 << (g % 31);
      is_int(r[0], 256, "atomicAdd int over 4 blocks");
      ok(fs == 16320.0f, "atomicAdd float (%g)", fs);
      is_int(r[1], mx, "atomicMax");
      is_int(r[2], 100 - 255, "atomicMin");
      is_int(r[3], 255, "atomicExch: the last thread's value stays (natural order)");
      is_int(r[4], 1000, "atomicCAS: only the first thread swaps");
      is_int(r[5], orv, "atomicOr");
      is_int(r[6], 256, "atomicAdd on shared memory, no race reported");
      is_int(nevents(m), 0, "atomics raise no events");
      is_int(ol[0], -1, "atomicExch returns the old value");
    }
    simt_free(m);
  }
  ok(first_old[1] != -1 || first_old[2] != -1 || first_old[3] != -1, "seeds permute the order atomics land in");
}

/* y[0] = t from every thread of 4 blocks: the last writer depends on the
 * schedule; the same seed gives the same winner. */
static int32_t last_writer(uint64_t seed)
{
  dg_func *k = FN("lw", T_VOID, true);
  dg_var *y = PARAM(k, "y", PTR(T_INT));
  k->body = BLK(EXPR(ASG(IDX(V(y), I(0)), ADD(MUL(BID(0), BDIM(0)), TID(0)))));
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "y", T_INT, 4, 0);
  simt_launch Ln = launch1(4, 128);
  Ln.seed = seed;
  simt_arg a = abuf(b);
  simt_run(m, k, &Ln, &a, 1);
  int32_t r;
  simt_buf_read(m, b, 0, &r, 4);
  simt_free(m);
  return r;
}

static void test_seed(void)
{
  is_int(last_writer(0), 511, "natural order: the last thread of the last block wins");
  bool same = true, differ = false;
  for (uint64_t s = 1; s < 8; s++) {
    int32_t a = last_writer(s), b = last_writer(s);
    same &= a == b;
    differ |= a != 511;
  }
  ok(same, "the same seed replays the same schedule");
  ok(differ, "other seeds land writes in other orders");
}

/* shared-memory tree reduction: for (s = 64; s > 0; s >>= 1) { if (t < s) sm[t] += sm[t+s]; __syncthreads(); } */
static void test_reduce(void)
{
  dg_func *k = FN("red", T_VOID, true);
  dg_var *out = PARAM(k, "o", PTR(T_F32)), *x = PARAM(k, "x", PTR(T_F32));
  dg_var *t = LOCAL(k, "t", T_INT), *s = LOCAL(k, "s", T_INT);
  dg_var *sm = SHARED(k, "sm", ARR(T_F32, 128));
  k->body = BLK(DECL(t, TID(0)),
    EXPR(ASG(IDX(V(sm), V(t)), IDX(V(x), ADD(MUL(BID(0), I(128)), V(t))))),
    EXPR(IN0(T_VOID, __SYNCTHREADS)),
    FOR(DECL(s, I(64)), BIN(DG_BIN_GT, V(s), I(0)), ASGOP(DG_BIN_SHR, V(s), I(1)),
        BLK(IF(LT(V(t), V(s)), EXPR(ASGOP(DG_BIN_ADD, IDX(V(sm), V(t)), IDX(V(sm), ADD(V(t), V(s))))), NULL),
            EXPR(IN0(T_VOID, __SYNCTHREADS)))),
    IF(BIN(DG_BIN_EQ, V(t), I(0)), EXPR(ASG(IDX(V(out), BID(0)), IDX(V(sm), I(0)))), NULL));
  simt *m = simt_new(NULL);
  float xs[512], o[4];
  for (int i = 0; i < 512; i++) xs[i] = (float)(i % 7) - 3.0f;
  int xb = simt_buf_new(m, "x", T_F32, sizeof xs, SIMT_BUF_INIT), ob = simt_buf_new(m, "o", T_F32, sizeof o, 0);
  simt_buf_write(m, xb, 0, xs, sizeof xs);
  simt_launch Ln = launch1(4, 128);
  simt_arg a[] = { abuf(ob), abuf(xb) };
  simt_run(m, k, &Ln, a, 2);
  simt_buf_read(m, ob, 0, o, sizeof o);
  bool good = true;
  for (int b = 0; b < 4; b++) {
    float want[128];
    for (int i = 0; i < 128; i++) want[i] = xs[b * 128 + i];
    for (int st = 64; st > 0; st >>= 1) for (int i = 0; i < st; i++) want[i] += want[i + st];
    good &= o[b] == want[0];
  }
  ok(good, "tree reduction in shared memory, bit-exact with the same order in C");
  is_int(nevents(m), 0, "no race in a correct reduction");
  simt_free(m);
}

int main(void)
{
  b_init();
  test_warp();
  test_atomics();
  test_seed();
  test_reduce();
  dg_arena_free(&B);
  return tap_done();
}
