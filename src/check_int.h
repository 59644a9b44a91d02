/* check_int.h — shared between the checker's files (not for other modules). */
#ifndef DG_CHECK_INT_H
#define DG_CHECK_INT_H
#include "check.h"

/* A problem's tensors as buffers of one machine. */
typedef struct {
  const dg_problem *p;
  const int64_t *sizes;     /* borrowed */
  simt *m;
  dom *sym;                 /* NULL: concrete */
  int *bufs;                /* buffer id per tensor */
} check_mach;

/* Inputs (and accumulate outputs) carry io's values; with a symbolic domain
 * every buffer is bound (input variables, index-valued inputs fixed to io's
 * values). False with *err (caller frees). */
bool check_mach_init(check_mach *cm, const dg_problem *p, const int64_t *sizes, const emu_io *io,
                     dom *sym, char **err);
void check_mach_free(check_mach *cm);
bool check_mach_dims(const check_mach *cm, int li, simt_launch *L, char **err);
/* Runs launch li on the given blocks (NULL: all). */
simt_status check_mach_launch(check_mach *cm, const emu_kernels *k, int li, const int64_t *blocks,
                              int nblocks, char **err);
int check_tykind(dg_dtype dt);
/* Runs the pipeline on inputs in (per tensor, NULL for non-inputs) at sizes
 * and compares element flat (index idx) of output t with the reference:
 * true when it differs beyond tolerance or is unwritten. */
bool check_replay(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, int t,
                  const int64_t *idx, int64_t flat, double **in, double *got, double *want);

#endif
