/* check_slice.h — the writer-search slice of a kernel (check_slice.c says
 * what it keeps and why the writer map is unchanged). */
#ifndef DG_CHECK_SLICE_H
#define DG_CHECK_SLICE_H
#include "ir.h"

/* A copy of kernel f that performs exactly f's global stores (same threads,
 * same addresses, same order; stored values are zero) and nothing a store's
 * address or its control flow does not need. Built in arena a (the caller
 * frees it; f's IR is shared and must outlive the copy). NULL when f cannot
 * be sliced soundly: *why says what stopped it. */
const dg_func *check_slice_writes(dg_arena *a, const dg_func *f, const char **why);

#endif
