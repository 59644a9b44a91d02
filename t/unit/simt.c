/* simt.c — tests of the SIMT engine on hand-built IR (simt_build.h): every
 * construct, the C semantics of the concrete domain, each detection with its
 * line, warp operations, atomics, and replay by seed. */
#include "simt.h"
#include "simt_build.h"
#include "../tap.h"
#include <math.h>

static simt_launch launch1(uint32_t grid, uint32_t block)
{
  return (simt_launch){ .grid = { grid, 1, 1 }, .block = { block, 1, 1 } };
}

static simt_arg abuf(int b) { return (simt_arg){ .kind = SIMT_ARG_BUF, .buf = b }; }
static simt_arg aint(int64_t v) { return (simt_arg){ .kind = SIMT_ARG_INT, .i = v }; }

static const simt_event *find_ev(simt *m, simt_evkind k)
{
  size_t n;
  const simt_event *e = simt_events(m, &n);
  for (size_t i = 0; i < n; i++) if (e[i].kind == k) return &e[i];
  return NULL;
}

static int nevents(simt *m) { size_t n; simt_events(m, &n); return (int)n; }

/* y[i] = x[i] * 2 + 1 for i < n (line 2: the guard, line 3: the store). */
static dg_func *k_scale(bool guard)
{
  L = 1;
  dg_func *k = FN("scale", T_VOID, true);
  dg_var *y = PARAM(k, "y", PTR(T_F32)), *x = PARAM(k, "x", PTR(T_F32)), *n = PARAM(k, "n", T_INT);
  dg_var *i = LOCAL(k, "i", T_INT);
  dg_stmt *d = DECL(i, ADD(MUL(BID(0), BDIM(0)), TID(0)));
  L = 3;
  dg_stmt *store = EXPR(ASG(IDX(V(y), V(i)), ADD(MUL(IDX(V(x), V(i)), F(2)), F(1))));
  L = 2;
  k->body = BLK(d, guard ? IF(LT(V(i), V(n)), store, NULL) : store);
  return k;
}

static void test_elementwise(void)
{
  simt *m = simt_new(NULL);
  float xs[70];
  for (int i = 0; i < 70; i++) xs[i] = (float)i * 0.5f;
  int y = simt_buf_new(m, "y", T_F32, 70 * 4, 0), x = simt_buf_new(m, "x", T_F32, 70 * 4, SIMT_BUF_INIT);
  simt_buf_write(m, x, 0, xs, sizeof xs);
  simt_track_writes(m, y);
  simt_launch Ln = launch1(3, 32);
  simt_arg args[] = { abuf(y), abuf(x), aint(70) };
  is_int(simt_run(m, k_scale(true), &Ln, args, 3), SIMT_OK, "elementwise runs");
  float ys[70];
  simt_buf_read(m, y, 0, ys, sizeof ys);
  int good = 1;
  for (int i = 0; i < 70; i++) good &= ys[i] == xs[i] * 2 + 1;
  ok(good, "elementwise values");
  is_int(nevents(m), 0, "no events for a guarded kernel");
  is_int(simt_writer(m, y, 5 * 4, NULL), 5, "writer map: thread 5 wrote y[5]");
  is_int(simt_writer(m, y, 69 * 4 + 3, NULL), 69, "writer map: block 2 thread 5 wrote y[69]");
  is_int(simt_last_stats(m).blocks, 3, "three blocks ran");

  /* without the guard: out of bounds at the store's line, both buffers */
  is_int(simt_run(m, k_scale(false), &Ln, args, 3), SIMT_OK, "unguarded kernel runs to the end");
  const simt_event *e = find_ev(m, SIMT_EV_OOB);
  ok(e != NULL, "out-of-bounds reported");
  if (e) {
    is_int(e->span.line, 3, "OOB names line 3");
    is_int(e->block, 2, "OOB in block 2");
    is_int(e->thread, 6, "OOB first at thread 6 (i = 70)");
    ok(e->count >= 26, "OOB counts every lane (%lld)", (long long)e->count);
    dg_buf b = {0};
    simt_event_format(&b, NULL, e);
    has_str(b.s, "out-of-bounds", "formatted event names its kind");
    dg_buf_free(&b);
  }

  /* only block 1 */
  int64_t only[] = { 1 };
  simt_launch Lb = launch1(3, 32);
  Lb.blocks = only, Lb.nblocks = 1;
  int y2 = simt_buf_new(m, "y2", T_F32, 70 * 4, 0);
  simt_arg args2[] = { abuf(y2), abuf(x), aint(70) };
  simt_run(m, k_scale(true), &Lb, args2, 3);
  ok(!simt_buf_is_init(m, y2, 0) && simt_buf_is_init(m, y2, 32 * 4) && !simt_buf_is_init(m, y2, 64 * 4),
     "block subset: only block 1's elements written");

  /* trace of thread 3 of block 0: the declaration, the guard, the store */
  simt_trace_thread(m, 0, 3);
  simt_run(m, k_scale(true), &Ln, args, 3);
  size_t nt;
  const dg_span *tr = simt_trace(m, &nt);
  int l2 = 0, l3 = 0;
  for (size_t i = 0; i < nt; i++) l2 |= tr[i].line == 2, l3 |= tr[i].line == 3;
  ok(nt > 0 && l2 && l3, "trace of a thread holds lines 2 and 3");
  simt_free(m);
}

/* Run a one-block kernel that stores `e` (an int expression of lane t) into
 * out[t]; returns out[lane]. */
static int64_t int_result(dg_expr *(*mk)(dg_var *t), int lane, int nthreads)
{
  dg_func *k = FN("ints", T_VOID, true);
  dg_var *out = PARAM(k, "out", PTR(T_LONG)), *t = LOCAL(k, "t", T_INT);
  k->body = BLK(DECL(t, TID(0)), EXPR(ASG(IDX(V(out), V(t)), CAST(T_LONG, mk(t)))));
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "out", T_LONG, 8 * nthreads, 0);
  simt_launch Ln = launch1(1, (uint32_t)nthreads);
  simt_arg a = abuf(b);
  simt_run(m, k, &Ln, &a, 1);
  int64_t r = 0;
  simt_buf_read(m, b, 8 * lane, &r, 8);
  simt_free(m);
  return r;
}

static dg_expr *e_intmax_plus1(dg_var *t) { return ADD(I(2147483647), V(t)); }
static dg_expr *e_uint_minus(dg_var *t) { return SUB(IT(T_UINT, 0), CAST(T_UINT, V(t))); }
static dg_expr *e_u8(dg_var *t) { return CAST(T_U8, ADD(I(299), V(t))); }
static dg_expr *e_shl(dg_var *t) { return BIN(DG_BIN_SHL, I(1), ADD(I(30), V(t))); }
static dg_expr *e_sar(dg_var *t) { return BIN(DG_BIN_SHR, I(-16), V(t)); }
static dg_expr *e_ucmp(dg_var *t) { return CAST(T_INT, BIN(DG_BIN_GT, CAST(T_UINT, SUB(I(0), V(t))), IT(T_UINT, 1))); }
static dg_expr *e_scmp(dg_var *t) { return CAST(T_INT, LT(SUB(I(0), V(t)), I(1))); }
static dg_expr *e_div(dg_var *t) { return BIN(DG_BIN_DIV, I(-7), ADD(V(t), I(1))); }
static dg_expr *e_mod(dg_var *t) { return BIN(DG_BIN_MOD, I(-7), ADD(V(t), I(1))); }
static dg_expr *e_f2i(dg_var *t) { return CAST(T_INT, COND(LT(V(t), I(1)), F(-3.9), COND(LT(V(t), I(2)), F(1e10), F(NAN)))); }
static dg_expr *e_popc(dg_var *t) { return IN(T_INT, __POPC, CAST(T_UINT, SUB(I(0), V(t)))); }

static void test_ints(void)
{
  is_int(int_result(e_intmax_plus1, 1, 2), -2147483648LL, "INT_MAX + 1 wraps to INT_MIN");
  is_int(int_result(e_uint_minus, 1, 2), 4294967295LL, "0u - 1u wraps to UINT_MAX");
  is_int(int_result(e_u8, 1, 2), 44, "(unsigned char)300 == 44");
  is_int(int_result(e_shl, 1, 2), -2147483648LL, "1 << 31 is INT_MIN");
  is_int(int_result(e_shl, 2, 3), 0, "1 << 32 clamps to 0 as PTX shl does");
  is_int(int_result(e_sar, 2, 3), -4, "-16 >> 2 is arithmetic");
  is_int(int_result(e_ucmp, 1, 2), 1, "(unsigned)-1 > 1u");
  is_int(int_result(e_scmp, 1, 2), 1, "-1 < 1 signed");
  is_int(int_result(e_div, 1, 2), -3, "-7 / 2 truncates");
  is_int(int_result(e_mod, 1, 2), -1, "-7 %% 2 is -1");
  is_int(int_result(e_f2i, 0, 3), -3, "(int)-3.9f == -3");
  is_int(int_result(e_f2i, 1, 3), 2147483647, "(int)1e10f saturates");
  is_int(int_result(e_f2i, 2, 3), 0, "(int)NaN == 0");
  is_int(int_result(e_popc, 1, 2), 32, "__popc(0xffffffff)");
}

/* out[t] (float) = e(t) */
static float float_result(dg_expr *(*mk)(dg_var *t), int lane)
{
  dg_func *k = FN("floats", T_VOID, true);
  dg_var *out = PARAM(k, "out", PTR(T_F32)), *t = LOCAL(k, "t", T_INT);
  k->body = BLK(DECL(t, TID(0)), EXPR(ASG(IDX(V(out), V(t)), mk(t))));
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "out", T_F32, 4 * 32, 0);
  simt_launch Ln = launch1(1, 32);
  simt_arg a = abuf(b);
  simt_run(m, k, &Ln, &a, 1);
  float r = 0;
  simt_buf_read(m, b, 4 * lane, &r, 4);
  simt_free(m);
  return r;
}

static dg_expr *e_fadd(dg_var *t) { return ADD(F(1), F(1e-8)); }
static dg_expr *e_fma(dg_var *t)
{
  float a = 1 + 0x1p-13f, c = -(1 + 0x1p-12f);
  return IN(T_F32, FMAF, F(a), F(a), F(c));
}
static dg_expr *e_mulsub(dg_var *t)
{
  float a = 1 + 0x1p-13f, c = -(1 + 0x1p-12f);
  return ADD(MUL(F(a), F(a)), F(c));
}
static dg_expr *e_expf(dg_var *t) { return IN(T_F32, EXPF, CAST(T_F32, V(t))); }
static dg_expr *e_rsqrt(dg_var *t) { return IN(T_F32, RSQRTF, F(4)); }
static dg_expr *e_half(dg_var *t)
{
  /* 1 + 3*2^-11 lies halfway between two halves: ties to the even one */
  return IN(T_F32, __HALF2FLOAT, IN(T_F16, __FLOAT2HALF, F(1 + 3 * 0x1p-11)));
}
static dg_expr *e_bf16(dg_var *t) { return CAST(T_F32, CAST(T_BF16, F(1 + 0x1p-8))); }
static dg_expr *e_hadd(dg_var *t) { return CAST(T_F32, IN(T_F16, __HADD, FT(T_F16, 2048), FT(T_F16, 1))); }

static void test_floats(void)
{
  ok(float_result(e_fadd, 0) == 1.0f, "1 + 1e-8 rounds to 1 in f32");
  ok(float_result(e_fma, 0) == 0x1p-26f, "fmaf rounds once");
  ok(float_result(e_mulsub, 0) == 0.0f, "a*b + c rounds twice");
  ok(float_result(e_expf, 3) == expf(3.0f), "expf(3)");
  ok(float_result(e_rsqrt, 0) == 0.5f, "rsqrtf(4)");
  ok(float_result(e_half, 0) == 1 + 0x1p-9f, "f32 -> f16 ties to even");
  ok(float_result(e_bf16, 0) == 1.0f, "f32 -> bf16 ties to even");
  ok(float_result(e_hadd, 0) == 2048.0f, "half 2048 + 1 rounds back to 2048");
  ok(dom_round_f16(65519.0) == 65504.0 && isinf(dom_round_f16(65520.0)), "f16 overflow boundary");
  ok(dom_round_f16(0x1p-25) == 0 && dom_round_f16(0x1.8p-25) == 0x1p-24, "f16 subnormal rounding");
  ok(dom_f16_bits(1.0) == 0x3c00 && dom_f16_from_bits(0xc000) == -2.0 && dom_f16_bits(0x1p-24) == 1,
     "f16 bit encodings");
  ok(dom_bf16_bits(1.0) == 0x3f80 && dom_bf16_from_bits(0x4049) == 3.140625, "bf16 bit encodings");
}

/* Control flow: out[t] = f(t) with if/else, loops with break/continue,
 * switch with fallthrough, a device function with divergent returns. */
static void test_control(void)
{
  dg_func *sq = FN("sq", T_INT, false);
  dg_var *a = PARAM(sq, "a", T_INT);
  sq->body = BLK(IF(LT(V(a), I(0)), RET(UN(DG_UN_NEG, MUL(V(a), V(a)))), NULL), RET(MUL(V(a), V(a))));

  dg_func *k = FN("ctl", T_VOID, true);
  dg_var *out = PARAM(k, "out", PTR(T_INT)), *t = LOCAL(k, "t", T_INT), *s = LOCAL(k, "s", T_INT);
  dg_var *j = LOCAL(k, "j", T_INT), *r = LOCAL(k, "r", T_INT), *w = LOCAL(k, "w", T_INT);
  dg_stmt *sw = st(DG_ST_SWITCH);
  sw->e = BIN(DG_BIN_MOD, V(t), I(4));
  sw->body = dg_arena_alloc(&B, sizeof *sw->body * 6);
  sw->cases = dg_arena_alloc(&B, sizeof *sw->cases * 4);
  sw->body[0] = EXPR(ASG(V(r), I(10)));             /* case 0: r = 10; (falls through) */
  sw->body[1] = EXPR(ASGOP(DG_BIN_ADD, V(r), I(1))); /* case 1: r += 1; break */
  sw->body[2] = BRK;
  sw->body[3] = EXPR(ASG(V(r), I(20)));             /* case 2: r = 20; break */
  sw->body[4] = BRK;
  sw->body[5] = EXPR(ASG(V(r), I(30)));             /* default: r = 30 */
  sw->nbody = 6;
  sw->cases[0] = (dg_case){ 0, false, 0 };
  sw->cases[1] = (dg_case){ 1, false, 1 };
  sw->cases[2] = (dg_case){ 2, false, 3 };
  sw->cases[3] = (dg_case){ 0, true, 5 };
  sw->ncases = 4;
  k->body = BLK(
    DECL(t, TID(0)), DECL(s, I(0)), DECL(r, I(0)), DECL(w, I(0)),
    /* for (j = 0; j < t; j++) { if (j & 1) continue; if (j >= 10) break; s += j; } */
    FOR(DECL(j, I(0)), LT(V(j), V(t)), INC(V(j), true),
        BLK(IF(BIN(DG_BIN_AND, V(j), I(1)), CONT, NULL),
            IF(BIN(DG_BIN_GE, V(j), I(10)), BRK, NULL),
            EXPR(ASGOP(DG_BIN_ADD, V(s), V(j))))),
    sw,
    /* do { w++; } while (w < t % 3); */
    DO(EXPR(INC(V(w), false)), LT(V(w), BIN(DG_BIN_MOD, V(t), I(3)))),
    /* out[4t..] = s, r, sq(t - 3), w */
    EXPR(ASG(IDX(V(out), MUL(V(t), I(4))), V(s))),
    EXPR(ASG(IDX(V(out), ADD(MUL(V(t), I(4)), I(1))), V(r))),
    EXPR(ASG(IDX(V(out), ADD(MUL(V(t), I(4)), I(2))), CALL(sq, SUB(V(t), I(3))))),
    IF(LAND(LT(I(0), V(t)), LOR(LT(V(t), I(2)), BIN(DG_BIN_EQ, V(t), I(7)))),
       EXPR(ASG(IDX(V(out), ADD(MUL(V(t), I(4)), I(3))), I(-1))),
       EXPR(ASG(IDX(V(out), ADD(MUL(V(t), I(4)), I(3))), V(w)))));
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "out", T_INT, 4 * 4 * 40, 0);
  simt_launch Ln = launch1(1, 40);
  simt_arg arg = abuf(ob);
  is_int(simt_run(m, k, &Ln, &arg, 1), SIMT_OK, "control-flow kernel runs");
  int32_t o[160];
  simt_buf_read(m, ob, 0, o, sizeof o);
  int good_s = 1, good_r = 1, good_q = 1, good_w = 1;
  for (int tt = 0; tt < 40; tt++) {
    int es = 0;
    for (int jj = 0; jj < tt; jj++) { if (jj & 1) continue; if (jj >= 10) break; es += jj; }
    int er = tt % 4 == 0 ? 11 : tt % 4 == 1 ? 1 : tt % 4 == 2 ? 20 : 30;
    int ew = 0;
    do ew++; while (ew < tt % 3);
    int ev = 0 < tt && (tt < 2 || tt == 7) ? -1 : ew;
    int q = tt - 3, eq = q < 0 ? -q * q : q * q;
    good_s &= o[4 * tt] == es, good_r &= o[4 * tt + 1] == er;
    good_q &= o[4 * tt + 2] == eq, good_w &= o[4 * tt + 3] == ev;
  }
  ok(good_s, "divergent for-loop with break and continue");
  ok(good_r, "switch with fallthrough and default");
  ok(good_q, "device function with divergent returns");
  ok(good_w, "do-while and short-circuit && ||");
  is_int(nevents(m), 0, "no events");

  /* short circuit guards a load: i < n && x[i] > 0 never reads past n */
  dg_func *k2 = FN("sc", T_VOID, true);
  dg_var *y = PARAM(k2, "y", PTR(T_INT)), *x = PARAM(k2, "x", PTR(T_F32)), *i = LOCAL(k2, "i", T_INT);
  k2->body = BLK(DECL(i, TID(0)),
    EXPR(ASG(IDX(V(y), V(i)), CAST(T_INT, LAND(LT(V(i), I(4)), BIN(DG_BIN_GT, IDX(V(x), V(i)), F(0)))))));
  int yb = simt_buf_new(m, "y", T_INT, 4 * 8, 0), xb = simt_buf_new(m, "x", T_F32, 4 * 4, SIMT_BUF_INIT);
  float xs[4] = { 1, -1, 2, 0 };
  simt_buf_write(m, xb, 0, xs, sizeof xs);
  simt_launch L8 = launch1(1, 8);
  simt_arg a2[] = { abuf(yb), abuf(xb) };
  simt_run(m, k2, &L8, a2, 2);
  int32_t ys[8];
  simt_buf_read(m, yb, 0, ys, sizeof ys);
  ok(ys[0] == 1 && ys[1] == 0 && ys[2] == 1 && ys[3] == 0 && ys[7] == 0, "&& value");
  is_int(nevents(m), 0, "&& does not evaluate its right side where the left is false");
  simt_free(m);
}

int main(void)
{
  b_init();
  test_elementwise();
  test_ints();
  test_floats();
  test_control();
  dg_arena_free(&B);
  return tap_done();
}
