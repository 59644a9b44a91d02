/* sexpr.h — size and constraint expressions: C integer syntax over named
 * symbols (sizes, integer attributes), evaluated in int64 with overflow and
 * division by zero reported as errors. Parsed once, evaluated many times.
 *
 *   + - * / % & | ^ ~ << >> == != < <= > >= && || ! ?: ( )
 *   min(a,b)  max(a,b)  ceil(a/b) (ceiling division; ceil(x) = x otherwise)
 *
 * Errors carry a byte offset inside the expression text; the caller turns it
 * into file:line:col (it knows where the text stands in the user's file). */
#ifndef DG_SEXPR_H
#define DG_SEXPR_H
#include "util.h"

typedef struct dg_sexpr dg_sexpr;      /* opaque; owns its nodes and a copy of the text */

typedef struct {
  size_t pos;                          /* byte offset in the expression text */
  char msg[160];
} dg_sexpr_err;

/* Symbol table for evaluation: names[i] has value vals[i]. Not owned. */
typedef struct {
  const char *const *names;
  const int64_t *vals;
  size_t n;
} dg_symtab;

/* NULL on a syntax error (err filled). The result is freed with dg_sexpr_free. */
dg_sexpr *dg_sexpr_parse(const char *text, dg_sexpr_err *err);
void dg_sexpr_free(dg_sexpr *e);
const char *dg_sexpr_text(const dg_sexpr *e);

/* false on an unknown symbol, overflow, division by zero, bad shift (err filled,
 * pos at the offending operator or name). */
bool dg_sexpr_eval(const dg_sexpr *e, const dg_symtab *st, int64_t *out, dg_sexpr_err *err);

/* The distinct symbol names used, in order of first use; valid while e lives. */
size_t dg_sexpr_symbols(const dg_sexpr *e, const char **names, size_t max);
/* Offset of the first use of symbol name, or (size_t)-1. */
size_t dg_sexpr_symbol_pos(const dg_sexpr *e, const char *name);
/* True when the expression is one bare symbol (*name set) or one literal. */
bool dg_sexpr_is_symbol(const dg_sexpr *e, const char **name);
bool dg_sexpr_is_const(const dg_sexpr *e, int64_t *v);

/* Lookup helper for dg_symtab (linear: tables are small). */
bool dg_symtab_get(const dg_symtab *st, const char *name, int64_t *v);

#endif
