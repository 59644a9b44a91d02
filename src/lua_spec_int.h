/* lua_spec_int.h — state shared by the spec loader's files (lua_spec*.c). */
#ifndef DG_LUA_SPEC_INT_H
#define DG_LUA_SPEC_INT_H
#include "lua_int.h"
#include "lua_spec.h"
#include <stdarg.h>

typedef struct {
  dg_problem *p;
  dg_diags *d;
  lua_State *L;
  uint32_t sfile;        /* the spec (or the .cu holding the block) */
  const char *stext;
  size_t sbase;          /* where `problem {` starts in stext: keys are searched from here */
  uint32_t ofile;        /* the op's file (the spec's for an inline op) */
  const char *otext;
  int spec, op, attrs;   /* stack slots: the spec table, the op table, the merged attrs */
} sctx;

dg_span dgl_span_at(sctx *c, uint32_t file, size_t off);
size_t dgl_spec_key(sctx *c, const char *key);
void dgl_err(sctx *c, dg_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
char *dgl_value_text(lua_State *L, int i);                 /* number/bool/string -> text; caller frees */
size_t dgl_keys_in_order(lua_State *L, int idx, const char *text, size_t from, char ***out);
void dgl_free_keys(char **k, size_t n);
/* The candidate closest to name within two edits (a typo), else NULL; ties: the first. */
const char *dgl_closest(const char *name, const char *const *cands, size_t n);

bool dgl_load_op(sctx *c);
bool dgl_load_attrs(sctx *c);
bool dgl_load_sizes(sctx *c);
bool dgl_load_tensors(sctx *c);
bool dgl_load_scratch(sctx *c);

/* dirigo.parse(file [, opts]) (lua_dirigo_parse.c) */
int dgl_parse(lua_State *L);

#endif
