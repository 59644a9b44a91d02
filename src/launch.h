/* launch.h — kernel launches of a problem, parsed from CUDA launch syntax:
 *   kernel<targs><<<grid, block[, shared[, stream]]>>>(arg, ...)
 * grid and block are a size expression, dim3(a,b,c) or {a,b,c}. Arguments are
 * classified syntactically here; names are resolved against the problem's
 * tensors, sizes and attributes by problem.c (dg_problem_resolve_launch).
 * The table form of a spec ({ kernel=, grid=, ... }) is turned into this
 * syntax by the Lua side, which maps error offsets back to the table fields. */
#ifndef DG_LAUNCH_H
#define DG_LAUNCH_H
#include "sexpr.h"
#include "diag.h"

typedef enum {
  DG_ARG_EXPR,     /* integer expression over sizes / integer attrs / literals: expr */
  DG_ARG_FLOAT,    /* floating literal (1.0f, 1e-5): f */
  DG_ARG_BOOL,     /* true / false: i */
  DG_ARG_NULL,     /* NULL / nullptr */
  DG_ARG_TAG,      /* C++ expression passed verbatim: std::bool_constant<false>{} */
  /* set by resolution (problem.c), from a bare name: */
  DG_ARG_TENSOR,   /* index into dg_problem.tensors (inputs, outputs, scratch) */
  DG_ARG_ATTR,     /* a non-integer attribute (eps): index into dg_problem.attrs */
} dg_argkind;

typedef struct {
  dg_argkind kind;
  char *text;          /* as written, trimmed; owned */
  size_t off;          /* offset of text inside the launch text */
  dg_sexpr *expr;      /* DG_ARG_EXPR; owned */
  double f;            /* DG_ARG_FLOAT */
  int64_t i;           /* DG_ARG_BOOL */
  int index;           /* DG_ARG_TENSOR, DG_ARG_ATTR */
} dg_launch_arg;

typedef struct {
  int n;               /* components written: 1..3; missing ones are 1 */
  dg_sexpr *e[3];      /* owned */
  size_t off[3];
} dg_dim3;

typedef struct dg_launch {
  char *text;          /* the launch as written (or composed from a table); owned */
  char *kernel;        /* "reduce6" */
  DG_VEC(char *) targs;   /* template arguments, verbatim and trimmed: "float", "256", "true" */
  dg_dim3 grid, block;
  dg_sexpr *shared;    /* NULL: 0 bytes */
  size_t shared_off;
  char *stream;        /* verbatim, or NULL */
  DG_VEC(dg_launch_arg) args;
  dg_span span;        /* the spec field it came from (a fallback position) */
  size_t file_off;     /* byte offset of text[0] in span.file, or SIZE_MAX (table form) */
} dg_launch;

/* NULL on a syntax error: err->pos is an offset into text. Caller frees with dg_launch_free. */
dg_launch *dg_launch_parse(const char *text, dg_sexpr_err *err);
void dg_launch_free(dg_launch *l);

/* Evaluates grid, block and shared bytes with the given symbol table. */
bool dg_launch_dims(const dg_launch *l, const dg_symtab *st, int64_t grid[3], int64_t block[3],
                    int64_t *shared, dg_sexpr_err *err);

#endif
