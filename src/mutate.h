/* mutate.h — mutants of a CUDA kernel source: one small, plausible bug each
 * (a bound one off, `=` for `+=`, a barrier dropped, 0 for -inf padding, a
 * 64-bit index cast dropped, an accumulator left uninitialised, a lane left
 * out of a shuffle mask, an atomic done as a plain update, ...), placed with the tree-sitter CUDA grammar
 * inside the functions a problem launches and the functions they call.
 * `dirigo mutants` writes them out as problems; bench/mutants.sh measures
 * which of them a plain differential test misses and which dirigo finds. */
#ifndef DG_MUTATE_H
#define DG_MUTATE_H
#include "util.h"

typedef enum {
  DG_MUT_REL,      /* `<` <-> `<=`, `>` <-> `>=` */
  DG_MUT_ACC,      /* `+=` -> `=` */
  DG_MUT_SYNC,     /* a `__syncthreads();` / `__syncwarp();` statement removed */
  DG_MUT_PAD,      /* `-INFINITY`, `-FLT_MAX`, ... -> `0.0f` */
  DG_MUT_CAST,     /* a cast to a 64-bit integer type dropped */
  DG_MUT_INIT,     /* `T v = <number>;` -> `T v;` */
  DG_MUT_MASK,     /* a full shuffle/vote mask -> lane 31 left out */
  DG_MUT_SHFL,     /* `__shfl_xor_sync` <-> `__shfl_down_sync` */
  DG_MUT_MINMAX,   /* fmaxf <-> fminf, max <-> min */
  DG_MUT_ATOMIC,   /* `atomicAdd(&a[i], v);` -> `a[i] += v` (a statement's; Sub, Max, Min alike) */
  DG_MUT__COUNT
} dg_mutop;

typedef struct {
  dg_mutop op;
  uint32_t start, end;     /* bytes of the source replaced */
  char *repl;              /* by this (owned) */
  uint32_t line, col;      /* of start, 1-based */
  char *desc;              /* "`<` -> `<=`" (owned) */
} dg_mutant;

typedef DG_VEC(dg_mutant) dg_mutants;

/* The operator's name ("rel", ...) and one line of help; lookup by name
 * gives -1 for an unknown one. */
const char *dg_mutop_name(dg_mutop op);
const char *dg_mutop_help(dg_mutop op);
int dg_mutop_lookup(const char *name);

/* Appends to out the mutants of text with an operator in opmask (bit op),
 * inside the bodies of the functions named roots[0..nroots-1] (a launched
 * kernel's name; a qualified name matches its last part) and of every
 * function of text those call by name, in source order. */
void dg_mutate(const char *text, size_t len, const char *const *roots, size_t nroots, unsigned opmask,
               dg_mutants *out);
/* text with m applied (caller frees). */
char *dg_mutant_apply(const char *text, size_t len, const dg_mutant *m);
void dg_mutants_free(dg_mutants *v);

#endif
