/* simt.h — the SIMT engine: runs kernel IR (ir.h) on the CPU as a GPU would.
 *
 * A machine (simt) owns buffers (global memory) and runs launches. Each block
 * runs with all its threads in lockstep as one vector of lanes under an
 * active mask (warps are lanes 32k..32k+31); divergence is masks. Values go
 * through a value domain (dom.h): concrete numbers by default, symbolic terms
 * when the checker plugs its domain in.
 *
 * While running it detects, and reports as simt_event: out-of-bounds access,
 * reads of bytes nothing wrote, shared-memory races within a barrier
 * interval, barrier divergence, runaway loops, failed asserts, shuffles from
 * inactive lanes, and (symbolic domains) data-dependent branches/addresses.
 *
 * Semantics worth knowing:
 * - Blocks run one after another (natural order, or permuted by seed); the
 *   threads of a block run in lockstep, statement by statement, under masks.
 *   A store by many lanes to one address lands warp by warp in the warp
 *   order (permuted by seed), the highest lane of a warp last; atomics apply
 *   lane by lane in the same order.
 * - __syncthreads must be reached by every thread that has not exited; threads
 *   that returned from the kernel are not waited for (as on sm_70+).
 * - Races: shared memory, tracked per element of the declared type, in
 *   barrier intervals; __syncwarp orders accesses of one warp; atomics do not
 *   race with each other. Same-value write-write conflicts are benign.
 *   Global memory (concrete domain): two blocks of one launch storing to one
 *   element, not both with atomics, the later store changing its bytes (the
 *   value depends on the blocks' order); loads are not tracked.
 * - An out-of-bounds load is not performed and yields slot 0 (zero); an
 *   out-of-bounds or read-only store is dropped; both are reported.
 * - Fatal events (runaway loop, data-dependent loop/address/jump, unsupported
 *   construct) end the launch at once with SIMT_STOPPED.
 * - Data-dependent if/?:/&&/|| (a domain answering DOM_BOTH) run both sides;
 *   writes under the guard become select(guard, new, old).
 * - Struct values are their scalar slots (dg_type.slots): registers hold one
 *   component vector per slot, memory is accessed slot by slot at nvcc's
 *   offsets (padding is never read or written, each field is its own race
 *   cell), selects and constants go slot by slot; domains see only scalars.
 *
 * Ownership: a simt owns its buffers, events and traces; every pointer it
 * hands out (buffer bytes, events, spans) stays valid until the next
 * simt_launch, simt_buf_new or simt_free, whichever comes first. IR (dg_func,
 * dg_type) passed in is borrowed and must outlive the call. */
#ifndef DG_SIMT_H
#define DG_SIMT_H
#include "ir.h"
#include "dom.h"

typedef struct simt simt;

/* d: the value domain, borrowed (must outlive the machine); NULL = concrete. */
simt *simt_new(dom *d);
void simt_free(simt *m);

/* ---- buffers (global memory) ---------------------------------------------- */
enum {
  SIMT_BUF_INIT = 1,       /* contents count as written (an input); else poisoned */
  SIMT_BUF_READONLY = 2,   /* a store into it is reported (const inputs) */
};
/* A buffer of `bytes` bytes, zero-filled. elem (borrowed, may be NULL) is the
 * element type for messages. Returns its id (>= 1). */
int simt_buf_new(simt *m, const char *name, const dg_type *elem, int64_t bytes, unsigned flags);
int64_t simt_buf_size(const simt *m, int buf);
const char *simt_buf_name(const simt *m, int buf);
/* The bytes (owned by m). Writing through it does not change the shadow:
 * use simt_buf_write, or simt_buf_set_init afterwards. */
uint8_t *simt_buf_data(simt *m, int buf);
void simt_buf_write(simt *m, int buf, int64_t off, const void *src, int64_t n);  /* marks init */
void simt_buf_read(const simt *m, int buf, int64_t off, void *dst, int64_t n);
void simt_buf_set_init(simt *m, int buf, int64_t off, int64_t n, bool init);
bool simt_buf_is_init(const simt *m, int buf, int64_t off);        /* one byte */
dom_mem *simt_buf_mem(simt *m, int buf);   /* for domains with their own cells */
/* A user buffer over `bytes` bytes the caller owns and keeps alive until
 * simt_free (a lazily filled reservation of emu_lazy.h, larger than memory):
 * m never frees them, counts every byte as written and keeps no per-byte
 * shadow for it (simt_buf_is_init is true, set_init does nothing, no writer
 * map). Flags as simt_buf_new (SIMT_BUF_INIT is implied). */
int simt_buf_wrap(simt *m, const char *name, const dg_type *elem, uint8_t *bytes, int64_t size,
                  unsigned flags);

/* ---- launches -------------------------------------------------------------- */
typedef enum { SIMT_ARG_BUF, SIMT_ARG_INT, SIMT_ARG_FLOAT, SIMT_ARG_NULL } simt_argkind;
typedef struct {
  simt_argkind kind;
  int buf;                 /* SIMT_ARG_BUF: buffer id ... */
  int64_t off;             /* ... and byte offset into it */
  int64_t i;               /* SIMT_ARG_INT */
  double f;                /* SIMT_ARG_FLOAT */
} simt_arg;

typedef struct {
  uint32_t grid[3], block[3];   /* 0 counts as 1 */
  int64_t shared_bytes;         /* dynamic (extern __shared__) bytes */
  uint64_t seed;                /* 0: natural order; else permutes block order and
                                   the order in which warps' stores/atomics land */
  const int64_t *blocks;        /* run only these linear block ids (borrowed); NULL: all */
  int nblocks;
  int64_t max_loop_iters;       /* per loop execution; 0: default 1<<20 */
  int max_events;               /* events kept; 0: default 64 (counts continue) */
  double deadline;              /* dg_now() past which no further block starts: the run
                                   ends SIMT_STOPPED with simt_error() saying so (0: none) */
  uint64_t max_lane_ops;        /* as the deadline, past this many lane operations (looked at
                                   where the deadline is: the same work on any machine; 0: none) */
} simt_launch;

typedef enum {
  SIMT_OK,                 /* ran to the end (events may still have been reported) */
  SIMT_STOPPED,            /* a fatal event stopped it (runaway loop, data-dependent
                              branch, unsupported construct); see simt_events */
  SIMT_BADARGS,            /* the launch itself is wrong; simt_error says why */
} simt_status;

simt_status simt_run(simt *m, const dg_func *kernel, const simt_launch *L,
                     const simt_arg *args, int nargs);
const char *simt_error(const simt *m);     /* message of the last SIMT_BADARGS */

/* ---- events ---------------------------------------------------------------- */
#define SIMT_EVENTS(X) \
  X(OOB, "out-of-bounds", "out-of-bounds access") \
  X(UNINIT, "uninitialised-read", "read of memory nothing wrote") \
  X(RACE, "race", "data race (shared memory in a barrier interval, global memory between blocks)") \
  X(RACE_BENIGN, "benign-race", "same-value write race") \
  X(BARRIER_DIVERGENCE, "barrier-divergence", "barrier reached by only part of the threads") \
  X(RUNAWAY, "runaway-loop", "loop exceeded the step limit") \
  X(READONLY, "readonly-write", "store into a read-only buffer") \
  X(ASSERT, "assert", "assert failed") \
  X(SHFL_INACTIVE, "shuffle-inactive", "shuffle reads an inactive lane") \
  X(DIV_ZERO, "division-by-zero", "integer division or remainder by zero (or INT_MIN / -1)") \
  X(DATA_DEP, "data-dependent", "data-dependent branch or address") \
  X(UNSUPPORTED, "unsupported", "construct the engine does not run")
typedef enum {
#define X(id, name, help) SIMT_EV_##id,
  SIMT_EVENTS(X)
#undef X
  SIMT_EV__COUNT
} simt_evkind;

typedef struct {
  simt_evkind kind;
  dg_span span;            /* where (the access, the barrier, the loop) */
  dg_span span2;           /* races: the other access; else {0} */
  int64_t block, thread;   /* linear ids of the thread that hit it */
  int64_t thread2;         /* races: the other thread (same block unless xblock); else -1 */
  uint32_t bidx[3], tidx[3];
  bool gmem;               /* a race on global memory (between blocks, or warps of one block) */
  bool xblock;             /* a race between blocks (global memory): the other thread is of ... */
  int64_t block2;          /* ... this linear block */
  uint32_t bidx2[3], tidx2[3];
  int buf;                 /* buffer id (0 none) */
  int64_t off;             /* byte offset in it */
  int size;                /* access size */
  bool write;              /* the access was a store */
  bool endless;            /* RUNAWAY: shown to loop forever (the registers its test reads
                              repeat at its head), not only past the step limit */
  int64_t count;           /* occurrences folded into this event (same kind+span) */
  char msg[160];           /* one line of detail */
} simt_event;

/* The events of the last simt_run (each run starts with none); owned by m.
 * Events of one kind at one span fold into one, with a count. */
const simt_event *simt_events(const simt *m, size_t *n);
void simt_events_clear(simt *m);
const char *simt_event_name(simt_evkind k);                 /* "out-of-bounds" */
/* "file:line:col: race: ..." with thread coordinates; appended to out. */
void simt_event_format(dg_buf *out, const dg_srcmgr *sm, const simt_event *e);

/* ---- observation -------------------------------------------------------------- */
/* Writer map: record, for every byte of buf, the last thread that stored
 * it in later launches (global id = block * threads_per_block + thread). */
void simt_track_writes(simt *m, int buf);
/* -1: nobody wrote it. *nwriters (may be NULL) gets how many distinct stores
 * hit the byte from different threads (2 means "more than one"). */
int64_t simt_writer(const simt *m, int buf, int64_t off, int *nwriters);
/* Trace: record the distinct IR spans a thread executed (statements and
 * expressions evaluated with that thread active), in first-executed order. */
void simt_trace_thread(simt *m, int64_t block, int64_t thread);
const dg_span *simt_trace(const simt *m, size_t *n);

/* Statistics of the last launch. */
typedef struct {
  uint64_t lane_ops;       /* expression nodes x active lanes ("thread instructions") */
  uint64_t blocks;         /* blocks run */
  uint64_t packed;         /* of them, run several in one lane vector (block packing; 0 where
                            * the launch could not pack or its packed run stopped and it ran
                            * block by block) */
} simt_stats;
simt_stats simt_last_stats(const simt *m);
/* Steps: the traced thread statement by statement (the checker's teaching
 * view). fn is called after each statement that thread runs (before the
 * body of an if, loop or switch, whose statements report themselves), with
 * the value the statement produced in that thread: a declaration's initial
 * value, an expression statement's value (an assignment's assigned value, a
 * store's stored value), a return's value; and the last store the thread made
 * in it. Also a for loop's update and each decided condition (an if's, a
 * loop's test, each iteration) as steps of their own (what). fn NULL: off.
 * Costs nothing while no thread is traced; set it before simt_run, after
 * simt_trace_thread. */
typedef struct {
  const dg_stmt *stmt;     /* borrowed IR */
  int depth;               /* 1: the kernel's body, 2: a function it calls, ... */
  const dg_type *type;     /* of vals; NULL: the statement produced no value */
  int nvals;               /* components (vectors, structs), at most 16 */
  dom_val vals[16];        /* in the machine's domain */
  int store_buf;           /* the thread's last store in it: buffer id (0: none) ... */
  int64_t store_off;       /* ... and byte offset */
  const dg_type *store_type;  /* ... and the stored scalar's type */
  int what;                /* SIMT_STEP_STMT: stmt ran; _UPDATE: a for loop's step expression ran
                            * (vals: what it set); _COND: an if's or a loop's condition decided */
  dg_span at;              /* _UPDATE, _COND: the expression's span */
  int taken;               /* _COND: 1 taken, 0 not taken, -1 both sides (data-dependent, merged
                            * with ite: vals[0] the condition as a bool) */
  const char *jump;        /* break, continue, return: where control went ("out of the loop") */
} simt_step;
enum { SIMT_STEP_STMT, SIMT_STEP_UPDATE, SIMT_STEP_COND };
typedef void (*simt_step_fn)(void *ud, const simt *m, const simt_step *st);
void simt_on_step(simt *m, simt_step_fn fn, void *ud);
/* The name of any buffer, launch-scoped ones (shared, locals) included:
 * for step hooks, during the run. NULL: no such buffer. */
const char *simt_step_buf_name(const simt *m, int buf);

#endif
