/* cli_check.c — `dirigo check PROBLEM [--at …|--auto] …` (DESIGN 3.3, 3.4) and
 * `dirigo replay PROBLEM WITNESS.json` for the checker's witness files (fuzz
 * witnesses go on to cli_replay). One line per checked element; every
 * verdict also goes to <problem dir>/.dirigo/journal.jsonl as it comes. */
#include "cli.h"
#include "cli_load.h"
#include "check.h"
#include "check_inst.h"
#include "lua_spec.h"
#include "gpu_run.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_AT 64

typedef struct {
  const char *problem;
  const char *at[MAX_AT];
  int nat;
  const char *size[MAX_AT];    /* NAME=V overrides of the spec's sizes */
  int nsize;
  bool autoloc, json, sarif, explain, no_journal, no_gpu;
  double timeout, budget;
  bool budget_set;             /* --budget given: --at's elements honour it too */
  term_model model;
  uint64_t seed;
} check_args;

static int usage(const char *msg)
{
  fprintf(stderr, "dirigo check: %s\n", msg);
  fprintf(stderr, "usage: dirigo check PROBLEM [--at i,j,...|NAME[i,j,...]]... [--auto] [--budget S] [--timeout S]\n"
                  "                    [--float real|ieee] [--seed N] [--size NAME=V]... [--json|--sarif] [--explain] [--no-journal] [--no-gpu]\n");
  return DG_EXIT_USAGE;
}

static bool num(const char *s, double *v)
{
  char *end;
  *v = strtod(s, &end);
  return *s && !*end && *v >= 0 && isfinite(*v);
}

static int parse_args(int argc, char **argv, check_args *a)
{
  memset(a, 0, sizeof *a);
  a->timeout = 10;
  a->budget = 60;
  a->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    bool has = i + 1 < argc;
    double v;
    if (!strcmp(o, "--json")) a->json = true;
    else if (!strcmp(o, "--sarif")) a->sarif = true;
    else if (!strcmp(o, "--explain")) a->explain = true;
    else if (!strcmp(o, "--auto")) a->autoloc = true;
    else if (!strcmp(o, "--no-journal")) a->no_journal = true;
    else if (!strcmp(o, "--no-gpu")) a->no_gpu = true;
    else if (!strcmp(o, "--at") && has) {
      if (a->nat == MAX_AT) return usage("too many --at");
      a->at[a->nat++] = argv[++i];
    } else if (!strcmp(o, "--size") && has) {
      if (a->nsize == MAX_AT) return usage("too many --size");
      a->size[a->nsize++] = argv[++i];
    } else if (!strcmp(o, "--timeout") && has) {
      if (!num(argv[++i], &v) || v <= 0) return usage("--timeout takes a positive number of seconds");
      a->timeout = v;
    } else if (!strcmp(o, "--budget") && has) {
      if (!num(argv[++i], &v) || v <= 0) return usage("--budget takes a positive number of seconds");
      a->budget = v;
      a->budget_set = true;
    } else if (!strcmp(o, "--seed") && has) {
      /* an integer of 64 bits: a double past 2^64 does not convert */
      const char *s = argv[++i];
      char *end;
      errno = 0;
      unsigned long long x = (*s >= '0' && *s <= '9') ? strtoull(s, &end, 10) : 0;
      if (*s < '0' || *s > '9' || *end || errno == ERANGE) return usage("--seed takes a number");
      a->seed = x;
    } else if (!strcmp(o, "--float") && has) {
      const char *f = argv[++i];
      if (!strcmp(f, "real")) a->model = TERM_MODEL_REAL;
      else if (!strcmp(f, "ieee")) a->model = TERM_MODEL_IEEE;
      else return usage("--float is real or ieee");
    } else if (o[0] == '-') {
      char *m = dg_printf("unknown or incomplete option '%s'", o);
      int rc = usage(m);
      free(m);
      return rc;
    } else if (!a->problem) a->problem = o;
    else return usage("too many arguments");
  }
  if (!a->problem) return usage("no problem given");
  if (a->json && a->sarif) return usage("--json and --sarif exclude each other");
  if (!a->nat && !a->autoloc) return usage("say where: --at i,j,... or --auto");
  return -1;
}


static int first_output(const dg_problem *p)
{
  for (size_t t = 0; t < p->tensors.n; t++)
    if (p->tensors.v[t].role == DG_TENSOR_OUTPUT) return (int)t;
  return -1;
}

/* "3,36", "y[3,36]", "y:3,36" -> tensor and index; false with a message. */
static bool parse_at(const dg_problem *p, const char *s, int *t, int64_t *idx, int *rank, char **err)
{
  const char *num0 = s;
  *t = first_output(p);
  const char *br = strpbrk(s, "[:");
  if (br) {
    char *name = dg_strndup(s, (size_t)(br - s));
    *t = dg_problem_tensor(p, name);
    if (*t < 0 || p->tensors.v[*t].role != DG_TENSOR_OUTPUT) {
      *err = dg_printf("--at %s: '%s' is not an output of the problem", s, name);
      free(name);
      return false;
    }
    free(name);
    num0 = br + 1;
  }
  if (*t < 0) { *err = dg_printf("the problem has no output"); return false; }
  int bare = br ? -1 : dg_problem_tensor(p, s);
  if (bare >= 0 && p->tensors.v[bare].role == DG_TENSOR_OUTPUT) {   /* --at y */
    dg_buf ij = {0};
    for (size_t d = 0; d < p->tensors.v[bare].shape.n; d++) dg_buf_printf(&ij, "%s%c", d ? "," : "", "ijklmnop"[d % 8]);
    *err = dg_printf("--at %s: give the element's index too, %s[%s]", s, s, ij.s ? ij.s : "");
    dg_buf_free(&ij);
    return false;
  }
  if (!br && bare < 0 && (isalpha((unsigned char)*s) || *s == '_')) {   /* --at y5: a name, but how? */
    dg_buf outs = {0};
    for (size_t i = 0; i < p->tensors.n; i++)
      if (p->tensors.v[i].role == DG_TENSOR_OUTPUT) dg_buf_printf(&outs, "%s%s", outs.n ? ", " : "", p->tensors.v[i].name);
    *err = dg_printf("--at %s: expected i,j,... or NAME[i,j,...] (outputs: %s)", s, outs.s ? outs.s : "none");
    dg_buf_free(&outs);
    return false;
  }
  *rank = 0;
  const char *q = num0;
  while (*q && *q != ']') {
    char *end;
    errno = 0;
    long long v = strtoll(q, &end, 10);
    if (end == q || *rank == 8) { *err = dg_printf("--at %s: expected integers separated by commas", s); return false; }
    if (errno == ERANGE) { *err = dg_printf("--at %s: index out of range", s); return false; }
    idx[(*rank)++] = v;
    q = end;
    while (*q == ' ') q++;                /* y[ 1 , 2 ] */
    if (*q == ',' && (!q[1] || q[1] == ']')) { *err = dg_printf("--at %s: expected integers separated by commas", s); return false; }
    if (*q == ',') q++;
    else if (*q && *q != ']') { *err = dg_printf("--at %s: expected integers separated by commas", s); return false; }
  }
  /* NAME[i,j] closes its bracket and ends there; i,j and NAME:i,j have none */
  bool open = br && *br == '[';
  if (open ? *q != ']' || q[1] : *q) {
    *err = dg_printf(open ? "--at %s: expected NAME[i,j,...] with the ']' last" : "--at %s: expected integers separated by commas", s);
    return false;
  }
  return true;
}

/* ---- --auto: corners, tails, block boundaries, a few random ------------------------ */
typedef struct { int t; int64_t idx[8]; int rank; int inst; } loc;   /* inst: 0 spec sizes, k instance k (below) */
typedef DG_VEC(loc) locvec;

static void add_loc(locvec *v, loc l)
{
  for (size_t i = 0; i < v->n; i++)
    if (v->v[i].t == l.t && v->v[i].inst == l.inst && !memcmp(v->v[i].idx, l.idx, sizeof l.idx)) return;
  dg_vec_push(v, l);
}

/* --auto's elements: check_auto_locs (check.h), shared with the workbench */
static void auto_locs(const dg_problem *p, uint64_t seed, locvec *out)
{
  check_loc *cl;
  size_t n = check_auto_locs(p, seed, &cl);
  for (size_t i = 0; i < n; i++) {
    loc l = { cl[i].tensor, {0}, cl[i].rank };
    memcpy(l.idx, cl[i].idx, sizeof l.idx);
    add_loc(out, l);
  }
  free(cl);
}

/* --auto goes on, when the spec's sizes show nothing, to boundary then huge
 * instances (check_inst.h); loc.inst k is the engine's instance k. */
static bool more_instances(dg_problem *p, const emu_kernels *k, check_insts *in, locvec *out)
{
  check_iloc *il;
  size_t n = check_insts_next(p, k, in, &il);
  for (size_t i = 0; i < n; i++) {
    loc l = { il[i].at.tensor, {0}, il[i].at.rank, il[i].inst };
    memcpy(l.idx, il[i].at.idx, sizeof l.idx);
    add_loc(out, l);
  }
  free(il);
  return n > 0;
}

/* Sets the problem's sizes to l's instance and says so in text output: the
 * command line that checks this element alone. */
static void use_instance(dg_problem *p, const check_insts *in, const loc *l, const char *problem, bool say)
{
  check_insts_use(p, in, l->inst);
  if (!say || !l->inst) return;
  check_iloc il = { { l->t, l->rank, {0} }, l->inst };
  memcpy(il.at.idx, l->idx, sizeof il.at.idx);
  dg_buf b = {0};
  dg_buf_puts(&b, "no finding at the spec's sizes; ");
  check_insts_describe(&b, p, in, l->inst);
  dg_buf_puts(&b, ": ");
  check_insts_command(&b, p, problem, in, &il);
  printf("%s\n", b.s);
  dg_buf_free(&b);
}

/* ---- output ------------------------------------------------------------------------------ */
static void print_line(const dg_problem *p, const check_result *r, const char *witness)
{
  dg_buf el = {0};
  if (r->tensor >= 0) check_format_elem(&el, p, r->tensor, r->index, r->nidx);
  printf("%-12s  %-10s  %s  (%.2f s)\n", el.s ? el.s : "?", check_verdict_name(r->verdict),
         r->reason ? r->reason : "", r->t_total);
  if (witness) printf("%-12s  witness: %s\n", "", witness);
  if (r->gpu == 1) printf("%-12s  on the GPU (%s): kernel %.9g, reproduces\n", "", r->gpu_note, r->gpu_value);
  else if (r->gpu == 2)
    printf("%-12s  on the GPU (%s): kernel %.9g agrees with the reference: the emulator and the GPU differ here\n",
           "", r->gpu_note, r->gpu_value);
  else if (r->gpu < 0) printf("%-12s  GPU replay: %s\n", "", r->gpu_note ? r->gpu_note : "failed");
  dg_buf_free(&el);
}

static void print_explain(const dg_problem *p, const emu_kernels *k, const check_result *r)
{
  if (r->writer_launch >= 0)
    printf("  written by launch %d, block %lld, thread %lld%s\n", r->writer_launch + 1,
           (long long)r->writer_block, (long long)r->writer_thread,
           r->writer_inverted ? " (found by inverting the store address: no other thread may store it)" : "");
  for (size_t t = 0; t < p->tensors.n; t++)
    if (p->tensors.v[t].has_range && p->tensors.v[t].role == DG_TENSOR_INPUT) {
      if (r->ranges_at_top)
        printf("  note: index-valued input '%s' is fixed to the top of its range in the symbolic run (a huge instance)\n",
               p->tensors.v[t].name);
      else
        printf("  note: index-valued input '%s' is fixed to random in-range values in the symbolic run (seed %" PRIu64 ")\n",
               p->tensors.v[t].name, r->seed);
    }
  if (r->nslice) {
    printf("  slice (lines the writer thread executed):\n");
    for (size_t i = 0; i < r->nslice; i++) {
      size_t n = 0;
      const char *line = dg_srcmgr_line(&k->sm, r->slice[i].file, r->slice[i].line, &n);
      printf("    %s:%u: %.*s\n", dg_srcmgr_path(&k->sm, r->slice[i].file), r->slice[i].line,
             (int)(line ? n : 0), line ? line : "");
    }
  }
  if (r->nsteps) {
    dg_buf sb = {0};
    check_steps_format(&sb, k, r);
    printf("  steps (the writer thread statement by statement, values as terms):\n%s", sb.s);
    dg_buf_free(&sb);
  }
  if (r->witness_text) printf("  witness:   %s\n", r->witness_text);
  if (r->kernel_term) printf("  kernel:    %s\n", r->kernel_term);
  if (r->ref_term) printf("  reference: %s\n", r->ref_term);
  if (r->smtlib) printf("  SMT-LIB query:\n%s\n", r->smtlib);
  printf("  time: concrete %.3f s, symbolic %.3f s, solver %.3f s, replay %.3f s; %zu terms, %zu bytes\n",
         r->t_concrete, r->t_symbolic, r->t_solver, r->t_replay, r->nterms, r->term_bytes);
}

static char *save_witness(const dg_problem *p, const check_result *r)
{
  char *err = NULL;
  char *path = check_witness_path(p, r, &err);
  if (!path) {
    fprintf(stderr, "dirigo check: %s\n", err);
    free(err);
    return NULL;
  }
  if (!check_witness_write(path, p, r, &err)) {
    fprintf(stderr, "dirigo check: %s\n", err);
    free(err);
    free(path);
    return NULL;
  }
  return path;
}

int cli_check(int argc, char **argv)
{
  check_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  cli_problem L;
  if (!cli_problem_load(&L, a.problem, false)) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  for (int i = 0; i < a.nsize; i++) {
    const char *eq = strchr(a.size[i], '=');
    char *name = eq ? dg_strndup(a.size[i], (size_t)(eq - a.size[i])) : NULL, *end = NULL;
    int si = name && *name ? dg_problem_size(L.p, name) : -1;
    errno = 0;
    long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
    const char *why = NULL;
    char *names = NULL;
    if (!eq || eq == a.size[i]) why = "expected NAME=VALUE with NAME a size of the problem";
    else if (si < 0) {
      names = dg_strdup("");
      for (size_t k = 0; k < L.p->sizes.n; k++) {
        char *o = names;
        names = dg_printf("%s%s%s", o, k ? ", " : "", L.p->sizes.v[k].name);
        free(o);
      }
    } else if (end == eq + 1 || *end || v < 0 || errno == ERANGE) why = "the value must be a non-negative integer";
    if (why || names) {
      if (names) fprintf(stderr, "dirigo check: --size %s: '%s' is not a size of the problem (its sizes: %s)\n", a.size[i], name, names);
      else fprintf(stderr, "dirigo check: --size %s: %s\n", a.size[i], why);
      free(names);
      free(name);
      cli_problem_free(&L);
      return DG_EXIT_USAGE;
    }
    free(name);
    L.p->sizes.v[si].value = v;
  }
  int64_t *sz = dg_malloc(sizeof *sz * (L.p->sizes.n + 1));
  dg_problem_default_sizes(L.p, sz);
  dg_diags sd = {0};
  bool szok = dg_problem_check_sizes(L.p, sz, &sd);
  dg_diags_print(stderr, &L.p->sm, &sd);
  dg_diags_free(&sd);
  free(sz);
  if (!szok) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  locvec locs = {0};
  for (int i = 0; i < a.nat; i++) {
    loc l = {0};
    char *err = NULL;
    if (!parse_at(L.p, a.at[i], &l.t, l.idx, &l.rank, &err)) {
      fprintf(stderr, "dirigo check: %s\n", err);
      free(err);
      dg_vec_free(&locs);
      cli_problem_free(&L);
      return DG_EXIT_USAGE;
    }
    add_loc(&locs, l);
  }
  if (a.autoloc) auto_locs(L.p, a.seed, &locs);
  if (!locs.n) {                          /* --auto chose nothing: every output is empty */
    dg_buf why = {0};
    int64_t *zs = dg_malloc(sizeof *zs * (L.p->sizes.n + 1)), dims[16];
    dg_problem_default_sizes(L.p, zs);
    for (size_t t = 0; t < L.p->tensors.n; t++) {
      const dg_tensor *ot = &L.p->tensors.v[t];
      if (ot->role != DG_TENSOR_OUTPUT || ot->shape.n > 16 || !dg_problem_shape(L.p, (int)t, zs, dims, NULL)) continue;
      dg_buf_printf(&why, "%s%s: ", why.n ? ", " : "", ot->name);
      for (size_t d = 0; d < ot->shape.n; d++) dg_buf_printf(&why, "%s%lld", d ? "x" : "", (long long)dims[d]);
    }
    fprintf(stderr, "dirigo check: --auto: every output is empty at these sizes (%s): no element to check\n", why.s ? why.s : "");
    dg_buf_free(&why);
    free(zs);
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  /* the GPU replays bugs' witnesses where there is one (lazily: a session
   * starts a child process and compiles the kernels) */
  gpu_kernels gk;
  memset(&gk, 0, sizeof gk);
  int gpu_state = a.no_gpu ? -1 : 0;      /* 0 untried, 1 loaded, -1 none */
  char *gpu_dev = NULL;
  check_opts o = { .timeout_s = a.timeout, .model = a.model, .seed = a.seed,
                   .want_smtlib = a.explain, .want_steps = a.explain };
  DG_VEC(check_result) res = {0};
  bool findings = false, errors = false;
  double t0 = dg_now();
  check_insts inst = { .deadline = a.autoloc ? t0 + a.budget : 0 };
  if (a.json) printf("[");
  for (size_t i = 0; i < locs.n; i++) {
    if (a.autoloc && i > 0 && dg_now() - t0 > a.budget) {
      if (!a.json && !a.sarif) printf("budget of %.0f s spent: %zu of %zu locations checked\n", a.budget, i, locs.n);
      break;
    }
    check_result r;
    if (a.autoloc) o.budget_s = a.budget - (dg_now() - t0);   /* > 0 here; a query stops at it */
    else if (a.budget_set) o.budget_s = fmax(a.budget - (dg_now() - t0), 1e-6);   /* spent: unknown at once */
    if (locs.v[i].inst != (i ? locs.v[i - 1].inst : 0))
      use_instance(L.p, &inst, &locs.v[i], a.problem, !a.json && !a.sarif);
    check_element(L.p, &L.k, locs.v[i].t, locs.v[i].idx, locs.v[i].rank, &o, &r);
    if (r.verdict == CHECK_BUG && r.inputs && gpu_state == 0) {
      gpu_state = -1;
      if (dg_gpu_available(&gpu_dev)) {
        dg_diags gd = {0};
        if (gpu_kernels_load(&gk, L.p, NULL, &gd)) gpu_state = 1;
        else gpu_kernels_free(&gk);
        dg_diags_free(&gd);
      }
    }
    if (r.verdict == CHECK_BUG && r.inputs && gpu_state == 1) check_replay_gpu(L.p, &gk, gpu_dev, &r);
    /* --no-journal writes nothing beside the problem: no witness file either */
    /* a huge instance's engine finding keeps no values: its witness names the block to run again */
    bool keep = ((r.verdict == CHECK_BUG || r.verdict == CHECK_FINDING || r.verdict == CHECK_RACE) && r.inputs) ||
                (r.block_witness && check_verdict_is_finding(r.verdict));
    char *wpath = keep && !a.no_journal ? save_witness(L.p, &r) : NULL;
    dg_buf j = {0};
    check_result_json(&j, L.p, &L.k, &r, wpath, false);
    char *err = NULL;
    if (!a.no_journal && !check_journal_append(L.p, j.s, &err)) {
      fprintf(stderr, "dirigo check: %s\n", err);
      free(err);
    }
    if (a.json) {
      j.n = 0;
      check_result_json(&j, L.p, &L.k, &r, wpath, a.explain);
      printf("%s\n%s", i ? "," : "", j.s);
    } else if (!a.sarif) {
      print_line(L.p, &r, wpath);
      if (a.explain) print_explain(L.p, &L.k, &r);
    }
    dg_buf_free(&j);
    free(wpath);
    fflush(stdout);
    findings |= check_verdict_is_finding(r.verdict);
    errors |= r.verdict == CHECK_ERROR;
    dg_vec_push(&res, r);
    /* --auto stops at the first finding; an unknown element says nothing of
     * the next one (a bug at a tail element must still be reached) */
    if (a.autoloc && (check_verdict_is_finding(r.verdict) || r.verdict == CHECK_ERROR)) break;
    if (a.autoloc && i + 1 == locs.n && !more_instances(L.p, &L.k, &inst, &locs) && inst.cut &&
        !a.json && !a.sarif)    /* nothing found: other sizes, unless choosing them spent the budget */
      printf("budget of %.0f s spent choosing the instances past the spec's sizes: %zu locations checked\n", a.budget,
             locs.n);
  }
  check_insts_free(&inst);
  if (a.json) printf("\n]\n");
  if (a.sarif) {
    dg_buf s = {0};
    check_sarif(&s, L.p, &L.k, res.v, res.n);
    printf("%s\n", s.s);
    dg_buf_free(&s);
  }
  for (size_t i = 0; i < res.n; i++) check_result_free(&res.v[i]);
  dg_vec_free(&res);
  if (gpu_state == 1) gpu_kernels_free(&gk);
  free(gpu_dev);
  dg_vec_free(&locs);
  cli_problem_free(&L);
  return findings ? DG_EXIT_BUGS : errors ? DG_EXIT_USAGE : DG_EXIT_OK;
}

/* `dirigo replay PROBLEM FILE`: a checker witness file; anything else is a fuzz witness. */
int cli_check_replay(int argc, char **argv)
{
  struct stat st;
  bool json = false;
  const char *problem = NULL, *w = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    else if (argv[i][0] == '-') return cli_replay(argc, argv);
    else if (!problem) problem = argv[i];
    else if (!w) w = argv[i];
  }
  if (!problem || !w || strncmp(w, "fuzz:", 5) == 0 || stat(w, &st) != 0 || !S_ISREG(st.st_mode))
    return cli_replay(argc, argv);
  cli_problem L;
  if (!cli_problem_load(&L, problem, false)) {
    cli_problem_free(&L);
    return DG_EXIT_USAGE;
  }
  check_result r;
  check_witness_replay(w, L.p, &L.k, &r);
  if (json) {
    dg_buf j = {0};
    check_result_json(&j, L.p, &L.k, &r, w, false);
    printf("%s\n", j.s);
    dg_buf_free(&j);
  } else if (r.verdict == CHECK_ERROR) {
    fprintf(stderr, "dirigo replay: %s\n", r.reason);
  } else {
    printf("replay %s %s\n", problem, w);
    print_line(L.p, &r, NULL);
  }
  int rc = check_verdict_is_finding(r.verdict) ? DG_EXIT_BUGS : r.verdict == CHECK_ERROR ? DG_EXIT_USAGE : DG_EXIT_OK;
  check_result_free(&r);
  cli_problem_free(&L);
  return rc;
}
