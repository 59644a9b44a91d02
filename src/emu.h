/* emu.h — a problem run on the emulator: loads the kernels a problem
 * launches (front end), allocates its tensors as engine buffers, runs every
 * launch of the pipeline in order, and reads the outputs back as doubles with
 * a "written" mask and the engine's events. Shared by fuzzing (cpu backend),
 * witness replay, the checker and the workbench. */
#ifndef DG_EMU_H
#define DG_EMU_H
#include "problem.h"
#include "simt.h"
#include <stdio.h>

/* The kernels of a problem: its source lowered once, launch kernels resolved
 * (template instances built). Owns its srcmgr and module. */
typedef struct {
  dg_srcmgr sm;
  dg_module *mod;
  DG_VEC(dg_func *) kern;      /* one per p->launches, in order */
} emu_kernels;

/* False when the source cannot be used. d gets the problem-level diagnostics
 * (spans into p->sm); the kernel file's own diagnostics stay in
 * k->mod->diags (spans into k->sm): print both (emu_kernels_print_diags). */
bool emu_kernels_load(emu_kernels *k, const dg_problem *p, dg_diags *d);
void emu_kernels_free(emu_kernels *k);
void emu_kernels_print_diags(FILE *f, const emu_kernels *k);

/* Inputs and outputs of one run, one slot per p->tensors.
 * Before emu_run: data[t] of inputs (and of accumulate outputs: their contents
 * before the launch) is filled by the caller (numel[t] doubles). After it:
 * data[t] of outputs and scratch holds what the kernels left, written[t][i]
 * says whether all bytes of element i were stored. emu_io_free frees all. */
typedef struct {
  int ntensors;
  int64_t *numel;
  double **data;
  uint8_t **written;
  /* Lazy tensors (inputs, and outputs that do not accumulate: the check's
   * huge instances, whose outputs are never read back; emu_io_init_lazy): data[t] and written[t]
   * stay NULL and the engine buffer is address space filled on first touch
   * with value(value_ud, t, i) rounded to the dtype (emu_lazy.h); value must
   * be a pure function (it runs in a signal handler: no allocation, no I/O). */
  bool *lazy;
  double (*value)(void *ud, int t, int64_t i);
  void *value_ud;
} emu_io;

/* Allocates io for p at sizes (data zeroed). False with diagnostics if a
 * shape cannot be evaluated. */
bool emu_io_init(emu_io *io, const dg_problem *p, const int64_t *sizes, dg_diags *d);
/* As emu_io_init, with lazy[t] (copied) marking inputs that get no data. */
bool emu_io_init_lazy(emu_io *io, const dg_problem *p, const int64_t *sizes, const bool *lazy,
                      double (*value)(void *ud, int t, int64_t i), void *value_ud, dg_diags *d);
void emu_io_free(emu_io *io);
/* The engine buffer flags of tensor ts: SIMT_BUF_READONLY for a plain input. */
unsigned emu_buf_flags(const dg_tensor *ts);

typedef struct {
  uint64_t seed;               /* scheduling permutation (0: natural order) */
  int64_t max_loop_iters;      /* 0: engine default */
  double deadline;             /* dg_now() past which no block or loop goes on (simt_launch.deadline; 0 none) */
  uint64_t max_lane_ops;       /* as deadline, past this many lane operations (simt_launch.max_lane_ops; 0 none) */
  dom *domain;                 /* NULL: concrete */
  /* Block sampling: run only these linear block ids (x fastest) of the one
   * launch (a pipeline is refused); NULL: every block. written[t] of the
   * outputs then says which elements those blocks stored (accumulate
   * outputs: from the writer map). */
  const int64_t *blocks;
  int nblocks;
} emu_opts;

typedef struct {
  simt_status status;          /* of the last launch run */
  int failed_launch;           /* index of the launch that stopped or was refused, or -1 */
  char *error;                 /* owned; why a launch was refused (SIMT_BADARGS) */
  DG_VEC(simt_event) events;   /* all launches' events, in order */
  uint64_t lane_ops;
  int64_t blocks_run, blocks_total;   /* of all launches */
  int64_t lazy_fills;          /* 64 KiB chunks of lazy inputs filled on touch */
} emu_result;

/* Runs the pipeline. Returns false only when it could not start (bad sizes,
 * unresolvable arguments: diagnostics in d); engine findings are in res. */
bool emu_run(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, emu_io *io,
             const emu_opts *o, emu_result *res, dg_diags *d);
void emu_result_free(emu_result *r);
/* Is this event kind a finding about the kernel (a bug), not just a note? */
bool emu_event_is_finding(simt_evkind k);

#endif
