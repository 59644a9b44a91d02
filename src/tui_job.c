/* tui_job.c — long work off the screen: a check, a fuzz campaign or a replay
 * runs in a forked child that writes records back over a pipe (tui.h says
 * the format), while the app keeps drawing and reading keys. The parent
 * applies records as they come (curses: when the pipe is readable; headless:
 * only at <Wait>, so dumps replay), shows progress in the status bar, and
 * turns every way a child can fail (signal, exit status, no "done", the time
 * limit, a cancel) into a result in the result pane. */
#define _DEFAULT_SOURCE 1
#include "tui.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

struct tui_job {
  const tui_job_ops *ops;
  void *ud;
  pid_t pid;
  int fd;
  dg_buf in;                 /* bytes read, not yet applied */
  size_t at;                 /* start of the first unapplied record in `in` */
  bool done_seen, eof;
  char label[64];
  char phase[96];
  int64_t done, total;
  double t0, limit;
};

/* ---- records ---------------------------------------------------------------- */

static int child_fd = -1;    /* the child's end of the pipe (in the child only) */

static void put_field(dg_buf *b, const char *s)
{
  for (; s && *s; s++) {
    if (*s == '\\') dg_buf_puts(b, "\\\\");
    else if (*s == '\t') dg_buf_puts(b, "\\t");
    else if (*s == '\n') dg_buf_puts(b, "\\n");
    else dg_buf_putc(b, *s);
  }
}

void tui_job_send(const char *const *f, int n)
{
  if (child_fd < 0) return;
  dg_buf b = {0};
  for (int i = 0; i < n; i++) {
    if (i) dg_buf_putc(&b, '\t');
    put_field(&b, f[i]);
  }
  dg_buf_putc(&b, '\n');
  for (size_t off = 0; off < b.n;) {
    ssize_t w = write(child_fd, b.s + off, b.n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(3);    /* the parent is gone: nobody to tell */
    off += (size_t)w;
  }
  dg_buf_free(&b);
}

/* tag and one field made by fmt */
void tui_job_sendf(const char *tag, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = dg_vprintf(fmt, ap);
  va_end(ap);
  const char *f[2] = { tag, s };
  tui_job_send(f, 2);
  free(s);
}

/* tag and fields made by fmt, separated by tabs in it */
void tui_job_sendt(const char *tag, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = dg_vprintf(fmt, ap);
  va_end(ap);
  DG_VEC(const char *) f = {0};
  dg_vec_push(&f, tag);
  for (char *p = s;;) {
    dg_vec_push(&f, p);
    char *t = strchr(p, '\t');
    if (!t) break;
    *t = '\0';
    p = t + 1;
  }
  tui_job_send(f.v, (int)f.n);
  dg_vec_free(&f);
  free(s);
}

void tui_job_progress(int64_t done, int64_t total, const char *phase)
{
  char d[24], t[24];
  snprintf(d, sizeof d, "%lld", (long long)done);
  snprintf(t, sizeof t, "%lld", (long long)total);
  const char *f[4] = { "progress", d, t, phase ? phase : "" };
  tui_job_send(f, 4);
}

/* Splits a record line in place into fields, undoing the escapes. */
static int split(char *line, char **f, int max)
{
  int n = 0;
  char *w = line;
  f[n++] = w;
  for (char *r = line; *r; r++) {
    if (*r == '\t') {
      *w++ = '\0';
      if (n < max) f[n++] = w;
      else break;
    } else if (*r == '\\' && r[1]) {
      r++;
      *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
    } else *w++ = *r;
  }
  *w = '\0';
  return n;
}

/* ---- the child ------------------------------------------------------------- */

static const int reset_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGHUP, SIGQUIT, SIGINT };

static double limit_from_env(double dflt)
{
  const char *e = getenv("DIRIGO_TUI_JOB_LIMIT");
  double v = e ? strtod(e, NULL) : 0;
  return v > 0 ? v : dflt;
}

_Noreturn static void child_main(tui_app *a, const tui_job_ops *ops, void *ud, int fd, pid_t parent)
{
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);     /* the workbench killed: no orphan keeps computing */
  if (getppid() != parent) _exit(4);
#else
  (void)parent;
#endif
  /* the screen belongs to the parent: no terminal, and no curses handler that
   * would put the terminal back on a fatal signal */
  for (size_t i = 0; i < sizeof reset_signals / sizeof *reset_signals; i++) signal(reset_signals[i], SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    if (null > 2) close(null);
  }
  child_fd = fd;
  const char *crash = getenv("DIRIGO_TEST_CHILD_CRASH");
  if (crash) {
    tui_job_progress(0, 1, "about to crash (DIRIGO_TEST_CHILD_CRASH)");
    if (!strcmp(crash, "exit")) _exit(3);
    raise(SIGSEGV);
  }
  if (getenv("DIRIGO_TEST_CHILD_HANG")) {  /* long enough for any test, bounded if nobody kills it */
    double until = dg_now() + 60;
    while (dg_now() < until) sleep(1);
    _exit(5);
  }
  ops->child(a, ud);
  const char *done = "done";
  tui_job_send(&done, 1);
  _exit(0);
}

/* ---- the parent ------------------------------------------------------------ */

bool tui_job_start(tui_app *a, const tui_job_ops *ops, void *ud, const char *label, double limit_s)
{
  if (a->job) {
    tui_app_message(a, true, "a %s is running (x cancels it)", a->job->ops->what);
    if (ops->free) ops->free(ud);
    return false;
  }
  if (tui_app_stale(a)) {             /* the child would load the edited kernel, the screen shows the old */
    if (ops->free) ops->free(ud);
    return false;
  }
  int p[2];
  if (pipe(p) < 0) {
    tui_app_message(a, true, "%s: cannot make a pipe: %s", ops->what, strerror(errno));
    if (ops->free) ops->free(ud);
    return false;
  }
  fflush(NULL);
  pid_t parent = getpid(), pid = fork();
  if (pid < 0) {
    tui_app_message(a, true, "%s: cannot fork: %s", ops->what, strerror(errno));
    close(p[0]), close(p[1]);
    if (ops->free) ops->free(ud);
    return false;
  }
  if (pid == 0) {
    close(p[0]);
    child_main(a, ops, ud, p[1], parent);
  }
  close(p[1]);
  fcntl(p[0], F_SETFD, FD_CLOEXEC);
  fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
  tui_job *j = dg_calloc(1, sizeof *j);
  j->ops = ops, j->ud = ud, j->pid = pid, j->fd = p[0];
  snprintf(j->label, sizeof j->label, "%s", label);
  snprintf(j->phase, sizeof j->phase, "starting");
  j->t0 = dg_now();
  j->limit = limit_from_env(limit_s);
  a->job = j;
  return true;
}

int tui_job_fd(const tui_app *a) { return a->job ? a->job->fd : -1; }

static char *describe_exit(int st)
{
  if (WIFSIGNALED(st)) return dg_printf("killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  if (WIFEXITED(st)) return dg_printf("exited with status %d", WEXITSTATUS(st));
  return dg_printf("ended with wait status %d", st);
}

/* Ends the job: reaps the child (killed first when kill is set) and calls
 * end with NULL (it finished) or why it did not. */
static void finish(tui_app *a, bool kill_it, const char *why)
{
  tui_job *j = a->job;
  if (kill_it) kill(j->pid, SIGKILL);
  int st = 0;
  while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR) {}
  char *fail = NULL;
  if (why) fail = dg_strdup(why);
  else if (!(j->done_seen && WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
    char *how = describe_exit(st);
    fail = dg_printf("crashed: %s%s", how, j->done_seen ? " after its results" : "");
    free(how);
  }
  close(j->fd);
  a->job = NULL;                /* end may start another job */
  if (fail) a->tab = TUI_TAB_SUMMARY;   /* where the failure is told */
  j->ops->end(a, j->ud, fail);
  if (j->ops->free) j->ops->free(j->ud);
  dg_buf_free(&j->in);
  free(fail);
  free(j);
}

/* Applies complete records; stops early once `until` units are done (> 0). */
static bool apply(tui_app *a, int64_t until)
{
  tui_job *j = a->job;
  bool any = false;
  while (a->job == j && j->at < j->in.n) {
    char *s = j->in.s + j->at, *nl = memchr(s, '\n', j->in.n - j->at);
    if (!nl) break;
    *nl = '\0';
    j->at = (size_t)(nl - j->in.s) + 1;
    char *f[16];
    int n = split(s, f, 16);
    any = true;
    if (!strcmp(f[0], "done")) j->done_seen = true;
    else if (!strcmp(f[0], "progress") && n >= 4) {
      j->done = strtoll(f[1], NULL, 10), j->total = strtoll(f[2], NULL, 10);
      snprintf(j->phase, sizeof j->phase, "%s", f[3]);
    } else j->ops->record(a, j->ud, f, n);
    if (until > 0 && j->done >= until) break;
  }
  if (a->job == j && j->at == j->in.n) j->in.n = j->at = 0;
  return any;
}

/* Reads what the pipe has (non-blocking); sets eof. */
static void fill(tui_job *j)
{
  char buf[65536];
  for (;;) {
    ssize_t r = read(j->fd, buf, sizeof buf);
    if (r > 0) { dg_buf_put(&j->in, buf, (size_t)r); continue; }
    if (r == 0) j->eof = true;
    else if (errno == EINTR) continue;
    return;
  }
}

static bool over_time(tui_app *a)
{
  tui_job *j = a->job;
  if (dg_now() - j->t0 <= j->limit) return false;
  char *why = dg_printf("ran past its time limit of %.0f s and was stopped", j->limit);
  finish(a, true, why);
  free(why);
  return true;
}

bool tui_job_pump(tui_app *a)
{
  if (!a->job) return false;
  tui_job *j = a->job;
  fill(j);
  bool changed = apply(a, 0);
  if (a->job == j && j->eof) {
    finish(a, false, NULL);
    return true;
  }
  if (a->job == j && over_time(a)) return true;
  return changed || a->job != j;
}

void tui_job_wait(tui_app *a, int64_t n)
{
  tui_job *j = a->job;
  while (a->job == j && j) {
    apply(a, n);
    if (a->job != j || (n > 0 && j->done >= n)) return;
    if (j->eof) {
      finish(a, false, NULL);
      return;
    }
    if (over_time(a)) return;
    struct pollfd pf = { j->fd, POLLIN, 0 };
    int left = (int)((j->limit - (dg_now() - j->t0)) * 1000) + 1;
    if (poll(&pf, 1, left > 0 ? left : 1) > 0) fill(j);
  }
}

void tui_job_cancel(tui_app *a, const char *why)
{
  if (a->job) finish(a, true, why);
}

bool tui_job_status(const tui_app *a, char *label, size_t n, double *frac)
{
  const tui_job *j = a->job;
  if (!j) return false;
  double secs = dg_now() - j->t0;
  if (j->total > 0)
    snprintf(label, n, "%s: %lld/%lld %s  %.0f s", j->label, (long long)j->done, (long long)j->total,
             j->phase, secs);
  else snprintf(label, n, "%s: %s  %.0f s", j->label, j->phase, secs);
  *frac = j->total > 0 ? (double)j->done / (double)j->total : 0;
  if (*frac > 1) *frac = 1;
  return true;
}

/* ---- keys -------------------------------------------------------------------- */

int tui_act_cancel(tui_app *a, tui_pane *p, int key)
{
  if (!a->job) {
    tui_app_message(a, false, "nothing is running");
    return TUI_HANDLED | TUI_REDRAW;
  }
  const char *what = a->job->ops->what;
  tui_job_cancel(a, "cancelled");
  tui_app_message(a, false, "the %s was cancelled", what);
  return TUI_HANDLED | TUI_REDRAW;
}

/* <C-c>: cancels a running job; with none, leaves dirigo. */
int tui_act_interrupt(tui_app *a, tui_pane *p, int key)
{
  if (a->job) return tui_act_cancel(a, p, key);
  return tui_act_quit(a, p, key);
}
