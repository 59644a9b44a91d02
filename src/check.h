/* check.h — the symbolic check of one output element (DESIGN 1.1, 3.3, 5).
 *
 * check_element: (a) runs the pipeline concretely on the emulator with random
 * inputs, recording which thread of which launch last wrote element L;
 * (b) runs the blocks that write L (and, in a pipeline, every block of the
 * launches before) symbolically with dom_sym; (c) evaluates the reference
 * for L on the same input variables; (d) asks Z3 whether the two can differ;
 * (e) reports exactly one verdict. A `bug` always comes with a witness that
 * was replayed on the emulator and differed beyond the problem's tolerance;
 * a solver model that does not replay is `unknown`.
 *
 * Ownership: check_result owns every pointer in it; check_result_free. The
 * problem and kernels are borrowed. */
#ifndef DG_CHECK_H
#define DG_CHECK_H
#include "emu.h"
#include "term.h"

/* X(id, name, is_finding) — is_finding: exit status 1 */
#define CHECK_VERDICTS(X) \
  X(EQUIVALENT, "equivalent", false) \
  X(BUG, "bug", true) \
  X(RACE, "race", true) \
  X(OOB, "out-of-bounds", true) \
  X(UNINIT, "uninitialised-read", true) \
  X(BARRIER, "barrier-divergence", true) \
  X(FINDING, "finding", true)         /* other engine findings: runaway loop, assert */ \
  X(UNKNOWN, "unknown", false) \
  X(UNCHECKED, "unchecked", false)    /* the reference leaves this element undefined */ \
  X(ERROR, "error", false)            /* the check could not run (bad index, bad sizes) */
typedef enum {
#define X(id, name, f) CHECK_##id,
  CHECK_VERDICTS(X)
#undef X
  CHECK__COUNT
} check_verdict;
const char *check_verdict_name(check_verdict v);
bool check_verdict_is_finding(check_verdict v);

typedef struct {
  double timeout_s;        /* solver timeout; 0: 10 s */
  double budget_s;         /* the whole element: no solver query runs past it (0: none);
                              check --auto passes what is left of its budget */
  term_model model;        /* TERM_MODEL_REAL (default) or TERM_MODEL_IEEE */
  uint64_t seed;           /* random inputs of the concrete runs; 0: 1 */
  bool want_smtlib;        /* keep the query as SMT-LIB text */
  int64_t max_threads;     /* symbolic lanes run (blocks x threads); 0: 1<<16 */
  /* Optional: called as the check enters a phase ("concrete run", "symbolic
   * run", "solver", "range check": f16/bf16 past its range, after the real
   * model's answer), e.g. for the workbench's progress bar. */
  void (*phase)(void *ud, const char *phase);
  void *phase_ud;
  bool want_steps;         /* record the writer thread's steps (check_result.steps) */
} check_opts;

/* One statement the writer thread ran in the symbolic run (check_steps.c). */
typedef struct {
  dg_span span;            /* the statement (kernels' srcmgr) */
  int depth;               /* 1: the kernel's body, 2: a device function it calls, ... */
  int kind;                /* dg_stkind: DG_ST_DECL, DG_ST_FOR, ... */
  char *target;            /* what it set: "acc", "y[37]", "return"; NULL: nothing */
  char *value;             /* the value as a term, one line, cut near CHECK_STEP_TEXT; NULL: none */
  int what;                /* SIMT_STEP_STMT; _UPDATE: a for loop's update, _COND: a condition
                            * decided ("true: taken", ...): span is then the expression's */
} check_step;
#define CHECK_STEPS_MAX 2000     /* steps kept; the rest are counted in steps_more */
#define CHECK_STEP_TEXT 160

typedef struct {
  check_verdict verdict;
  char *reason;            /* one line: why (unknown), what (bug), the event (race ...) */
  int tensor;
  int64_t index[8];
  int nidx;
  int64_t flat;
  bool have_values;        /* bug: the replayed numbers */
  double kernel_value, ref_value;
  bool have_event;
  simt_event event;        /* race / oob / uninit / ...: spans index the kernels' srcmgr */
  /* witness (bug): every input tensor's values (NULL for non-inputs) */
  int ntensors;
  double **inputs;
  int64_t *numel;
  int64_t *sizes;          /* one per p->sizes */
  size_t nsizes;
  uint64_t seed;
  bool ranges_at_top;      /* index-valued inputs held the top of their range (a huge instance),
                              not random in-range values */
  /* a huge instance's engine finding, replayed by running one block: the
   * witness file holds no values (the inputs are the seed's, lazily filled)
   * but the block and, when it was found in a prefix of that block, the
   * lane operations the replay stops after (0: the whole block) */
  bool block_witness;
  int64_t witness_block;
  uint64_t witness_ops;
  /* teaching */
  dg_span *slice;          /* distinct lines the writer thread executed (kernels' srcmgr) */
  size_t nslice;
  int64_t writer_block, writer_thread;
  int writer_launch;
  bool writer_inverted;    /* the writer was found by inverting the store addresses (check_invert.c),
                              not by running every block */
  char *kernel_term, *ref_term, *smtlib;
  check_step *steps;       /* want_steps: the writer thread statement by statement, in order */
  size_t nsteps;
  int64_t steps_more;      /* steps past CHECK_STEPS_MAX, not kept */
  char *witness_text;      /* bug: the inputs that matter, "x[0,3] = -1.5, ..." */
  /* GPU replay of the witness (check_replay_gpu): 0 not tried, 1 the GPU
   * differs too, 2 the GPU agrees with the reference, -1 could not run */
  int gpu;
  double gpu_value;
  char *gpu_note;          /* -1: why; else the device */
  double t_concrete, t_symbolic, t_solver, t_replay, t_total;
  size_t term_bytes, nterms;
} check_result;
void check_result_free(check_result *r);

/* Checks element idx (rank entries) of output tensor `tensor` at the spec's
 * sizes. Always fills r (verdict ERROR with a reason on bad input). */
void check_element(const dg_problem *p, const emu_kernels *k, int tensor, const int64_t *idx,
                   int rank, const check_opts *o, check_result *r);

/* `dirigo replay` of a block witness (check_result.block_witness): the
 * check's inputs at sizes from seed (lazy ones filled on touch), block
 * alone, stopped after max_ops lane operations (0: none); the verdict is
 * the first engine finding of that run, or unknown "did not reproduce". */
void check_block_replay(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, int tensor, const int64_t *idx,
                        int rank, uint64_t seed, int64_t block, uint64_t max_ops, check_result *r);

/* ---- reports (check_report.c) ---- */
/* One JSON object, no newline: element, verdict, reason, values, event,
 * writer, slice, timings; full adds both terms and the SMT-LIB query. */
void check_result_json(dg_buf *b, const dg_problem *p, const emu_kernels *k, const check_result *r,
                       const char *witness_path, bool full);
/* <problem dir>/.dirigo (created); caller frees. NULL with *err. */
char *check_state_dir(const dg_problem *p, char **err);
/* <problem dir>/.dirigo/witness-STEM-T-I-J.json (STEM the spec file's name without
 * its extension: two problems of one folder keep a witness each); the folder is
 * created. Caller frees. NULL with *err. */
char *check_witness_path(const dg_problem *p, const check_result *r, char **err);
/* Appends one line to <problem dir>/.dirigo/journal.jsonl, flushed and synced. */
bool check_journal_append(const dg_problem *p, const char *json, char **err);
/* SARIF 2.1.0 log of n results (findings and unknowns, at kernel lines). */
void check_sarif(dg_buf *b, const dg_problem *p, const emu_kernels *k, const check_result *rs, size_t n);

/* ---- witnesses (check_witness.c) ---- */
/* Writes r's witness (sizes, seed, element, every input value) as JSON. */
bool check_witness_write(const char *path, const dg_problem *p, const check_result *r, char **err);
/* Reads a witness and replays it on the emulator: fills r (CHECK_BUG when
 * the element still differs beyond tolerance, CHECK_UNKNOWN "did not
 * reproduce" when it agrees, CHECK_ERROR with the reason for a bad file). */
void check_witness_replay(const char *path, const dg_problem *p, const emu_kernels *k, check_result *r);

/* Replays r's witness (a bug) on the GPU and fills r->gpu*. kernels: a
 * gpu_kernels (gpu_run.h) the caller loaded with gpu_kernels_load (void *
 * keeps the GPU headers out of this one); device names it for messages. */
void check_replay_gpu(const dg_problem *p, void *kernels, const char *device, check_result *r);

/* ---- --auto's elements (check_auto.c) ---- */
typedef struct { int tensor; int rank; int64_t idx[8]; } check_loc;
/* The elements `check --auto` and the workbench's A check, in this order:
 * per output tensor at the spec's sizes, the first and the last element;
 * along the last dim (last index elsewhere) block.x - 1, block.x (of the
 * last launch), the start of the last partial tile and the middle; then
 * three random elements (rng seeded with seed). Each once; empty tensors and
 * ranks above 8 are skipped. *locs (NULL when none) is the caller's to free;
 * returns how many. */
size_t check_auto_locs(const dg_problem *p, uint64_t seed, check_loc **locs);
/* --auto's boundary instances, checked when the spec's sizes show nothing:
 * one size moved at a time to spec + 1, 1, spec - 1 (the last declared size
 * first), admitted by the spec's constraints, no tensor past twice its spec
 * size; up to max distinct vectors of p->sizes.n values into out. The
 * elements to check there are check_tail_locs's. */
int check_boundary_sizes(const dg_problem *p, int64_t *out, int max);
/* --auto's huge instances (check_huge.c): the fuzzer's huge sizes (one input
 * past 2^31 elements, the rest small; fuzz_huge_case), up to max distinct
 * vectors of p->sizes.n values each into out; returns how many. None when a
 * kernel of k (NULL: not looked at) has blocks that communicate (global
 * atomics, __threadfence), nor sizes the check would refuse. Choosing
 * runs blocks: it stops at deadline (dg_now(); 0 none), and returns none
 * once past it. */
int check_huge_sizes(const dg_problem *p, const emu_kernels *k, int64_t *out, int max, double deadline);
/* The elements to check at a boundary or huge instance (check_auto.c), per
 * output at those sizes: the last element and the start of the last
 * outermost slice. *locs is the caller's. */
size_t check_tail_locs(const dg_problem *p, const int64_t *sizes, check_loc **locs);

/* ---- steps (check_steps.c) ---- */
/* Text of r's steps for a screen: one line per step, "line:col  source  ->
 * target = value", indented by call depth, and a last "... N more" line.
 * Nothing when r has none. */
void check_steps_format(dg_buf *b, const emu_kernels *k, const check_result *r);
/* ,"steps":[{"file","line","col","depth","source","target","value"}...],"steps_more":N */
void check_steps_json(dg_buf *b, const emu_kernels *k, const check_result *r);
/* The step's source text on its first line: a simple statement up to its
 * ';' (a declaration from its type on), an if/loop/switch to the end of the
 * line; trimmed, without a trailing '{'. *n gets its length. */
const char *check_step_source(const emu_kernels *k, const check_step *st, size_t *n);
void check_steps_free(check_result *r);

/* "y[3,36]" */
void check_format_elem(dg_buf *b, const dg_problem *p, int tensor, const int64_t *idx, int rank);

#endif
