/* tui_check.c — 'c' / ':check' (the symbolic check of the element selected
 * in the picker, check.h), 'A' / ':auto' (check --auto: corners, tails, block
 * boundaries and a few random elements, stopping at the first finding; when
 * the spec's sizes show nothing, on to the boundary then huge instances of
 * check_inst.h, as `dirigo check --auto` does) and
 * 'r' / ':replay' (the witness of the selected element's last check, replayed
 * on the emulator). Each runs in a child (tui_job.c) that sends back, per
 * checked element, a "check" record and its "ck.*" parts: verdict, summary,
 * slice lines, fault lines, both terms, the SMT-LIB query, the writer
 * thread's steps, the witness file.
 * The parent colours the cell, marks the source, fills the result pane and
 * keeps the record for the teaching tabs (tui_teach.c). */
#include "tui.h"
#include "check.h"
#include "check_inst.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

/* Verdict -> cell state (DESIGN 3.3 folded for colour). */
static const tui_cell_state verdict_cell[CHECK__COUNT] = {
  [CHECK_EQUIVALENT] = TUI_CELL_EQUIVALENT, [CHECK_BUG] = TUI_CELL_BUG,
  [CHECK_RACE] = TUI_CELL_FAULT, [CHECK_OOB] = TUI_CELL_FAULT, [CHECK_UNINIT] = TUI_CELL_FAULT,
  [CHECK_BARRIER] = TUI_CELL_FAULT, [CHECK_FINDING] = TUI_CELL_FAULT,
  [CHECK_UNKNOWN] = TUI_CELL_UNKNOWN, [CHECK_UNCHECKED] = TUI_CELL_UNCHECKED,
  [CHECK_ERROR] = TUI_CELL_UNCHECKED,
};

#define CHECK_LIMIT_S 120.0          /* a job's time limit: the solver's 10 s and more */
#define AUTO_BUDGET_S 60.0           /* --auto stops starting checks after this (all instances) */
#define SMTLIB_MAX (64 * 1024)       /* the SMT-LIB text kept for the smt-lib tab */
#define STEPS_MAX (256 * 1024)       /* the steps text kept for the steps tab */

enum { MODE_CHECK, MODE_AUTO, MODE_REPLAY };

/* inst: 0 the spec's sizes (the picker's), k > 0 check_inst.h's instance k */
typedef struct { int mt, t, rank; int64_t idx[TUI_MAX_DIMS]; int inst; } loc;

typedef struct {
  int mode;
  DG_VEC(loc) locs;          /* CHECK: one; AUTO: chosen in the child */
  char *witness;             /* REPLAY: the file */
  char *elem;                /* the selected element, for messages */
  /* parent: the element being received, and what auto found so far */
  tui_check_info cur;
  bool have_cur, stop;
  tui_cell_state cur_state;
  char *cur_inst;            /* the element being received is at another instance: what to say */
  dg_buf overview;           /* AUTO: one line per element */
  int nchecked, nequiv, ninst, nfound;   /* ninst: of nchecked, those at other instances */
  bool inst_finding;         /* AUTO: the finding is at another instance */
} cjob;

static void cjob_free(void *ud)
{
  cjob *j = ud;
  dg_vec_free(&j->locs);
  free(j->witness);
  free(j->elem);
  free(j->cur_inst);
  tui_check_info_free(&j->cur);
  dg_buf_free(&j->overview);
  free(j);
}

/* Model tensor index of problem tensor t (by name), or -1. */
static int model_tensor(tui_app *a, int t)
{
  for (size_t i = 0; i < a->model.tensors.n; i++)
    if (!strcmp(a->model.tensors.v[i].name, a->problem->tensors.v[t].name)) return (int)i;
  return -1;
}

/* ==== the child =============================================================== */

static bool in_source(tui_app *a, const dg_srcmgr *sm, dg_span s)
{
  return s.file && a->source && !strcmp(dg_srcmgr_path(sm, s.file), a->source);
}

static void describe(tui_app *a, const emu_kernels *k, const check_result *r, const char *wpath, bool inst, dg_buf *b)
{
  const dg_problem *p = a->problem;
  dg_buf_printf(b, "%s  ", check_verdict_name(r->verdict));
  check_format_elem(b, p, r->tensor, r->index, r->nidx);
  dg_buf_putc(b, '\n');
  if (r->reason && *r->reason) dg_buf_printf(b, "%s\n", r->reason);
  if (r->have_values)
    dg_buf_printf(b, "replayed: kernel %.9g, reference %.9g\n", r->kernel_value, r->ref_value);
  if (r->have_event && !(r->reason && *r->reason)) {      /* the reason already says it */
    dg_buf eb = {0};
    simt_event_format(&eb, &k->sm, &r->event);
    dg_buf_printf(b, "%s\n", eb.s ? eb.s : "");
    dg_buf_free(&eb);
  }
  if (r->verdict == CHECK_BUG && r->nsizes) {
    dg_buf_puts(b, "witness at ");
    for (size_t i = 0; i < r->nsizes && i < p->sizes.n; i++)
      dg_buf_printf(b, "%s%s=%" PRId64, i ? ", " : "", p->sizes.v[i].name, r->sizes[i]);
    dg_buf_printf(b, " (seed %" PRIu64 ")\n", r->seed);
  }
  if (wpath && inst)      /* r replays the picker's element's record: this one is not on the picker */
    dg_buf_printf(b, "witness file %s (dirigo replay %s %s replays it)\n", wpath, a->path ? a->path : "PROBLEM", wpath);
  else if (wpath) dg_buf_printf(b, "witness file %s (r replays it)\n", wpath);
  if (r->writer_launch >= 0 && r->nslice)
    dg_buf_printf(b, "written by block %" PRId64 " thread %" PRId64 " of launch %d; %zu lines fed it\n",
                  r->writer_block, r->writer_thread, r->writer_launch + 1, r->nslice);
  dg_buf_printf(b, "time %.2f s: concrete %.2f, symbolic %.2f, solver %.2f, replay %.2f\n",
                r->t_total, r->t_concrete, r->t_symbolic, r->t_solver, r->t_replay);
  if (r->nterms) dg_buf_printf(b, "%zu terms\n", r->nterms);
}

/* <problem dir>/.dirigo/witness-relu_tail-y-31.json, as `dirigo check` names it. */
static char *save_witness(tui_app *a, const check_result *r)
{
  char *err = NULL, *path = check_witness_path(a->problem, r, &err);
  if (!path) {
    tui_job_sendf("ck.note", "the witness was not saved: %s", err);
    free(err);
    return NULL;
  }
  if (!check_witness_write(path, a->problem, r, &err)) {
    tui_job_sendf("ck.note", "the witness was not saved: %s", err);
    free(err);
    free(path);
    return NULL;
  }
  return path;
}

static void send2(const char *tag, const char *a, const char *b)
{
  const char *f[3] = { tag, a, b };
  tui_job_send(f, 3);
}

/* inst: for an element at another instance, what the result pane says of it
 * (sizes and the command line that replays it); NULL at the spec's sizes. */
static void send_result(tui_app *a, const emu_kernels *k, const loc *l, const check_result *r, const char *inst)
{
  char flat[24], state[8];
  int64_t off = inst ? -1 : tui_tensor_offset(&a->model.tensors.v[l->mt], l->idx);
  snprintf(flat, sizeof flat, "%" PRId64, off);
  snprintf(state, sizeof state, "%d", (unsigned)r->verdict < CHECK__COUNT ? (int)r->verdict : (int)CHECK_ERROR);
  dg_buf elem = {0};
  check_format_elem(&elem, a->problem, l->t, l->idx, l->rank);
  char mt[16];
  snprintf(mt, sizeof mt, "%d", l->mt);
  const char *f[5] = { "check", mt, flat, state, elem.s };
  tui_job_send(f, 5);
  if (inst) tui_job_sendf("ck.inst", "%s", inst);
  char *wpath = r->verdict == CHECK_BUG && r->inputs ? save_witness(a, r) : NULL;
  dg_buf b = {0};
  describe(a, k, r, wpath, inst != NULL, &b);
  tui_job_sendf("ck.summary", "%s", b.s);
  if (wpath) tui_job_sendf("ck.witness", "%s", wpath);
  free(wpath);
  for (size_t i = 0; i < r->nslice; i++) {
    dg_span s = r->slice[i];
    size_t n = 0;
    const char *text = dg_srcmgr_line(&k->sm, s.file, s.line, &n);
    b.n = 0;
    dg_buf_printf(&b, "%s:%u: %.*s", dg_srcmgr_path(&k->sm, s.file), s.line, (int)(text ? n : 0), text ? text : "");
    char line[16];
    snprintf(line, sizeof line, "%u", in_source(a, &k->sm, s) ? s.line : 0);
    send2("ck.slice", line, b.s);
  }
  if (r->have_event) {
    const dg_span sp[2] = { r->event.span, r->event.span2 };
    for (int i = 0; i < 2; i++)
      if (in_source(a, &k->sm, sp[i])) {
        char line[16];
        snprintf(line, sizeof line, "%u", sp[i].line);
        send2("ck.fault", line, simt_event_name(r->event.kind));
      }
  }
  if (r->writer_launch >= 0)
    tui_job_sendf("ck.writer", "block %" PRId64 " thread %" PRId64 " of launch %d", r->writer_block,
                  r->writer_thread, r->writer_launch + 1);
  if (r->kernel_term) tui_job_sendf("ck.kterm", "%s", r->kernel_term);
  if (r->ref_term) tui_job_sendf("ck.rterm", "%s", r->ref_term);
  if (r->smtlib) {
    size_t n = strlen(r->smtlib);
    if (n > SMTLIB_MAX) tui_job_sendf("ck.smt", "%.*s\n... (%zu bytes more)", SMTLIB_MAX, r->smtlib, n - SMTLIB_MAX);
    else tui_job_sendf("ck.smt", "%s", r->smtlib);
  }
  if (r->nsteps) {
    dg_buf st = {0};
    dg_buf_printf(&st, "%zu steps of the writer thread (block %" PRId64 " thread %" PRId64 " of launch %d), values as terms:\n",
                  r->nsteps + (size_t)r->steps_more, r->writer_block, r->writer_thread, r->writer_launch + 1);
    check_steps_format(&st, k, r);
    for (size_t i = 0; i < r->nsteps; i++) {       /* for n / p: each step's line in the shown source */
      char line[16];
      snprintf(line, sizeof line, "%u", in_source(a, &k->sm, r->steps[i].span) ? r->steps[i].span.line : 0);
      tui_job_sendf("ck.stepline", "%s", line);
    }
    if (st.n > STEPS_MAX) tui_job_sendf("ck.steps", "%.*s\n... (%zu bytes more)", STEPS_MAX, st.s, st.n - STEPS_MAX);
    else tui_job_sendf("ck.steps", "%s", st.s);
    dg_buf_free(&st);
  }
  const char *end = "ck.end";
  tui_job_send(&end, 1);
  dg_buf_free(&b);
  dg_buf_free(&elem);
}

typedef struct { const char *elem, *inst; int64_t i, n; } phase_ud;   /* inst: "N=1001" or NULL */

static void on_phase(void *ud, const char *phase)
{
  /* the check's phases and their step of three (the range check, f16/bf16
   * past its range, is the solver's step's end) */
  static const struct { const char *name; int step; } order[] = {
    { "concrete run", 0 }, { "symbolic run", 1 }, { "solver", 2 }, { "range check", 2 },
  };
  phase_ud *ph = ud;
  int64_t k = 0;
  for (size_t i = 0; i < sizeof order / sizeof *order; i++)
    if (!strcmp(order[i].name, phase)) k = order[i].step;
  char *what = ph->inst ? dg_printf("at %s: %s %s", ph->inst, ph->elem, phase)
               : ph->n > 1 ? dg_printf("%s %s", ph->elem, phase) : dg_strdup(phase);
  tui_job_progress(ph->i * 3 + k, ph->n * 3, what);
  free(what);
}

static void add_loc(cjob *j, loc l)
{
  for (size_t i = 0; i < j->locs.n; i++)
    if (j->locs.v[i].t == l.t && j->locs.v[i].inst == l.inst && !memcmp(j->locs.v[i].idx, l.idx, sizeof l.idx))
      return;
  dg_vec_push(&j->locs, l);
}

/* --auto's elements: the ones `dirigo check --auto` checks (check_auto_locs),
 * those of the outputs the picker shows */
static void auto_locs(tui_app *a, cjob *j)
{
  check_loc *cl;
  size_t n = check_auto_locs(a->problem, 1, &cl);
  for (size_t i = 0; i < n; i++) {
    int mt = model_tensor(a, cl[i].tensor);
    if (mt < 0 || cl[i].rank > TUI_MAX_DIMS) continue;
    loc l = { mt, cl[i].tensor, cl[i].rank, {0}, 0 };
    memcpy(l.idx, cl[i].idx, sizeof *l.idx * (size_t)cl[i].rank);
    add_loc(j, l);
  }
  free(cl);
}

/* The spec's elements showed nothing: the next stage of instances
 * (check_insts_next), those elements of the outputs the picker shows. */
static bool more_locs(tui_app *a, cjob *j, const emu_kernels *k, check_insts *in)
{
  check_iloc *il;
  size_t n, before = j->locs.n;
  while (j->locs.n == before && (n = check_insts_next(a->problem, k, in, &il))) {
    for (size_t i = 0; i < n; i++) {
      int mt = model_tensor(a, il[i].at.tensor);
      if (mt < 0 || il[i].at.rank > TUI_MAX_DIMS) continue;
      loc l = { mt, il[i].at.tensor, il[i].at.rank, {0}, il[i].inst };
      memcpy(l.idx, il[i].at.idx, sizeof *l.idx * (size_t)il[i].at.rank);
      add_loc(j, l);
    }
    free(il);
  }
  return j->locs.n > before;
}

/* The problem's sizes go to l's instance; an element there is described by
 * its instance, its sizes and the command line that replays it (*say; the
 * sizes alone in *sizes, for the progress line). */
static void use_instance(tui_app *a, const check_insts *in, const loc *l, char **say, char **sizes)
{
  check_insts_use(a->problem, in, l->inst);
  if (!l->inst) return;
  check_iloc il = { { l->t, l->rank, {0} }, l->inst };
  memcpy(il.at.idx, l->idx, sizeof *l->idx * (size_t)l->rank);
  dg_buf b = {0};
  check_insts_format_sizes(&b, a->problem, in, l->inst);
  *sizes = dg_buf_take(&b);
  dg_buf_puts(&b, "no finding at the spec's sizes; ");
  check_insts_describe(&b, a->problem, in, l->inst);
  dg_buf_printf(&b, ", at %s\nreplay: ", *sizes);
  check_insts_command(&b, a->problem, a->path ? a->path : "PROBLEM", in, &il);
  *say = dg_buf_take(&b);
}

static bool load_kernels(tui_app *a, emu_kernels *k)
{
  dg_diags d = {0};
  if (emu_kernels_load(k, a->problem, &d)) {
    dg_diags_free(&d);
    return true;
  }
  dg_buf out = {0};
  dg_buf_puts(&out, "check: the kernels did not load:\n");
  for (size_t i = 0; k->mod && i < k->mod->diags.v.n && i < 8; i++) {
    dg_diag_format(&out, &k->sm, &k->mod->diags.v.v[i]);
    dg_buf_putc(&out, '\n');
  }
  for (size_t i = 0; i < d.v.n && i < 8; i++) {
    dg_diag_format(&out, &a->problem->sm, &d.v.v[i]);
    dg_buf_putc(&out, '\n');
  }
  tui_job_sendf("result", "%s", out.s);
  dg_buf_free(&out);
  dg_diags_free(&d);
  emu_kernels_free(k);
  return false;
}

static void child_replay(tui_app *a, cjob *j, const emu_kernels *k)
{
  tui_job_progress(0, 1, "replay on the emulator");
  check_result r;
  memset(&r, 0, sizeof r);
  check_witness_replay(j->witness, a->problem, k, &r);
  dg_buf b = {0};
  dg_buf_printf(&b, "replay of %s:\n", j->witness);
  if (r.verdict == CHECK_BUG) dg_buf_puts(&b, "the element still differs: ");
  describe(a, k, &r, NULL, false, &b);
  tui_job_sendf("result", "%s", b.s);
  dg_buf_free(&b);
  check_result_free(&r);
}

static void child(tui_app *a, void *ud)
{
  cjob *j = ud;
  emu_kernels k;
  if (!load_kernels(a, &k)) return;
  if (j->mode == MODE_REPLAY) {
    child_replay(a, j, &k);
    emu_kernels_free(&k);
    return;
  }
  bool autoloc = j->mode == MODE_AUTO;
  if (autoloc) auto_locs(a, j);
  check_insts in = {0};
  bool stopped = false;
  double t0 = dg_now();
  /* A: when no element so far is a finding, the next stage of instances */
  for (size_t i = 0; i < j->locs.n || (autoloc && more_locs(a, j, &k, &in)); i++) {
    if (autoloc && i > 0 && dg_now() - t0 > AUTO_BUDGET_S) {
      tui_job_sendf("note", "budget of %.0f s spent: %zu of %zu elements checked", AUTO_BUDGET_S, i, j->locs.n);
      stopped = true;
      break;
    }
    const loc *l = &j->locs.v[i];
    char *say = NULL, *sizes = NULL;
    use_instance(a, &in, l, &say, &sizes);
    if (l->inst && l->inst != (i ? j->locs.v[i - 1].inst : 0)) {   /* a new instance: a line in the overview */
      dg_buf b = {0};
      check_insts_describe(&b, a->problem, &in, l->inst);
      tui_job_sendf("note", "no finding so far; %s:", b.s);
      dg_buf_free(&b);
    }
    dg_buf elem = {0};
    check_format_elem(&elem, a->problem, l->t, l->idx, l->rank);
    phase_ud ph = { elem.s, sizes, (int64_t)i, (int64_t)j->locs.n };
    check_opts o = { .timeout_s = 10, .want_smtlib = true, .want_steps = true, .phase = on_phase, .phase_ud = &ph };
    if (autoloc) o.budget_s = AUTO_BUDGET_S - (dg_now() - t0);   /* as --budget: a query stops at it */
    if (autoloc && o.budget_s <= 0) o.budget_s = 0.01;   /* 0 would be no limit */
    check_result r;
    memset(&r, 0, sizeof r);
    check_element(a->problem, &k, l->t, l->idx, l->rank, &o, &r);
    send_result(a, &k, l, &r, say);
    /* A stops at the first finding, as --auto; an unknown element says
     * nothing of the next one (a bug at a tail element must still be
     * reached); c and r check one element anyway */
    bool stop = check_verdict_is_finding(r.verdict) || r.verdict == CHECK_ERROR;
    check_result_free(&r);
    dg_buf_free(&elem);
    free(say), free(sizes);
    if ((stopped = stop)) break;
  }
  if (autoloc && !stopped && !in.n)
    tui_job_sendf("note", "no boundary or huge instance past the spec's sizes to go on to");
  check_insts_free(&in);
  emu_kernels_free(&k);
}

/* ==== the parent ============================================================== */

static void flat_index(const tui_tensor *x, int64_t flat, int64_t *idx)
{
  for (int d = x->ndim - 1; d >= 0; d--) {
    idx[d] = flat % x->shape[d];
    flat /= x->shape[d];
  }
}

static int verdict_of(const char *name)
{
  for (int i = 0; i < CHECK__COUNT; i++)
    if (!strcmp(name, check_verdict_name((check_verdict)i))) return i;
  return -1;
}

static void mark_source(tui_app *a, const tui_check_info *ci)
{
  tui_model_clear_marks(&a->model);
  DG_VEC(uint32_t) fed = {0};
  for (size_t i = 0; i < ci->slice.n; i++)
    if (ci->slice.v[i].line) dg_vec_push(&fed, ci->slice.v[i].line);
  tui_model_mark_fed(&a->model, fed.v, fed.n);
  dg_vec_free(&fed);
  for (size_t i = 0; i < ci->faults.n; i++) tui_model_mark_fault(&a->model, ci->faults.v[i].line, ci->faults.v[i].label);
  if (a->model.faults.n) tui_source_goto(a, a->model.faults.v[0].line);   /* show the fault */
}

/* An element at another instance (A past the spec's sizes): its shape is not
 * the picker's, so no cell and no record for the teaching tabs; the marks
 * and the result pane say it, with the sizes and the line that replays it. */
static void apply_inst(tui_app *a, cjob *j)
{
  tui_check_info *ci = &j->cur;
  int v = verdict_of(ci->verdict);
  mark_source(a, ci);
  j->nchecked++, j->ninst++;
  if (v == CHECK_EQUIVALENT) j->nequiv++;
  if (v >= 0 && check_verdict_is_finding((check_verdict)v)) j->inst_finding = true, j->nfound++;
  dg_buf_printf(&j->overview, "%-10s %s\n", ci->verdict, ci->elem);
  dg_buf b = {0};
  dg_buf_printf(&b, "%s\n(the picker stays on the spec's %s: %s is at other sizes)\n%s", j->cur_inst,
                a->model.tensors.v[ci->tensor].name, ci->elem, ci->summary ? ci->summary : "");
  tui_model_set_result(&a->model, b.s);
  dg_buf_free(&b);
  tui_check_info_free(ci);
  memset(ci, 0, sizeof *ci);
  ci->tensor = -1;
  free(j->cur_inst);
  j->cur_inst = NULL;
  j->have_cur = false;
}

/* The element's record is complete: cell, marks, result pane, teaching tabs. */
static void apply_check(tui_app *a, cjob *j)
{
  tui_check_info *ci = &j->cur;
  if (ci->tensor < 0 || (size_t)ci->tensor >= a->model.tensors.n) return;
  if (j->cur_inst) {
    apply_inst(a, j);
    return;
  }
  tui_tensor *x = &a->model.tensors.v[ci->tensor];
  int64_t idx[TUI_MAX_DIMS] = {0};
  flat_index(x, ci->flat, idx);
  int v = verdict_of(ci->verdict);
  if (v >= 0 && v != CHECK_ERROR) tui_tensor_set_state(x, idx, verdict_cell[v]);
  mark_source(a, ci);
  j->nchecked++;
  if (v == CHECK_EQUIVALENT) j->nequiv++;
  else if (v >= 0 && check_verdict_is_finding((check_verdict)v)) {
    j->nfound++;
    if (j->mode == MODE_AUTO) tui_picker_select(a, ci->tensor, idx);   /* show the finding */
  }
  dg_buf_printf(&j->overview, "%-10s %s\n", ci->verdict, ci->elem);
  tui_model_set_result(&a->model, ci->summary ? ci->summary : "");
  char *verdict = dg_strdup(ci->verdict), *tname = dg_strdup(x->name);
  tui_checks_put(a, ci);               /* takes ci's strings */
  memset(ci, 0, sizeof *ci);
  j->have_cur = false;
  tui_lua_on_check(a, verdict, tname, idx, x->ndim);
  free(verdict);
  free(tname);
}

static char **field_of(tui_check_info *ci, const char *tag)
{
  static const struct { const char *tag; size_t off; } fields[] = {
    { "ck.summary", offsetof(tui_check_info, summary) }, { "ck.witness", offsetof(tui_check_info, witness) },
    { "ck.writer", offsetof(tui_check_info, writer) }, { "ck.kterm", offsetof(tui_check_info, kernel_term) },
    { "ck.rterm", offsetof(tui_check_info, ref_term) }, { "ck.smt", offsetof(tui_check_info, smtlib) },
    { "ck.steps", offsetof(tui_check_info, steps) },
  };
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    if (!strcmp(fields[i].tag, tag)) return (char **)((char *)ci + fields[i].off);
  return NULL;
}

static void record(tui_app *a, void *ud, char **f, int n)
{
  cjob *j = ud;
  char **slot;
  if (!strcmp(f[0], "result") && n >= 2) tui_app_result(a, f[1]);
  else if (!strcmp(f[0], "note") && n >= 2) dg_buf_printf(&j->overview, "%s\n", f[1]);
  else if (!strcmp(f[0], "check") && n >= 5) {
    tui_check_info_free(&j->cur);
    free(j->cur_inst);
    j->cur_inst = NULL;
    j->cur.tensor = atoi(f[1]);
    j->cur.flat = strtoll(f[2], NULL, 10);
    int v = atoi(f[3]);
    j->cur.verdict = dg_strdup(check_verdict_name(v >= 0 && v < CHECK__COUNT ? (check_verdict)v : CHECK_ERROR));
    j->cur.elem = dg_strdup(f[4]);
    j->have_cur = true;
  } else if (!j->have_cur) return;
  else if (!strcmp(f[0], "ck.end")) apply_check(a, j);
  else if (!strcmp(f[0], "ck.inst") && n >= 2) {
    free(j->cur_inst);
    j->cur_inst = dg_strdup(f[1]);
  }
  else if (!strcmp(f[0], "ck.slice") && n >= 3) {
    tui_slice_line sl = { (uint32_t)strtoul(f[1], NULL, 10), dg_strdup(f[2]) };
    dg_vec_push(&j->cur.slice, sl);
  } else if (!strcmp(f[0], "ck.fault") && n >= 3) {
    tui_slice_line fl = { (uint32_t)strtoul(f[1], NULL, 10), dg_strdup(f[2]) };
    dg_vec_push(&j->cur.faults, fl);
  } else if (!strcmp(f[0], "ck.stepline") && n >= 2) {
    uint32_t line = (uint32_t)strtoul(f[1], NULL, 10);
    dg_vec_push(&j->cur.step_lines, line);
  } else if (!strcmp(f[0], "ck.note") && n >= 2) {
    char *s = dg_printf("%s%s\n", j->cur.summary ? j->cur.summary : "", f[1]);
    free(j->cur.summary);
    j->cur.summary = s;
  } else if ((slot = field_of(&j->cur, f[0])) && n >= 2) {
    free(*slot);
    *slot = dg_strdup(f[1]);
  }
}

static void end(tui_app *a, void *ud, const char *failure)
{
  cjob *j = ud;
  const char *what = j->mode == MODE_REPLAY ? "replay" : "check";
  if (failure) {
    dg_buf b = {0};
    if (!strcmp(failure, "cancelled")) dg_buf_printf(&b, "the %s of %s was cancelled\n", what, j->elem);
    else dg_buf_printf(&b, "the %s of %s %s; the screen is fine\n", what, j->elem, failure);
    if (j->nchecked) dg_buf_printf(&b, "before that:\n%s", j->overview.s);
    tui_app_result(a, b.s);
    if (strcmp(failure, "cancelled")) tui_app_message(a, true, "the %s %s", what, failure);
    dg_buf_free(&b);
    return;
  }
  if (j->mode == MODE_AUTO && j->nchecked) {
    dg_buf b = {0};
    if (j->inst_finding)            /* the news first: the pane's top has room for it */
      dg_buf_printf(&b, "check --auto: a finding at other sizes than the spec's\n%s--\n",
                    a->model.result ? a->model.result : "");
    dg_buf_printf(&b, "check --auto: %d element%s checked", j->nchecked, j->nchecked == 1 ? "" : "s");
    if (j->ninst) dg_buf_printf(&b, " (%d at the spec's sizes, %d at other sizes)", j->nchecked - j->ninst, j->ninst);
    dg_buf_printf(&b, ", %d equivalent%s\n", j->nequiv, j->nfound ? "; stopped at the first finding" : "");
    dg_buf_puts(&b, j->overview.s);
    if (j->inst_finding) {
      tui_app_result(a, b.s);
      dg_buf_free(&b);
      return;
    }
    dg_buf_printf(&b, "--\n%s", a->model.result ? a->model.result : "");
    tui_app_result(a, b.s);
    dg_buf_free(&b);
  }
}

static const tui_job_ops check_ops = { "check", child, record, end, cjob_free };

/* ==== keys and commands ======================================================= */

static bool need_selection(tui_app *a, const char *what, loc *l)
{
  int64_t idx[TUI_MAX_DIMS];
  if (!a->problem || !tui_picker_selected(a, &l->mt, idx)) {
    char *s = dg_printf("%s: needs a problem spec with output tensors\n(the picker says what is missing)", what);
    tui_app_result(a, s);
    free(s);
    return false;
  }
  tui_tensor *x = &a->model.tensors.v[l->mt];
  l->t = dg_problem_tensor(a->problem, x->name);
  l->rank = x->ndim;
  l->inst = 0;                         /* the picker's elements are at the spec's sizes */
  memcpy(l->idx, idx, sizeof idx);
  return l->t >= 0;
}

static cjob *new_job(tui_app *a, int mode, const loc *l)
{
  cjob *j = dg_calloc(1, sizeof *j);
  j->mode = mode;
  j->cur.tensor = -1;
  dg_buf e = {0};
  check_format_elem(&e, a->problem, l->t, l->idx, l->rank);
  j->elem = dg_buf_take(&e);
  dg_buf_puts(&j->overview, "");
  return j;
}

int tui_check_run(tui_app *a)
{
  loc l;
  if (!need_selection(a, "check", &l)) return TUI_HANDLED | TUI_REDRAW;
  cjob *j = new_job(a, MODE_CHECK, &l);
  dg_vec_push(&j->locs, l);
  char *label = dg_printf("check %s", j->elem);
  tui_job_start(a, &check_ops, j, label, CHECK_LIMIT_S);
  free(label);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_check_auto(tui_app *a)
{
  loc l;
  if (!need_selection(a, "check --auto", &l)) return TUI_HANDLED | TUI_REDRAW;
  cjob *j = new_job(a, MODE_AUTO, &l);
  free(j->elem);
  j->elem = dg_strdup("the chosen elements");
  tui_job_start(a, &check_ops, j, "check --auto", AUTO_BUDGET_S + 2 * CHECK_LIMIT_S);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_check_replay(tui_app *a)
{
  loc l;
  if (!need_selection(a, "replay", &l)) return TUI_HANDLED | TUI_REDRAW;
  const tui_check_info *ci = tui_checks_get(a, l.mt, tui_tensor_offset(&a->model.tensors.v[l.mt], l.idx));
  if (!ci || !ci->witness) {
    dg_buf e = {0};
    check_format_elem(&e, a->problem, l.t, l.idx, l.rank);
    tui_app_message(a, true, "no witness for %s: only a check that found a bug leaves one (c checks)", e.s);
    dg_buf_free(&e);
    return TUI_HANDLED | TUI_REDRAW;
  }
  cjob *j = new_job(a, MODE_REPLAY, &l);
  j->witness = dg_strdup(ci->witness);
  char *label = dg_printf("replay %s", j->elem);
  tui_job_start(a, &check_ops, j, label, CHECK_LIMIT_S);
  free(label);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_act_auto(tui_app *a, tui_pane *p, int key) { return tui_check_auto(a); }
int tui_act_replay(tui_app *a, tui_pane *p, int key) { return tui_check_replay(a); }
