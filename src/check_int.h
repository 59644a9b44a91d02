/* check_int.h — shared between the checker's files (not for other modules). */
#ifndef DG_CHECK_INT_H
#define DG_CHECK_INT_H
#include "check.h"
#include "fuzz.h"
#include "smt.h"

/* A problem's tensors as buffers of one machine. */
typedef struct {
  const dg_problem *p;
  const int64_t *sizes;     /* borrowed */
  simt *m;
  dom *sym;                 /* NULL: concrete */
  int *bufs;                /* buffer id per tensor */
  const emu_io *io;         /* concrete: inputs still to write (check_run.c writes them before
                             * the first launch that runs the whole kernel; a store slice
                             * reads no memory); NULL once written */
  void *huge;               /* lazily filled buffers of huge inputs (check_huge.c); NULL none */
  double deadline;          /* launches start no block and loops go no further past it
                             * (simt_launch.deadline; 0 none) */
  uint64_t max_lane_ops;    /* as deadline, past this many lane operations: a cut that is
                             * the same on any machine at any load (0 none) */
} check_mach;

/* Inputs (and accumulate outputs) carry io's values; with a symbolic domain
 * every buffer is bound (input variables, index-valued inputs fixed to io's
 * values). False with *err (caller frees). */
bool check_mach_init(check_mach *cm, const dg_problem *p, const int64_t *sizes, const emu_io *io,
                     dom *sym, char **err);
void check_mach_free(check_mach *cm);
bool check_mach_dims(const check_mach *cm, int li, simt_launch *L, char **err);
/* Runs launch li on the given blocks (NULL: all). A concrete machine asked
 * for every block of a one-launch problem (the writer search) runs the
 * kernel's store slice when it has one (check_slice.h): the writer map and
 * the store events are the kernel's, the stored values are zeros. Give the
 * blocks explicitly to run the whole kernel. */
simt_status check_mach_launch(check_mach *cm, const emu_kernels *k, int li, const int64_t *blocks,
                              int nblocks, char **err);
int check_tykind(dg_dtype dt);

/* ---- state of one check ------------------------------------------------------- */
typedef struct check_st {
  const dg_problem *p;
  const emu_kernels *k;
  const check_opts *o;
  check_result *r;
  int64_t *sizes;
  int64_t (*dims)[8];       /* per tensor */
  emu_io io;                /* the random inputs of the concrete run */
  int t;                    /* output tensor */
  int64_t flat, off;
  int es;
  /* writer */
  int wl;                   /* launch that last wrote L, -1 none */
  int64_t wblock, wthread, wthreads;   /* wthreads: threads per block of wl */
  bool multi;               /* several threads stored into L in that launch */
  double deadline;          /* dg_now() past which no query, block or loop runs (0: none; o->budget_s) */
  bool cut;                 /* a run was cut by the deadline (a replay): unknown, not "did not replay" */
  const char *range_open;   /* check_range's f16/bf16 question went unanswered (a query's time limit or the
                             * deadline): why; an equivalence of the real model is then unknown */
  bool prefix;              /* the verdict's engine finding came from a prefix of the writer's block
                             * (CHECK_PREFIX_OPS lane operations): its replay stops there too */
  /* symbolic */
  term_ctx *tc;
  dom *sym;
  struct check_huge *huge;  /* inputs past CHECK_HUGE_ELEMS elements are lazy (check_huge.c); NULL none */
  dg_term ref;              /* the reference's term, once built (a huge value replay evaluates it) */
} chk;

/* check_steps.c: records c->r's steps from m's traced thread (o->want_steps) */
void check_steps_attach(chk *c, simt *m);

/* check.c */
void check_say(check_result *r, check_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* check_ref.c: the reference's term for L on the same input variables
 * (TERM_NONE with the verdict set: unchecked, unknown) */
dg_term check_ref_term(chk *c);
term_sort check_fsort(chk *c);                 /* the reference's float sort: REAL or f64 */
dg_term check_as_num(chk *c, dg_term x);       /* bool/int/f32 term as the reference's sort */
/* Runs the pipeline on inputs in (per tensor, NULL for non-inputs) at sizes
 * and compares element flat (index idx) of output t with the reference:
 * true when it differs beyond tolerance or is unwritten. A run past
 * deadline (dg_now(); 0 none) stops: false, and *cut (when not NULL) set. */
bool check_replay(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, int t,
                  const int64_t *idx, int64_t flat, double **in, double *got, double *want,
                  double deadline, bool *cut);

/* check.c's solver helpers, for check_range.c */
unsigned check_query_ms(const chk *c);          /* the solver timeout, cut to the budget left */
/* a side question's limit: 1/part of the solver timeout, at least least_ms, cut as check_query_ms */
unsigned check_side_ms(const chk *c, unsigned part, unsigned least_ms);
bool check_out_of_time(const chk *c);
double check_dtype_max(int tykind);             /* largest finite value of a float dg_tykind */
dg_term check_bounds(chk *c, double lim);       /* |x| <= lim for float inputs (lim <= 0: their dtypes'); 0: out of time */
#define BOUNDS_LATE "the deadline passed building the bounds of the inputs"
/* Replays model m's inputs: true (verdict bug, witness kept) when the element differs. */
bool check_try_model(chk *c, const smt_result *m, dg_term kt, dg_term rt);
/* Inputs: the concrete run's, with vals (per variable ordinal, nvals of
 * them: every input variable's value) put in; replayed: true (verdict bug,
 * witness kept with text) when the element differs from a finite reference. */
bool check_try_values(chk *c, const term_value *vals, size_t nvals, const char *text);
/* The concrete run's inputs with vals put in (per variable ordinal; NULL:
 * none), per tensor; freed with check_free_inputs, or kept as the verdict's
 * witness (check_keep_inputs: r owns them then). */
double **check_witness_inputs(chk *c, const term_value *vals, size_t nvals);
void check_free_inputs(const dg_problem *p, double **in);
void check_keep_inputs(chk *c, double **in);
/* The inputs of model m the terms kt, rt use, as "x[3] = 1.5, ..." (caller frees). */
char *check_model_text(chk *c, const smt_result *m, double **in, dg_term kt, dg_term rt);
/* Runs the pipeline on inputs in (as check_replay; block != NULL: only that
 * block of a one-launch problem) and looks at its engine events: true with
 * *ev the first finding of kind `kind` (SIMT_EV__COUNT: any finding). A run
 * past deadline sets *cut (when not NULL). */
bool check_replay_event(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, double **in,
                        const int64_t *block, int kind, simt_event *ev, double deadline, bool *cut);
/* check_div.c: after the symbolic run, an integer division by an input
 * the engine could not judge: the solver's divisor 0 (or INT_MIN / -1),
 * replayed; the divisions over the variables of kt (L's kernel term) first.
 * True (verdict: the replayed division-by-zero, with the witness) when one
 * replays. */
bool check_div(chk *c, dg_term kt);
/* The verdict an engine finding of kind k is (check.c's table; FINDING for the rest). */
check_verdict check_event_kind_verdict(simt_evkind k);
/* check_range.c: after the real model's equivalent (or no answer), inputs it
 * cannot see the effect of: a value rounded to f16/bf16 past the dtype's
 * range, an f32 exp argument past expf's overflow. True (verdict bug, set)
 * when such a witness replays; false with c->range_open set when the f16/bf16
 * question was asked and not answered (no "no such input" from the solver). */
bool check_range(chk *c, dg_term kt, dg_term rt);
/* check_range.c, before the solver: the inputs only one of the two terms reads
 * (a row's neighbour the kernel loads past its row) pushed to +-100 on the
 * concrete run's values; a difference there is replayed. True: verdict set. */
bool check_push_extra(chk *c, dg_term kt, dg_term rt);

/* ---- the writer by inverting store addresses (check_invert.c) ------------------- */
#define CHECK_INVERT_BLOCKS ((int64_t)1 << 16)   /* grids from this many blocks try it first */
/* The one thread of launch li (dims L) that may store into L, found by
 * solving the kernel's store addresses for blockIdx/threadIdx (false with
 * *why when the addresses cannot be built, no thread or several may store
 * there, or the solver gives no answer). Not yet confirmed by a run. */
bool check_invert_writer(chk *c, int li, const simt_launch *L, int64_t *block, int64_t *thread, const char **why);
/* Two threads (blocks b[i], threads t[i]) whose stores may reach element
 * flat of L's tensor: true when the inversion finds two (as above, not run). */
bool check_invert_two(chk *c, int li, const simt_launch *L, int64_t flat, int64_t b[2], int64_t t[2]);

/* ---- sizes beyond memory (check_huge.c) ---------------------------------------- */
#define CHECK_HUGE_ELEMS ((int64_t)1 << 28)   /* inputs with more elements are lazy */
#define CHECK_HUGE_SMALL ((int64_t)1 << 22)   /* once one is, every other tensor past this that can be (as fuzz_huge.c) */
#define CHECK_HUGE_THREADS ((int64_t)1 << 29) /* a writer search of more threads is not run */
/* A huge instance's writer block runs concretely to its first this many lane
 * operations before anything else (check.c's invert_writer): an engine
 * finding met in that prefix of a real execution is the verdict, and its
 * replay (check_huge.c) stops at the same prefix. check_big.c keeps an
 * instance whose last block is too long to run (attention's 2^25 keys)
 * only when such a prefix meets a finding. A work limit, not a clock: the
 * same cut on any machine at any load. */
#define CHECK_PREFIX_OPS ((uint64_t)1 << 23)
/* Threads of every launch at sizes (the writer search runs them all); -1 when one cannot be sized. */
int64_t check_huge_threads(const dg_problem *p, const int64_t *sizes, dg_diags *d);
/* An input without a range or an output that does not accumulate: it can be a reservation. */
bool check_huge_lazyable(const dg_tensor *ts);
/* check_big.c: every launch's flat thread id per grid dimension fits an int. */
bool check_huge_flat_ids_fit(const dg_problem *p, const int64_t *sizes);
/* c->io at c->sizes: emu_io_init, or, when an input passes CHECK_HUGE_ELEMS,
 * lazy inputs of counter-based values and c->huge set. */
bool check_huge_io_init(chk *c, dg_diags *d);
void check_huge_ranges(chk *c);      /* huge: index-valued inputs at the top of their range */
/* huge: a value witness is not replayed (true: noted; the caller says no
 * difference replayed); false when c is not huge. */
bool check_huge_replay(chk *c);
/* Lazy input t of io as a buffer of cm (a reservation; -1 with *err). */
int check_huge_buf(check_mach *cm, int t, const emu_io *io, char **err);
void check_huge_mach_free(check_mach *cm);      /* after simt_free */
/* Is L's tensor a lazy output (an instance whose outputs are as large as
 * its huge input)? Its writer is found only by inverting the store
 * addresses: no writer map spans it. */
bool check_huge_out(const chk *c);
/* Lazy output t of cm: did a store change byte off (the fill's poison)? */
bool check_huge_stored(check_mach *cm, int t, int64_t off);
/* True (the verdict said) when L's writer could only come from a search
 * that cannot run: a lazy output whose store addresses did not invert. */
bool check_huge_no_search(chk *c);
/* The first engine finding of ev[0..n) as c's verdict ("... (when)"); false: none (check.c). */
bool check_event_verdict(chk *c, const simt_event *ev, size_t n, const char *when);
/* The end of a huge check: engine findings replayed on the sampled block,
 * verdicts that needed a value replay said plainly; frees c->huge. */
void check_huge_finish(chk *c);
void check_huge_free(chk *c);       /* frees c->huge alone (no verdict looked at) */

/* ---- value witnesses past memory; unsigned 32-bit address arithmetic (check_wide.c) ---- */
typedef struct check_wide check_wide;   /* a witness's values of lazy inputs: (tensor, index, value) */
bool check_wide_lookup(const check_wide *w, int t, int64_t i, double *v);   /* signal-safe */
void check_wide_free(check_wide *w);
/* huge: the model's values of lazy inputs become what their fill gives (check_witness_inputs) */
void check_huge_witness(chk *c, const term_value *vals, size_t nvals);
/* huge: search_witness's values of lazy inputs (vals[i] of their variables set, the fill told) */
void check_huge_search_vals(chk *c, term_value *vals, size_t nvals, fuzz_dist dist, uint64_t seed, double scale);
/* huge: the writer block alone on the emulator with the witness's values; the
 * reference's term on the same values. True when the element differs (else
 * the replay is noted as not done when it could not run). */
bool check_huge_replay_value(chk *c, double **in, double *got, double *want);
/* A lazy output's element no thread stores (the inversion said so) while
 * the element 2^32 below has two writers whose values differ, each block
 * run alone on the emulator: true with the verdict (a race) said. */
bool check_wide_unstored(chk *c, const simt_launch *L);
/* huge, under a budget: the writer block runs once concretely (cut at a
 * second); its engine finding is the verdict (true); past the lane
 * operations a symbolic run can take, an instance past 2^32 elements is
 * unknown (true, said) and any other keeps half of what is left of the
 * budget (false: the symbolic run follows). */
bool check_huge_heavy(chk *c);
/* huge: a few draws of normal values before the solver; true (verdict
 * bug, replayed) when the terms differ on one and it replays. */
bool check_huge_quick(chk *c, dg_term kt, dg_term rt);
/* Does a kernel index global memory with an unsigned 32-bit product (`x + blockIdx.x * C`)? */
bool check_wide_u32(const emu_kernels *k);
/* Does one widen a 32-bit signed product to 64 bits after it wrapped (`size_t total = N * C * HW`)? */
bool check_wide_total(const emu_kernels *k);
/* A lazy output's element no thread stores (the inversion said so) in a
 * grid small enough to run whole: every block runs on the emulator (cut at
 * a few seconds); when they end without a finding and the element still
 * holds the poison of an unwritten one, that is the verdict (a bug, with
 * the reference's value). True when a verdict was said. */
bool check_wide_unwritten(chk *c);
/* check_huge.c's side of it */
check_wide **check_huge_wide(chk *c);                   /* NULL when c is not huge */
double check_huge_value(const chk *c, int t, int64_t i);   /* lazy input t's element i as filled */
void check_huge_replayed(chk *c);                       /* a value witness replayed (said at the end) */

#endif
