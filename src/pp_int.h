/* pp_int.h — internals shared by the preprocessor's files (pp.c, pp_lex.c,
 * pp_macro.c, pp_expr.c, pp_out.c). No other module includes it.
 *
 * Everything of one pp_run lives in one arena (tokens, hidesets, macro
 * bodies, spliced file text), freed together at the end of the run. */
#ifndef DG_PP_INT_H
#define DG_PP_INT_H
#include "pp.h"

enum {
  PP_MAX_INCLUDE_DEPTH = 64,
  PP_MAX_NEST = 200,               /* nested macro arguments, #if parentheses */
  PP_MAX_INCLUDES = 10000,         /* #include operations of one run (an include bomb) */
};

typedef enum {
  PT_IDENT, PT_NUM, PT_STR, PT_CHAR, PT_PUNCT, PT_OTHER,
  PT_BADLIT,        /* unterminated string or char: an error only if it is used */
  PT_PLACEMARKER,   /* an empty macro argument next to ## */
  PT_EOF,           /* end of a token list */
  PT_FILE_END,      /* end of an included (or the main) file inside the stream */
} pp_kind;

typedef struct pp_macro pp_macro;
/* Hideset: the macros a token may no longer expand ("painted blue"). */
typedef struct pp_hs { const pp_macro *m; struct pp_hs *next; } pp_hs;

typedef struct pp_tok pp_tok;
struct pp_tok {
  pp_tok *next;
  const char *s;          /* not NUL-terminated */
  uint32_t len;
  uint8_t kind;           /* pp_kind */
  bool space;             /* whitespace before it */
  bool bol;               /* first token of a logical line */
  bool paste;             /* a ## operator of a macro body (not one from an argument) */
  dg_span at;             /* where it is written */
  dg_span use;            /* file 0: written in the user's text; else the use site
                           * of the outermost macro expansion that produced it */
  pp_hs *hs;
};

typedef struct pp_state pp_state;
typedef pp_tok *(*pp_dyn_fn)(pp_state *p, const pp_tok *name);

/* One entry per macro name, kept across #undef and redefinition so that a
 * hideset can name it by pointer. */
struct pp_macro {
  const char *name;
  uint32_t len;
  bool defined, funclike, variadic, predefined, cmdline;
  int nparams;            /* the variadic parameter, if any, is the last */
  pp_tok **params;        /* parameter name tokens */
  pp_tok *body;           /* PT_EOF-terminated */
  pp_dyn_fn dyn;          /* __LINE__, __FILE__, __COUNTER__ */
  dg_span def_at;
  pp_macro *chain;        /* next in the hash bucket */
};

typedef struct {
  uint32_t file;
  int cond_base;          /* depth of the #if stack when the file was entered */
  long line_delta;        /* from #line */
  const char *name;       /* from #line "name", or NULL */
} pp_incl;

typedef struct {
  dg_span at;             /* the #if/#ifdef/#ifndef */
  bool taken;             /* a group of this #if was already taken */
  bool in_else;
} pp_cond;

struct pp_state {
  dg_srcmgr *sm;
  dg_diags *d;
  pp_result *res;
  dg_arena ar;
  pp_macro **buckets;
  size_t nbuckets;
  pp_tok *eof;
  size_t expanded;        /* tokens created by expansion so far */
  int nest;               /* current nesting of argument pre-expansion */
  bool stop;              /* a fatal error: finish quickly */
  unsigned counter;
  unsigned nincludes;
  DG_VEC(pp_incl) incl;
  DG_VEC(pp_cond) cond;
  DG_VEC(uint32_t) once;  /* files with #pragma once */
  /* the output cursor (pp_out.c) */
  dg_buf out;
  uint32_t cur_file, cur_line;
  size_t line_start;      /* output offset where the current output line began */
  bool need_nl;           /* a _Pragma line was written: break before what follows */
  dg_span last_end;       /* just after the last token written, where it was written */
};

/* pp_lex.c */
pp_tok *pp_lex_file(pp_state *p, uint32_t file);       /* ends in PT_FILE_END */
pp_tok *pp_lex_text(pp_state *p, const char *s, size_t n, dg_span at); /* ends in PT_EOF */
pp_tok *pp_tok_new(pp_state *p, pp_kind k, const char *s, size_t n, dg_span at);
pp_tok *pp_tok_copy(pp_state *p, const pp_tok *t);
/* Copies of [t, end) ending in PT_EOF, none at the start of a line. */
pp_tok *pp_copy_range(pp_state *p, pp_tok *t, pp_tok *end);
bool pp_tok_is(const pp_tok *t, const char *s);
dg_span pp_tok_pos(const pp_tok *t);                    /* use site, else where written */
/* The first token after t's logical line (the next bol token, or a file end). */
pp_tok *pp_line_end(pp_tok *t);
bool pp_is_directive(const pp_tok *t);

/* pp_macro.c */
pp_macro *pp_macro_get(pp_state *p, const char *s, uint32_t n, bool create);
bool pp_is_defined(pp_state *p, const pp_tok *name);
void pp_do_define(pp_state *p, pp_tok *t, pp_tok *end, bool predefined);
void pp_do_undef(pp_state *p, pp_tok *t, pp_tok *end);
/* If *rest starts with an expandable macro, replaces it by its expansion
 * (spliced in front of what follows) and returns true. */
bool pp_expand_head(pp_state *p, pp_tok **rest);
/* Copies [t, end) into a PT_EOF-terminated list, then expands it fully. */
pp_tok *pp_expand_range(pp_state *p, pp_tok *t, pp_tok *end);
pp_tok *pp_expand_list(pp_state *p, pp_tok *list);
void pp_predefine(pp_state *p);
bool pp_count_expanded(pp_state *p, const pp_tok *at, size_t n);

/* pp_expr.c: the value of an #if/#elif line [t, end). */
bool pp_has_include(pp_state *p, const char *name, bool angled, dg_span at);
bool pp_eval_cond(pp_state *p, pp_tok *t, pp_tok *end, dg_span at);

/* pp_out.c */
void pp_out_tok(pp_state *p, const pp_tok *t);
/* Writes a pragma (list: "#" "pragma" args..., PT_EOF-terminated) on its own
 * output line and records it; synthetic (from _Pragma): it maps to at. */
void pp_out_pragma(pp_state *p, pp_tok *list, dg_span at, bool synthetic);
void pp_out_finish(pp_state *p);
/* The path and line that __FILE__/__LINE__ report for a position. */
const char *pp_file_name(pp_state *p, dg_span at);
long pp_line_of(pp_state *p, dg_span at);

#endif
