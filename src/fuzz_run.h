/* fuzz_run.h — fuzz campaigns: a strategy's cases run on a backend (the
 * emulator here; the GPU backend plugs in through the same case runner),
 * validated against the reference, the first failure shrunk to a minimal
 * shape, every case replayable from (strategy, seed, case number). */
#ifndef DG_FUZZ_RUN_H
#define DG_FUZZ_RUN_H
#include "fuzz.h"
#include "emu.h"

typedef enum { FUZZ_PASS, FUZZ_FAIL, FUZZ_FINDING, FUZZ_ERROR, FUZZ_SKIPPED } fuzz_status;

typedef struct {
  fuzz_status status;
  int64_t k;               /* case number in the campaign */
  fuzz_case c;
  int tensor;              /* FAIL: the output that differed */
  int64_t index[8];        /* FAIL: the first failing element's index; rank in nidx */
  int nidx;
  fuzz_cmp cmp;            /* FAIL (and PASS: errors seen) */
  simt_event ev;           /* FINDING: the engine's event */
  char msg[320];           /* one line saying what happened */
  bool sampled;            /* validated on a sample of the elements */
  int64_t nexplained;      /* elements off the fp64 reference but inside the fp32 envelope */
  uint64_t input_digest;   /* hash of every input value: replays show the same case */
  double secs;
} fuzz_outcome;

/* Where a case runs: the pipeline on io (inputs in, outputs and written
 * masks out). False when the case ended without outputs to validate: run
 * then set out->status (FINDING: the backend found a bug, e.g. an engine race
 * or a GPU out-of-bounds write; ERROR) and out->msg. */
typedef struct fuzz_backend {
  const char *name;        /* "cpu", "gpu" */
  /* The case's kernels on the inputs in io, stopping at deadline (dg_now
   * seconds; 0: none) where the backend can: a launch cut there is not
   * judged (the emulator's; the GPU child has its own watchdog). */
  bool (*run)(void *self, const dg_problem *p, const int64_t *sizes, emu_io *io, double deadline,
              fuzz_outcome *out);
  void *self;
  /* Optional (NULL: none): output t's reference for the case just run, when
   * the backend computed it (the GPU's fp64 reference kernels): want[0..n-1]
   * and defined[] filled, true; false: the problem's reference is used. */
  bool (*ref)(void *self, const dg_problem *p, int t, double *want, uint8_t *defined, int64_t n);
  /* Optional (NULL: none): output t judged by the backend itself, with
   * fuzz_compare's rule against its own reference (the GPU's comparison
   * kernel, gpu_cmp.c), for the case just run. 1: no element failed, *cmp
   * holds the comparison (checked, max_abs, max_ulp, ...) and validate takes
   * it as is; 0: not judged there — io's outputs and the ref hook's values
   * are now on the host and validate compares them itself (a failing case:
   * envelope, first failing element, message as always); -1: they could
   * not be brought back (msg says why; the case is an error). */
  int (*judged)(void *self, const dg_problem *p, int t, emu_io *io, fuzz_cmp *cmp, char *msg, size_t msgn);
  /* Optional (NULL: none): the envelope's verdicts (fuzz_envelope.c) from the
   * backend, for the case just run (the GPU's: gpu_env.h): ok[j] = inside the
   * envelope, for the m elements idx[] of output t that miss the reference
   * (kernel values got[], reference values want[]); true. false: the host
   * judges them. The caps (FUZZ_ENVELOPE_JUDGED, 32 left) stay the caller's. */
  bool (*envelope)(void *self, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                   const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *ok);
  /* Optional (NULL: none): n cases of one shape at once (the GPU's
   * asynchronous requests), their inputs in ios[0..n-1]. passed[c] = 1:
   * case c passed, cmp[c] its output's comparison (as judged gives it);
   * 0: the campaign runs it again alone with run (a failing case, or one
   * the group could not judge: the single run names what happened). False:
   * nothing ran. The campaign groups consecutive cases of one shape
   * (FUZZ_MANY_MAX, tensors of FUZZ_MANY_BYTES at most) and consumes the
   * outcomes in case order: first failure, shrinking, keep_going and the
   * budget as one by one. seeds[c]: case c's seed, max_check: the
   * campaign's (for a case judged on the validator's sample,
   * fuzz_sample_indices, as the host judges one with more elements off the
   * whole reference than FUZZ_ENVELOPE_JUDGED: sampled[c] = 1). */
  bool (*run_many)(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                   const uint64_t *seeds, int64_t max_check, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained,
                   uint8_t *sampled);
  /* Optional (NULL: none; with run_many): run_many in two halves, so that
   * the campaign sends the next group of the same shape before it takes
   * this one's outcomes (the GPU runs the two requests back to back, the
   * host's work between them hidden: doc/gpu.md §3). many_send: as
   * run_many up to the request sent, *job what many_end takes (false:
   * nothing ran, and no many_end); many_end: run_many's outcomes, the job
   * ended. At most two open; the emu_io objects stay until many_end. */
  bool (*many_send)(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                    const uint64_t *seeds, int64_t max_check, void **job);
  bool (*many_end)(void *self, void *job, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained, uint8_t *sampled);
  /* Optional (NULL: none): the backend draws the inputs of its next run
   * itself (the GPU: gpu_gen.h) — slot 0: the next run; slot c: case c of
   * the next run_many — input tensor tens[j] from the counter-based
   * descriptor g[j] (j < ng), whose values fuzz_ctr_fill gives bit for bit.
   * True: taken; the campaign leaves those tensors of io unfilled and fills
   * their values on the host only when it judges the case there. False: it
   * fills them first. A run consumes what was registered for it. */
  bool (*gen)(void *self, const dg_problem *p, int slot, const int *tens, const fuzz_ctr *g, int ng);
  /* Optional (NULL: none): the next run's case seed and the campaign's
   * max_check, before run. True: the backend's reference for that run (the
   * ref hook, and what judged judged) is the validator's sample of each
   * output (fuzz_sample_indices) and nothing else — the GPU's sampled fp64
   * reference where the whole one costs the kernel's time or more (matmul):
   * the case is judged on that sample (out->sampled), as the host judges a
   * realistic case with a Lua reference. run_many decides the same for its
   * cases from seeds and max_check (sampled[c]). */
  bool (*sample)(void *self, const dg_problem *p, const int64_t *sizes, uint64_t seed, int64_t max_check);
} fuzz_backend;
#define FUZZ_MANY_MAX 32
#define FUZZ_MANY_BYTES ((int64_t)1 << 20)
fuzz_backend fuzz_backend_emu(const emu_kernels *k);   /* the GPU's: fuzz_gpu.h */

typedef struct {
  const fuzz_strategy *strategy;
  const fuzz_backend *backend;   /* NULL: the emulator with the campaign's kernels */
  int64_t ncases;          /* 0: 40 */
  uint64_t seed;
  int64_t max_elems;       /* largest tensor the emulator takes; 0: 8192 (references are
                              O(n) per element in Lua: keep campaigns quick) */
  int64_t max_check;       /* outputs larger than this are validated on a sample of
                              this many elements (0: every element) */
  bool shrink;             /* shrink the first failure to a minimal shape */
  bool keep_going;         /* run every case even after a failure */
  double budget_s;         /* 0: none */
  void (*progress)(void *ud, const fuzz_outcome *o);   /* after each case; may be NULL */
  void (*on_fail)(void *ud, int tensor, int64_t flat); /* each failing element (ud too) */
  void *ud;
} fuzz_opts;

typedef struct {
  const char *strategy;
  uint64_t seed;
  int64_t ncases, npass, nfail, nfinding, nerror, nskip;
  bool failed;
  fuzz_outcome first;      /* the first FAIL or FINDING */
  double t_first;          /* seconds from start to the end of that case */
  bool shrunk;             /* first was shrunk: min holds the smallest failing case */
  fuzz_outcome min;
  double secs;
  double max_abs, max_ulp; /* over passing cases */
} fuzz_summary;

/* The space a strategy draws from, for problem p (op sizes move; the spec's
 * other size symbols stay). The space points into p and *ctx. */
typedef struct {
  const dg_problem *p;
  int map[FUZZ_MAX_SYMS];  /* space symbol -> p->sizes index */
  int inputs[FUZZ_MAX_INPUTS];   /* space input -> tensor index */
  int64_t max_elems;
  int64_t max_check;       /* validate at most this many elements per output (0: all) */
  /* Optional: called for every element that fails validation (after the
   * envelope), e.g. for the workbench's heat map. */
  void (*on_fail)(void *ud, int tensor, int64_t flat);
  void *on_fail_ud;
  /* dg_now() past which a case stops where it is — the inputs' fill, the
   * emulator's run, the reference — and is not judged (skipped, saying the
   * budget ran out): the campaign's --budget. 0: none. */
  double deadline;
} fuzz_space_ctx;
void fuzz_space_init(fuzz_space *s, fuzz_space_ctx *ctx, const dg_problem *p, int64_t max_elems);
void fuzz_space_init2(fuzz_space *s, fuzz_space_ctx *ctx, const dg_problem *p, int64_t max_elems,
                      int64_t max_check);
/* Full size vector (p->sizes order) of a case. */
void fuzz_case_sizes(const fuzz_space_ctx *ctx, const fuzz_case *c, int64_t *sizes);

/* Runs one case on a backend, or on the emulator. */
void fuzz_run_case_on(const dg_problem *p, const fuzz_backend *be, const fuzz_space *s,
                      const fuzz_space_ctx *ctx, fuzz_case *c, fuzz_outcome *out);
void fuzz_run_case(const dg_problem *p, const emu_kernels *k, const fuzz_space *s,
                   const fuzz_space_ctx *ctx, fuzz_case *c, fuzz_outcome *out);
/* A whole campaign (k: the emulator's kernels, used unless o->backend is set;
 * may be NULL then). Returns false (diagnostics in d) if it could not start. */
bool fuzz_campaign(const dg_problem *p, const emu_kernels *k, const fuzz_opts *o,
                   fuzz_summary *sum, dg_diags *d);

/* Witnesses of fuzz cases: "fuzz:STRATEGY:SEED:K[@N=1,C=33]". */
char *fuzz_witness(const fuzz_space *s, const char *strategy, uint64_t seed, int64_t k,
                   const fuzz_case *c, bool with_sizes);
/* Rebuilds the case (strategy regenerated, sizes overridden); false with a
 * message (caller frees *err) if malformed. */
bool fuzz_witness_parse(const char *w, const fuzz_space *s, fuzz_case *c, int64_t *k,
                        const fuzz_strategy **st, uint64_t *seed, char **err);
const char *fuzz_status_name(fuzz_status s);

/* ---- huge cases (fuzz_huge.c) -------------------------------------------------
 * A case with c->huge set runs with inputs past 2^31 elements: lazily
 * generated (fuzz_ctr values, emu_lazy buffers), on a sample of the blocks
 * (first, last, last along each grid dimension, a few seeded ones), validated
 * on exactly the elements those blocks wrote. Problems where blocks
 * communicate (global atomics, __threadfence, pipelines) are skipped with the
 * reason, and so are backends other than the emulator. */
/* The space's huge callback (fuzz_space.huge): case k's sizes and values. */
bool fuzz_huge_case(void *ud, const void *space, int64_t k, fuzz_case *c);
/* The first expression by which blocks of kernel f may communicate (an
 * atomic on memory not known to be __shared__, __threadfence), or NULL
 * (the checker's huge instances skip such kernels too). */
const dg_expr *fuzz_huge_talks(const dg_func *f);
void fuzz_huge_run_case(const dg_problem *p, const fuzz_backend *be, const fuzz_space *s,
                        const fuzz_space_ctx *ctx, const fuzz_case *c, fuzz_outcome *out);

/* Input values on demand, for inputs that have no data array. */
typedef struct { double (*value)(void *ud, int t, int64_t flat); void *ud; } fuzz_values;
/* The kernel-precision envelope (fuzz_envelope.c): re-judges up to
 * FUZZ_ENVELOPE_JUDGED failing elements of output t; returns how many stay
 * failures (the first in *first). Inputs come from env_data[t], else lazy
 * (may be NULL). */
#define FUZZ_ENVELOPE_JUDGED 8192
/* The elements of output t (n of them) a realistic case is validated at
 * when it is judged on a sample (max_check picks, the case's seed; the
 * validator's rule for outputs over max_check, and for those with more than
 * FUZZ_ENVELOPE_JUDGED elements off the backend's whole reference): the
 * distinct ones into idx[] (room for max_check) in ascending order; returns
 * how many. */
int64_t fuzz_sample_indices(const dg_problem *p, int t, const int64_t *sizes, int64_t n, int64_t max_check,
                            uint64_t seed, int64_t *idx);
/* out's status and message for a reference of tensor ts that raised err (its
 * first line: a Lua traceback would split the campaign's case line). */
void fuzz_ref_error(fuzz_outcome *out, const dg_tensor *ts, const char *err);
/* The same sample's picks in the order drawn, repeats kept (room for
 * max_check; the distinct ones are fuzz_sample_indices'): for a device that
 * writes the reference at each, where order and repeats do not matter and
 * the sort would cost the host more than the device's work. */
int64_t fuzz_sample_picks(const dg_problem *p, int t, const int64_t *sizes, int64_t n, int64_t max_check,
                          uint64_t seed, int64_t *idx);
int64_t fuzz_envelope_filter(const dg_problem *p, const int64_t *sizes, double **env_data,
                             const fuzz_values *lazy, int t, const double *got, const double *want,
                             const uint8_t *defined, const uint8_t *written, int64_t n, dg_tol tol,
                             int64_t *first, const fuzz_space_ctx *ctx);
/* One of the envelope's evaluations of output t's reference at element
 * flat: in fp32 (k < 0; k = -2 the absorbing evaluation, adds and subs
 * exact: gpu_env_dev.h's dge_absorbs) or in fp64 at the k-th perturbed
 * inputs (k = 0..2), with the facts the rule reads. False: the reference fails there. (The
 * GPU's evaluations must equal these: t/gpu/env.c.) */
typedef struct { double value; bool overflowed, order_overflow, nan_input; } fuzz_envelope_facts;
bool fuzz_envelope_eval(const dg_problem *p, const int64_t *sizes, double **env_data, int t, int64_t flat, int k,
                        fuzz_envelope_facts *f);
/* The same with the backend's envelope hook (be or its hook NULL: the host's). */
int64_t fuzz_envelope_filter_on(const fuzz_backend *be, const dg_problem *p, const int64_t *sizes,
                                double **env_data, const fuzz_values *lazy, int t, const double *got,
                                const double *want, const uint8_t *defined, const uint8_t *written, int64_t n,
                                dg_tol tol, int64_t *first, const fuzz_space_ctx *ctx);
/* One run on the emulator with options (block sampling), the outcome set as
 * the cpu backend sets it; the engine's result kept in *kept if not NULL
 * (caller frees with emu_result_free). */
bool fuzz_emu_run(const emu_kernels *k, const dg_problem *p, const int64_t *sizes, emu_io *io,
                  const emu_opts *eo, fuzz_outcome *out, emu_result *kept);

#endif
