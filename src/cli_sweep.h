/* cli_sweep.h — `dirigo sweep`, shared by its two files: cli_sweep.c runs the
 * children and keeps the journal; cli_sweep_report.c reads what a child said
 * and prints the closing table. Every string in these structs is owned by the
 * struct (freed by cli_sweep.c), except sweep_problem.rel, which points into
 * path. */
#ifndef DG_CLI_SWEEP_H
#define DG_CLI_SWEEP_H
#include "util.h"

/* The outcome of one tool on one problem, as the journal records it. */
#define SWEEP_STATUSES(X) \
  X(BUG, "bug")                /* a finding: check's bug/race/..., fuzz's fail/finding */ \
  X(CLEAN, "clean")            /* check: every element checked equivalent; fuzz: every case passed */ \
  X(UNKNOWN, "unknown")        /* check: an element ended unknown (solver timeout, unsupported) */ \
  X(TIMEOUT, "timeout")        /* killed at the wall-clock limit */ \
  X(CRASH, "crash")            /* died on a signal, or an exit status no tool gives */ \
  X(ERROR, "error")            /* the tool refused (exit 2) or every fuzz case errored (exit 3) */ \
  X(UNLOADABLE, "unloadable")  /* the spec or its kernels do not load */
typedef enum {
#define X(id, name) SWEEP_##id,
  SWEEP_STATUSES(X)
#undef X
  SWEEP__NSTATUS
} sweep_status;
extern const char *const sweep_status_names[SWEEP__NSTATUS];

enum { SWEEP_CHECK, SWEEP_FUZZ, SWEEP_NTOOLS };
extern const char *const sweep_tool_names[SWEEP_NTOOLS];

typedef struct {
  const char *dir, *out, *strategy, *mode;
  bool tool[SWEEP_NTOOLS];
  double budget;
  double limit;            /* a child's wall-clock limit; 0: sweep_limit(budget) */
  int jobs, shard_i, shard_n;
  bool json, fresh;
} sweep_args;

typedef struct {
  bool have, from_journal;
  sweep_status status;
  char *verdict;           /* check: the decisive verdict; fuzz: fail, finding, pass; or NULL */
  char *reason;            /* one line, or NULL */
  char *witness;           /* a bug's handle: the fuzz witness (dirigo replay PROBLEM W), or the
                              element check found (dirigo check PROBLEM --at W); or NULL */
  double secs;             /* the child's wall-clock time */
  double first;            /* seconds to the first bug; < 0: none */
  int code, sig;           /* exit status (-1: none), signal (0: none) */
} sweep_result;

typedef struct {
  char *path;              /* DIR/rel */
  const char *rel;         /* the name in the journal and the table */
  char *files;             /* a digest of the spec and the files it names (files_digest) */
  bool known, loads;       /* known: probed or read from the journal */
  char *bug_pattern;       /* the seeded bug (scoring only); NULL: correct */
  char *load_error;
  sweep_result r[SWEEP_NTOOLS];
} sweep_problem;

typedef DG_VEC(char *) sweep_strvec;

/* cli_sweep.c */
char *sweep_options_key(const sweep_args *a, int tool);   /* what must match to resume; caller frees */
int sweep_problem_cmp(const void *key, const void *elem); /* key: sweep_problem **, by rel */
/* A child's wall-clock limit: --limit, else the budget and a margin for
 * loading, the element in flight and the case in flight. */
static inline double sweep_limit(const sweep_args *a)
{
  return a->limit > 0 ? a->limit : a->budget + 5 + a->budget / 4;
}

/* cli_sweep_report.c: reading children and journal lines (flat JSON objects) */
char *sweep_json_str(const char *obj, const char *key);   /* unescaped; NULL if absent or null */
double sweep_json_num(const char *obj, const char *key, double dflt);
char *sweep_first_error(const char *text);                /* the first error line, or NULL */
char *sweep_child_reason(int wstatus, const char *err);   /* how a child ended, one line */
void sweep_classify_check(sweep_result *r, int wstatus, const char *out, const char *err);
void sweep_classify_fuzz(sweep_result *r, int wstatus, const char *out, const char *err);
/* The table and totals (text, or one JSON object with --json); the exit status. */
int sweep_report(const sweep_args *a, const sweep_problem *ps, size_t n, const char *journal, double secs);

#endif
