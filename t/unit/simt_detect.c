/* simt_detect.c — the SIMT engine's detections (uninitialised reads, shared
 * races, benign races, barrier divergence, runaway loops, read-only stores,
 * asserts) with their lines, and the memory model: shared memory, local
 * arrays, vector loads through reinterpret_cast, dynamic shared memory. */
#include "simt.h"
#include "simt_build.h"
#include "fe.h"
#include "../tap.h"
#include <string.h>

static simt_launch launch1(uint32_t grid, uint32_t block)
{
  return (simt_launch){ .grid = { grid, 1, 1 }, .block = { block, 1, 1 } };
}
static simt_arg abuf(int b) { return (simt_arg){ .kind = SIMT_ARG_BUF, .buf = b }; }

static const simt_event *find_ev(simt *m, simt_evkind k)
{
  size_t n;
  const simt_event *e = simt_events(m, &n);
  for (size_t i = 0; i < n; i++) if (e[i].kind == k) return &e[i];
  return NULL;
}
static int nevents(simt *m) { size_t n; simt_events(m, &n); return (int)n; }

static void expect(simt *m, simt_evkind k, uint32_t line, const char *what)
{
  const simt_event *e = find_ev(m, k);
  ok(e != NULL, "%s: %s reported", what, simt_event_name(k));
  if (e) is_int(e->span.line, line, "%s: at line %u", what, line);
}

/* out[t] = out[t] + 1 on a buffer nothing wrote (line 5) */
static void test_uninit(void)
{
  L = 1;
  dg_func *k = FN("inc", T_VOID, true);
  dg_var *o = PARAM(k, "o", PTR(T_F32)), *t = LOCAL(k, "t", T_INT);
  dg_stmt *d = DECL(t, TID(0));
  L = 5;
  k->body = BLK(d, EXPR(ASG(IDX(V(o), V(t)), ADD(IDX(V(o), V(t)), F(1)))));
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "o", T_F32, 4 * 32, 0);
  simt_launch Ln = launch1(1, 32);
  simt_arg a = abuf(b);
  simt_run(m, k, &Ln, &a, 1);
  expect(m, SIMT_EV_UNINIT, 5, "read of a poisoned buffer");
  simt_buf_set_init(m, b, 0, 4 * 32, true);
  simt_run(m, k, &Ln, &a, 1);
  is_int(nevents(m), 0, "no event once the caller marks it initialised");
  int ro = simt_buf_new(m, "ro", T_F32, 4 * 32, SIMT_BUF_INIT | SIMT_BUF_READONLY);
  simt_arg a2 = abuf(ro);
  simt_run(m, k, &Ln, &a2, 1);
  expect(m, SIMT_EV_READONLY, 5, "store into a const input");
  simt_free(m);
}

/* __shared__ float s[64]; s[t] = t; [__syncthreads();] out[t] = s[(t+1) % 64]
 * lines: 10 store, 11 barrier, 12 load */
static dg_func *k_shift(bool sync, bool same_value)
{
  L = 9;
  dg_func *k = FN("shift", T_VOID, true);
  dg_var *o = PARAM(k, "o", PTR(T_F32)), *t = LOCAL(k, "t", T_INT);
  dg_var *s = SHARED(k, "s", ARR(T_F32, 64));
  dg_stmt *d = DECL(t, TID(0));
  L = 10;
  dg_stmt *st1 = same_value ? EXPR(ASG(IDX(V(s), I(0)), F(7))) : EXPR(ASG(IDX(V(s), V(t)), CAST(T_F32, V(t))));
  L = 11;
  dg_stmt *bar = sync ? EXPR(IN0(T_VOID, __SYNCTHREADS)) : st(DG_ST_NOP);
  L = 12;
  dg_stmt *ld = EXPR(ASG(IDX(V(o), V(t)), IDX(V(s), same_value ? I(0) : BIN(DG_BIN_MOD, ADD(V(t), I(1)), I(64)))));
  k->body = BLK(d, st1, bar, ld);
  return k;
}

static void test_races(void)
{
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "o", T_F32, 4 * 64, 0);
  simt_launch Ln = launch1(2, 64);
  simt_arg a = abuf(b);
  simt_run(m, k_shift(false, false), &Ln, &a, 1);
  const simt_event *e = find_ev(m, SIMT_EV_RACE);
  ok(e != NULL, "missing barrier: race reported");
  if (e) {
    is_int(e->span.line, 12, "race: the load at line 12");
    is_int(e->span2.line, 10, "race: against the store at line 10");
    ok(e->thread2 >= 0 && e->thread2 != e->thread, "race: two different threads");
  }
  simt_run(m, k_shift(true, false), &Ln, &a, 1);
  is_int(nevents(m), 0, "with __syncthreads: no race");
  float o[64];
  simt_buf_read(m, b, 0, o, sizeof o);
  ok(o[0] == 1 && o[63] == 0, "shifted through shared memory");
  simt_run(m, k_shift(true, true), &Ln, &a, 1);
  ok(find_ev(m, SIMT_EV_RACE_BENIGN) && !find_ev(m, SIMT_EV_RACE), "same-value writes: benign race only");
  simt_free(m);
}

/* s[t] = t (line 30); __syncthreads(); o[t] = s[0] (line 32); if (t == 0) s[0] = 5 (line 33):
 * thread 0's store races with the other threads' reads of s[0] in one interval (thread 0
 * read it first, so the race cell's first reader is the writer itself) */
static void test_race_many_readers(void)
{
  L = 29;
  dg_func *k = FN("readers", T_VOID, true);
  dg_var *o = PARAM(k, "o", PTR(T_F32)), *t = LOCAL(k, "t", T_INT);
  dg_var *s = SHARED(k, "s", ARR(T_F32, 64));
  dg_stmt *d = DECL(t, TID(0));
  L = 30;
  dg_stmt *st1 = EXPR(ASG(IDX(V(s), V(t)), CAST(T_F32, V(t))));
  L = 31;
  dg_stmt *bar = EXPR(IN0(T_VOID, __SYNCTHREADS));
  L = 32;
  dg_stmt *ld = EXPR(ASG(IDX(V(o), V(t)), IDX(V(s), I(0))));
  L = 33;
  dg_stmt *w = IF(BIN(DG_BIN_EQ, V(t), I(0)), EXPR(ASG(IDX(V(s), I(0)), F(5))), NULL);
  k->body = BLK(d, st1, bar, ld, w);
  simt *m = simt_new(NULL);
  int b = simt_buf_new(m, "o", T_F32, 4 * 64, 0);
  simt_launch Ln = launch1(1, 64);
  simt_arg a = abuf(b);
  simt_run(m, k, &Ln, &a, 1);
  const simt_event *e = find_ev(m, SIMT_EV_RACE);
  ok(e != NULL, "a store after other threads' reads of the cell: race reported");
  if (e) {
    is_int(e->span.line, 33, "race: the store at line 33");
    ok(e->thread2 != e->thread, "race: not against the writer itself (thread2 %lld, thread %lld)",
       (long long)e->thread2, (long long)e->thread);
    ok(!strstr(e->msg, "by thread 0 and thread 0"), "the message names no thread twice: %s", e->msg);
  }
  simt_free(m);
}

/* if (t < 16) __syncthreads();  (line 21) */
static void test_barrier_divergence(void)
{
  L = 20;
  dg_func *k = FN("bd", T_VOID, true);
  dg_var *t = LOCAL(k, "t", T_INT);
  dg_stmt *d = DECL(t, TID(0));
  L = 21;
  k->body = BLK(d, IF(LT(V(t), I(16)), EXPR(IN0(T_VOID, __SYNCTHREADS)), NULL));
  simt *m = simt_new(NULL);
  simt_launch Ln = launch1(1, 64);
  simt_run(m, k, &Ln, NULL, 0);
  expect(m, SIMT_EV_BARRIER_DIVERGENCE, 21, "barrier under t < 16");

  /* if (t >= 40) return; __syncthreads();  exited threads do not count */
  dg_func *k2 = FN("early", T_VOID, true);
  dg_var *t2 = LOCAL(k2, "t", T_INT);
  k2->body = BLK(DECL(t2, TID(0)), IF(BIN(DG_BIN_GE, V(t2), I(40)), RET(NULL), NULL),
                 EXPR(IN0(T_VOID, __SYNCTHREADS)));
  simt_run(m, k2, &Ln, NULL, 0);
  is_int(nevents(m), 0, "threads that returned are not waited for");

  /* __syncwarp(0xffffffff) with half the warp away (line 23) */
  L = 23;
  dg_func *k3 = FN("sw", T_VOID, true);
  dg_var *t3 = LOCAL(k3, "t", T_INT);
  k3->body = BLK(DECL(t3, TID(0)), IF(LT(V(t3), I(16)), EXPR(IN(T_VOID, __SYNCWARP, IT(T_UINT, 0xffffffff))), NULL));
  simt_launch L32 = launch1(1, 32);
  simt_run(m, k3, &L32, NULL, 0);
  expect(m, SIMT_EV_BARRIER_DIVERGENCE, 23, "__syncwarp with lanes missing");
  simt_free(m);
}

/* int i = 0; while (i < 10) { if (t == 3) continue; i++; }  (line 31) */
static void test_runaway(void)
{
  L = 30;
  dg_func *k = FN("spin", T_VOID, true);
  dg_var *t = LOCAL(k, "t", T_INT), *i = LOCAL(k, "i", T_INT);
  dg_stmt *d1 = DECL(t, TID(0)), *d2 = DECL(i, I(0));
  L = 31;
  dg_stmt *w = WHILE(LT(V(i), I(10)), BLK(IF(BIN(DG_BIN_EQ, V(t), I(3)), CONT, NULL), EXPR(INC(V(i), false))));
  k->body = BLK(d1, d2, w);
  simt *m = simt_new(NULL);
  simt_launch Ln = launch1(1, 32);
  Ln.max_loop_iters = 1000;
  is_int(simt_run(m, k, &Ln, NULL, 0), SIMT_STOPPED, "runaway loop stops the launch");
  expect(m, SIMT_EV_RUNAWAY, 31, "loop of thread 3 never ends");
  const simt_event *e = find_ev(m, SIMT_EV_RUNAWAY);
  if (e) is_int(e->thread, 3, "runaway names thread 3");
  simt_free(m);
}

/* float4 v = reinterpret_cast<const float4*>(x)[t];
 * reinterpret_cast<float4*>(y)[t] = make_float4(v.w, v.z, v.y, v.x); */
static void test_vectors(void)
{
  const dg_type *f4 = VEC(T_F32, 4);
  dg_func *k = FN("rev4", T_VOID, true);
  dg_var *y = PARAM(k, "y", PTR(T_F32)), *x = PARAM(k, "x", PTR(T_F32));
  dg_var *t = LOCAL(k, "t", T_INT), *v = LOCAL(k, "v", f4);
  k->body = BLK(DECL(t, TID(0)),
    DECL(v, IDX(PCAST(PTR(f4), V(x)), V(t))),
    EXPR(ASG(IDX(PCAST(PTR(f4), V(y)), V(t)), VECB(f4, LANE(V(v), 3), LANE(V(v), 2), LANE(V(v), 1), LANE(V(v), 0)))));
  simt *m = simt_new(NULL);
  int yb = simt_buf_new(m, "y", T_F32, 4 * 32, 0), xb = simt_buf_new(m, "x", T_F32, 4 * 32, SIMT_BUF_INIT);
  float xs[32], ys[32];
  for (int i = 0; i < 32; i++) xs[i] = (float)i;
  simt_buf_write(m, xb, 0, xs, sizeof xs);
  simt_launch Ln = launch1(1, 8);
  simt_arg a[] = { abuf(yb), abuf(xb) };
  simt_run(m, k, &Ln, a, 2);
  simt_buf_read(m, yb, 0, ys, sizeof ys);
  ok(ys[0] == 3 && ys[3] == 0 && ys[4] == 7 && ys[31] == 28, "float4 load/store through reinterpret_cast");
  is_int(nevents(m), 0, "no events");
  Ln.block[0] = 9;                                 /* thread 8 reads x[32..35] */
  simt_run(m, k, &Ln, a, 2);
  const simt_event *e = find_ev(m, SIMT_EV_OOB);
  ok(e && e->off == 128 && e->size == 16, "float4 past the end: OOB at byte 128, 16 bytes");

  /* half2: __hadd2 of packed halves, stored through __half2* */
  const dg_type *h2 = VEC(T_F16, 2);
  dg_func *k2 = FN("h2", T_VOID, true);
  dg_var *hy = PARAM(k2, "y", PTR(h2)), *t2 = LOCAL(k2, "t", T_INT);
  k2->body = BLK(DECL(t2, TID(0)),
    EXPR(ASG(IDX(V(hy), V(t2)), IN(h2, __HADD2, IN(h2, __FLOATS2HALF2_RN, F(1), F(2048)),
                                      IN(h2, __FLOATS2HALF2_RN, CAST(T_F32, V(t2)), F(1))))));
  int hb = simt_buf_new(m, "h", T_F16, 4 * 4, 0);
  simt_launch L4 = launch1(1, 4);
  simt_arg ah = abuf(hb);
  simt_run(m, k2, &L4, &ah, 1);
  uint16_t hs[8];
  simt_buf_read(m, hb, 0, hs, sizeof hs);
  ok(hs[0] == 0x3c00 && hs[1] == 0x6800 && hs[6] == 0x4400, "half2 add: 1+3 = 4, 2048+1 rounds to 2048 (%04x %04x %04x)",
     hs[0], hs[1], hs[6]);
  simt_free(m);
}

/* Local array and dynamic shared memory:
 *   extern __shared__ float dyn[]; float a[4] = {t}; a[3] = a[0] * 2;
 *   dyn[t] = a[3] + a[1]; __syncthreads(); out[t] = dyn[31 - t]; */
static void test_local_and_extern(void)
{
  dg_func *k = FN("loc", T_VOID, true);
  dg_var *o = PARAM(k, "o", PTR(T_F32)), *t = LOCAL(k, "t", T_INT);
  dg_var *a = LOCAL(k, "a", ARR(T_F32, 4));
  dg_var *dyn = var_(k, "dyn", ARR(T_F32, -1), DG_VAR_SHARED_EXTERN);
  dg_stmt *da = DECL(a, NULL);
  da->inits = dg_arena_alloc(&B, sizeof *da->inits);
  da->inits[0] = CAST(T_F32, V(t));
  da->ninits = 1;
  k->body = BLK(DECL(t, TID(0)), da,
    EXPR(ASG(IDX(V(a), I(3)), MUL(IDX(V(a), I(0)), F(2)))),
    EXPR(ASG(IDX(V(dyn), V(t)), ADD(IDX(V(a), I(3)), IDX(V(a), I(1))))),
    EXPR(IN0(T_VOID, __SYNCTHREADS)),
    EXPR(ASG(IDX(V(o), V(t)), IDX(V(dyn), SUB(I(31), V(t))))));
  simt *m = simt_new(NULL);
  int ob = simt_buf_new(m, "o", T_F32, 4 * 32, 0);
  simt_launch Ln = launch1(2, 32);
  Ln.shared_bytes = 4 * 32;
  simt_arg arg = abuf(ob);
  simt_run(m, k, &Ln, &arg, 1);
  float os[32];
  simt_buf_read(m, ob, 0, os, sizeof os);
  ok(os[0] == 62 && os[31] == 0 && os[10] == 42, "local array with initialiser list, extern shared");
  is_int(nevents(m), 0, "no events");
  Ln.shared_bytes = 4 * 16;
  simt_run(m, k, &Ln, &arg, 1);
  ok(find_ev(m, SIMT_EV_OOB) != NULL, "dynamic shared memory too small: OOB");
  simt_free(m);
}


/* ---- races the fast paths once hid (race6) ------------------------------------------ */
/* Kernels from source (line numbers of this string, file "races.cu"):
 * wtree: a warp's tree reduction in shared memory; mutant 1 drops the
 * __syncwarp between the loads and the store (lane t stores s[t] while lane
 * t - off reads it: a race under independent thread scheduling).
 * hist: shared bins zeroed (line 20), counted with atomicAdd (21), read (23);
 * variant 1 drops the barrier after the zeroing, 2 the one before the reads. */
static const char race_src[] =
  "__global__ void wtree(float *y, int mutant)\n"                    /* 1 */
  "{\n"
  "  __shared__ float s[64];\n"
  "  int tid = threadIdx.x;\n"
  "  s[tid] = tid;\n"                                                 /* 5 */
  "  __syncthreads();\n"
  "  if (tid < 32) {\n"
  "    for (int off = 32; off > 0; off >>= 1) {\n"
  "      float v = s[tid] + s[tid + off];\n"                          /* 9 */
  "      if (!mutant) __syncwarp();\n"
  "      s[tid] = v;\n"                                               /* 11 */
  "      __syncwarp();\n"
  "    }\n"
  "  }\n"
  "  if (tid == 0) y[blockIdx.x] = s[0];\n"
  "}\n"
  "__global__ void hist(int *h, const int *x, int N, int K, int variant)\n"   /* 17 */
  "{\n"
  "  extern __shared__ int bins[];\n"
  "  for (int b = threadIdx.x; b < K; b += blockDim.x) bins[b] = 0;\n"       /* 20 */
  "  if (variant != 1) __syncthreads();\n"
  "  for (int i = threadIdx.x; i < N; i += blockDim.x) atomicAdd(&bins[x[i]], 1);\n"   /* 22 */
  "  if (variant != 2) __syncthreads();\n"
  "  for (int b = threadIdx.x; b < K; b += blockDim.x) h[b] = bins[b];\n"    /* 24 */
  "}\n"
  /* three readers of one element, then a store: m 0, threads 0 and 40 read
   * s[5], thread 1 too, __syncwarp, thread 0 stores (races with thread 40,
   * which no __syncwarp orders: another warp); m 1, thread 0 reads s[6],
   * __syncwarp, threads 3 and 7 read it, thread 7 stores (races with thread
   * 3, same warp and __syncwarp count); m 2 the same with a __syncwarp
   * before the store (no race) */
  "__global__ void readers(int *y, int m)\n"                          /* 26 */
  "{\n"
  "  __shared__ int s[64];\n"
  "  int tid = threadIdx.x, a = 0;\n"
  "  s[tid] = tid;\n"                                                 /* 30 */
  "  __syncthreads();\n"
  "  if (m == 0) {\n"
  "    if (tid == 0 || tid == 40) a = s[5];\n"                         /* 33 */
  "    if (tid == 1) a += s[5];\n"
  "    __syncwarp();\n"
  "    if (tid == 0) s[5] = a;\n"                                      /* 36 */
  "  } else {\n"
  "    if (tid == 0) a = s[6];\n"
  "    __syncwarp();\n"
  "    if (tid == 3 || tid == 7) a += s[6];\n"                         /* 40 */
  "    if (m == 2) __syncwarp();\n"
  "    if (tid == 7) s[6] = a;\n"                                      /* 42 */
  "  }\n"
  "  y[tid] = a;\n"
  "}\n";

/* readers (above) with m: the race's threads and lines, or none */
static void run_readers(dg_module *mod, int m, int64_t t1, int64_t t2, uint32_t l1, uint32_t l2)
{
  simt *s = simt_new(NULL);
  int y = simt_buf_new(s, "y", NULL, 4 * 64, 0);
  simt_arg a[2] = { abuf(y), { .kind = SIMT_ARG_INT, .i = m } };
  simt_launch Ln = launch1(1, 64);
  simt_run(s, fe_find(mod, "readers"), &Ln, a, 2);
  const simt_event *e = find_ev(s, SIMT_EV_RACE);
  if (t1 < 0) {
    is_int(nevents(s), 0, "readers m=%d: no event", m);
  } else {
    ok(e != NULL, "readers m=%d: race reported", m);
    if (e)
      ok(e->thread == t1 && e->thread2 == t2 && e->span.line == l1 && e->span2.line == l2,
         "readers m=%d: thread %lld (line %u) against thread %lld (line %u): %s", m, (long long)e->thread,
         e->span.line, (long long)e->thread2, e->span2.line, e->msg);
  }
  simt_free(s);
}

static void run_wtree(dg_module *mod, int mutant)
{
  simt *m = simt_new(NULL);
  int y = simt_buf_new(m, "y", NULL, 4 * 2, 0);
  simt_arg a[2] = { abuf(y), { .kind = SIMT_ARG_INT, .i = mutant } };
  simt_launch Ln = launch1(2, 64);
  simt_run(m, fe_find(mod, "wtree"), &Ln, a, 2);
  if (!mutant) {
    float r[2];
    simt_buf_read(m, y, 0, r, sizeof r);
    is_int(nevents(m), 0, "warp tree with __syncwarp between loads and store: no event");
    ok(r[0] == 2016 && r[1] == 2016, "warp tree sums 0..63 (%g %g)", r[0], r[1]);
  } else {
    const simt_event *e = find_ev(m, SIMT_EV_RACE);
    ok(e != NULL, "warp tree without the first __syncwarp: race reported");
    if (e) {
      is_int(e->span.line, 11, "warp race: the store at line 11");
      is_int(e->span2.line, 9, "warp race: against the load at line 9");
      is_int(e->thread, 16, "warp race: thread 16 stores s[16] ...");
      is_int(e->thread2, 0, "warp race: ... which thread 0 read in the same __syncwarp interval");
      ok(strstr(e->msg, "read-write") != NULL, "warp race: a read-write race (%s)", e->msg);
    }
  }
  simt_free(m);
}

/* hist on 64 threads, K = 64 bins, N = 128: x[i] = (7 i + add) % 64; add -1: every
 * x[i] = 0; add -2: x[i] = i % 64 (thread t's own bin t) */
static void run_hist(dg_module *mod, int variant, int add, int64_t *thread, int64_t *thread2,
                     uint32_t *line, uint32_t *line2, char *msg, size_t msgsz, int *nev, int *bins0)
{
  simt *m = simt_new(NULL);
  int h = simt_buf_new(m, "h", NULL, 4 * 64, 0), xb = simt_buf_new(m, "x", NULL, 4 * 128, SIMT_BUF_INIT);
  int32_t xs[128];
  for (int i = 0; i < 128; i++) xs[i] = add == -1 ? 0 : add == -2 ? i % 64 : (7 * i + add) % 64;
  simt_buf_write(m, xb, 0, xs, sizeof xs);
  simt_arg a[5] = { abuf(h), abuf(xb), { .kind = SIMT_ARG_INT, .i = 128 }, { .kind = SIMT_ARG_INT, .i = 64 },
                    { .kind = SIMT_ARG_INT, .i = variant } };
  simt_launch Ln = launch1(1, 64);
  Ln.shared_bytes = 4 * 64;
  simt_run(m, fe_find(mod, "hist"), &Ln, a, 5);
  const simt_event *e = find_ev(m, SIMT_EV_RACE);
  *nev = nevents(m);
  *thread = e ? e->thread : -1, *thread2 = e ? e->thread2 : -1;
  *line = e ? e->span.line : 0, *line2 = e ? e->span2.line : 0;
  snprintf(msg, msgsz, "%s", e ? e->msg : "");
  int32_t hs[64];
  simt_buf_read(m, h, 0, hs, sizeof hs);
  *bins0 = hs[0];
  simt_free(m);
}

static void test_races_hidden(void)
{
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  uint32_t file = dg_srcmgr_add(&sm, "races.cu", dg_strdup(race_src), sizeof race_src - 1);
  dg_diags d = {0};
  dg_module *mod = fe_load_file(&sm, file, NULL, &d);
  if (d.nerrors) dg_diags_print(stdout, &sm, &d);
  dg_diags_free(&d);
  ok(mod && fe_find(mod, "wtree") && fe_find(mod, "hist") && fe_find(mod, "readers"), "race kernels lowered");
  if (!mod) { dg_srcmgr_free(&sm); return; }
  run_wtree(mod, 0);
  run_wtree(mod, 1);
  /* the cell keeps two readers of three: the ones a later store can race with */
  run_readers(mod, 0, 0, 40, 36, 33);
  run_readers(mod, 1, 7, 3, 42, 40);
  run_readers(mod, 2, -1, -1, 0, 0);

  int64_t t1, t2;
  uint32_t l1, l2;
  char msg[256];
  int nev, b0;
  run_hist(mod, 0, 3, &t1, &t2, &l1, &l2, msg, sizeof msg, &nev, &b0);
  is_int(nev, 0, "histogram with both barriers: no event (atomics do not race with each other)");
  is_int(b0, 2, "histogram: bin 0 counted twice");
  run_hist(mod, 0, -1, &t1, &t2, &l1, &l2, msg, sizeof msg, &nev, &b0);
  ok(nev == 0 && b0 == 128, "every thread's atomics on one bin: no event, 128 counted (%d events, %d)", nev, b0);
  /* without the barrier after the zeroing: thread 0's atomic on bins[3] (x[0] = 3)
   * against thread 3's store of 0 */
  run_hist(mod, 1, 3, &t1, &t2, &l1, &l2, msg, sizeof msg, &nev, &b0);
  ok(nev > 0 && strstr(msg, "write-atomic") != NULL, "zeroing then atomics without a barrier: race (%s)", msg);
  is_int(l1, 22, "write-atomic: the atomic at line 22");
  is_int(l2, 20, "write-atomic: against the store at line 20");
  ok(t1 == 0 && t2 == 3, "write-atomic: thread 0 and thread 3 (%lld, %lld)", (long long)t1, (long long)t2);
  /* the same without the barrier, each thread's atomics on the bin it zeroed itself */
  run_hist(mod, 1, -2, &t1, &t2, &l1, &l2, msg, sizeof msg, &nev, &b0);
  ok(nev == 0 && b0 == 2, "a thread's store and its own atomics on a bin: no event (%d events, %d)", nev, b0);
  /* without the barrier before the reads: thread 0's read of bins[0] against the
   * atomic of thread 27 ((7 * 27 + 3) % 64 = 0) */
  run_hist(mod, 2, 3, &t1, &t2, &l1, &l2, msg, sizeof msg, &nev, &b0);
  ok(nev > 0 && strstr(msg, "atomic-read") != NULL, "atomics then reads without a barrier: race (%s)", msg);
  is_int(l1, 24, "atomic-read: the load at line 24");
  is_int(l2, 22, "atomic-read: against the atomic at line 22");
  ok(t1 == 0 && t2 == 27, "atomic-read: thread 0 and thread 27 (%lld, %lld)", (long long)t1, (long long)t2);
  fe_module_free(mod);
  dg_srcmgr_free(&sm);
}

int main(void)
{
  b_init();
  test_uninit();
  test_races();
  test_race_many_readers();
  test_barrier_divergence();
  test_runaway();
  test_vectors();
  test_local_and_extern();
  test_races_hidden();
  dg_arena_free(&B);
  return tap_done();
}
