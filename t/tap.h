/* tap.h — a tiny TAP producer for the C unit tests (automake's tap-driver reads it). */
#ifndef DG_TAP_H
#define DG_TAP_H
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdarg.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) do { long long g_ = (got), w_ = (want); \
  if (!ok(g_ == w_, __VA_ARGS__)) printf("#   got %lld, want %lld\n", g_, w_); } while (0)
#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
  if (!ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__)) \
    printf("#   got  \"%s\"\n#   want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)
#define has_str(hay, needle, ...) do { const char *h_ = (hay), *n_ = (needle); \
  if (!ok(h_ && strstr(h_, n_), __VA_ARGS__)) \
    printf("#   \"%s\"\n#   does not contain \"%s\"\n", h_ ? h_ : "(null)", n_); } while (0)

static int __attribute__((format(printf, 4, 5)))
tap_ok_(int pass, const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  if (!pass) {
    tap_failed++;
    printf("#   at %s:%d\n", file, line);
  }
  return pass;
}

static int tap_done(void)
{
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
#endif
