/* pp.h — the C preprocessor in front of tree-sitter. It expands the user's file
 * into one text and keeps a map from every byte of that text back to the
 * user's file:line:col (a macro's expansion maps to the macro's use site). */
#ifndef DG_PP_H
#define DG_PP_H
#include "diag.h"

typedef struct { const char *name; const char *value; } pp_define;  /* value NULL: "1" */

/* out_off is where a run of output starts; the run maps linearly onto the
 * source from src (same line, advancing columns) unless from_macro is set,
 * in which case every byte of the run maps to src itself. */
typedef struct { size_t out_off; dg_span src; bool from_macro; } pp_seg;

typedef struct {
  const char *line_text;   /* "#pragma unroll 4" */
  dg_span span;
  size_t out_off;          /* where it stands in the output */
} pp_pragma;

/* Ownership: everything in a pp_result (text, segs, each pragma's line_text,
 * each system_headers string) is owned by it and freed by pp_result_free.
 * pragmas: one per #pragma line or _Pragma, in output order; out_off is the
 * offset of its '#', which starts an output line of its own, and line_text
 * is normalised ("#pragma unroll 4"; the argument of unroll macro-expanded).
 * #pragma once is obeyed and not recorded. system_headers: names as written
 * between the brackets ("cuda_fp16.h", "cooperative_groups/reduce.h"), once
 * each. The text keeps the user's line structure: a line of the main file
 * that comes before any #include stands on the same output line. */
typedef struct {
  char *text;              /* expanded source, NUL-terminated; owned */
  size_t len;
  DG_VEC(pp_seg) segs;     /* sorted by out_off */
  DG_VEC(pp_pragma) pragmas;
  DG_VEC(char *) system_headers;  /* <cuda_fp16.h> etc. recognised, not read */
} pp_result;

/* How many tokens the macro expansions of one pp_run may create before it
 * stops with an error (a macro bomb); default 1 << 19. */
extern size_t pp_max_expansion;

/* Preprocesses sm's file `file` with the given command-line defines.
 * #include "x.h" is read relative to the including file (through sm).
 * Errors go to d (with spans); returns false when the output is unusable. */
bool pp_run(dg_srcmgr *sm, uint32_t file, const pp_define *defs, int ndefs,
            pp_result *out, dg_diags *d);
/* The user's position of byte out_off of the output. */
dg_span pp_span(const pp_result *r, size_t out_off);
void pp_result_free(pp_result *r);

#endif
