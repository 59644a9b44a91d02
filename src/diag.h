/* diag.h — source files and diagnostics that name file:line:col.
 * Every error a user can cause is a dg_diag; no module prints on its own. */
#ifndef DG_DIAG_H
#define DG_DIAG_H
#include <stdio.h>
#include "util.h"

/* A position in a user's file. file indexes dg_srcmgr.files; 0 is "no file".
 * line and col are 1-based; col counts bytes. */
typedef struct { uint32_t file, line, col; } dg_span;

typedef struct {
  char *path;       /* as the user named it (relative paths kept) */
  char *text;       /* whole contents, NUL-terminated; owned */
  size_t len;
} dg_srcfile;

/* Owns the files read for one problem; spans point into it. */
typedef struct {
  DG_VEC(dg_srcfile) files;  /* files.v[0] is a placeholder for "no file" */
} dg_srcmgr;

void dg_srcmgr_init(dg_srcmgr *sm);
void dg_srcmgr_free(dg_srcmgr *sm);
/* Reads path (once; a second call returns the same id). 0 on failure, errno set. */
uint32_t dg_srcmgr_load(dg_srcmgr *sm, const char *path);
/* Registers text the caller already has (takes ownership of text). */
uint32_t dg_srcmgr_add(dg_srcmgr *sm, const char *path, char *text, size_t len);
const char *dg_srcmgr_path(const dg_srcmgr *sm, uint32_t file);
/* The text of line `line` of file (without newline); *n gets its length. */
const char *dg_srcmgr_line(const dg_srcmgr *sm, uint32_t file, uint32_t line, size_t *n);

typedef enum { DG_SEV_ERROR, DG_SEV_UNSUPPORTED, DG_SEV_WARNING, DG_SEV_NOTE } dg_severity;

typedef struct {
  dg_severity sev;
  dg_span span;
  char *msg;        /* owned */
} dg_diag;

typedef struct {
  DG_VEC(dg_diag) v;
  int nerrors;      /* errors + unsupported */
} dg_diags;

void dg_diag_add(dg_diags *d, dg_severity sev, dg_span span, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
void dg_diags_free(dg_diags *d);
/* "path:line:col: error: msg" (or "unsupported: msg"), one per line. */
void dg_diag_format(dg_buf *out, const dg_srcmgr *sm, const dg_diag *d);
void dg_diags_print(FILE *f, const dg_srcmgr *sm, const dg_diags *d);
const char *dg_severity_name(dg_severity s);

#endif
