/* cli_sweep_report.c — what a sweep's children said, and the closing table:
 * per problem the seeded bug, each tool's verdict and time to the first bug;
 * totals (recall on seeded bugs, false positives on correct problems,
 * unknowns, timeouts, median and p95 time to first bug, the share found
 * within 120 s) next to the published figures we compare with. */
#include "cli.h"
#include "cli_sweep.h"
#include "check.h"
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char *const sweep_tool_names[SWEEP_NTOOLS] = { "check", "fuzz" };
const char *const sweep_status_names[SWEEP__NSTATUS] = {
#define X(id, name) name,
  SWEEP_STATUSES(X)
#undef X
};

/* ---- flat JSON: our children's output and journal lines ---------------------------- */
/* The value after "key": (keys are never found inside strings: quotes there are escaped). */
static const char *jfind(const char *obj, const char *key)
{
  size_t kl = strlen(key);
  for (const char *s = obj; (s = strchr(s, '"')); s++) {
    if (strncmp(s + 1, key, kl) || s[kl + 1] != '"') continue;
    const char *v = s + kl + 2;
    while (*v == ' ') v++;
    if (*v != ':') continue;
    for (v++; *v == ' '; v++) {}
    return v;
  }
  return NULL;
}

static void put_utf8(dg_buf *b, unsigned c)
{
  if (c < 0x80) dg_buf_putc(b, (char)c);
  else if (c < 0x800) {
    dg_buf_putc(b, (char)(0xC0 | c >> 6));
    dg_buf_putc(b, (char)(0x80 | (c & 0x3F)));
  } else {
    dg_buf_putc(b, (char)(0xE0 | c >> 12));
    dg_buf_putc(b, (char)(0x80 | (c >> 6 & 0x3F)));
    dg_buf_putc(b, (char)(0x80 | (c & 0x3F)));
  }
}

char *sweep_json_str(const char *obj, const char *key)
{
  const char *v = jfind(obj, key);
  if (!v || *v != '"') return NULL;
  dg_buf b = {0};
  dg_buf_puts(&b, "");
  static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
  for (v++; *v && *v != '"'; v++) {
    if (*v != '\\') { dg_buf_putc(&b, *v); continue; }
    v++;
    if (*v == 'u') {
      unsigned c = 0;
      int i = 0;
      for (; i < 4 && v[1 + i]; i++) {
        char h = v[1 + i];
        c = c * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
      }
      v += i;
      put_utf8(&b, c >= 0xD800 && c < 0xE000 ? '?' : c);
      continue;
    }
    const char *e = NULL;
    for (size_t i = 0; *v && esc[i]; i += 2)
      if (esc[i] == *v) e = &esc[i + 1];
    if (!*v) break;
    dg_buf_putc(&b, e ? *e : *v);
  }
  return dg_buf_take(&b);
}

double sweep_json_num(const char *obj, const char *key, double dflt)
{
  const char *v = jfind(obj, key);
  char *end;
  double x = v ? strtod(v, &end) : 0;
  return v && end != v ? x : dflt;
}

/* ---- how a child ended ------------------------------------------------------------- */
static char *line_at(const char *s, size_t max)
{
  size_t n = strcspn(s, "\n");
  return dg_strndup(s, n < max ? n : max);
}

char *sweep_first_error(const char *text)
{
  const char *first = NULL;
  for (const char *s = text; *s; s += strcspn(s, "\n"), s += *s == '\n') {
    size_t n = strcspn(s, "\n");
    if (!n) continue;
    if (!first) first = s;
    const char *e = strstr(s, "error");
    if (e && (size_t)(e - s) < n) return line_at(s, 300);
  }
  return first ? line_at(first, 300) : NULL;
}

static char *last_line(const char *text)
{
  const char *last = NULL;
  for (const char *s = text; *s; s += strcspn(s, "\n"), s += *s == '\n')
    if (strcspn(s, "\n")) last = s;
  return last ? line_at(last, 300) : NULL;
}

char *sweep_child_reason(int ws, const char *err)
{
  char *tail = last_line(err);
  char *r;
  if (WIFSIGNALED(ws))
    r = dg_printf("died on signal %d (%s)%s%s", WTERMSIG(ws), strsignal(WTERMSIG(ws)), tail ? ": " : "",
                  tail ? tail : "");
  else
    r = dg_printf("exit %d%s%s", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, tail ? ": " : "", tail ? tail : "");
  free(tail);
  return r;
}

static void set(sweep_result *r, sweep_status st, const char *verdict, char *reason)
{
  free(r->verdict);
  free(r->reason);
  r->status = st;
  r->verdict = verdict ? dg_strdup(verdict) : NULL;
  r->reason = reason;
}

static char *refusal(int ws, const char *err)
{
  char *e = sweep_first_error(err);
  return e ? e : sweep_child_reason(ws, err);
}

/* `check --auto --json`: an array of elements; --auto stops at the first
 * element that is not equivalent, so the time to the first bug is the
 * child's wall-clock time (loading included). */
void sweep_classify_check(sweep_result *r, int ws, const char *out, const char *err)
{
  if (WIFSIGNALED(ws)) { set(r, SWEEP_CRASH, NULL, sweep_child_reason(ws, err)); return; }
  int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, nv = 0;
  char *unk = NULL, *errv = NULL;
  for (const char *s = out; (s = strstr(s, "\"verdict\":")); s++, nv++) {
    char *v = sweep_json_str(s, "verdict");
    const char *next = strstr(s + 1, "\"verdict\":"), *rp = jfind(s, "reason");
    char *reason = rp && (!next || rp < next) ? sweep_json_str(s, "reason") : NULL;
    bool finding = false;
    for (int k = 0; v && k < CHECK__COUNT; k++)
      if (!strcmp(v, check_verdict_name((check_verdict)k))) finding = check_verdict_is_finding((check_verdict)k);
    if (finding) {
      set(r, SWEEP_BUG, v, reason);
      r->first = r->secs;
      const char *obj = s;   /* this element's object starts a line: its "element" comes first */
      while (obj > out && !(obj[0] == '{' && obj[-1] == '\n')) obj--;
      free(r->witness);
      r->witness = sweep_json_str(obj, "element");
      free(v), free(unk), free(errv);
      return;
    }
    if (v && !strcmp(v, "unknown") && !unk) unk = reason ? reason : dg_strdup("unknown");
    else if (v && !strcmp(v, "error") && !errv) errv = reason ? reason : dg_strdup("error");
    else free(reason);
    free(v);
  }
  if (unk) set(r, SWEEP_UNKNOWN, "unknown", unk), free(errv);
  else if (errv) set(r, SWEEP_ERROR, "error", errv);
  else if (nv && code == 0) set(r, SWEEP_CLEAN, "equivalent", NULL);
  else if (code == DG_EXIT_USAGE) set(r, SWEEP_ERROR, NULL, refusal(ws, err));
  else set(r, SWEEP_CRASH, NULL, sweep_child_reason(ws, err));
}

/* `fuzz --json`: one object; a failure carries first_failure with the
 * campaign's seconds to it (loading excluded). */
void sweep_classify_fuzz(sweep_result *r, int ws, const char *out, const char *err)
{
  if (WIFSIGNALED(ws)) { set(r, SWEEP_CRASH, NULL, sweep_child_reason(ws, err)); return; }
  int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  const char *ff = jfind(out, "first_failure");
  bool summary = jfind(out, "cases") != NULL;
  if (ff && *ff == '{') {
    char *st = sweep_json_str(ff, "status");
    set(r, SWEEP_BUG, st ? st : "fail", sweep_json_str(ff, "message"));
    free(st);
    r->first = sweep_json_num(ff, "seconds_to_failure", r->secs);
    free(r->witness);
    r->witness = sweep_json_str(ff, "witness");
  } else if (summary && code == DG_EXIT_OK)   /* the budget may have cut the campaign short */
    set(r, SWEEP_CLEAN, "pass", dg_printf("%.0f cases passed", sweep_json_num(out, "pass", 0)));
  else if (summary && code == DG_EXIT_INTERNAL) {
    char *e = sweep_first_error(err);
    set(r, SWEEP_ERROR, "error", dg_printf("no case ran%s%s", e ? ": " : "", e ? e : ""));
    free(e);
  } else if (code == DG_EXIT_USAGE) set(r, SWEEP_ERROR, NULL, refusal(ws, err));
  else set(r, SWEEP_CRASH, NULL, sweep_child_reason(ws, err));
}

/* ---- totals ------------------------------------------------------------------------ */
typedef struct {
  int seeded, found, correct, fp, unknown, timeout, error, crash, within;
  double median, p95;
  int ntimes;
} totals;

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Over this shard's problems that loaded and ran: seeded bugs found (times
 * to the first bug are over these), findings on correct problems. */
static void tally(const sweep_problem *ps, size_t n, int t, totals *T)
{
  memset(T, 0, sizeof *T);
  double *times = dg_calloc(n + 1, sizeof *times);
  for (size_t i = 0; i < n; i++) {
    const sweep_result *r = &ps[i].r[t];
    if (!r->have || !ps[i].loads) continue;
    bool seeded = ps[i].bug_pattern != NULL;
    seeded ? T->seeded++ : T->correct++;
    if (r->status == SWEEP_BUG && seeded) {
      T->found++;
      times[T->ntimes++] = r->first;
      T->within += r->first <= 120;
    }
    T->fp += r->status == SWEEP_BUG && !seeded;
    T->unknown += r->status == SWEEP_UNKNOWN;
    T->timeout += r->status == SWEEP_TIMEOUT;
    T->error += r->status == SWEEP_ERROR;
    T->crash += r->status == SWEEP_CRASH;
  }
  qsort(times, (size_t)T->ntimes, sizeof *times, cmp_dbl);
  if (T->ntimes) {   /* nearest rank */
    T->median = times[(int)ceil(0.5 * T->ntimes) - 1];
    T->p95 = times[(int)ceil(0.95 * T->ntimes) - 1];
  }
  free(times);
}

/* Seeded bugs found and findings on correct problems by either tool. */
static void either(const sweep_problem *ps, size_t n, int *found, int *fp)
{
  *found = *fp = 0;
  for (size_t i = 0; i < n; i++) {
    bool bug = false;
    for (int t = 0; t < SWEEP_NTOOLS; t++) bug |= ps[i].r[t].have && ps[i].r[t].status == SWEEP_BUG;
    if (ps[i].loads) *found += bug && ps[i].bug_pattern, *fp += bug && !ps[i].bug_pattern;
  }
}

static double pct(int a, int b) { return b ? 100.0 * a / b : 0; }

/* "2/3   66.7%", or "0/0       -" when there is nothing to share */
static const char *frac_cell(int a, int b)
{
  static char buf[48];
  if (b) snprintf(buf, sizeof buf, "%d/%d  %5.1f%%", a, b, pct(a, b));
  else snprintf(buf, sizeof buf, "%d/%d  %5s", a, b, "-");
  return buf;
}

static const char *secs_cell(int have, double v)
{
  static char buf[32];
  if (have) snprintf(buf, sizeof buf, "%.2f s", v);
  else snprintf(buf, sizeof buf, "-");
  return buf;
}

/* The figures we compare with (doc/sweep.md cites them). */
static const char *const literature[] = {
  "symbolic checker: 600 real bugs among 6,988 AI-written kernels that all passed differential testing,",
  "  97.3% of them found within two minutes per kernel",
  "strategy-based fuzzer: boundary strategy recall 78%, false positives 0%;",
  "  adversarial strategy recall 99%, false positives 94%",
};

/* ---- the table --------------------------------------------------------------------- */
static void cell(char *buf, size_t n, const sweep_problem *p, const sweep_result *r)
{
  char mark = ' ';
  if (r->have && p->loads) {
    bool seeded = p->bug_pattern != NULL, bug = r->status == SWEEP_BUG;
    mark = bug ? (seeded ? '+' : '!') : (seeded ? '-' : ' ');
  }
  const char *v = !r->have ? "not run"
                : r->status == SWEEP_BUG || r->status == SWEEP_CLEAN ? r->verdict
                : sweep_status_names[r->status];
  if (r->have && r->status == SWEEP_BUG) snprintf(buf, n, "%c %-18s %8.2f s", mark, v, r->first);
  else snprintf(buf, n, "%c %-18s %10s", mark, v, "-");
}

static void print_text(const sweep_args *a, const sweep_problem *ps, size_t n, const char *journal, double secs)
{
  int w = 24;
  for (size_t i = 0; i < n; i++) w = (int)strlen(ps[i].rel) > w ? (int)strlen(ps[i].rel) : w;
  if (w > 56) w = 56;
  printf("\n%-*s  %-22s", w, "problem", "seeded bug");
  for (int t = 0; t < SWEEP_NTOOLS; t++)
    if (a->tool[t]) printf("  %-20s %10s", sweep_tool_names[t], "first bug");
  printf("\n");
  for (size_t i = 0; i < n; i++) {
    const sweep_problem *p = &ps[i];
    printf("%-*s  ", w, p->rel);
    if (p->known && !p->loads) {
      printf("does not load: %s\n", p->load_error ? p->load_error : "?");
      continue;
    }
    printf("%-22s", !p->known ? "?" : p->bug_pattern ? p->bug_pattern : "correct");
    for (int t = 0; t < SWEEP_NTOOLS; t++) {
      if (!a->tool[t]) continue;
      char c[64];
      cell(c, sizeof c, p, &p->r[t]);
      printf("  %s", c);
    }
    printf("\n");
  }
  printf("\n(+ seeded bug found, - seeded bug missed, ! finding on a correct problem)\n\n");
  totals T[SWEEP_NTOOLS];
  printf("%-28s", "totals");
  for (int t = 0; t < SWEEP_NTOOLS; t++) {
    if (!a->tool[t]) continue;
    tally(ps, n, t, &T[t]);
    char h[64];
    snprintf(h, sizeof h, "%s%s%s%s", sweep_tool_names[t], t == SWEEP_FUZZ ? " (" : "",
             t == SWEEP_FUZZ ? (a->strategy ? a->strategy : "boundary+adversarial") : "", t == SWEEP_FUZZ ? ")" : "");
    printf("  %-28s", h);
  }
  printf("\n");
#define ROW(label, ...) do { \
    printf("%-28s", label); \
    for (int t = 0; t < SWEEP_NTOOLS; t++) { \
      if (!a->tool[t]) continue; \
      const totals *x = &T[t]; \
      char c[64]; \
      snprintf(c, sizeof c, __VA_ARGS__); \
      printf("  %-28s", c); \
    } \
    printf("\n"); \
  } while (0)
  ROW("seeded bugs found (recall)", "%s", frac_cell(x->found, x->seeded));
  ROW("false positives (correct)", "%s", frac_cell(x->fp, x->correct));
  ROW("unknown", "%d", x->unknown);
  ROW("timeouts", "%d", x->timeout);
  ROW("errors, crashes", "%d, %d", x->error, x->crash);
  ROW("median time to first bug", "%s", secs_cell(x->ntimes, x->median));
  ROW("p95 time to first bug", "%s", secs_cell(x->ntimes, x->p95));
  ROW("found within 120 s", "%s", frac_cell(x->within, x->found));
#undef ROW
  int nfound = 0;
  for (int t = 0; t < SWEEP_NTOOLS; t++) nfound += a->tool[t] ? T[t].found : 0;
  if (sweep_limit(a) <= 120 && nfound)   /* a note on the share of what was found */
    printf("%-28s  (every run was cut at %g s: this share is 100%% by construction)\n", "", sweep_limit(a));
  if (a->tool[SWEEP_CHECK] && a->tool[SWEEP_FUZZ]) {
    int found, fp;
    either(ps, n, &found, &fp);
    printf("%-28s  %d/%d seeded bugs found, %d false positives\n", "check or fuzz", found, T[SWEEP_CHECK].seeded, fp);
  }
  int unl = 0, unrun = 0;
  for (size_t i = 0; i < n; i++) unl += ps[i].known && !ps[i].loads, unrun += !ps[i].known;
  printf("%-28s  %d of %zu problems", "do not load", unl, n);
  if (unrun) printf(" (%d not run)", unrun);
  printf("\n\nliterature, for comparison:\n");
  for (size_t i = 0; i < sizeof literature / sizeof *literature; i++) printf("  %s\n", literature[i]);
  printf("\nbudget %g s per tool and problem, %.1f s in all; journal %s\n", a->budget, secs, journal);
}

static void json_result(dg_buf *b, const sweep_result *r)
{
  if (!r->have) { dg_buf_puts(b, "null"); return; }
  dg_buf_printf(b, "{\"status\":\"%s\",\"verdict\":", sweep_status_names[r->status]);
  if (r->verdict) dg_buf_json_str(b, r->verdict);
  else dg_buf_puts(b, "null");
  dg_buf_printf(b, ",\"seconds\":%.3f,\"first_bug_s\":", r->secs);
  if (r->first >= 0) dg_buf_printf(b, "%.3f", r->first);
  else dg_buf_puts(b, "null");
  dg_buf_puts(b, ",\"reason\":");
  if (r->reason) dg_buf_json_str(b, r->reason);
  else dg_buf_puts(b, "null");
  dg_buf_puts(b, ",\"witness\":");
  if (r->witness) dg_buf_json_str(b, r->witness);
  else dg_buf_puts(b, "null");
  dg_buf_printf(b, ",\"from_journal\":%s}", r->from_journal ? "true" : "false");
}

static void print_json(const sweep_args *a, const sweep_problem *ps, size_t n, const char *journal, double secs)
{
  dg_buf b = {0};
  dg_buf_puts(&b, "{\"dir\":");
  dg_buf_json_str(&b, a->dir);
  dg_buf_printf(&b, ",\"mode\":\"%s\",\"budget\":%g,\"limit\":%g,\"jobs\":%d,\"shard\":\"%d/%d\",\"strategy\":",
                a->mode, a->budget, sweep_limit(a), a->jobs, a->shard_i, a->shard_n);
  if (a->strategy) dg_buf_json_str(&b, a->strategy);
  else dg_buf_puts(&b, "null");
  dg_buf_puts(&b, ",\"journal\":");
  dg_buf_json_str(&b, journal);
  dg_buf_printf(&b, ",\"seconds\":%.3f,\"problems\":[", secs);
  for (size_t i = 0; i < n; i++) {
    const sweep_problem *p = &ps[i];
    dg_buf_puts(&b, i ? ",\n{\"problem\":" : "\n{\"problem\":");
    dg_buf_json_str(&b, p->rel);
    dg_buf_puts(&b, ",\"bug_pattern\":");
    if (p->bug_pattern) dg_buf_json_str(&b, p->bug_pattern);
    else dg_buf_puts(&b, "null");
    dg_buf_printf(&b, ",\"loads\":%s", !p->known ? "null" : p->loads ? "true" : "false");
    if (p->load_error) {
      dg_buf_puts(&b, ",\"load_error\":");
      dg_buf_json_str(&b, p->load_error);
    }
    for (int t = 0; t < SWEEP_NTOOLS; t++)
      if (a->tool[t]) {
        dg_buf_printf(&b, ",\"%s\":", sweep_tool_names[t]);
        json_result(&b, &p->r[t]);
      }
    dg_buf_puts(&b, "}");
  }
  dg_buf_puts(&b, "],\n\"totals\":{");
  bool first = true;
  for (int t = 0; t < SWEEP_NTOOLS; t++) {
    if (!a->tool[t]) continue;
    totals T;
    tally(ps, n, t, &T);
    dg_buf_printf(&b, "%s\"%s\":{\"seeded\":%d,\"found\":%d,\"recall\":%.1f,\"correct\":%d,\"false_positives\":%d,"
                  "\"fp_rate\":%.1f,\"unknown\":%d,\"timeouts\":%d,\"errors\":%d,\"crashes\":%d,"
                  "\"median_first_bug_s\":%.3f,\"p95_first_bug_s\":%.3f,\"within_120s\":%d,\"within_120s_pct\":%.1f}",
                  first ? "" : ",", sweep_tool_names[t], T.seeded, T.found, pct(T.found, T.seeded), T.correct, T.fp,
                  pct(T.fp, T.correct), T.unknown, T.timeout, T.error, T.crash, T.median, T.p95, T.within,
                  pct(T.within, T.found));
    first = false;
  }
  if (a->tool[SWEEP_CHECK] && a->tool[SWEEP_FUZZ]) {
    int found, fp;
    either(ps, n, &found, &fp);
    dg_buf_printf(&b, ",\"check_or_fuzz\":{\"found\":%d,\"false_positives\":%d}", found, fp);
  }
  int unl = 0;
  for (size_t i = 0; i < n; i++) unl += ps[i].known && !ps[i].loads;
  dg_buf_printf(&b, "},\n\"unloadable\":%d,\"literature\":{\"checker_within_120s_pct\":97.3,\"checker_bugs\":600,"
                "\"checker_kernels\":6988,\"fuzz_boundary\":{\"recall\":78,\"fp_rate\":0},"
                "\"fuzz_adversarial\":{\"recall\":99,\"fp_rate\":94}}}\n", unl);
  fputs(b.s, stdout);
  dg_buf_free(&b);
}

int sweep_report(const sweep_args *a, const sweep_problem *ps, size_t n, const char *journal, double secs)
{
  if (a->json) print_json(a, ps, n, journal, secs);
  else print_text(a, ps, n, journal, secs);
  fflush(stdout);
  for (size_t i = 0; i < n; i++)
    for (int t = 0; t < SWEEP_NTOOLS; t++)
      if (a->tool[t] && ps[i].r[t].have && ps[i].r[t].status == SWEEP_BUG) return DG_EXIT_BUGS;
  return DG_EXIT_OK;
}
