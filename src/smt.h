/* smt.h — asking Z3 about terms (DESIGN 3.3, 5).
 *
 * An smt_solver translates terms of one term_ctx to Z3 (REAL terms as reals,
 * IEEE terms with Z3 floating-point sorts, rounding to nearest even, ints as
 * bit-vectors) and answers "can the kernel's value differ from the
 * reference's?". Transcendental functions are uninterpreted, with the facts
 * that make the usual rewrites provable (smt_facts.c lists them); in the REAL
 * model exp(k + Σ c_i*t_i) is translated as exp(k) * Π exp(t_i)^c_i (the
 * identity exp(a+b) = exp(a)*exp(b), instantiated for the sums present).
 *
 * A solver keeps its translations: several checks over one ctx share them.
 * Assumptions stay for every later check of the solver. */
#ifndef DG_SMT_H
#define DG_SMT_H
#include "term.h"

typedef enum {
  SMT_EQUIVALENT,   /* unsat: they cannot differ (smt_sat: cond unsatisfiable) */
  SMT_DIFFERENT,    /* sat: a model makes them differ (smt_sat: cond satisfiable) */
  SMT_UNKNOWN,      /* with a reason */
} smt_verdict;
#define SMT_UNSAT SMT_EQUIVALENT
#define SMT_SAT SMT_DIFFERENT
const char *smt_verdict_name(smt_verdict v);   /* "equivalent", "different", "unknown" */

typedef struct {
  unsigned timeout_ms;   /* per check; 0: no limit */
  double atol, rtol;     /* IEEE model: |k - r| > atol + rtol*|r| is a difference; REAL: k != r */
  bool want_smtlib;      /* fill smt_result.smtlib with the query as SMT-LIB2 */
  bool lipschitz;        /* REAL: bound |f(a) - f(b)| by |a - b| for pairs of tanh / erf
                            applications (smt_facts.c): for "within tolerance" queries */
  double deadline;       /* dg_now() past which the translation to Z3 stops (0: none): the
                            query is then unknown with smt_result.late set */
} smt_opts;

typedef struct {
  dg_term var;           /* a variable that appears in the query */
  size_t ordinal;        /* its term_var_ordinal: term_var_info gives tensor, index, dtype */
  term_value value;      /* f for reals/floats, i for ints (bits) and bools */
} smt_binding;

typedef struct {
  smt_verdict verdict;
  char *reason;          /* UNKNOWN: "timeout", "canceled", "(incomplete (theory arithmetic))", ... */
  smt_binding *model;    /* DIFFERENT: one per variable in the query, by ordinal */
  size_t nmodel;
  term_value *values;    /* DIFFERENT: term_var_count entries (0 where absent), for term_eval */
  size_t nvalues;
  bool have_sides;       /* DIFFERENT: kernel_value / ref_value hold the solver's values */
  term_value kernel_value, ref_value;
  char *smtlib;          /* opts.want_smtlib: the query in SMT-LIB2 */
  double seconds;        /* solver time */
  size_t nlipschitz;     /* opts.lipschitz: pair facts the query held (0: the answer rests on none) */
  bool normal_form;      /* EQUIVALENT without Z3: both sides have one normal form (smt_norm.c) */
  bool selection;        /* EQUIVALENT without Z3: both sides are the index of the first maximum
                            over the same (value, index) pairs (smt_select.c) */
  double identity_err;   /* EQUIVALENT by the randomised identity test (smt_pit.c): the bound on
                            the chance that unequal sides passed it; 0: not by that test */
  bool late;             /* UNKNOWN: opts.deadline passed in the translation (reason: how far it got) */
} smt_result;
void smt_result_free(smt_result *r);

typedef struct smt_solver smt_solver;
/* c must outlive the solver; opts may be NULL (defaults: no timeout, tol 0). */
smt_solver *smt_new(term_ctx *c, const smt_opts *opts);
void smt_free(smt_solver *s);
/* Adds a side constraint (a bool term): ranges of index inputs, finiteness, ...; translated
 * at the first query that goes to Z3 (one answered without Z3 does not translate it). */
void smt_assume(smt_solver *s, dg_term cond);
/* Can kernel and ref (same sort) differ? Fills *out (free with smt_result_free). */
smt_verdict smt_check_differ(smt_solver *s, dg_term kernel, dg_term ref, smt_result *out);
/* Is cond (a bool term) satisfiable under the assumptions? (an index out of
 * bounds, a feasible path). SMT_SAT comes with a model. */
smt_verdict smt_sat(smt_solver *s, dg_term cond, smt_result *out);

/* Whether two REAL terms expand to one polynomial over the same atoms
 * (smt_norm.c says which identities it uses): true proves them equal. */
bool smt_same_normal_form(term_ctx *c, dg_term a, dg_term b);

/* Whether two index terms (an argmax's) each select the lexicographically
 * greatest (value descending, index ascending) of the same set of (value term,
 * index) pairs, every merge checked (smt_select.c): true proves them equal
 * in the real model. */
bool smt_same_selection(term_ctx *c, dg_term a, dg_term b);

/* The randomised identity test (smt_pit.c says what it assumes): true when
 * the two REAL terms agree at random points of two prime fields and the
 * chance that unequal terms would is below 2^-40 (*err gets that bound). */
bool smt_pit_same(term_ctx *c, dg_term a, dg_term b, double *err);

/* Bytes Z3 holds now, all contexts together (with term_ctx_bytes: a check's memory). */
size_t smt_bytes(void);
/* Frees Z3's global memory; call once at exit, after every smt_free (leak checkers). */
void smt_shutdown(void);
/* Z3 contexts whose smt_free came past their solver's deadline, not deleted yet: the next
 * smt_new before its deadline (or with none) deletes them, and smt_shutdown. */
size_t smt_deferred(void);

/* One-shot: a solver, the assumptions, one check. */
smt_verdict smt_differ(term_ctx *c, dg_term kernel, dg_term ref, const dg_term *assume,
                       size_t nassume, const smt_opts *opts, smt_result *out);

#endif
