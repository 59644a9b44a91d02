/* simt_int.h — the SIMT engine's private state, shared by simt*.c only. */
#ifndef DG_SIMT_INT_H
#define DG_SIMT_INT_H
#include "simt.h"
#include <setjmp.h>

enum { BK_NULL, BK_GLOBAL, BK_SHARED, BK_LOCAL };
enum { SIMT_GACQ = 8 };   /* a block's atomics on global memory kept for the "last block" pattern */

/* Functions whose lane loops dominate are built twice on x86-64 Linux, for
 * AVX2 and for the baseline, and the loader picks the one the CPU runs: the
 * same operations (no FMA contraction: AVX2 alone), four 64-bit lanes an
 * instruction instead of two. Not under the sanitizers (their runtime and
 * ifunc resolvers do not mix). */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) \
    && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__) && !defined(DG_NO_CLONES)
#define SIMT_LANES __attribute__((target_clones("avx2", "default")))
#else
#define SIMT_LANES
#endif

/* Race shadow of one shared byte, valid while epoch == the block's barrier
 * epoch (a barrier clears every cell by bumping the epoch). */
typedef struct {
  uint32_t epoch;
  int32_t w, r;            /* last writer / first reader lane, -1 none */
  uint32_t wsync, rsync;   /* their warp's __syncwarp count at the access */
  bool rmulti;             /* more than one distinct reader */
  dg_span wsp, rsp;
  int32_t r2;              /* rmulti: a second reader kept (simt_mem.c rd_add) */
  uint32_t r2sync;
  dg_span r2sp;
} simt_race;

typedef struct {
  dom_mem mem;
  uint8_t *init;           /* per byte: written since creation/poisoning */
  char *name;
  const dg_type *elem;
  uint8_t kind;            /* BK_* */
  bool readonly, all_init;
  int64_t cap;             /* allocated bytes (locals are reused) */
  int32_t lane;            /* BK_LOCAL: owning lane */
  uint32_t aepoch;         /* BK_SHARED: the barrier interval of its last atomic; 0: none yet, else race
                            * holds 2 * cap cells, the atomics' from race + cap (simt_race_atomic) */
  simt_race *race;         /* BK_SHARED: one cell per granule */
  int gran;                /* race granule in bytes: the element size (1, 2, 4 or 8) */
  int64_t *writer;         /* writer map, or NULL */
  uint32_t wepoch;         /* BK_SHARED: the barrier interval of its last race-checked store */
  uint32_t cepoch;         /* BK_SHARED: the barrier interval its race cells were last updated in */
  bool wrapped;            /* simt_buf_wrap: bytes not ours, no init shadow (init NULL) */
  uint8_t *nwriters;
  /* BK_GLOBAL: the last store per cell of ggran bytes (simt_grace.c), or NULL: its barrier
   * interval (simt_x.epoch) | atomic << 32 | thread << 33 | store span index << 43 |
   * generation << 56, a store of this launch where the generation is ggen (glaunch: the
   * launch ggen was set for) */
  uint64_t *gsh;
  uint64_t *gch;           /* per chunk of 32 cells (SIMT_GCH): a store of this launch that stored all 32 (the
                            * cell of its first; the others' threads follow), or SIMT_GS_CELLS: the cells hold them */
  uint32_t glaunch;
  uint32_t gwep0, gwep;    /* the barrier intervals of its first and last store of launch glaunch */
  uint8_t ggen;
  uint8_t ggran;           /* its cells' bytes: gran, or where no element type is known the first access's size */
  /* BK_GLOBAL, not read-only: loads of this launch per cell (gsh + n: the first loader of
   * the cell's last interval, or another block's; gsh + 2n: a loader of another warp of
   * that interval), as the store cells but not atomic, of generation glgen (gllaunch: the
   * launch it was set for); glep0, glep: the intervals of the launch's first and last load */
  uint32_t gllaunch, glep0, glep;
  uint8_t glgen;
  /* BK_GLOBAL: per byte, the last store narrower than a cell, not aligned to one or across
   * two (a half into a float's bytes) since the cell's last full store, as the cells (of
   * generation ggen), or NULL before the buffer's first; gbyl: the launch it has any in */
  uint64_t *gby;
  uint32_t gbyl;
  /* BK_GLOBAL, not read-only: per byte, the loads narrower than a cell, not aligned to one or
   * across two (a half of an int), as the load cells (the first loader, then glby + size: a
   * second of another warp; generation glgen), or NULL before the buffer's first; glbyl: the
   * launch it has any in. Such a load is not in the load cells: a store of the cell's other
   * bytes does not race with it. */
  uint64_t *glby;
  uint32_t glbyl;
} simt_buf;

struct simt {
  dom *d;
  DG_VEC(simt_buf) bufs;   /* id = index; 0 is the null buffer */
  int nuser;               /* ids below are user buffers; above: launch-scoped */
  DG_VEC(simt_event) ev;
  int max_events;
  char err[256];
  bool tracing;
  int64_t tr_block, tr_thread;
  DG_VEC(dg_span) trace;
  simt_step_fn step_fn;     /* simt_on_step */
  void *step_ud;
  simt_stats stats;
  const dg_func *nopack[8];  /* kernels whose packed run stopped: not packed again (simt_pack.c) */
  int nnopack;
  uint32_t glaunch;         /* launches (and packed runs undone) so far: the global shadow's generation */
};

/* A lane mask with its active range [lo, hi) and count. */
typedef struct { uint8_t *b; int lo, hi, cnt; } msk;

typedef struct simt_frame simt_frame;
struct simt_frame {
  const dg_func *f;
  dom_val **reg;           /* per slot: n * ncomp values, or NULL (lives in memory) */
  int32_t *obj;            /* per slot: buffer id of lane 0's object (lanes follow), or 0 */
  dom_val *ret;            /* return values */
  uint8_t *retm;           /* lanes that returned */
  uint8_t *gm0;            /* the data-dependent guard at entry (a return under it is fine) */
  uint8_t *runi;           /* per slot: every lane that may still read it holds one value (concrete) */
  int nlive;               /* lanes of the entry mask that have not returned */
  simt_frame *up;
};

typedef struct { const dg_var *var; int buf; } simt_varbuf;

typedef struct { const dg_expr *e; int64_t block; dom_val *v; } simt_kc;

typedef struct simt_uprog simt_uprog;     /* a uniform expression program (simt_uni.c) */
/* A load of shared memory whose race cells wait (simt_mem.c): its lanes'
 * addresses and mask at data + at */
typedef struct { int buf; dg_span sp; int lo, hi; int64_t size; size_t at; int64_t o0; bool write, uni; } simt_rlog;  /* o0 >= 0: lanes lo..hi read consecutive cells from byte o0, no data; write: a store to them (simt_mem.c log_fits); uni: every lane read byte at, no data */
typedef struct { const dg_expr *e; const simt_uprog *p; } simt_uent;

typedef struct simt_chunk simt_chunk;
struct simt_chunk {
  simt_chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};
typedef struct { simt_chunk *c; size_t used; } simt_mark;

typedef struct simt_x {
  simt *m;
  dom *d;
  int n, nwarps;
  uint32_t bdim[3], gdim[3], bidx[3];
  int64_t block;           /* linear block id */
  int64_t *tid[3];         /* threadIdx per lane */
  simt_frame *fr;
  uint8_t *brk, *cont;     /* masks of the innermost loop/switch, NULL outside */
  uint32_t ncont;          /* continue statements run (a loop skips the rejoin when none did) */
  uint8_t *live;           /* lanes that have not exited the kernel */
  uint32_t epoch;          /* barrier intervals */
  uint32_t *wsync;         /* per warp __syncwarp count */
  int *worder;             /* warp order stores and atomics land in */
  int64_t max_iters;
  bool stop;               /* a fatal event: the launch ends */
  double deadline;         /* simt_launch.deadline */
  uint64_t max_ops;        /* simt_launch.max_lane_ops (0: none) */
  uint64_t loop_starts;    /* loops entered while a deadline is set (simt_stmt.c looks at it every 16) */
  jmp_buf *unwind;         /* where a fatal event returns to (simt.c run_blocks) */
  bool in_atomic;          /* atomics do not race with each other */
  int depth;
  simt_varbuf *vb;         /* shared / __device__ variables -> buffers */
  int nvb;
  size_t capvb;
  int extern_buf;
  int top;                 /* buffer ids below are live (locals stack above shared) */
  int trace_lane;          /* lane traced in this block, -1 none */
  dom_val step_store;      /* steps: the traced lane's last store address (0 none) */
  const dg_type *step_sty;
  bool brk_switch;         /* steps: a break now leaves a switch (not a loop) */
  uint64_t lane_ops;
  simt_chunk *chunks, *cur;
  bool ident;              /* the domain's ints and pointers are their own concrete values */
  dom_val *zeros;          /* n * 16 zero slots: what evaluation yields once stopped */
  msk all;                 /* every lane of the block */
  uint8_t *gm;             /* lanes running under a data-dependent guard (NULL: none) */
  dom_val *gv;             /* their guard, a bool value of the domain */
  simt_kc *kc;             /* constants and builtins, evaluated once per launch (or block) */
  size_t kccap, kcn;
  const dg_type *t_i64, *t_bool, *t_u32, *t_i32, *t_ptr;
  /* uniform values (concrete domain only): a node's function sets u_node = e
   * when its result holds one value in every active lane; simt_eval leaves
   * the answer for its caller in uni */
  const dg_expr *u_node;
  const dg_expr *t_node;   /* ... and t_node = e when only the first active lane holds it (thin) */
  bool uni, thin;
  /* loads of shared buffers not stored to in this barrier interval: their
   * race cells are updated when anything else needs them (in their order),
   * or never if the interval ends first (simt_mem.c) */
  simt_rlog *rlog;
  size_t rlog_n, rlog_cap;
  uint8_t *rlog_data;
  size_t rlog_used, rlog_dcap;
  simt_uent *uni_tab;      /* uniform programs by expression (simt_uni.c), per launch */
  size_t uni_cap, uni_n;
  dg_arena uni_arena;
  /* block packing (simt_pack.c): pk set while consecutive blocks run as one
   * lane vector, n = their lanes; x->block and bidx are the first block's */
  struct simt_pack *pk;
  int nb1;                 /* threads a block */
  int ncap;                /* lanes the launch's vectors hold (a pack's) */
  uint8_t pvary;           /* blockIdx dimensions that differ across the pack (bit d) */
  int64_t *pbid[3];        /* per lane: its block's blockIdx (while packed) */
  const dg_func *kfunc;    /* the kernel */
  uint64_t pro;            /* kernel frame slots (bit = slot) of scalar params never assigned: their
                            * registers are the launch's argument vectors, not copies (simt_call) */
  uint64_t pset;           /* kernel frame slots written in every lane before any read: not zeroed */
  /* global races (simt_grace.c): on for a concrete launch of two blocks or two warps or more */
  bool gsh;
  bool gfence;             /* the running block ran a __threadfence() */
  uint8_t gnf;             /* ... how many (saturating): a store's phase (simt_grace.c) */
  uint64_t gpub[2];        /* ... and then atomics on global memory: the first's and the last's
                            * address (a dom pointer; 0 none): its stores before are published
                            * to a block that ran an atomic on one of them */
  uint8_t gpubf[2];        /* the fences run before each of them: a store of an earlier phase
                            * is published by it */
  uint64_t gacq[SIMT_GACQ];   /* the running block's atomics on global memory, their addresses
                            * (the last SIMT_GACQ distinct ones; 0 none) */
  int gacqn;               /* atomics recorded in gacq (it wraps) */
  uint32_t gl;             /* this launch's generation (simt.glaunch) */
  uint32_t gep0;           /* the barrier interval (epoch) the running block (or pack) began with */
  /* the blocks run, by the interval they began with; pub: the block's gpub (set when the
   * next block begins) */
  DG_VEC(struct simt_gblk { uint32_t ep; int64_t block; uint64_t pub[2]; uint8_t pubf[2]; }) gbt;
  struct simt_gex *gex;    /* loads the "last block" pattern exempted, by counter (simt_grace.c) */
  int gexcap, gexn;
  dg_span *gsp;            /* the spans of the launch's global stores, by index (cells name them) */
  int gspn, gspcap, gsplast, glsplast;   /* (the last store's and the last load's) */
} simt_x;

/* scratch (simt.c) */
void *simt_alloc_more(simt_x *x, size_t bytes); /* the next chunk */
static inline void *simt_alloc(simt_x *x, size_t n)    /* 16-aligned, not zeroed */
{
  n = (n + 15) & ~(size_t)15;
  simt_chunk *c = x->cur;
  if (__builtin_expect(c->used + n > c->size, 0)) return simt_alloc_more(x, n);
  void *p = c->data + c->used;
  c->used += n;
  return p;
}
/* d[lo, hi) = a | b over mask bytes (0/1), eight lanes a word; d may be a or b */
static inline void msk_or(uint8_t *d, const uint8_t *a, const uint8_t *b, int lo, int hi)
{
  int i = lo;
  for (; i + 8 <= hi; i += 8) {
    uint64_t u, v;
    __builtin_memcpy(&u, a + i, 8), __builtin_memcpy(&v, b + i, 8);
    u |= v;
    __builtin_memcpy(d + i, &u, 8);
  }
  for (; i < hi; i++) d[i] = a[i] | b[i];
}
/* The mask of k's first active lane alone (k->cnt > 0). */
static inline msk msk_first(const msk *k)
{
  int l = k->lo;
  while (!k->b[l]) l++;
  return (msk){ k->b, l, l + 1, 1 };
}
/* dom_scalar and dom_is_float, inlined */
static inline const dg_type *simt_scalar(const dg_type *t) { return t->kind == DG_TY_VEC ? t->elem : t; }
static inline bool simt_isfloat(const dg_type *t) { return t->kind >= DG_TY_F16 && t->kind <= DG_TY_F64; }
/* dom_tysize, inlined for the common scalar kinds */
static inline int64_t simt_tysize(const dg_type *t)
{
  switch (t->kind) {
  case DG_TY_I32: case DG_TY_U32: case DG_TY_F32: return 4;
  case DG_TY_I64: case DG_TY_U64: case DG_TY_F64: case DG_TY_PTR: return 8;
  default: return dom_tysize(t);
  }
}
/* dom_ncomp, inlined: components of a value of type t */
static inline int simt_ncomp(const dg_type *t)
{
  return t->kind == DG_TY_VEC ? (int)t->count : t->kind == DG_TY_STRUCT ? t->nslots : 1;
}
static inline simt_mark simt_mark_get(simt_x *x) { return (simt_mark){ x->cur, x->cur->used }; }
static inline void simt_mark_release(simt_x *x, simt_mark k) { x->cur = k.c; x->cur->used = k.used; }

/* masks (simt_mask.c) */
msk msk_new(simt_x *x);                       /* all zero */
msk msk_copy(simt_x *x, const msk *a);
void msk_fix(msk *k);                         /* recompute lo/hi/cnt */

/* events (simt.c) */
simt_event *simt_report(simt_x *x, simt_evkind k, dg_span sp, int lane, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));
void simt_fatal(simt_x *x, simt_evkind k, dg_span sp, int lane, const char *what);
void simt_trace_span(simt_x *x, dg_span sp);

/* block packing (simt_pack.c) */
typedef struct simt_pack simt_pack;
/* blocks a pack holds for this launch (1: no packing) */
int simt_pack_plan(simt_x *x, const dg_func *k, const simt_launch *L, int64_t cnt);
simt_pack *simt_pack_new(simt_x *x);
jmp_buf *simt_pack_jb(simt_pack *p);
void simt_pack_begin(simt_x *x, int64_t first, int nb);   /* blocks first .. first + nb - 1 */
void simt_pack_done(simt_x *x, bool undo);                /* undo: restore the buffers stored to */
__attribute__((noreturn)) void simt_pack_abort(simt_x *x);
/* a global access of the lanes of k (before it is made); a load of buffer id by every lane */
void simt_pack_access(simt_x *x, const msk *k, const int64_t *addr, int64_t size, bool write);
void simt_pack_load1(simt_x *x, uint32_t id);

/* memory (simt_mem.c) */
int simt_gran_of(const dg_type *t);           /* race granule for elements of t */
int simt_buf_add(simt *m, const char *name, const dg_type *elem, int64_t bytes, int kind, bool init);
void simt_mem_access(simt_x *x, dg_span sp, const dg_type *t, const msk *k, const int64_t *addr,
                     dom_val *vals, bool write);
void simt_poison(simt_buf *b, int64_t off, int64_t n);
/* simt_mem_access for every lane of k, a dense mask, loading or storing
 * consecutive 4-byte scalars of buffer buf from byte o0 (lane lo's) on: the
 * same checks, events and shadows without the lanes' addresses; false:
 * not such an access now (out of bounds, a guard, packed blocks, a trace,
 * cells or a writer map that need addresses), nothing done. */
bool simt_mem_run(simt_x *x, dg_span sp, const dg_type *t, const msk *k, int buf, int64_t o0,
                  dom_val *vals, bool write);
void simt_shared_settle(simt_x *x);           /* at a barrier: shared buffers now all written skip the check */
void simt_race_flush(simt_x *x);              /* the waiting loads' race cells, now (before __syncwarp) */
void simt_race_drop(simt_x *x);               /* a new barrier interval: the waiting loads are moot */
void simt_race_atomic(simt_x *x, int lane, int64_t addr, int64_t size, dg_span sp);  /* an atomic's race cells */
bool simt_race_wait_uni(simt_x *x, simt_buf *lb, const msk *k, int64_t o, int64_t size, dg_span sp);
int simt_var_buf(simt_x *x, const dg_var *v);
int simt_local_push(simt_x *x, int64_t bytes, int lane, const char *var);   /* a poisoned object at x->top */

/* expressions (simt_expr.c; branches and guards: simt_mask.c) */
/* slot: the register is the whole slot (else -1); part: a lane or field of
 * that register slot (else -1) */
/* uaddr: every active lane's address is the same (a uniform base and index) */
typedef struct { bool mem; dom_val *reg; int64_t *addr; const dg_type *t; int slot, part; bool uaddr; } simt_lval;
bool simt_lval_of(simt_x *x, const dg_expr *e, msk *k, simt_lval *lv);
int64_t *simt_conc(simt_x *x, const dg_type *t, msk *k, const dom_val *v, dg_span sp);
void simt_merge(simt_x *x, dom_val *dst, const dom_val *src, const msk *k, int nc);
/* a register slot of the current frame was written under k; uni: one value in every lane of k */
void simt_reg_wrote(simt_x *x, int slot, const dg_type *t, const msk *k, bool uni);
static inline dom_val *simt_vals(simt_x *x, const dg_type *t)   /* a value vector of type t (n lanes a component) */
{
  return simt_alloc(x, sizeof(dom_val) * (size_t)x->n * (size_t)simt_ncomp(t));
}
dom_val *simt_eval(simt_x *x, const dg_expr *e, msk *k);
/* as simt_eval, for callers that take a thin uniform result (x->uni, x->thin) */
dom_val *simt_eval_u(simt_x *x, const dg_expr *e, msk *k);
dom_val *simt_convert(simt_x *x, const dg_type *to, const dg_type *from, msk *k, dom_val *v);
dom_val *simt_const(simt_x *x, const dg_type *t, msk *k, int64_t v);
void simt_branch(simt_x *x, const dg_expr *cond, msk *k, msk *t, msk *f);
/* threadIdx.x < v (<=, >, >=) with v uniform in a block of one dimension:
 * the condition holds for k's lanes in [*cl, *ch) (within [k->lo, k->hi)),
 * its nodes counted as the walk counts them; false: not this now, nothing
 * done (simt_branch's first step). */
bool simt_tid_range(simt_x *x, const dg_expr *cond, const msk *k, int *cl, int *ch);
/* A loop test (cond not NULL): run keeps the lanes where cond holds, the rest are or-ed into done. */
void simt_loop_test(simt_x *x, const dg_expr *cond, msk *run, uint8_t *done);
/* As simt_branch, but lanes the domain cannot decide (DOM_BOTH) go into t, f
 * and *both, with the condition as a bool in *cv; NULL both: none. */
typedef struct { msk both; dom_val *cv; bool any; } simt_split;
void simt_branch2(simt_x *x, const dg_expr *cond, msk *k, msk *t, msk *f, simt_split *sp);
/* Guard the lanes of sp->both with cv (then side) or !cv (else side) for
 * the writes that follow; simt_guard_pop restores the previous guard. */
typedef struct { uint8_t *gm; dom_val *gv; } simt_guard;
simt_guard simt_guard_push(simt_x *x, const simt_split *sp, bool then_side);
void simt_guard_pop(simt_x *x, simt_guard g);
/* v with the guarded lanes of k merged: select(guard, v, old) */
dom_val *simt_guarded(simt_x *x, const dg_type *t, const msk *k, const dom_val *v, const dom_val *old);

/* uniform programs (simt_uni.c): e computed as one scalar in *out when it
 * is a pure subtree whose registers are all uniform now (concrete domain,
 * no trace); counts its nodes' lanes. false: evaluate it as usual. */
bool simt_uni_run(simt_x *x, const dg_expr *e, const msk *k, dom_val *out);
void simt_uni_free(simt_x *x);
/* The same for a conversion of a uniform register (CAST of a VAR), without
 * the program's lookup; false: not one now. */
bool simt_uni_castreg(simt_x *x, const dg_expr *e, const msk *k, dom_val *out);
/* The value of a load whose address is one for every lane of k (lv->uaddr),
 * loaded once into the first active lane (thin), when the buffer is global,
 * written throughout and the access in bounds; NULL: load it lane by lane. */
dom_val *simt_uni_load(simt_x *x, const simt_lval *lv, const msk *k, dg_span sp);
/* One lane of the concrete domain's operations (scalar types), as the
 * programs compute them: a constant (isf: from fv, else iv), a binary
 * operation on operand type t, a cast. */
dom_val simt_uni_const(simt_x *x, const dg_type *t, int64_t iv, double fv, bool isf);
dom_val simt_uni_bin(simt_x *x, int op, const dg_type *t, dom_val a, dom_val b);
dom_val simt_uni_cast(simt_x *x, int ck, const dg_type *to, const dg_type *from, dom_val a);

/* direct lane loops of the concrete domain (simt_lanes.c): r[lo, hi) = a op b
 * for i32 or f32 operands of kind kd; form SIMT_SV: a is one value (a[0]),
 * SIMT_VS: b is. false: not one of these operations. */
enum { SIMT_VV, SIMT_SV, SIMT_VS };
bool simt_fast_bin(int op, dg_tykind kd, int lo, int hi, dom_val *r, const dom_val *a, const dom_val *b, int form);
/* A conversion that leaves the concrete slot as it is (widening integers to
 * 64 bits, f32 to f64); and the common ones as lane loops (false: not one). */
bool simt_cast_same(dg_tykind to, dg_tykind from);
bool simt_fast_cast(dg_tykind to, dg_tykind from, int lo, int hi, dom_val *r, const dom_val *a);

/* the node kinds of simt_compound.c (simt_eval's table) */
dom_val *simt_ev_logic(simt_x *x, const dg_expr *e, msk *k);
dom_val *simt_ev_cond(simt_x *x, const dg_expr *e, msk *k);
dom_val *simt_ev_call(simt_x *x, const dg_expr *e, msk *k);
dom_val *simt_ev_addr(simt_x *x, const dg_expr *e, msk *k);
dom_val *simt_ev_vecbuild(simt_x *x, const dg_expr *e, msk *k);
dom_val *simt_ev_comma(simt_x *x, const dg_expr *e, msk *k);
/* integers or pointer encodings src as values of t (the lanes of k) */
dom_val *simt_const_vec(simt_x *x, const dg_type *t, msk *k, const int64_t *src);

/* sh[threadIdx.x] op= sh[threadIdx.x + u] between shared arrays in a block of
 * one dimension, as the walk's three accesses without the index nodes'
 * dispatch (simt_fuse.c); NULL: not this shape now, nothing done. */
dom_val *simt_fuse_assign(simt_x *x, const dg_expr *e, msk *k);
/* A loop's step ++i / i++ / --i / i-- on a uniform register of a 32-bit
 * integer type, as ev_incdec's uniform path leaves it, without the node's
 * dispatch (its value is not read); false: not this, nothing done. */
bool simt_fuse_step(simt_x *x, const dg_expr *e, const msk *k);
/* One value v written to register slot of the current frame in every lane
 * of k, and the slot uniform (what ev_assign's uniform path leaves). */
void simt_fill_uni(simt_x *x, int slot, const dg_type *t, const msk *k, dom_val v);
/* if (threadIdx.x < v) sh[threadIdx.x] op= sh[threadIdx.x + u]; with no
 * else, under a dense mask: the condition's lane range and the fused
 * assignment (a tree reduction's step) without the branch's masks and the
 * then side's dispatch; false: not this now, nothing done. */
bool simt_fuse_if(simt_x *x, const dg_stmt *s, msk *k);
/* A loop body { if (threadIdx.x < v) sh[threadIdx.x] op= sh[threadIdx.x + u];
 * __syncthreads(); } whose step can leave nothing in the race shadow (the
 * barrier would drop what it logs): the step's bytes without the accesses'
 * bookkeeping, then the barrier; false: not this now, nothing done. */
bool simt_fuse_tree(simt_x *x, const dg_stmt *b, msk *k);

/* global races (simt_grace.c): two blocks of one launch, or two warps of one block in one
 * barrier interval, storing to one element of a global buffer, not both with atomics, the
 * second store changing the bytes; a load of an element another warp of the block stored in
 * this interval, or another block of the launch (but after a __threadfence() of the launch
 * and an atomic of the loading block: the "last block" pattern). Stores report before they
 * land; a store narrower than its buffer's element or across an element boundary is tracked
 * byte by byte (two stores of one element's two halves do not race). */
static inline bool simt_gsh_on(const simt_x *x, const simt_buf *b)
{
  return x->gsh && b->kind == BK_GLOBAL && !b->wrapped;
}
/* b holds narrow stores of this launch: every access to it goes lane by lane (simt_grace.c) */
static inline bool simt_gsh_nar(const simt_x *x, const simt_buf *b)
{
  return b->gbyl == x->gl && b->gby;
}
/* A chunk of 1 << SIMT_GCH cells (a warp's row of elements); its cells stand for themselves
 * where its word holds SIMT_GS_CELLS and its generation, else one store of this launch
 * wrote all of them (the word: the first one's cell) or none did. */
enum { SIMT_GCH = 5 };
/* a cell's fields: its barrier interval in the low 32 bits, then these (the warp: the
 * thread's bits from 5 up) */
enum { SIMT_GS_THREAD = 33, SIMT_GS_WARP = SIMT_GS_THREAD + 5, SIMT_GS_SPAN = 43, SIMT_GS_GEN = 56 };
#define SIMT_GS_CELLS ((uint64_t)0x1fff << SIMT_GS_SPAN)
/* Cell ci's value where chunk word h (one store's, of cell ci's chunk) stands for it:
 * the store's first cell with the thread ci's place further. */
static inline uint64_t simt_gch_cell(uint64_t h, int64_t ci)
{
  return h + ((uint64_t)(ci & ((1 << SIMT_GCH) - 1)) << SIMT_GS_THREAD);
}
/* The cell ci of b as the cells would hold it: its chunk's store where one stands for it. */
static inline uint64_t simt_gsh_cell(const simt_buf *b, int64_t ci)
{
  uint64_t h = b->gch[ci >> SIMT_GCH];
  if (h >> SIMT_GS_GEN == b->ggen && (h & SIMT_GS_CELLS) != SIMT_GS_CELLS) return simt_gch_cell(h, ci);
  return b->gsh[ci];
}
/* Chunk k's cells made to stand for themselves (a store of one of them follows). */
void simt_gsh_explode(simt_buf *b, int64_t k);
static inline uint64_t *simt_gsh_at(simt_buf *b, int64_t ci)
{
  uint64_t h = b->gch[ci >> SIMT_GCH];
  if (h >> SIMT_GS_GEN != b->ggen || (h & SIMT_GS_CELLS) != SIMT_GS_CELLS) simt_gsh_explode(b, ci >> SIMT_GCH);
  return &b->gsh[ci];
}
/* What the cell c of a buffer of generation gen is to an access of thread thr (of its
 * block) now: 0 nothing to check, 1 another block's store of this launch, 2 a store of
 * another warp of this block in this barrier interval. */
static inline int simt_gsh_other(const simt_x *x, uint64_t c, uint64_t gen, int64_t thr)
{
  if (c >> SIMT_GS_GEN != gen) return 0;
  uint32_t ep = (uint32_t)c;
  if (ep < x->gep0) return 1;
  return ep == x->epoch && (c >> SIMT_GS_WARP & 31) != (uint64_t)(thr >> 5) ? 2 : 0;
}
/* A load of b may find a race: b was stored to in this launch, in this barrier interval
 * of this block or by an earlier block. */
static inline bool simt_gsh_ld(const simt_x *x, const simt_buf *b)
{
  return x->gsh && b->gsh && b->glaunch == x->gl && !x->in_atomic && (b->gwep == x->epoch || b->gwep0 < x->gep0);
}
/* Lane's load of size bytes at byte o of b (simt_gsh_ld holds): a race when a cell it
 * covers holds another warp's store of this interval or another block's; the run
 * version for lanes [lo, hi) loading consecutive elements from o0, the lanes version
 * for the lanes of m (m[i - lo], addr[i - lo] lane i's) in bounds. */
void simt_gsh_load(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp);
void simt_gsh_load_run(simt_x *x, simt_buf *b, int lo, int hi, int64_t o0, int64_t size, dg_span sp);
void simt_gsh_load_lanes(simt_x *x, simt_buf *b, int lo, int hi, const uint8_t *m, const int64_t *addr,
                         int64_t size, dg_span sp);
/* Loads recorded (a store of another warp of the interval, or of another block, after
 * them is a race): b is not read-only (an input no store may change), not in an atomic. */
static inline bool simt_glr_on(const simt_x *x, const simt_buf *b)
{
  return simt_gsh_on(x, b) && !b->readonly && !x->in_atomic;
}
/* A store to b may race with a load recorded: b was loaded in this launch, in this barrier
 * interval or by an earlier block. */
static inline bool simt_glr_st(const simt_x *x, const simt_buf *b)
{
  return b->gllaunch == x->gl && x->gsh && (b->glep == x->epoch || b->glep0 < x->gep0);
}
/* Lane's load of size bytes at byte o of b (simt_glr_on holds), recorded in b's load cells;
 * the run version for lanes [lo, hi) loading consecutive elements from o0, the lanes
 * version for the lanes of m (m[i - lo], addr[i - lo] lane i's) in bounds. */
void simt_glr_load(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp);
void simt_glr_load_run(simt_x *x, simt_buf *b, int lo, int hi, int64_t o0, int64_t size, dg_span sp);
void simt_glr_load_lanes(simt_x *x, simt_buf *b, int lo, int hi, const uint8_t *m, const int64_t *addr,
                         int64_t size, dg_span sp);
/* a block (or a pack of blocks) begins: x->epoch is its first barrier interval */
void simt_gsh_block(simt_x *x);
/* An atomic at addr (a dom pointer) by the running block: recorded for the "last block"
 * pattern where addr is global memory (published after a __threadfence(), acquired);
 * counts: an add or sub of a nonzero value (a block counting itself: after another block's
 * load the pattern let through on addr, that block did not count last) */
void simt_gsh_atomic(simt_x *x, int64_t addr, bool counts);
/* a __threadfence() by the running block */
void simt_gsh_fence(simt_x *x);
/* The bytes of b's cells, fixed at its first store of size bytes. */
static inline int simt_gsh_gran(simt_buf *b, int64_t size)
{
  if (!b->ggran) b->ggran = (uint8_t)(b->elem || (size != 2 && size != 4 && size != 8) ? b->gran : size);
  return b->ggran;
}
/* The cells of b (allocated at its first store; a new generation at its first
 * store of a launch). */
uint64_t *simt_gsh_cells(simt_x *x, simt_buf *b);
/* The cell lane's store at sp leaves in b's cells (after simt_gsh_cells): barrier
 * interval, atomic, thread, span, generation (simt_gsh_other says what an old cell is). */
uint64_t simt_gsh_tag(simt_x *x, const simt_buf *b, int lane, dg_span sp);
/* Lane's store of size bytes at byte o of b: true when no cell it covers holds
 * another block's store (the cells then hold tag), or the store is not tracked;
 * false: call simt_gsh_store with the new bytes. */
bool simt_gsh_try(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, dg_span sp);
/* The same, with the bytes it stores (nb): a race when a cell's last store was
 * another block's, or another warp's of this interval, not both atomic, and the
 * bytes change: from the bytes there, or from prev (the bytes [o, o + size) an
 * earlier lane of the same store leaves where the cell is its) unless NULL. */
void simt_gsh_store(simt_x *x, simt_buf *b, int lane, int64_t o, int64_t size, const uint8_t *nb,
                    const uint8_t *prev, dg_span sp);
/* a packed run undone: every buffer's cells start afresh */
void simt_gsh_reset(simt_x *x);
/* The 4- or 8-byte scalar of lane i in vals, as a store leaves it at bytes + o (the
 * fast paths' kinds: f32, i32/u32, else 8 bytes). */
static inline void simt_fast_st(dg_tykind kd, uint8_t *bytes, int64_t o, const dom_val *vals, int i)
{
  if (kd == DG_TY_F32) { float v = (float)dom_f(vals[i]); __builtin_memcpy(bytes + o, &v, 4); }
  else if (kd == DG_TY_I32 || kd == DG_TY_U32) { uint32_t v = (uint32_t)vals[i]; __builtin_memcpy(bytes + o, &v, 4); }
  else { uint64_t v = vals[i]; __builtin_memcpy(bytes + o, &v, 8); }
}
/* the lane of global race cell c's thread, in lane i's block */
static inline int simt_gsh_cell_lane(const simt_x *x, uint64_t c, int i)
{
  int t = (int)(c >> SIMT_GS_THREAD & 0x3ff);
  return x->pk ? i - i % x->nb1 + t : t;
}
/* Lane j's store lands before lane i's of one store (warps in x->worder, lanes in order). */
bool simt_gsh_lands_before(const simt_x *x, int j, int i);
/* The cells of a fast path's store of kd (size bytes a lane), before its bytes land: lanes
 * [lo, hi) storing consecutive elements from byte o0 of lb (simt_gsh_run), or the lanes of
 * b in [lo, hi) at their addresses, in bounds (simt_gsh_lanes). */
void simt_gsh_run(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, int lo, int hi, int64_t o0,
                  const dom_val *vals, dg_span sp);
void simt_gsh_lanes(simt_x *x, simt_buf *lb, dg_tykind kd, int64_t size, const uint8_t *b, int lo, int hi,
                    const int64_t *addr, const dom_val *vals, dg_span sp);

/* statements (simt_stmt.c) */
void simt_exec(simt_x *x, const dg_stmt *s, msk *k);
dom_val *simt_call(simt_x *x, const dg_func *f, dom_val **args, msk *k);
/* The slots (bit = slot, below 64) of k's register parameters that no
 * assignment or ++/-- in its body writes (simt_x.pro). */
uint64_t simt_params_ro(const dg_func *k);
/* The slots (bit = slot, below 64) of f's registers declared with an
 * initialiser in its outermost block (or a for loop's init there), which
 * no lane can read before the declaration writes it (simt_x.pset). */
uint64_t simt_slots_set(const dg_func *f);

/* builtin functions: sync, warp, atomics (simt_warp.c) */
dom_val *simt_intrin(simt_x *x, const dg_expr *e, msk *k);

/* Calls into the domain over the active slice of a mask. */
#define SL(k) ((k)->hi - (k)->lo), ((k)->b + (k)->lo)
#define AT(p, k) ((p) + (k)->lo)

#endif
