/* t/unit/sweep.c — dirigo sweep's reading of its children (cli_sweep_report.c):
 * flat JSON fields with escapes, check and fuzz outputs classified into
 * statuses, exit codes and signals, the first error line of stderr. */
#include "../tap.h"
#include "cli_sweep.h"
#include <signal.h>
#include <sys/wait.h>

#define EXITED(c) ((c) << 8)     /* a wait status as waitpid gives it */
#define SIGNALED(s) (s)

static sweep_result classify(int tool, int ws, const char *out, const char *err)
{
  sweep_result r = { .first = -1, .secs = 2.5 };
  if (tool == SWEEP_CHECK) sweep_classify_check(&r, ws, out, err);
  else sweep_classify_fuzz(&r, ws, out, err);
  return r;
}

static void drop(sweep_result *r) { free(r->verdict), free(r->reason), free(r->witness); }

int main(void)
{
  ok(WIFEXITED(EXITED(1)) && WEXITSTATUS(EXITED(1)) == 1 && WIFSIGNALED(SIGNALED(SIGSEGV)), "wait statuses as the kernel gives them");

  const char *line = "{\"problem\":\"a/b.lua\",\"reason\":\"x \\\"problem\\\": \\u00e9\\n\\\\\",\"n\": 3.5,\"z\":null}";
  char *s = sweep_json_str(line, "problem");
  is_str(s, "a/b.lua", "a string field");
  free(s);
  s = sweep_json_str(line, "reason");
  is_str(s, "x \"problem\": \xc3\xa9\n\\", "escapes, \\u to UTF-8; a key inside a string is not a key");
  free(s);
  ok(sweep_json_num(line, "n", -1) == 3.5, "a number after a space");
  ok(sweep_json_str(line, "z") == NULL && sweep_json_str(line, "nope") == NULL, "null and absent are NULL");
  ok(sweep_json_num(line, "nope", -1) == -1, "an absent number gives the default");

  sweep_result r = classify(SWEEP_CHECK, EXITED(1),
    "[\n{\"element\":\"y[0]\",\"verdict\":\"equivalent\",\"reason\":\"proved\"},\n"
    "{\"element\":\"y[3,36]\",\"verdict\":\"race\",\"reason\":\"k.cu:3:4: race\"}\n]\n", "");
  ok(r.status == SWEEP_BUG, "check: a race is a bug");
  is_str(r.verdict, "race", "with the verdict");
  is_str(r.reason, "k.cu:3:4: race", "and its reason");
  ok(r.first == 2.5, "time to first bug: the child's wall time");
  is_str(r.witness, "y[3,36]", "the witness is the element that failed (check --at)");
  drop(&r);
  r = classify(SWEEP_CHECK, EXITED(0), "[\n{\"verdict\":\"equivalent\"},\n{\"verdict\":\"unknown\",\"reason\":\"solver: timeout\"}\n]", "");
  ok(r.status == SWEEP_UNKNOWN, "check: an unknown element");
  is_str(r.reason, "solver: timeout", "keeps the cause");
  drop(&r);
  r = classify(SWEEP_CHECK, EXITED(0), "[\n{\"verdict\":\"equivalent\",\"reason\":\"ok\"}\n]", "");
  ok(r.status == SWEEP_CLEAN && r.first < 0, "check: every element equivalent is clean");
  drop(&r);
  r = classify(SWEEP_CHECK, EXITED(2), "", "note: loading\nk.lua:3:1: error: no such op 'x'\n");
  ok(r.status == SWEEP_ERROR, "check: exit 2 without output is an error");
  is_str(r.reason, "k.lua:3:1: error: no such op 'x'", "with the first error line of stderr");
  drop(&r);
  r = classify(SWEEP_CHECK, SIGNALED(SIGSEGV), "[\n{\"verdict\":\"equivalent\"}", "boom\n");
  ok(r.status == SWEEP_CRASH, "check: a signal is a crash");
  has_str(r.reason, "signal 11", "naming the signal");
  has_str(r.reason, "boom", "and the last stderr line");
  drop(&r);
  r = classify(SWEEP_CHECK, EXITED(3), "", "");
  ok(r.status == SWEEP_CRASH, "check: exit 3 without output is a crash");
  drop(&r);

  r = classify(SWEEP_FUZZ, EXITED(1), "{\"problem\": \"p\", \"cases\": 4, \"pass\": 3, \"first_failure\": {\"case\": 3, "
               "\"status\": \"fail\", \"message\": \"y[2]: kernel 0\", \"seconds_to_failure\": 0.125, "
               "\"witness\": \"fuzz:boundary:1:3\"}}", "");
  ok(r.status == SWEEP_BUG, "fuzz: a first failure is a bug");
  is_str(r.verdict, "fail", "fail");
  is_str(r.reason, "y[2]: kernel 0", "with the message");
  ok(r.first == 0.125, "time to first bug: the campaign's seconds to failure");
  is_str(r.witness, "fuzz:boundary:1:3", "the witness replays the case");
  drop(&r);
  r = classify(SWEEP_FUZZ, EXITED(0), "{\"problem\": \"p\", \"cases\": 7, \"pass\": 7}", "");
  ok(r.status == SWEEP_CLEAN, "fuzz: all pass is clean");
  is_str(r.reason, "7 cases passed", "with the count of cases");
  drop(&r);
  r = classify(SWEEP_FUZZ, EXITED(3), "{\"cases\": 2, \"pass\": 0}", "error: reference failed\n");
  ok(r.status == SWEEP_ERROR, "fuzz: exit 3 (no case ran) is an error");
  has_str(r.reason, "reference failed", "with stderr's error");
  drop(&r);
  r = classify(SWEEP_FUZZ, SIGNALED(SIGABRT), "", "");
  ok(r.status == SWEEP_CRASH, "fuzz: a signal is a crash");
  drop(&r);

  s = sweep_first_error("\nwarning: a\nfoo.lua:1:2: error: b\nerror: c\n");
  is_str(s, "foo.lua:1:2: error: b", "the first error line");
  free(s);
  s = sweep_first_error("just this\nand that");
  is_str(s, "just this", "else the first line");
  free(s);
  ok(sweep_first_error("") == NULL, "nothing: NULL");
  sweep_args a = { .budget = 20 };
  ok(sweep_limit(&a) == 30, "the limit: budget + 5 + budget/4");
  a.limit = 2;
  ok(sweep_limit(&a) == 2, "--limit overrides it");
  return tap_done();
}
