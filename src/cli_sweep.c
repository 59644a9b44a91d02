/* cli_sweep.c — `dirigo sweep DIR`: many problems, each checked and/or fuzzed
 * in a child process of this same binary, N at a time, each under a
 * wall-clock limit, so a crash or a hang is that problem's result and the
 * sweep goes on. Results append to a journal one flushed line at a time: a
 * killed sweep resumes where it stopped, and --shard i/n splits a corpus over
 * machines (Slurm job arrays, GNU parallel). The closing table and its
 * totals are in cli_sweep_report.c. */
#include "cli.h"
#include "cli_sweep.h"
#include "cli_load.h"
#include "emu.h"
#include "fuzz.h"
#include "lua_fuzz.h"
#include "lua_spec.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static int usage(const char *msg)
{
  fprintf(stderr, "dirigo sweep: %s\n", msg);
  fprintf(stderr, "usage: dirigo sweep DIR [--mode check|fuzz|both] [--budget S] [--limit S] [--jobs N]\n"
                  "                    [--shard i/n] [--strategy NAME] [--out FILE] [--resume|--fresh] [--json]\n");
  return DG_EXIT_USAGE;
}

static bool parse_int(const char *s, long lo, long hi, int *v)
{
  char *end;
  long x = strtol(s, &end, 10);
  if (!*s || *end || x < lo || x > hi) return false;
  *v = (int)x;
  return true;
}

static int parse_args(int argc, char **argv, sweep_args *a)
{
  memset(a, 0, sizeof *a);
  a->budget = 60;
  a->jobs = 1;
  a->shard_i = a->shard_n = 1;
  a->mode = "both";
  a->tool[SWEEP_CHECK] = a->tool[SWEEP_FUZZ] = true;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(o, "--json")) a->json = true;
    else if (!strcmp(o, "--resume")) a->fresh = false;
    else if (!strcmp(o, "--fresh")) a->fresh = true;
    else if (!strcmp(o, "--out") && has) a->out = argv[++i];
    else if (!strcmp(o, "--strategy") && has) a->strategy = argv[++i];
    else if (!strcmp(o, "--mode") && has) {
      a->mode = argv[++i];
      bool c = !strcmp(a->mode, "check"), f = !strcmp(a->mode, "fuzz"), b = !strcmp(a->mode, "both");
      if (!c && !f && !b) return usage("--mode is check, fuzz or both");
      a->tool[SWEEP_CHECK] = c || b;
      a->tool[SWEEP_FUZZ] = f || b;
    } else if (!strcmp(o, "--budget") && has) {
      char *end;
      const char *s = argv[++i];
      a->budget = strtod(s, &end);
      if (!*s || *end || !(a->budget > 0) || a->budget > 1e6)
        return usage("--budget takes a positive number of seconds");
    } else if (!strcmp(o, "--limit") && has) {
      char *end;
      const char *s = argv[++i];
      a->limit = strtod(s, &end);
      if (!*s || *end || !(a->limit > 0) || a->limit > 1e6)
        return usage("--limit takes a positive number of seconds");
    } else if (!strcmp(o, "--jobs") && has) {
      if (!parse_int(argv[++i], 1, 256, &a->jobs)) return usage("--jobs takes a number from 1 to 256");
    } else if (!strcmp(o, "--shard") && has) {
      if (!cli_parse_shard(argv[++i], &a->shard_i, &a->shard_n))
        return usage("--shard takes i/n with 1 <= i <= n (e.g. --shard 2/8)");
    } else if (o[0] == '-') {
      char *m = dg_printf("unknown or incomplete option '%s'", o);
      int rc = usage(m);
      free(m);
      return rc;
    } else if (!a->dir) a->dir = o;
    else return usage("too many arguments");
  }
  if (!a->dir) return usage("which folder?");
  struct stat st;
  if (stat(a->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    char *m = dg_printf("%s: not a folder", a->dir);
    int rc = usage(m);
    free(m);
    return rc;
  }
  if (a->strategy && !a->tool[SWEEP_FUZZ]) return usage("--strategy needs --mode fuzz or both");
  if (a->strategy && !fuzz_strategy_find(a->strategy)) {
    char *m = dg_printf("unknown strategy '%s'", a->strategy);
    int rc = usage(m);
    free(m);
    return rc;
  }
  return -1;
}

/* ---- discovery: the specs under DIR, as `fuzz --evaluate` finds them ------------ */
static void find_specs(const char *dir, sweep_strvec *out)
{
  size_t n;
  char **v = cli_find_specs(dir, &n);     /* cli_specs.c: the same walk as fuzz --evaluate */
  for (size_t i = 0; i < n; i++) dg_vec_push(out, v[i]);
  free(v);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ---- what a result was computed from ---------------------------------------------- */
/* A digest of the problem's files: the spec, and every file beside it whose name the
 * spec mentions (its kernel) or such a file mentions (a header the kernel includes). A
 * journal line of other files (the kernel was edited since) is not reused. */
static char *files_digest(const char *spec)
{
  char *dir = dg_dirname(spec);
  sweep_strvec names = {0}, texts = {0};
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    char *path = e->d_name[0] == '.' ? NULL : dg_path_join(dir, e->d_name);
    struct stat st;
    if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && strcmp(path, spec)) dg_vec_push(&names, path);
    else free(path);
  }
  if (d) closedir(d);
  free(dir);
  if (names.n) qsort(names.v, names.n, sizeof *names.v, cmp_str);
  size_t len = 0;
  char *t = dg_read_file(spec, &len);
  uint64_t h = dg_hash_bytes(t ? t : "", t ? len : 0, 0x5eed);
  /* a kernel named by a path outside the folder ("../k.cu", "kernels/k.cu"): its bytes too */
  for (const char *q = t ? strchr(t, '"') : NULL; q; q = strchr(q + 1, '"')) {
    const char *e = strchr(q + 1, '"');
    if (!e) break;
    size_t n = (size_t)(e - q - 1);
    char *rel = dg_strndup(q + 1, n);
    bool kernel = memchr(rel, '/', n) && !memchr(rel, '\n', n) &&
                  ((n > 3 && !strcmp(rel + n - 3, ".cu")) || (n > 4 && !strcmp(rel + n - 4, ".cuh")) || (n > 2 && !strcmp(rel + n - 2, ".h")));
    char *sdir = kernel ? dg_dirname(spec) : NULL, *path = kernel ? dg_path_join(sdir, rel) : NULL, *f = NULL;
    size_t fl = 0;
    if (kernel) f = dg_read_file(path, &fl), h = dg_hash_bytes(rel, n, h), h = dg_hash_bytes(f ? f : "", f ? fl : 0, h);
    free(f), free(path), free(sdir), free(rel);
    q = e;
  }
  dg_vec_push(&texts, t ? t : dg_strdup(""));
  bool *in = dg_calloc(names.n + 1, sizeof *in);
  for (int level = 0; level < 2; level++) {
    size_t nt = texts.n;
    for (size_t i = 0; i < names.n; i++) {
      const char *base = strrchr(names.v[i], '/') ? strrchr(names.v[i], '/') + 1 : names.v[i];
      for (size_t k = 0; !in[i] && k < nt; k++) in[i] = strstr(texts.v[k], base) != NULL;
      if (!in[i]) continue;
      char *f = dg_read_file(names.v[i], &len);
      h = dg_hash_bytes(base, strlen(base), h);
      h = dg_hash_bytes(f ? f : "", f ? len : 0, h);
      dg_vec_push(&texts, f ? f : dg_strdup(""));
      in[i] = true;
    }
  }
  for (size_t i = 0; i < names.n; i++) free(names.v[i]);
  for (size_t i = 0; i < texts.n; i++) free(texts.v[i]);
  dg_vec_free(&names), dg_vec_free(&texts);
  free(in);
  return dg_printf("%016llx", (unsigned long long)h);
}

/* ---- the journal -------------------------------------------------------------------- */
char *sweep_options_key(const sweep_args *a, int tool)
{
  if (tool == SWEEP_CHECK) return dg_printf("budget=%g limit=%g", a->budget, sweep_limit(a));
  return dg_printf("budget=%g limit=%g strategy=%s", a->budget, sweep_limit(a),
                   a->strategy ? a->strategy : "default");
}

static void put_str_or_null(dg_buf *b, const char *s)
{
  if (s) dg_buf_json_str(b, s);
  else dg_buf_puts(b, "null");
}

static void journal_line(dg_buf *b, const sweep_problem *p, int tool, const char *opts)
{
  const sweep_result *r = &p->r[tool];
  char when[32];
  time_t now = time(NULL);
  struct tm tm;
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  dg_buf_puts(b, "{\"problem\":");
  dg_buf_json_str(b, p->rel);
  dg_buf_printf(b, ",\"tool\":\"%s\",\"options\":", sweep_tool_names[tool]);
  dg_buf_json_str(b, opts);
  dg_buf_printf(b, ",\"status\":\"%s\",\"verdict\":", sweep_status_names[r->status]);
  put_str_or_null(b, r->verdict);
  dg_buf_printf(b, ",\"loads\":%s,\"bug_pattern\":", p->loads ? "true" : "false");
  put_str_or_null(b, p->bug_pattern);
  dg_buf_printf(b, ",\"seconds\":%.3f,\"first_bug_s\":", r->secs);
  if (r->first >= 0) dg_buf_printf(b, "%.3f", r->first);
  else dg_buf_puts(b, "null");
  dg_buf_printf(b, ",\"exit\":%d,\"signal\":%d,\"reason\":", r->code, r->sig);
  put_str_or_null(b, r->reason);
  dg_buf_puts(b, ",\"witness\":");
  put_str_or_null(b, r->witness);
  dg_buf_printf(b, ",\"files\":\"%s\",\"at\":\"%s\"}\n", p->files, when);
}

/* One write(2) per line on an O_APPEND descriptor: lines of sweeps sharing a
 * journal on a local disk never interleave; fsync so a crash keeps them. */
static bool journal_append(int fd, const sweep_problem *p, int tool, const char *opts)
{
  dg_buf b = {0};
  journal_line(&b, p, tool, opts);
  bool ok = write(fd, b.s, b.n) == (ssize_t)b.n;
  fsync(fd);
  dg_buf_free(&b);
  return ok;
}

static void result_set(sweep_result *r, sweep_status st, const char *verdict, char *reason)
{
  free(r->verdict);
  free(r->reason);
  r->have = true;
  r->status = st;
  r->verdict = verdict ? dg_strdup(verdict) : NULL;
  r->reason = reason;
}

/* Earlier results of this sweep's problems with the same options; the last line wins. */
static void journal_read(const char *path, const sweep_args *a, sweep_problem *ps, size_t n)
{
  char *text = dg_read_file(path, NULL);
  if (!text) return;
  char *keys[SWEEP_NTOOLS];
  for (int t = 0; t < SWEEP_NTOOLS; t++) keys[t] = sweep_options_key(a, t);
  for (char *line = text, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
    nl = strchr(line, '\n');
    if (nl) *nl = 0;
    char *prob = sweep_json_str(line, "problem"), *tool = sweep_json_str(line, "tool");
    char *opts = sweep_json_str(line, "options"), *status = sweep_json_str(line, "status");
    int t = !tool ? -1 : !strcmp(tool, "check") ? SWEEP_CHECK : !strcmp(tool, "fuzz") ? SWEEP_FUZZ : -1;
    int st = -1;
    for (int s = 0; status && s < SWEEP__NSTATUS; s++)
      if (!strcmp(status, sweep_status_names[s])) st = s;
    sweep_problem key = { .rel = prob }, *p = NULL;
    const sweep_problem *kp = &key;
    if (prob && t >= 0 && st >= 0 && opts && !strcmp(opts, keys[t]) && a->tool[t])
      p = bsearch(&kp, ps, n, sizeof *ps, sweep_problem_cmp);
    char *files = p ? sweep_json_str(line, "files") : NULL;
    if (p && (!files || strcmp(files, p->files))) p = NULL;   /* of other files: run again */
    free(files);
    if (p) {
      char *v = sweep_json_str(line, "verdict");
      result_set(&p->r[t], (sweep_status)st, v, sweep_json_str(line, "reason"));
      free(v);
      p->r[t].from_journal = true;
      p->r[t].secs = sweep_json_num(line, "seconds", 0);
      p->r[t].first = sweep_json_num(line, "first_bug_s", -1);
      p->r[t].code = (int)sweep_json_num(line, "exit", 0);
      p->r[t].sig = (int)sweep_json_num(line, "signal", 0);
      free(p->r[t].witness);
      p->r[t].witness = sweep_json_str(line, "witness");
      free(p->bug_pattern);
      p->bug_pattern = sweep_json_str(line, "bug_pattern");
      p->loads = st != SWEEP_UNLOADABLE;
      p->known = true;
      if (!p->loads && !p->load_error && p->r[t].reason) p->load_error = dg_strdup(p->r[t].reason);
    }
    free(prob), free(tool), free(opts), free(status);
  }
  for (int t = 0; t < SWEEP_NTOOLS; t++) free(keys[t]);
  free(text);
}

int sweep_problem_cmp(const void *x, const void *y)
{
  const sweep_problem *a = *(const sweep_problem *const *)x, *b = y;
  return strcmp(a->rel, b->rel);
}

/* ---- children --------------------------------------------------------------------- */
enum { STEP_PROBE = -1 };

typedef struct {
  pid_t pid;
  int fd[2];               /* stdout, stderr of the child; -1 once closed */
  dg_buf buf[2];
  double t0, limit;
  size_t prob;
  int step;                /* STEP_PROBE or a tool */
  bool killed;
} job;

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

/* In a forked child: load the spec and its kernels, print one JSON line. */
static void probe_child(const char *path)
{
  char *msg = NULL;
  size_t mlen = 0;
  FILE *m = open_memstream(&msg, &mlen);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  bool ok = d.nerrors == 0;
  dg_diags_print(m, &p->sm, &d);
  dg_diags_free(&d);
  if (ok) {
    emu_kernels k;
    ok = emu_kernels_load(&k, p, &d);
    emu_kernels_print_diags(m, &k);
    dg_diags_print(m, &p->sm, &d);
    dg_diags_free(&d);
    emu_kernels_free(&k);
  }
  fclose(m);
  dg_buf b = {0};
  dg_buf_printf(&b, "{\"loads\":%s,\"bug_pattern\":", ok ? "true" : "false");
  put_str_or_null(&b, ok ? p->bug_pattern : NULL);
  dg_buf_puts(&b, ",\"error\":");
  char *first = msg ? sweep_first_error(msg) : NULL;
  put_str_or_null(&b, ok ? NULL : first ? first : "the spec does not load");
  dg_buf_puts(&b, "}\n");
  fputs(b.s, stdout);
  fflush(stdout);
  dg_buf_free(&b);
  free(first);
  free(msg);
  dg_problem_free(p);
}

static void child_argv(const sweep_args *a, const char *spec, int step, char **av, char *budget, char *timeout)
{
  int n = 0;
  av[n++] = "dirigo";
  av[n++] = (char *)sweep_tool_names[step];
  av[n++] = (char *)spec;
  av[n++] = "--json";
  if (step == SWEEP_CHECK) {
    av[n++] = "--auto";
    av[n++] = "--budget";
    av[n++] = budget;
    av[n++] = "--timeout";
    av[n++] = timeout;
    av[n++] = "--no-journal";
  } else {
    av[n++] = "--budget";
    av[n++] = budget;
    av[n++] = "--no-shrink";   /* shrinking has no budget; the unshrunk witness replays too */
    if (a->strategy) {
      av[n++] = "--strategy";
      av[n++] = (char *)a->strategy;
    }
  }
  av[n] = NULL;
}


static bool job_start(job *j, const sweep_args *a, const sweep_problem *p, size_t prob, int step)
{
  int po[2], pe[2];
  if (pipe(po) || pipe(pe)) return false;
  char budget[32], timeout[32];
  snprintf(budget, sizeof budget, "%g", a->budget);
  snprintf(timeout, sizeof timeout, "%g", a->budget < 10 ? a->budget : 10);
  char *av[16];
  if (step != STEP_PROBE) child_argv(a, p->path, step, av, budget, timeout);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);   /* its own group: a timeout kills what it started too */
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);   /* no orphans if the sweep itself is killed */
#endif
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) dup2(nul, 0);
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
    if (step == STEP_PROBE) {
      probe_child(p->path);
      _exit(0);
    }
    execv("/proc/self/exe", av);
    fprintf(stderr, "dirigo sweep: cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(po[1]), close(pe[1]);
  memset(j, 0, sizeof *j);
  j->pid = pid;
  j->fd[0] = po[0], j->fd[1] = pe[0];
  for (int i = 0; i < 2; i++) {
    fcntl(j->fd[i], F_SETFD, FD_CLOEXEC);
    fcntl(j->fd[i], F_SETFL, O_NONBLOCK);
  }
  j->t0 = dg_now();
  j->limit = step == STEP_PROBE ? (sweep_limit(a) < 30 ? 30 : sweep_limit(a)) : sweep_limit(a);
  j->prob = prob;
  j->step = step;
  return true;
}

/* Reads what is there; closes a pipe at its end. */
static void job_read(job *j)
{
  char buf[4096];
  for (int i = 0; i < 2; i++) {
    while (j->fd[i] >= 0) {
      ssize_t n = read(j->fd[i], buf, sizeof buf);
      if (n > 0) {
        dg_buf_put(&j->buf[i], buf, (size_t)n);
        if (i == 1 && j->buf[1].n > 65536) {   /* keep the tail of stderr */
          memmove(j->buf[1].s, j->buf[1].s + j->buf[1].n - 16384, 16384);
          j->buf[1].n = 16384;
          j->buf[1].s[16384] = 0;
        }
        continue;
      }
      if (n < 0 && (errno == EINTR)) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      close(j->fd[i]);
      j->fd[i] = -1;
    }
  }
}

static void job_close(job *j)
{
  for (int i = 0; i < 2; i++) {
    if (j->fd[i] >= 0) close(j->fd[i]);
    j->fd[i] = -1;
    dg_buf_free(&j->buf[i]);
  }
}

/* ---- the run ---------------------------------------------------------------------- */
typedef struct {
  const sweep_args *a;
  sweep_problem *ps;
  int journal;             /* fd, O_APPEND */
  char *keys[SWEEP_NTOOLS];
  size_t ndone, ntodo;
} runner;

static int next_step(const runner *R, const sweep_problem *p, int after)
{
  if (after == STEP_PROBE && !p->loads) return SWEEP_NTOOLS;
  for (int t = after + 1; t < SWEEP_NTOOLS; t++)
    if (R->a->tool[t] && !p->r[t].have) return t;
  return SWEEP_NTOOLS;
}

static void progress(runner *R, const sweep_problem *p, int tool)
{
  const sweep_result *r = &p->r[tool];
  FILE *f = R->a->json ? stderr : stdout;
  R->ndone++;
  fprintf(f, "  [%zu/%zu] %-44s %-5s %-18s %7.2f s\n", R->ndone, R->ntodo, p->rel, sweep_tool_names[tool],
          r->status == SWEEP_BUG || r->status == SWEEP_CLEAN ? r->verdict : sweep_status_names[r->status], r->secs);
  fflush(f);
}

static void record(runner *R, sweep_problem *p, int tool)
{
  if (!journal_append(R->journal, p, tool, R->keys[tool]))
    fprintf(stderr, "dirigo sweep: cannot append to the journal: %s\n", strerror(errno));
  progress(R, p, tool);
}

static void finish(runner *R, job *j, int wstatus)
{
  sweep_problem *p = &R->ps[j->prob];
  double secs = dg_now() - j->t0;
  const char *out = j->buf[0].s ? j->buf[0].s : "", *err = j->buf[1].s ? j->buf[1].s : "";
  if (j->step == STEP_PROBE) {
    p->known = true;
    p->loads = strstr(out, "\"loads\":true") != NULL;
    p->bug_pattern = sweep_json_str(out, "bug_pattern");
    if (!p->loads) {
      char *e = sweep_json_str(out, "error");
      p->load_error = e ? e : j->killed ? dg_printf("loading the spec ran past %g s", j->limit)
                                       : sweep_child_reason(wstatus, err);
      for (int t = 0; t < SWEEP_NTOOLS; t++) {
        if (!R->a->tool[t] || p->r[t].have) continue;
        result_set(&p->r[t], SWEEP_UNLOADABLE, NULL, dg_strdup(p->load_error));
        p->r[t].first = -1;
        record(R, p, t);
      }
    }
    return;
  }
  sweep_result *r = &p->r[j->step];
  r->first = -1;
  r->secs = secs;
  r->code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  r->sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  if (j->killed) {
    result_set(r, SWEEP_TIMEOUT, NULL, dg_printf("killed at the limit of %g s", j->limit));
    r->sig = 0;
  } else if (j->step == SWEEP_CHECK) sweep_classify_check(r, wstatus, out, err);
  else sweep_classify_fuzz(r, wstatus, out, err);
  r->have = true;
  record(R, p, j->step);
}

/* A slot walks one problem's steps (probe, check, fuzz) in order, then takes
 * the next problem of the queue. False when nothing is left to start. */
typedef struct { size_t prob; int step; } slot;
enum { STEP_FRESH = -2 };

static bool slot_next(runner *R, job *j, slot *sl, size_t *queue, size_t n)
{
  for (;;) {
    if (sl->prob < n) {
      sweep_problem *p = &R->ps[sl->prob];
      int s = sl->step != STEP_FRESH ? next_step(R, p, sl->step)
            : p->known ? next_step(R, p, STEP_PROBE) : STEP_PROBE;
      if (s != SWEEP_NTOOLS) {
        sl->step = s;
        if (job_start(j, R->a, p, sl->prob, s)) return true;
        /* left out of the journal: a rerun tries it again */
        fprintf(stderr, "dirigo sweep: %s: cannot start a child: %s\n", p->rel, strerror(errno));
      }
    }
    if (*queue >= n) return false;
    sl->prob = (*queue)++;
    sl->step = STEP_FRESH;
  }
}

static void run_all(runner *R, size_t n)
{
  int N = R->a->jobs;
  job *jobs = dg_calloc((size_t)N, sizeof *jobs);
  slot *sl = dg_calloc((size_t)N, sizeof *sl);
  bool *busy = dg_calloc((size_t)N, sizeof *busy);
  size_t queue = 0;
  for (int s = 0; s < N; s++) {
    sl[s] = (slot){ n, STEP_FRESH };
    busy[s] = slot_next(R, &jobs[s], &sl[s], &queue, n);
  }
  struct pollfd *pf = dg_calloc((size_t)N * 2, sizeof *pf);
  for (;;) {
    int nbusy = 0, np = 0;
    for (int s = 0; s < N; s++) {
      if (!busy[s]) continue;
      nbusy++;
      for (int i = 0; i < 2; i++)
        if (jobs[s].fd[i] >= 0) pf[np++] = (struct pollfd){ .fd = jobs[s].fd[i], .events = POLLIN };
    }
    if (!nbusy || interrupted) break;
    poll(pf, (nfds_t)np, 50);
    double now = dg_now();
    for (int s = 0; s < N; s++) {
      if (!busy[s]) continue;
      job *j = &jobs[s];
      job_read(j);
      if (!j->killed && now - j->t0 > j->limit) {
        kill(-j->pid, SIGKILL);
        j->killed = true;
      }
      int ws;
      if (waitpid(j->pid, &ws, WNOHANG) != j->pid) continue;
      kill(-j->pid, SIGKILL);   /* whatever it left running in its group */
      job_read(j);
      finish(R, j, ws);
      job_close(j);
      busy[s] = slot_next(R, j, &sl[s], &queue, n);
    }
  }
  for (int s = 0; s < N; s++) {   /* interrupted: nothing outlives the sweep */
    if (!busy[s]) continue;
    kill(-jobs[s].pid, SIGKILL);
    waitpid(jobs[s].pid, NULL, 0);
    job_close(&jobs[s]);
  }
  free(pf), free(jobs), free(sl), free(busy);
}

static int sweep_main(sweep_args *a)
{
  size_t dl = strlen(a->dir);
  while (dl > 1 && a->dir[dl - 1] == '/') dl--;   /* "samples/": names stay "x/y.lua" */
  char *root = dg_strndup(a->dir, dl);
  sweep_strvec specs = {0};
  find_specs(root, &specs);
  free(root);
  if (!specs.n) {
    fprintf(stderr, "dirigo sweep: no problem specs (*.lua, .cu with a dirigo: block) under %s\n", a->dir);
    dg_vec_free(&specs);
    return DG_EXIT_USAGE;
  }
  qsort(specs.v, specs.n, sizeof *specs.v, cmp_str);
  sweep_problem *ps = dg_calloc(specs.n, sizeof *ps);
  size_t n = 0;
  for (size_t k = 0; k < specs.n; k++) {
    if (!cli_in_shard(k, a->shard_i, a->shard_n)) {
      free(specs.v[k]);
      continue;
    }
    sweep_problem *p = &ps[n++];
    p->path = specs.v[k];
    p->rel = p->path + dl + 1;
    p->files = files_digest(p->path);
    for (int t = 0; t < SWEEP_NTOOLS; t++) p->r[t].first = -1;
  }
  dg_vec_free(&specs);
  char *jpath = a->out ? dg_strdup(a->out) : NULL;
  if (!jpath) {
    char *d = dg_printf("%.*s/.dirigo", (int)dl, a->dir);
    mkdir(d, 0777);
    jpath = dg_printf("%s/sweep.jsonl", d);
    free(d);
  }
  int rc = DG_EXIT_USAGE;
  runner R = { .a = a, .ps = ps };
  if (!a->fresh) journal_read(jpath, a, ps, n);
  R.journal = open(jpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (R.journal < 0) {
    fprintf(stderr, "dirigo sweep: cannot open the journal %s: %s\n", jpath, strerror(errno));
    goto out;
  }
  for (int t = 0; t < SWEEP_NTOOLS; t++) R.keys[t] = sweep_options_key(a, t);
  for (size_t i = 0; i < n; i++)
    for (int t = 0; t < SWEEP_NTOOLS; t++) R.ntodo += a->tool[t] && !ps[i].r[t].have;
  FILE *f = a->json ? stderr : stdout;
  fprintf(f, "dirigo sweep %s  mode %s  budget %g s (limit %g s)  jobs %d  shard %d/%d\n"
             "%zu problems in this shard: %zu results from the journal, %zu runs to go; journal %s\n",
          a->dir, a->mode, a->budget, sweep_limit(a), a->jobs, a->shard_i, a->shard_n, n,
          (a->tool[0] + a->tool[1]) * n - R.ntodo, R.ntodo, jpath);
  fflush(f);
  struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  double t0 = dg_now();
  run_all(&R, n);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  close(R.journal);
  if (interrupted) {
    fprintf(stderr, "dirigo sweep: interrupted; %zu of %zu runs are in %s: run the same command to resume\n",
            R.ndone, R.ntodo, jpath);
    rc = DG_EXIT_INTERNAL;
  } else rc = sweep_report(a, ps, n, jpath, dg_now() - t0);
out:
  for (int t = 0; t < SWEEP_NTOOLS; t++) free(R.keys[t]);
  for (size_t i = 0; i < n; i++) {
    free(ps[i].path), free(ps[i].files), free(ps[i].bug_pattern), free(ps[i].load_error);
    for (int t = 0; t < SWEEP_NTOOLS; t++)
      free(ps[i].r[t].verdict), free(ps[i].r[t].reason), free(ps[i].r[t].witness);
  }
  free(ps);
  free(jpath);
  return rc;
}

int cli_sweep(int argc, char **argv)
{
  dg_strategies_load_print(stderr);   /* --strategy may name a Lua strategy */
  sweep_args a;
  int rc = parse_args(argc, argv, &a);
  dg_strategies_unload();             /* the children load their own */
  if (rc < 0) rc = sweep_main(&a);
  if (interrupted) {
    int sig = interrupted;
    signal(sig, SIG_DFL);
    raise(sig);
  }
  return rc;
}
