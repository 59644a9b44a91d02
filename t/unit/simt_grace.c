/* simt_grace.c — races on global memory (src/simt_grace.c): two blocks of
 * one launch storing different values to one element, not both with
 * atomics, are a race naming both blocks, threads and lines, and so is a
 * block loading an element another block stored; two warps of one block
 * storing one element in one barrier interval, or a warp loading what
 * another stored in it, are a race naming both threads and lines. A
 * same-value store, atomics, the __threadfence "last block" (its loads of
 * the others' partials, its counter reset), a barrier between two warps'
 * accesses, a warp's own accesses, grid-stride loops, in-place updates and
 * stores in two launches are not. Each kernel runs on the
 * concrete domain (its fast paths) and on a copy of its vtable (the general
 * path): the same events. Block packing stays on where no two blocks store
 * one element and gives the race up to the block-by-block run where they do. */
#include "simt.h"
#include "fe.h"
#include "../tap.h"
#include <string.h>

static dg_srcmgr sm;
static dom slow;

static const char src[] =
  "__global__ void lost(float *acc, const float *x)\n"                       /* 1 */
  "{\n"
  "  if (threadIdx.x == 0) acc[blockIdx.x / 2] += x[blockIdx.x];\n"          /* 3 */
  "}\n"
  "__global__ void flag(int *f, float *y)\n"                                  /* 5 */
  "{\n"
  "  f[0] = 1;\n"                                                             /* 7 */
  "  y[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f * threadIdx.x;\n"
  "}\n"
  "__global__ void atom(float *acc, const float *x)\n"                       /* 10 */
  "{\n"
  "  atomicAdd(&acc[threadIdx.x % 4], x[blockIdx.x * blockDim.x + threadIdx.x]);\n"
  "}\n"
  "/* the __threadfence reduction's last block */\n"                         /* 14 */
  "__global__ void lastblock(float *part, float *out, unsigned *count)\n"
  "{\n"
  "  __shared__ bool last;\n"
  "  if (threadIdx.x == 0) {\n"
  "    part[blockIdx.x] = blockIdx.x + 1.0f;\n"
  "    __threadfence();\n"
  "    unsigned v = atomicAdd(count, 1u);\n"
  "    last = v == gridDim.x - 1;\n"
  "  }\n"
  "  __syncthreads();\n"
  "  if (last && threadIdx.x == 0) {\n"
  "    float s = 0.0f;\n"
  "    for (unsigned b = 0; b < gridDim.x; b++) s += part[b];\n"
  "    out[0] = s;\n"
  "    *count = 0;\n"
  "  }\n"
  "}\n"
  "__global__ void stride(float *y, const float *x, int n)\n"                /* 32 */
  "{\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
  "    y[i] = y[i] * 2.0f + x[i];\n"
  "}\n"
  "__global__ void wide(short *s, double *d)\n"                              /* 37 */
  "{\n"
  "  if (threadIdx.x == 3) s[1] = (short)(blockIdx.x + 1);\n"               /* 39 */
  "  if (threadIdx.x == 5) d[2] = blockIdx.x * 0.5;\n"                      /* 40 */
  "}\n"
  "__global__ void one(int *o, int who, int v)\n"                            /* 42 */
  "{\n"
  "  if (blockIdx.x == who && threadIdx.x == 0) o[0] = v;\n"
  "}\n"
  "__global__ void pk(int *o, int at)\n"                                     /* 46 */
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  o[i] = i * 3;\n"                                                         /* 49 */
  "  if (at >= 0 && threadIdx.x == 7 && (blockIdx.x == 1 || blockIdx.x == at)) o[0] = blockIdx.x;\n"   /* 50 */
  "}\n"
  "__global__ void readmine(float *a, float *o)\n"                           /* 52 */
  "{\n"
  "  if (blockIdx.x == 0 && threadIdx.x == 0) a[0] = 5.0f;\n"
  "  if (blockIdx.x == 1 && threadIdx.x == 0) o[0] = a[0] + 1.0f;\n"
  "}\n"
  "__global__ void fenced(float *a, float *o, unsigned *count)\n"         /* 57 */
  "{\n"
  "  if (threadIdx.x == 0) {\n"
  "    if (blockIdx.x == 0) { a[0] = 5.0f; __threadfence(); }\n"
  "    unsigned v = atomicAdd(count, 1u);\n"
  "    if (v == gridDim.x - 1) o[0] = a[0] + 1.0f;\n"                     /* 62 */
  "  }\n"
  "}\n"
  "__global__ void warps(float *acc, const float *x)\n"                   /* 65 */
  "{\n"
  "  if ((threadIdx.x & 31) == 0) acc[blockIdx.x] += x[threadIdx.x];\n"    /* 67 */
  "}\n"
  "__global__ void turns(float *acc, int sync)\n"                         /* 69 */
  "{\n"
  "  for (int w = 0; w < blockDim.x / 32; w++) {\n"
  "    if (threadIdx.x == w * 32) acc[0] = acc[0] + 1.0f;\n"               /* 72 */
  "    if (sync) __syncthreads();\n"
  "  }\n"
  "}\n"
  "__global__ void bcast(float *y, int same)\n"                          /* 76 */
  "{\n"
  "  y[0] = same ? 3.0f : (float)threadIdx.x;\n"                           /* 78 */
  "  y[1 + threadIdx.x] = 1.0f;\n"
  "  y[1 + threadIdx.x] = y[1 + threadIdx.x] + 2.0f;\n"                    /* 80 */
  "}\n"
  "__global__ void rows(float *y, int same)\n"                            /* 82 */
  "{\n"
  "  int lane = threadIdx.x % 32;\n"
  "  y[lane] = same ? lane * 1.0f : (float)threadIdx.x;\n"                /* 85: every warp the same row */
  "}\n"
  "__global__ void shift(float *y, int same)\n"                           /* 87 */
  "{\n"
  "  y[threadIdx.x] = 1.0f;\n"                                             /* 89 */
  "  y[(threadIdx.x + 32) % blockDim.x] = same ? 1.0f : 2.0f;\n"           /* 90 */
  "  if (threadIdx.x >= 64) y[threadIdx.x - 64] = same ? 1.0f : 3.0f;\n"    /* 91 */
  "}\n"
  "__global__ void vec4(float4 *v)\n"                                     /* 93 */
  "{\n"
  "  if (threadIdx.x == 0) v[0] = make_float4(1.0f, 2.0f, 3.0f, (float)blockIdx.x);\n"   /* 95 */
  "}\n"
  "__global__ void early(float *a, float *o, int sync)\n"                /* 97 */
  "{\n"
  "  if (threadIdx.x == 32) o[0] = a[0];\n"                               /* 99: warp 1 loads */
  "  if (sync) __syncthreads();\n"
  "  if (threadIdx.x == 0) a[0] = 7.0f;\n"                                /* 101: then warp 0 stores */
  "}\n"
  "__global__ void eblock(float *a, float *o, int v)\n"                  /* 103 */
  "{\n"
  "  if (blockIdx.x == 0 && threadIdx.x == 3) o[0] = a[1];\n"             /* 105: block 0 loads */
  "  if (blockIdx.x == 2 && threadIdx.x == 5) a[1] = (float)v;\n"         /* 106: block 2 stores */
  "}\n"
  "__global__ void rot(float *y, int sync)\n"                             /* 108 */
  "{\n"
  "  float v = y[(threadIdx.x + 32) % blockDim.x];\n"                     /* 110: warp w loads warp w+1's row */
  "  if (sync) __syncthreads();\n"
  "  y[threadIdx.x] = v + 1.0f;\n"                                        /* 112 */
  "}\n"
  "__global__ void everyrow(float *y)\n"                                  /* 114 */
  "{\n"
  "  float v = y[threadIdx.x % 32];\n"                                    /* 116: every warp loads row 0 */
  "  if (threadIdx.x < 32) y[threadIdx.x] = v + 1.0f;\n"                  /* 117: warp 0 stores it */
  "}\n"
  "__global__ void nextblk(float *y)\n"                                   /* 119 */
  "{\n"
  "  float v = blockIdx.x == 0 ? y[blockDim.x + threadIdx.x] : 1.0f;\n"   /* 121: block 0 loads block 1's row */
  "  y[blockIdx.x * blockDim.x + threadIdx.x] = v + 1.0f;\n"              /* 122 */
  "}\n"
  "__global__ void halves(int *y, int k, int mode)\n"                     /* 124 */
  "{\n"
  "  short *s = (short *)y;\n"
  "  if (threadIdx.x != 0) return;\n"
  "  if (mode == 0) s[blockIdx.x / k] = (short)(blockIdx.x + 1);\n"      /* 128: a half of y[0] a block */
  "  if (mode == 1) { if (blockIdx.x == 0) y[0] = 5; else s[1] = 7; }\n"  /* 129: full, then a half */
  "  if (mode == 2) { if (blockIdx.x == 0) s[1] = 7; else y[0] = 5; }\n"  /* 130: a half, then full */
  "  if (mode == 3) { if (blockIdx.x == 0) s[1] = 7; else y[1] = y[0]; }\n"   /* 131: a half, then a load */
  "}\n"
  "__global__ void otherfence(float *a, float *o, unsigned *count)\n"     /* 133 */
  "{\n"
  "  if (threadIdx.x == 0) {\n"
  "    if (blockIdx.x == 0) a[0] = 5.0f;\n"                                 /* 136: no fence after */
  "    if (blockIdx.x == 1) __threadfence();\n"                             /* another block's fence */
  "    unsigned v = atomicAdd(count, 1u);\n"
  "    if (v == gridDim.x - 1) o[0] = a[0] + 1.0f;\n"                       /* 139 */
  "  }\n"
  "}\n"
  "__global__ void halfload(int *y, int *o, int mode)\n"                    /* 142 */
  "{\n"
  "  short *s = (short *)y;\n"
  "  if (mode == 0 && blockIdx.x == 0 && threadIdx.x == 0) o[0] = y[0];\n"  /* 145: block 0 loads y[0] */
  "  if (mode == 0 && blockIdx.x == 1 && threadIdx.x == 0) s[1] = 7;\n"     /* 146: block 1 stores its high half */
  "  if (mode == 1 && threadIdx.x == 32) o[0] = y[0];\n"                    /* 147: warp 1 loads y[0] */
  "  if (mode == 1 && threadIdx.x == 0) s[0] = 7;\n"                        /* 148: then warp 0 stores its low half */
  "  if (mode == 2 && blockIdx.x == 0 && threadIdx.x == 0) o[0] = y[0];\n"  /* 149 */
  "  if (mode == 2 && blockIdx.x == 1 && threadIdx.x == 0) s[1] = s[1];\n"  /* 150: the same bytes */
  "}\n"
  "__global__ void pubother(float *a, float *o, unsigned *count, unsigned *other, int mode)\n"   /* 152 */
  "{\n"
  "  if (threadIdx.x != 0) return;\n"
  "  if (blockIdx.x == 0) {\n"
  "    a[0] = 5.0f;\n"                                                      /* 156 */
  "    __threadfence();\n"
  "    if (mode == 1 || mode == 3) atomicAdd(other, 1u);\n"                 /* an atomic not on the counter */
  "    if (mode != 1) atomicAdd(count, 1u);\n"                              /* the counter */
  "    return;\n"
  "  }\n"
  "  unsigned v = atomicAdd(mode == 2 ? other : count, 1u);\n"              /* mode 2: the loader's atomic is not */
  "  if (v == gridDim.x - (mode == 1 || mode == 2 ? 2u : 1u)) o[0] = a[0] + 1.0f;\n"   /* 163 */
  "}\n"
  "__global__ void halfpair(int *y, int *o, int mode)\n"                    /* 165 */
  "{\n"
  "  short *s = (short *)y;\n"
  "  if (mode == 0 && blockIdx.x == 0 && threadIdx.x == 0) o[0] = s[0];\n"  /* 168: block 0 loads y[0]'s low half */
  "  if (mode == 0 && blockIdx.x == 1 && threadIdx.x == 0) s[1] = 7;\n"     /* 169: block 1 stores its high half */
  "  if (mode == 1 && threadIdx.x == 32) o[0] = s[1];\n"                    /* 170: warp 1 loads the high half */
  "  if (mode == 1 && threadIdx.x == 0) s[0] = 7;\n"                        /* 171: warp 0 stores the low half */
  "  if (mode == 2 && blockIdx.x == 0 && threadIdx.x == 0) o[0] = s[1];\n"  /* 172: block 0 loads the high half */
  "  if (mode == 2 && blockIdx.x == 1 && threadIdx.x == 0) s[1] = 7;\n"     /* 173: block 1 stores it: a race */
  "  if (mode == 3 && threadIdx.x == 32) o[0] = s[1];\n"                    /* 174: warp 1 loads the high half */
  "  if (mode == 3 && threadIdx.x == 0) y[0] = 7;\n"                        /* 175: warp 0 stores y[0], its low half changed */
  "  if (mode == 4 && threadIdx.x == 32) o[0] = s[0];\n"                    /* 176: warp 1 loads the low half */
  "  if (mode == 4 && threadIdx.x == 0) y[0] = 7;\n"                        /* 177: warp 0 stores y[0]: a race */
  "}\n"
  "/* the last block's reduction and its bugs: mode 0 the last block reads (as lastblock), 1 every\n"   /* 179 */
  " * block reads, 2 the block whose atomic returned 0 reads, 3 the partial stored after the fence\n"
  " * and the atomic, 4 the block reads whose blockIdx is the last, 5 every block reads those before\n"
  " * it, 6 stored between the fence and the atomic, 7 the same with a second fence */\n"
  "__global__ void lastbug(float *part, float *out, unsigned *count, int mode)\n"   /* 183 */
  "{\n"
  "  if (threadIdx.x != 0) return;\n"
  "  unsigned b = blockIdx.x;\n"
  "  if (mode != 3 && mode != 6) part[b] = b + 1.0f;\n"                      /* 187 */
  "  __threadfence();\n"
  "  if (mode == 6 || mode == 7) part[b] = b + 2.0f;\n"                      /* 189: after the fence */
  "  if (mode == 7) __threadfence();\n"
  "  unsigned v = atomicAdd(count, 1u);\n"
  "  if (mode == 3) part[b] = b + 1.0f;\n"                                  /* 192: after the fence and the atomic */
  "  bool rd = mode == 1 ? true : mode == 2 ? v == 0 : mode == 4 ? b == gridDim.x - 1 : mode == 5 ? b > 0\n"
  "          : v == gridDim.x - 1;\n"
  "  if (rd) {\n"
  "    float s = 0.0f;\n"
  "    for (unsigned i = 0; i < (mode == 5 ? b : gridDim.x); i++) s += part[i];\n"   /* 197 */
  "    out[b] = s;\n"
  "  }\n"
  "}\n";

enum { ZERO = 2 };
/* init: true floats 1, 2, 3, ...; ZERO zeros; false poisoned. ty 0: no element type (byte cells) */
typedef struct { const char *name; int64_t bytes; int init; dg_tykind ty; } bufspec;

/* runs kernel on a fresh machine with buffers bs (floats 1, 2, 3, ... where
 * init) and the ints after them; returns the machine (the caller frees it) */
static simt *run(dg_module *mod, dom *d, const char *kernel, const bufspec *bs, int nb, const int64_t *iv, int ni,
                 uint32_t grid, uint32_t block, uint64_t seed)
{
  simt *m = simt_new(d);
  simt_arg a[8];
  int na = 0;
  for (int i = 0; i < nb; i++) {
    int id = simt_buf_new(m, bs[i].name, bs[i].ty ? ir_type_scalar(bs[i].ty) : NULL, bs[i].bytes, bs[i].init ? SIMT_BUF_INIT : 0);
    if (bs[i].init == true) {
      float *p = (float *)(void *)simt_buf_data(m, id);
      for (int64_t j = 0; j < bs[i].bytes / 4; j++) p[j] = (float)(j % 7 + 1);
    }
    a[na++] = (simt_arg){ .kind = SIMT_ARG_BUF, .buf = id };
  }
  for (int i = 0; i < ni; i++) a[na++] = (simt_arg){ .kind = SIMT_ARG_INT, .i = iv[i] };
  simt_launch L = { .grid = { grid, 1, 1 }, .block = { block, 1, 1 }, .seed = seed };
  simt_run(m, fe_find(mod, kernel), &L, a, na);
  return m;
}

static const simt_event *race_of(const simt *m, int *n)
{
  size_t ne;
  const simt_event *ev = simt_events(m, &ne), *r = NULL;
  *n = 0;
  for (size_t i = 0; i < ne; i++)
    if (ev[i].kind == SIMT_EV_RACE || ev[i].kind == SIMT_EV_RACE_BENIGN) { if (!r) r = &ev[i]; ++*n; }
  return r;
}

static int nevents(const simt *m) { size_t n; simt_events(m, &n); return (int)n; }

/* the kernel on both paths: no event at all */
static void clean(dg_module *mod, const char *what, const char *kernel, const bufspec *bs, int nb, const int64_t *iv,
                  int ni, uint32_t grid, uint32_t block)
{
  for (int p = 0; p < 2; p++) {
    simt *m = run(mod, p ? &slow : NULL, kernel, bs, nb, iv, ni, grid, block, 0);
    size_t ne;
    const simt_event *ev = simt_events(m, &ne);
    ok(ne == 0, "%s (%s path): no event%s%s", what, p ? "general" : "fast", ne ? ": " : "", ne ? ev[0].msg : "");
    simt_free(m);
  }
}

/* a race at line, between two blocks, on both paths; returns nothing */
static void racy(dg_module *mod, const char *what, const char *kernel, const bufspec *bs, int nb, const int64_t *iv,
                 int ni, uint32_t grid, uint32_t block, uint32_t line, const char *elem, int64_t b1, int64_t b2,
                 int64_t t1, int64_t t2)
{
  for (int p = 0; p < 2; p++) {
    simt *m = run(mod, p ? &slow : NULL, kernel, bs, nb, iv, ni, grid, block, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && e->xblock, "%s (%s path): a race between blocks", what, p ? "general" : "fast");
    if (e) {
      ok(e->span.line == line && e->span2.line == line, "%s: both stores at line %u (%u, %u)", what, line, e->span.line,
         e->span2.line);
      ok(e->block == b2 && e->block2 == b1 && e->thread == t2 && e->thread2 == t1,
         "%s: block %lld thread %lld against block %lld thread %lld (got %lld/%lld, %lld/%lld)", what, (long long)b2,
         (long long)t2, (long long)b1, (long long)t1, (long long)e->block, (long long)e->thread, (long long)e->block2,
         (long long)e->thread2);
      ok(strstr(e->msg, elem) && strstr(e->msg, "two blocks"), "%s: the message names %s: %s", what, elem, e->msg);
      ok(e->bidx2[0] == (uint32_t)b1 && e->tidx2[0] == (uint32_t)t1, "%s: the other thread's coordinates", what);
      dg_buf b = {0};
      simt_event_format(&b, &sm, e);
      char want[64];
      snprintf(want, sizeof want, "vs block (%lld,0,0) thread (%lld,0,0) at line %u:", (long long)b1, (long long)t1, line);
      ok(b.s && strstr(b.s, want), "%s: formatted with the other block: %s", what, b.s ? b.s : "");
      dg_buf_free(&b);
    }
    simt_free(m);
  }
}

static void test_lost(dg_module *mod)
{
  bufspec bs[] = { { "acc", 4 * 4, true, DG_TY_F32 }, { "x", 8 * 4, true, DG_TY_F32 } };
  racy(mod, "acc[b/2] += x[b]", "lost", bs, 2, NULL, 0, 8, 32, 3, "acc[0]", 0, 1, 0, 0);
  /* any block order: still a race, still both lines */
  simt *m = run(mod, NULL, "lost", bs, 2, NULL, 0, 8, 32, 12345);
  int n;
  const simt_event *e = race_of(m, &n);
  ok(e && e->xblock && e->block / 2 == e->block2 / 2 && e->block != e->block2,
     "blocks in a permuted order: the race names the two blocks of one row (%lld, %lld)", e ? (long long)e->block : -1LL,
     e ? (long long)e->block2 : -1LL);
  ok(e && e->count >= 4, "one event for the four rows' races, counted (%lld)", e ? (long long)e->count : 0LL);
  simt_free(m);
  /* one block: nothing to race with */
  clean(mod, "one block of acc[b/2] += x[b]", "lost", bs, 2, NULL, 0, 1, 32);
}

static void test_benign(dg_module *mod)
{
  bufspec bs[] = { { "f", 4, false }, { "y", 4 * 32 * 4, false } };
  clean(mod, "f[0] = 1 from every block", "flag", bs, 2, NULL, 0, 4, 32);
  bufspec ba[] = { { "acc", 4 * 4, true }, { "x", 4 * 64 * 4, true } };
  clean(mod, "atomicAdd from every block", "atom", ba, 2, NULL, 0, 4, 64);
  bufspec bl[] = { { "part", 6 * 4, false, DG_TY_F32 }, { "out", 4, false, DG_TY_F32 }, { "count", 4, ZERO, DG_TY_U32 } };
  clean(mod, "__threadfence last block: reads the partials, resets the counter", "lastblock", bl, 3, NULL, 0, 6, 32);
  {
    simt *m = run(mod, NULL, "lastblock", bl, 3, NULL, 0, 6, 32, 0);
    float out = 0;
    uint32_t cnt = 1;
    simt_buf_read(m, 2, 0, &out, 4), simt_buf_read(m, 3, 0, &cnt, 4);
    ok(out == 21.0f && cnt == 0, "... the last block summed the partials (%g) and reset the counter (%u)", out, cnt);
    simt_free(m);
  }
  bufspec bg[] = { { "y", 1000 * 4, true }, { "x", 1000 * 4, true } };
  int64_t n = 1000;
  clean(mod, "grid-stride loop, in place", "stride", bg, 2, &n, 1, 3, 64);
  bufspec bf[] = { { "a", 4, false, DG_TY_F32 }, { "o", 4, false, DG_TY_F32 }, { "count", 4, ZERO, DG_TY_U32 } };
  clean(mod, "the last block loads block 0's store after its __threadfence and the counter", "fenced", bf, 3, NULL, 0,
        3, 32);
  /* the fence is another block's: block 0's store is not published before its atomic */
  for (int p = 0; p < 2; p++) {
    simt *m = run(mod, p ? &slow : NULL, "otherfence", bf, 3, NULL, 0, 3, 32, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->xblock && !e->write && e->span.line == 139 && e->span2.line == 136 && e->block == 2 && e->block2 == 0
       && strstr(e->msg, "write-read of a[0] by two blocks"),
       "%s path: the last block loads block 0's store, block 1 ran the fence: a race (%s)", p ? "general" : "fast",
       e ? e->msg : "no race");
    simt_free(m);
  }
}

/* loads of another block's store: block 1 reads a[0], which block 0 stored */
static void test_loads(dg_module *mod)
{
  bufspec br[] = { { "a", 4, false, DG_TY_F32 }, { "o", 4, false, DG_TY_F32 } };
  for (int p = 0; p < 2; p++) {
    simt *m = run(mod, p ? &slow : NULL, "readmine", br, 2, NULL, 0, 2, 32, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && e->xblock && e->gmem && !e->write && e->span.line == 55 && e->span2.line == 54
       && e->block == 1 && e->block2 == 0 && strstr(e->msg, "write-read of a[0] by two blocks"),
       "%s path: block 1 loading a[0] that block 0 stored is a write-read race between blocks (%s)",
       p ? "general" : "fast", e ? e->msg : "no race");
    simt_free(m);
  }
}

/* a load before another warp's or block's store (loads are recorded): the store is the race */
static void test_early(dg_module *mod)
{
  bufspec ba[] = { { "a", 4 * 4, true, DG_TY_F32 }, { "o", 4, ZERO, DG_TY_F32 } };
  bufspec by[] = { { "y", 64 * 4, true, DG_TY_F32 } };
  for (int p = 0; p < 2; p++) {
    const char *path = p ? "general" : "fast";
    int64_t sync = 0;
    simt *m = run(mod, p ? &slow : NULL, "early", ba, 2, &sync, 1, 1, 64, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && !e->xblock && e->gmem && e->write && e->span.line == 101 && e->span2.line == 99
       && e->thread == 0 && e->thread2 == 32 && strstr(e->msg, "read-write of a[0] by two warps of one block"),
       "%s path: warp 1 loads a[0], then warp 0 stores it: a read-write race, thread 0's store (line 101) against "
       "thread 32's load (line 99) (%s; threads %lld, %lld)", path, e ? e->msg : "no race", e ? (long long)e->thread : -1LL,
       e ? (long long)e->thread2 : -1LL);
    simt_free(m);
    sync = 1;
    m = run(mod, p ? &slow : NULL, "early", ba, 2, &sync, 1, 1, 64, 0);
    ok(nevents(m) == 0, "%s path: a barrier between the load and the store: no event (%d)", path, nevents(m));
    simt_free(m);
    int64_t v = 7;
    m = run(mod, p ? &slow : NULL, "eblock", ba, 2, &v, 1, 3, 32, 0);
    e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && e->xblock && e->write && e->span.line == 106 && e->span2.line == 105
       && e->block == 2 && e->thread == 5 && e->block2 == 0 && e->thread2 == 3
       && strstr(e->msg, "read-write of a[1] by two blocks of one launch"),
       "%s path: block 0 loads a[1], block 2 stores it: a read-write race between blocks, block 2 thread 5 line 106 "
       "against block 0 thread 3 line 105 (%s)", path, e ? e->msg : "no race");
    if (e && !p) {
      dg_buf b = {0};
      simt_event_format(&b, &sm, e);
      ok(b.s && strstr(b.s, "grace.cu:106:") && strstr(b.s, "vs block (0,0,0) thread (3,0,0) at line 105:"),
         "  formatted with file:line:col and the loading thread: %s", b.s ? b.s : "");
      dg_buf_free(&b);
    }
    simt_free(m);
    v = 2;                    /* a[1] holds 2 already: the load sees 2 in either order */
    m = run(mod, p ? &slow : NULL, "eblock", ba, 2, &v, 1, 3, 32, 0);
    ok(nevents(m) == 0, "%s path: the store leaves a[1]'s bytes as they were: no event (%d)", path, nevents(m));
    simt_free(m);
    sync = 0;                 /* rows: a warp's consecutive loads and stores */
    m = run(mod, p ? &slow : NULL, "rot", by, 1, &sync, 1, 1, 64, 0);
    e = race_of(m, &n);
    ok(e && !e->xblock && e->span.line == 112 && e->span2.line == 110 && e->thread == 0 && e->thread2 == 32
       && strstr(e->msg, "read-write of y[0] by two warps"),
       "%s path: warp 1 loaded warp 0's row, warp 0 stores it: thread 0 against thread 32 (%s; %lld, %lld)", path,
       e ? e->msg : "no race", e ? (long long)e->thread : -1LL, e ? (long long)e->thread2 : -1LL);
    simt_free(m);
    sync = 1;
    m = run(mod, p ? &slow : NULL, "rot", by, 1, &sync, 1, 1, 64, 0);
    ok(nevents(m) == 0, "%s path: the rotation with a barrier between: no event (%d)", path, nevents(m));
    simt_free(m);
    /* every warp loads row 0, warp 0 stores it: the first loader is warp 0's, the second warp 1's */
    m = run(mod, p ? &slow : NULL, "everyrow", by, 1, NULL, 0, 1, 64, 0);
    e = race_of(m, &n);
    ok(e && !e->xblock && e->span.line == 117 && e->span2.line == 116 && e->thread == 0 && e->thread2 == 32,
       "%s path: a row every warp loaded, stored by warp 0: thread 0 against the second loader, thread 32 (%s; %lld, %lld)",
       path, e ? e->msg : "no race", e ? (long long)e->thread : -1LL, e ? (long long)e->thread2 : -1LL);
    simt_free(m);
    /* block 0 loads block 1's row (a word a chunk), then block 1 stores it */
    bufspec b2[] = { { "y", 128 * 4, true, DG_TY_F32 } };
    m = run(mod, p ? &slow : NULL, "nextblk", b2, 1, NULL, 0, 2, 64, 0);
    e = race_of(m, &n);
    ok(e && e->xblock && e->span.line == 122 && e->span2.line == 121 && e->block == 1 && e->thread == 1
       && e->block2 == 0 && e->thread2 == 1 && strstr(e->msg, "read-write of y[65] by two blocks"),
       "%s path: block 1 stores the row block 0 loaded: block 1 thread 1 against block 0 thread 1 (y[64] holds 2 "
       "already, the value stored: not a race) (%s; %lld/%lld, %lld/%lld)",
       path, e ? e->msg : "no race", e ? (long long)e->block : -1LL, e ? (long long)e->thread : -1LL,
       e ? (long long)e->block2 : -1LL, e ? (long long)e->thread2 : -1LL);
    simt_free(m);
  }
}

/* an event naming two warps of one block (not xblock), at line and line2 */
static const simt_event *warp_race(simt *m, const char *what, const char *kind, uint32_t line, uint32_t line2)
{
  int n;
  const simt_event *e = race_of(m, &n);
  ok(e && e->kind == SIMT_EV_RACE && !e->xblock && e->gmem && e->thread / 32 != e->thread2 / 32 && e->thread2 >= 0
     && e->span.line == line && e->span2.line == line2 && strstr(e->msg, kind) && strstr(e->msg, "two warps of one block"),
     "%s: a %s race between two warps of one block, lines %u and %u (%s: threads %lld and %lld, lines %u, %u)", what,
     kind, line, line2, e ? e->msg : "no race", e ? (long long)e->thread : -1LL, e ? (long long)e->thread2 : -1LL,
     e ? e->span.line : 0, e ? e->span2.line : 0);
  return e;
}

static void test_warps(dg_module *mod)
{
  bufspec bs[] = { { "acc", 4 * 4, ZERO, DG_TY_F32 }, { "x", 128 * 4, true, DG_TY_F32 } };
  for (int p = 0; p < 2; p++) {
    const char *path = p ? "general" : "fast";
    char what[96];
    /* one block of four warps, lane 0 of each adding into acc[0] in one statement: every lane
     * loads, then warp 0's store is the first to land, after warp 1's load */
    simt *m = run(mod, p ? &slow : NULL, "warps", bs, 2, NULL, 0, 1, 128, 0);
    snprintf(what, sizeof what, "acc[b] += x by four warps' lane 0 (%s path)", path);
    const simt_event *e = warp_race(m, what, "read-write of acc[0]", 67, 67);
    if (e) {
      ok(e->thread == 0 && e->thread2 == 32, "  thread 0's store against thread 32's load (%lld, %lld)",
         (long long)e->thread, (long long)e->thread2);
      dg_buf b = {0};
      simt_event_format(&b, &sm, e);
      ok(b.s && strstr(b.s, "vs thread 32 at line 67:"), "  formatted with the other thread: %s", b.s ? b.s : "");
      dg_buf_free(&b);
    }
    simt_free(m);
    /* warps in a permuted order: still the race */
    m = run(mod, p ? &slow : NULL, "warps", bs, 2, NULL, 0, 3, 128, 777);
    snprintf(what, sizeof what, "the same, blocks and warps permuted (%s path)", path);
    warp_race(m, what, "read-write of acc[", 67, 67);
    simt_free(m);
    /* the warps take turns in a loop: in the emulator the sum comes out right, a GPU loses updates */
    int64_t sync = 0;
    m = run(mod, p ? &slow : NULL, "turns", bs, 1, &sync, 1, 1, 128, 0);
    snprintf(what, sizeof what, "warps adding in turns, no barrier (%s path)", path);
    warp_race(m, what, "write-read of acc[0]", 72, 72);
    float v = 0;
    simt_buf_read(m, 1, 0, &v, 4);
    ok(v == 4.0f, "  (the emulator's sum: %g)", v);
    simt_free(m);
    sync = 1;
    clean(mod, "warps adding in turns with a barrier after each", "turns", bs, 1, &sync, 1, 1, 128);
    bufspec by[] = { { "y", 129 * 4, false, DG_TY_F32 } };
    int64_t same = 0;
    m = run(mod, p ? &slow : NULL, "bcast", by, 1, &same, 1, 1, 128, 0);
    snprintf(what, sizeof what, "y[0] = threadIdx.x by every thread (%s path)", path);
    e = warp_race(m, what, "write-write of y[0]", 78, 78);
    ok(e && e->thread == 32 && e->thread2 == 31, "  thread 32 against thread 31, the last of warp 0 to store (%lld, %lld)",
       e ? (long long)e->thread : -1LL, e ? (long long)e->thread2 : -1LL);
    simt_free(m);
  }
  int64_t same = 1;
  bufspec by[] = { { "y", 129 * 4, false, DG_TY_F32 } };
  clean(mod, "y[0] = 3 by every thread, and each thread's own store read back", "bcast", by, 1, &same, 1, 1, 128);
  bufspec br[] = { { "y", 128 * 4, false, DG_TY_F32 } };
  clean(mod, "every warp storing the same values into one row", "rows", br, 1, &same, 1, 1, 128);
  clean(mod, "warps storing again what another warp stored (the same values)", "shift", br, 1, &same, 1, 1, 128);
  same = 0;
  for (int p = 0; p < 2; p++) {
    const char *path = p ? "general" : "fast";
    char what[96];
    simt *m = run(mod, p ? &slow : NULL, "rows", br, 1, &same, 1, 1, 128, 0);
    snprintf(what, sizeof what, "every warp storing its own values into one row (%s path)", path);
    const simt_event *e = warp_race(m, what, "write-write of y[0]", 85, 85);
    ok(e && e->thread == 32 && e->thread2 == 0, "  thread 32 against thread 0 (%lld, %lld)", e ? (long long)e->thread : -1LL,
       e ? (long long)e->thread2 : -1LL);
    simt_free(m);
    m = run(mod, p ? &slow : NULL, "shift", br, 1, &same, 1, 1, 128, 0);
    snprintf(what, sizeof what, "warp w storing into warp w+1's elements (%s path)", path);
    e = warp_race(m, what, "write-write of y[32]", 90, 89);
    ok(e && e->thread == 0 && e->thread2 == 32 && e->count == 128, "  thread 0 against thread 32, all 128 elements (%lld, %lld, x%lld)",
       e ? (long long)e->thread : -1LL, e ? (long long)e->thread2 : -1LL, e ? (long long)e->count : 0LL);
    int n;
    size_t ne;
    const simt_event *ev = simt_events(m, &ne);
    race_of(m, &n);
    ok(n == 2 && ne == 2 && ev[1].span.line == 91 && ev[1].span2.line == 90 && ev[1].thread == 64 && ev[1].thread2 == 96,
       "  and lanes 64.. storing y[0..63] against warp 3's and 0's stores at line 90 (%d events, %s)", n,
       ne > 1 ? ev[1].msg : "-");
    simt_free(m);
  }
  bufspec ba[] = { { "acc", 4 * 4, true }, { "x", 4 * 256 * 4, true } };
  clean(mod, "atomicAdd from every warp of one block", "atom", ba, 2, NULL, 0, 1, 256);
}

static void test_general(dg_module *mod)
{
  /* a short and a double: the general path's stores and an 8-byte cell */
  bufspec bs[] = { { "s", 4 * 2, false, DG_TY_I16 }, { "d", 4 * 8, false, DG_TY_F64 } };
  racy(mod, "short s[1] = b + 1", "wide", bs, 2, NULL, 0, 3, 32, 39, "s[1]", 0, 1, 3, 3);
  /* byte cells where the buffer has no element type */
  bufspec bb[] = { { "s", 4 * 2, false, 0 }, { "d", 4 * 8, false, 0 } };
  racy(mod, "short s[1] = b + 1, untyped buffer", "wide", bb, 2, NULL, 0, 3, 32, 39, "s[byte 2]", 0, 1, 3, 3);
  /* a float4 store over four float cells: cell by cell (the first three the same value) */
  bufspec bv[] = { { "v", 4 * 4, false, DG_TY_F32 } };
  racy(mod, "float4 v[0] from two blocks, its w differing", "vec4", bv, 1, NULL, 0, 2, 32, 95, "v[3]", 0, 1, 0, 0);
}

/* stores narrower than the element (a short into an int's bytes): byte by byte */
static void test_narrow(dg_module *mod)
{
  bufspec bs[] = { { "y", 2 * 4, ZERO, DG_TY_I32 } };
  int64_t iv[2] = { 1, 0 };
  clean(mod, "two blocks storing the two halves of y[0]", "halves", bs, 1, iv, 2, 2, 32);
  iv[0] = 2;
  for (int p = 0; p < 2; p++) {
    const char *path = p ? "general" : "fast";
    simt *m = run(mod, p ? &slow : NULL, "halves", bs, 1, iv, 2, 2, 32, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->xblock && e->write && e->span.line == 128 && e->span2.line == 128 && e->block == 1 && e->block2 == 0
       && strstr(e->msg, "write-write of y[0] by two blocks"),
       "%s path: two blocks storing the same half of y[0], different values: a race (%s)", path, e ? e->msg : "no race");
    simt_free(m);
    static const char *const what[] = { NULL, "a full store, then another block's half", "a half, then another block's "
                                        "full store", "a half, then another block's load" };
    static const char *const want[] = { NULL, "write-write of y[byte 2] by two blocks", "write-write of y[byte 2] by two "
                                        "blocks", "write-read of y[byte 2] by two blocks" };
    for (int mode = 1; mode <= 3; mode++) {
      int64_t mv[2] = { 1, mode };
      m = run(mod, p ? &slow : NULL, "halves", bs, 1, mv, 2, 2, 32, 0);
      e = race_of(m, &n);
      ok(e && e->xblock && e->span.line == 128 + (uint32_t)mode && e->span2.line == 128 + (uint32_t)mode
         && e->block == 1 && e->block2 == 0 && strstr(e->msg, want[mode]),
         "%s path: %s of y[0]: %s (%s)", path, what[mode], want[mode], e ? e->msg : "no race");
      simt_free(m);
    }
  }
  int64_t same[2] = { 2, 0 };       /* both blocks' halves the same value: (short)(b + 1) differs; k = 2, one block */
  clean(mod, "one block storing a half of y[0]", "halves", bs, 1, same, 2, 1, 32);
}

/* a narrow store after another block's or warp's load of its bytes (the loads recorded) */
static void test_narrow_load(dg_module *mod)
{
  bufspec bs[] = { { "y", 2 * 4, ZERO, DG_TY_I32 }, { "o", 4, ZERO, DG_TY_I32 } };
  for (int p = 0; p < 2; p++) {
    const char *path = p ? "general" : "fast";
    int64_t mode = 0;
    simt *m = run(mod, p ? &slow : NULL, "halfload", bs, 2, &mode, 1, 2, 32, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && e->xblock && e->write && e->span.line == 146 && e->span2.line == 145
       && e->block == 1 && e->block2 == 0 && strstr(e->msg, "read-write of y[byte 2] by two blocks"),
       "%s path: block 0 loads y[0], block 1 stores a half of it: a read-write race (%s)", path, e ? e->msg : "no race");
    simt_free(m);
    mode = 1;
    m = run(mod, p ? &slow : NULL, "halfload", bs, 2, &mode, 1, 1, 64, 0);
    e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && !e->xblock && e->write && e->span.line == 148 && e->span2.line == 147
       && e->thread == 0 && e->thread2 == 32 && strstr(e->msg, "read-write of y[0] by two warps of one block"),
       "%s path: warp 1 loads y[0], then warp 0 stores a half of it: a read-write race (%s)", path, e ? e->msg : "no race");
    simt_free(m);
  }
  int64_t mode = 2;
  clean(mod, "block 0 loads y[0], block 1 stores a half of it unchanged", "halfload", bs, 2, &mode, 1, 2, 32);
}

/* A narrow load is recorded byte by byte (session 12): a store of the element's other bytes does
 * not race with it (it was kept a cell at a time, so block 1 storing y[0]'s high half raced with
 * block 0's load of its low half; 3 checks a path that fail before); a store that changes the
 * bytes it loaded still does, narrow or full. */
static void test_narrow_bytes(dg_module *mod)
{
  bufspec bs[] = { { "y", 2 * 4, ZERO, DG_TY_I32 }, { "o", 4, ZERO, DG_TY_I32 } };
  int64_t mode = 0;
  clean(mod, "block 0 loads y[0]'s low half, block 1 stores its high half", "halfpair", bs, 2, &mode, 1, 2, 32);
  mode = 1;
  clean(mod, "warp 1 loads y[0]'s high half, warp 0 then stores its low half", "halfpair", bs, 2, &mode, 1, 1, 64);
  mode = 3;
  clean(mod, "warp 1 loads y[0]'s high half, warp 0 then stores y[0] changing its low half only", "halfpair", bs, 2,
        &mode, 1, 1, 64);
  for (int p = 0; p < 2; p++) {
    const char *path = p ? "general" : "fast";
    mode = 2;
    simt *m = run(mod, p ? &slow : NULL, "halfpair", bs, 2, &mode, 1, 2, 32, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && e->xblock && e->write && e->span.line == 173 && e->span2.line == 172
       && e->block == 1 && e->block2 == 0 && strstr(e->msg, "read-write of y[byte 2] by two blocks"),
       "%s path: block 0 loads y[0]'s high half, block 1 stores it: a read-write race (%s)", path, e ? e->msg : "no race");
    simt_free(m);
    mode = 4;
    m = run(mod, p ? &slow : NULL, "halfpair", bs, 2, &mode, 1, 1, 64, 0);
    e = race_of(m, &n);
    ok(e && e->kind == SIMT_EV_RACE && !e->xblock && e->write && e->span.line == 177 && e->span2.line == 176
       && e->thread == 0 && e->thread2 == 32 && strstr(e->msg, "read-write of y[0] by two warps of one block"),
       "%s path: warp 1 loads y[0]'s low half, warp 0 stores y[0]: a read-write race (%s)", path, e ? e->msg : "no race");
    simt_free(m);
  }
}

/* the "last block" exemption needs the counter: the storing block's atomic after its fence and the loading
 * block's before the load on one address */
static void test_counter(dg_module *mod)
{
  bufspec bs[] = { { "a", 4, false, DG_TY_F32 }, { "o", 4, false, DG_TY_F32 }, { "count", 4, ZERO, DG_TY_U32 },
                   { "other", 4, ZERO, DG_TY_U32 } };
  int64_t mode = 0;
  clean(mod, "block 0 publishes on the counter the last block reads", "pubother", bs, 4, &mode, 1, 3, 32);
  mode = 3;
  clean(mod, "block 0's fence, an unrelated atomic, then the counter's", "pubother", bs, 4, &mode, 1, 3, 32);
  static const char *const what[] = { NULL, "block 0's atomic after its fence is not on the counter",
                                      "the last block's atomic is not on block 0's counter" };
  for (int p = 0; p < 2; p++)
    for (mode = 1; mode <= 2; mode++) {
      simt *m = run(mod, p ? &slow : NULL, "pubother", bs, 4, &mode, 1, 3, 32, 0);
      int n;
      const simt_event *e = race_of(m, &n);
      ok(e && e->xblock && !e->write && e->span.line == 163 && e->span2.line == 156 && e->block == 2 && e->block2 == 0
         && strstr(e->msg, "write-read of a[0] by two blocks"),
         "%s path: %s: the last block's load of a[0] races with block 0's store (%s)", p ? "general" : "fast",
         what[mode], e ? e->msg : "no race");
      simt_free(m);
    }
}

/* the race event at line (NULL none) */
static const simt_event *race_at(const simt *m, uint32_t line)
{
  size_t ne;
  const simt_event *ev = simt_events(m, &ne);
  for (size_t i = 0; i < ne; i++)
    if (ev[i].kind == SIMT_EV_RACE && ev[i].span.line == line) return &ev[i];
  return NULL;
}

/* the "last block" exemption holds only where the loading block counted last and the store came
 * before the storing block's fence and atomic */
static void test_lastbug(dg_module *mod)
{
  bufspec bs[] = { { "part", 4 * 4, ZERO, DG_TY_F32 }, { "out", 4 * 4, ZERO, DG_TY_F32 }, { "count", 4, ZERO, DG_TY_U32 } };
  int64_t mode = 0;
  clean(mod, "the last block reads the partials", "lastbug", bs, 3, &mode, 1, 4, 32);
  mode = 7;
  clean(mod, "a partial stored after the fence, then a second fence and the atomic", "lastbug", bs, 3, &mode, 1, 4, 32);
  for (int64_t md = 0; md <= 7; md += 7) {     /* blocks in another order: still clean */
    simt *m = run(mod, NULL, "lastbug", bs, 3, &md, 1, 4, 32, 12345);
    ok(nevents(m) == 0, "mode %lld, blocks in a permuted order: no event", (long long)md);
    simt_free(m);
  }
  /* the load (line 197) of another block's partial, named against its store (line, block) */
  static const struct { int mode; uint32_t st; int64_t lb, sb; const char *what, *msg; } cs[] = {
    { 1, 187, 1, 0, "every block reads the partials (no test on the counter)", "counted before block (2,0,0)" },
    { 5, 187, 1, 0, "every block reads the partials of the blocks before it", "counted before block (2,0,0)" },
    { 3, 192, 3, 0, "the partial stored after the fence and the atomic", "which block runs first" },
    { 6, 189, 3, 0, "the partial stored after the fence, before the atomic", "which block runs first" },
  };
  for (size_t c = 0; c < sizeof cs / sizeof *cs; c++)
    for (int p = 0; p < 2; p++) {
      mode = cs[c].mode;
      simt *m = run(mod, p ? &slow : NULL, "lastbug", bs, 3, &mode, 1, 4, 32, 0);
      const simt_event *e = race_at(m, 197);
      ok(e && e->xblock && !e->write && e->span2.line == cs[c].st && e->block == cs[c].lb && e->block2 == cs[c].sb
         && e->thread == 0 && e->thread2 == 0 && strstr(e->msg, "write-read of part[0] by two blocks")
         && strstr(e->msg, cs[c].msg),
         "%s path: %s: a race of the load at line 197 with the store at line %u (%s)", p ? "general" : "fast",
         cs[c].what, cs[c].st, e ? e->msg : "no race at line 197");
      if (e) {
        dg_buf b = {0};
        simt_event_format(&b, &sm, e);
        char want[64];
        snprintf(want, sizeof want, "vs block (%lld,0,0) thread (0,0,0) at line %u:", (long long)cs[c].sb, cs[c].st);
        ok(b.s && strstr(b.s, want), "... formatted with the storing block: %s", b.s ? b.s : "");
        dg_buf_free(&b);
      }
      simt_free(m);
    }
  /* the loader picked by its blockIdx, not by the counter: in the launch's order it counts last and
   * nothing shows (the emulator does not see what the load depended on); blocks in another order
   * where it does not run last: the race */
  mode = 4;
  {
    simt *m = run(mod, NULL, "lastbug", bs, 3, &mode, 1, 4, 32, 0);
    ok(nevents(m) == 0, "the block with the last blockIdx reads, blocks in order: not seen (%d events)", nevents(m));
    simt_free(m);
    m = run(mod, NULL, "lastbug", bs, 3, &mode, 1, 4, 32, 1);
    const simt_event *e = race_at(m, 197);
    ok(e && e->xblock && e->block == 3 && strstr(e->msg, "not last"),
       "... blocks in a permuted order where block 3 runs before block 1: a race of its load (%s)", e ? e->msg : "none");
    simt_free(m);
  }
  /* the block whose atomic returned 0 reads: the partials it loads are stored later (as before) */
  for (int p = 0; p < 2; p++) {
    mode = 2;
    simt *m = run(mod, p ? &slow : NULL, "lastbug", bs, 3, &mode, 1, 4, 32, 0);
    const simt_event *e = race_at(m, 187);
    ok(e && e->xblock && e->write && e->span2.line == 197 && e->block == 1 && e->block2 == 0
       && strstr(e->msg, "read-write of part[1]"),
       "%s path: the first block to count reads the partials: block 1's store races with block 0's load (%s)",
       p ? "general" : "fast", e ? e->msg : "no race at line 187");
    simt_free(m);
  }
}

/* stores in two launches: launches are ordered */
static void test_launches(dg_module *mod)
{
  for (int p = 0; p < 2; p++) {
    simt *m = simt_new(p ? &slow : NULL);
    int o = simt_buf_new(m, "o", NULL, 4, 0);
    simt_launch L = { .grid = { 4, 1, 1 }, .block = { 32, 1, 1 } };
    simt_arg a[3] = { { .kind = SIMT_ARG_BUF, .buf = o }, { .kind = SIMT_ARG_INT, .i = 0 }, { .kind = SIMT_ARG_INT, .i = 7 } };
    simt_run(m, fe_find(mod, "one"), &L, a, 3);
    int e1 = nevents(m);
    a[1].i = 2, a[2].i = 9;
    simt_run(m, fe_find(mod, "one"), &L, a, 3);
    int e2 = nevents(m);
    a[1].i = 3, a[2].i = 4;
    simt_run(m, fe_find(mod, "one"), &L, a, 3);
    int e3 = nevents(m);
    int32_t v = 0;
    simt_buf_read(m, o, 0, &v, 4);
    ok(e1 == 0 && e2 == 0 && e3 == 0 && v == 4, "%s path: three launches storing o[0] from blocks 0, 2, 3: no race "
       "(%d %d %d events, o[0] = %d)", p ? "general" : "fast", e1, e2, e3, v);
    simt_free(m);
  }
}

/* block packing: on without a conflict, the race found where there is one
 * (two blocks of one pack, or of two packs) */
static void test_pack(dg_module *mod)
{
  bufspec bs[] = { { "o", 64 * 32 * 4, false, DG_TY_I32 } };
  int64_t at = -1;
  simt *m = run(mod, NULL, "pk", bs, 1, &at, 1, 64, 32, 0);
  ok(nevents(m) == 0 && simt_last_stats(m).packed == 64, "pk without a conflict: packed (%llu blocks), no event",
     (unsigned long long)simt_last_stats(m).packed);
  simt_free(m);
  const int64_t ats[] = { 3, 40 };     /* 16 blocks of 32 threads a pack: block 3 in block 1's, 40 in another */
  for (int i = 0; i < 2; i++) {
    m = run(mod, NULL, "pk", bs, 1, &ats[i], 1, 64, 32, 0);
    int n;
    const simt_event *e = race_of(m, &n);
    ok(e && e->xblock && e->span.line == 50 && e->span2.line == 49 && e->block == 1 && e->thread == 7,
       "pk, blocks 1 and %lld storing o[0]: block 1's store races with block 0's (line %u against %u)",
       (long long)ats[i], e ? e->span.line : 0, e ? e->span2.line : 0);
    ok(simt_last_stats(m).packed == 0, "... found block by block (%llu packed)",
       (unsigned long long)simt_last_stats(m).packed);
    simt_free(m);
  }
}

int main(void)
{
  dg_srcmgr_init(&sm);
  slow = *dom_concrete();
  uint32_t file = dg_srcmgr_add(&sm, "grace.cu", dg_strdup(src), sizeof src - 1);
  dg_diags d = {0};
  dg_module *mod = fe_load_file(&sm, file, NULL, &d);
  if (d.nerrors) dg_diags_print(stdout, &sm, &d);
  dg_diags_free(&d);
  ok(mod && fe_find(mod, "lost") && fe_find(mod, "readmine"), "kernels lowered");
  if (!mod) return tap_done();
  test_lost(mod);
  test_benign(mod);
  test_general(mod);
  test_launches(mod);
  test_pack(mod);
  test_loads(mod);
  test_warps(mod);
  test_early(mod);
  test_narrow(mod);
  test_narrow_load(mod);
  test_narrow_bytes(mod);
  test_counter(mod);
  test_lastbug(mod);
  fe_module_free(mod);
  dg_srcmgr_free(&sm);
  return tap_done();
}
