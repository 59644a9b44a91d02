/* check_inst.h — the instances `check --auto` goes on to when the spec's
 * sizes show nothing (check_inst.c): first boundary ones
 * (check_boundary_sizes: one size at spec + 1, 1, spec - 1), then huge ones
 * (check_huge_sizes: an input past 2^31 elements); at each, the tails
 * (check_tail_locs). One engine for both clients: `dirigo check --auto`
 * (cli_check.c) and the workbench's A (tui_check.c).
 *
 * Instance 0 is the spec's sizes; instance k > 0 is the k-th one added.
 * Ownership: check_insts owns its sizes (check_insts_free); the problem and
 * kernels are borrowed. */
#ifndef DG_CHECK_INST_H
#define DG_CHECK_INST_H
#include "check.h"

#define CHECK_INST_BOUNDARY 6      /* at most this many boundary instances */
#define CHECK_INST_HUGE 4          /* and this many huge ones */
#define CHECK_INST_MAX (CHECK_INST_BOUNDARY + CHECK_INST_HUGE)

typedef struct {
  int64_t *spec;                   /* the spec's sizes (p->sizes.n), taken at the first call */
  int64_t *sizes;                  /* CHECK_INST_MAX vectors of p->sizes.n values */
  bool huge[CHECK_INST_MAX];
  size_t ns;                       /* p->sizes.n */
  int n, stage;                    /* stage: 0 none added, 1 boundary ones, 2 huge ones too */
  double deadline;                 /* dg_now() past which choosing stops (--auto's budget; 0 none):
                                    * huge ones are chosen by running blocks */
  bool cut;                        /* the huge stage was chosen past the deadline: none were kept */
} check_insts;

/* An element at an instance. */
typedef struct { check_loc at; int inst; } check_iloc;

/* Adds the next stage's instances (boundary, then huge) and returns their
 * elements (check_tail_locs at each, each once) in *locs (the caller's to
 * free; NULL when none); 0 when no stage with elements is left. Sets p's
 * sizes back to the spec's: the stages are chosen from those. */
size_t check_insts_next(dg_problem *p, const emu_kernels *k, check_insts *in, check_iloc **locs);
/* The sizes of instance inst (0: the spec's; NULL before the first
 * check_insts_next, when the spec's are p's own). */
const int64_t *check_insts_sizes(const check_insts *in, int inst);
/* Sets p's sizes to instance inst's. */
void check_insts_use(dg_problem *p, const check_insts *in, int inst);
/* "a boundary instance (N=1001 for 1000)" or "a huge instance (an input
 * past 2^31 elements)"; nothing for instance 0. */
void check_insts_describe(dg_buf *b, const dg_problem *p, const check_insts *in, int inst);
/* The sizes of instance inst as "N=1001, M=4" (each size). */
void check_insts_format_sizes(dg_buf *b, const dg_problem *p, const check_insts *in, int inst);
/* The command line that checks element l at instance inst alone:
 * "dirigo check PROBLEM --size N=1001 --at 1000" (the tensor named,
 * "y2:3,4", when it is not the problem's first output). */
void check_insts_command(dg_buf *b, const dg_problem *p, const char *problem, const check_insts *in,
                         const check_iloc *l);
void check_insts_free(check_insts *in);

#endif
