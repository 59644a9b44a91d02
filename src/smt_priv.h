/* smt_priv.h — the inside of smt_solver, shared by smt*.c only. */
#ifndef DG_SMT_PRIV_H
#define DG_SMT_PRIV_H
#include "smt.h"
#include "term_priv.h"
#include <z3.h>

enum { SMT_NSORTSLOT = 6 };    /* function declarations per (fn, sort slot) */

typedef struct { unsigned *v; size_t cap, n; } smt_idset;   /* Z3 ast ids, open addressing */
typedef struct { unsigned f, id; Z3_ast arg, c; } smt_pure;  /* f(arg) as the constant c */

struct smt_solver {
  term_ctx *tc;
  Z3_context z;
  DG_VEC(Z3_ast) base;         /* facts and assumptions: asserted in every check */
  smt_opts opts;
  Z3_ast *cache;               /* per term id; NULL: not translated yet */
  size_t ncache;
  Z3_func_decl fn[TERM_FN__COUNT][SMT_NSORTSLOT], pow[SMT_NSORTSLOT];
  Z3_ast rne, rtz, rtn, rtp;
  smt_idset facts_done;        /* apps whose facts are asserted */
  smt_idset var_ids;           /* Z3 constants made for variables (var_ast) */
  DG_VEC(Z3_ast) exp_args;     /* arguments of REAL exp apps, for monotonicity */
  DG_VEC(Z3_ast) exp_apps;
  DG_VEC(Z3_ast) lip_args[2];  /* REAL tanh (0) and erf (1) apps, for Lipschitz pairs */
  DG_VEC(Z3_ast) lip_apps[2];
  size_t nlip;                 /* Lipschitz pair facts asserted */
  DG_VEC(smt_pure) pures;      /* purified REAL applications (smt_facts.c) */
  uint32_t *pure_tab;          /* (f, arg id) -> index+1 into pures */
  size_t pure_cap;
  DG_VEC(dg_term) assumed;     /* smt_assume'd terms: their variables are in models */
  size_t nassumed_tr;          /* ... the first of them translated into base (at a query) */
  char *error;                 /* first Z3 error, owned */
  bool late;                   /* the error is opts.deadline passing in the translation */
};

Z3_sort smt_sort(smt_solver *s, term_sort ts);
/* The Z3 term of t (translated once, kept). NULL after a Z3 error. */
Z3_ast smt_tr(smt_solver *s, dg_term t);
/* Real numeral of a double, exactly. */
Z3_ast smt_real(smt_solver *s, double v);
/* f(arg) of sort ts, with its facts asserted (REAL) once. */
Z3_ast smt_app(smt_solver *s, term_fn f, term_sort ts, Z3_ast arg);
/* exp(E) for a REAL term E, split over the sum E (smt_facts.c). */
Z3_ast smt_exp(smt_solver *s, dg_term e);
bool smt_idset_add(smt_idset *set, unsigned id);   /* false if already there */
/* Records a Z3 error if one happened; true if any did. */
bool smt_failed(smt_solver *s);
void smt_assert_base(smt_solver *s, Z3_ast fact);

#endif
