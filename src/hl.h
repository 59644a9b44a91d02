/* hl.h — syntax highlighting of CUDA source with tree-sitter and our own
 * grammars/highlights.scm, plus the facts the screen reads off the CST
 * (the __global__ kernels, syntax-error nodes). Engine-side: no curses; the
 * screen maps capture names to styles through a theme (theme.h).
 *
 * Precedence when captures overlap: the innermost (smallest) node wins; for
 * the same node the pattern written first in highlights.scm wins. */
#ifndef DG_HL_H
#define DG_HL_H
#include "util.h"
#include "diag.h"

typedef struct dg_hl_query dg_hl_query;

/* Compiles a highlight query. On a query error returns NULL and adds a
 * diagnostic naming file:line:col of the query text (path is used in it). */
dg_hl_query *dg_hl_query_new(const char *path, const char *src, size_t len, dg_diags *d);
/* Reads and compiles the query file; NULL with a diagnostic on failure. */
dg_hl_query *dg_hl_query_load(const char *path, dg_diags *d);
void dg_hl_query_free(dg_hl_query *q);
unsigned dg_hl_query_ncaptures(const dg_hl_query *q);
/* Name of capture i ("function.builtin"); owned by the query. */
const char *dg_hl_query_capture(const dg_hl_query *q, unsigned i);

typedef struct {
  char *name;           /* owned */
  uint32_t line, col;   /* 1-based, of the function name */
  uint32_t byte;        /* offset of the function definition */
} dg_hl_kernel;

typedef struct {
  uint32_t line, col;   /* 1-based */
  bool missing;         /* a MISSING node (tree-sitter inserted it) vs an ERROR node */
} dg_hl_error;

/* One highlighted text. The text is borrowed: it must outlive the doc. */
typedef struct {
  const char *text;
  size_t len;
  uint16_t *cap;        /* per byte: 0 = no capture, else capture index + 1; owned */
  DG_VEC(dg_hl_kernel) kernels;   /* __global__ functions in file order */
  DG_VEC(dg_hl_error) errors;     /* syntax errors in file order */
  size_t parsed;        /* bytes parsed: len, or less for a first-paint prefix */
} dg_hl_doc;

/* Parses text and runs the query (q may be NULL: no highlighting, kernels and
 * errors are still found). Caller frees with dg_hl_doc_free. */
dg_hl_doc *dg_hl_doc_new(const dg_hl_query *q, const char *text, size_t len);
/* The same for a first paint of a big file: parses only text[0..upto) (cut
 * back to a line start), so kernels, errors and captures cover that prefix
 * only (the last construct may be cut). cap still has len entries. */
dg_hl_doc *dg_hl_doc_new_prefix(const dg_hl_query *q, const char *text, size_t len, size_t upto);
void dg_hl_doc_free(dg_hl_doc *doc);

#endif
