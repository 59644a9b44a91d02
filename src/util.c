/* util.c — allocation, buffers, arenas, files, hashing, PRNG. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <time.h>

_Noreturn void dg_oom(void)
{
  fputs("dirigo: out of memory\n", stderr);
  abort();
}

void *dg_malloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) dg_oom();
  return p;
}

void *dg_calloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) dg_oom();
  return p;
}

void *dg_realloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (!p) dg_oom();
  return p;
}

char *dg_strdup(const char *s) { return dg_strndup(s, strlen(s)); }

char *dg_strndup(const char *s, size_t n)
{
  char *d = dg_malloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

char *dg_vprintf(const char *fmt, va_list ap)
{
  va_list cp;
  va_copy(cp, ap);
  int n = vsnprintf(NULL, 0, fmt, cp);
  va_end(cp);
  char *s = dg_malloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

char *dg_printf(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = dg_vprintf(fmt, ap);
  va_end(ap);
  return s;
}

void dg_grow_(void **p, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap) return;
  size_t c = *cap ? *cap * 2 : 8;
  while (c < need) c *= 2;
  *p = dg_realloc(*p, c * elem);
  *cap = c;
}

void dg_buf_put(dg_buf *b, const char *s, size_t n)
{
  dg_grow_((void **)&b->s, &b->cap, b->n + n + 1, 1);
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

void dg_buf_puts(dg_buf *b, const char *s) { dg_buf_put(b, s, strlen(s)); }
void dg_buf_putc(dg_buf *b, char c) { dg_buf_put(b, &c, 1); }

void dg_buf_vprintf(dg_buf *b, const char *fmt, va_list ap)
{
  va_list cp;
  va_copy(cp, ap);
  int n = vsnprintf(NULL, 0, fmt, cp);
  va_end(cp);
  dg_grow_((void **)&b->s, &b->cap, b->n + (size_t)n + 1, 1);
  vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
  b->n += (size_t)n;
}

void dg_buf_printf(dg_buf *b, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  dg_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void dg_buf_json_str(dg_buf *b, const char *s)
{
  dg_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') dg_buf_printf(b, "\\%c", *p);
    else if (*p == '\n') dg_buf_puts(b, "\\n");
    else if (*p == '\t') dg_buf_puts(b, "\\t");
    else if (*p < 0x20) dg_buf_printf(b, "\\u%04x", *p);
    else dg_buf_putc(b, (char)*p);
  }
  dg_buf_putc(b, '"');
}

char *dg_buf_take(dg_buf *b)
{
  char *s = b->s ? b->s : dg_strdup("");
  b->s = NULL;
  b->n = b->cap = 0;
  return s;
}

void dg_buf_free(dg_buf *b)
{
  free(b->s);
  b->s = NULL;
  b->n = b->cap = 0;
}

struct dg_arena_blk {
  dg_arena_blk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

void *dg_arena_alloc(dg_arena *a, size_t n)
{
  n = (n + 15) & ~(size_t)15;
  dg_arena_blk *b = a->head;
  if (!b || b->used + n > b->size) {
    size_t size = n > 65536 ? n : 65536;
    b = dg_malloc(sizeof *b + size);
    b->next = a->head;
    b->used = 0;
    b->size = size;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  a->used_bytes += n;
  memset(p, 0, n);
  return p;
}

char *dg_arena_strndup(dg_arena *a, const char *s, size_t n)
{
  char *d = dg_arena_alloc(a, n + 1);
  memcpy(d, s, n);
  return d;
}

char *dg_arena_strdup(dg_arena *a, const char *s) { return dg_arena_strndup(a, s, strlen(s)); }

void dg_arena_free(dg_arena *a)
{
  for (dg_arena_blk *b = a->head, *n; b; b = n) {
    n = b->next;
    free(b);
  }
  a->head = NULL;
  a->used_bytes = 0;
}

char *dg_read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  dg_buf b = {0};
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) dg_buf_put(&b, chunk, got);
  int err = ferror(f), why = errno;   /* fread of a directory: EISDIR */
  fclose(f);
  if (err) {
    dg_buf_free(&b);
    errno = why ? why : EIO;
    return NULL;
  }
  if (len) *len = b.n;
  return dg_buf_take(&b);
}

char *dg_dirname(const char *path)
{
  const char *slash = strrchr(path, '/');
  if (!slash) return dg_strdup(".");
  if (slash == path) return dg_strdup("/");
  return dg_strndup(path, (size_t)(slash - path));
}

bool dg_mkdirs(const char *path, bool whole, unsigned mode)
{
  char *p = dg_strdup(path);
  bool ok = true;
  for (char *s = p + 1; *s && ok; s++)
    if (*s == '/') {
      *s = 0;
      ok = mkdir(p, (mode_t)mode) == 0 || errno == EEXIST;
      *s = '/';
    }
  if (ok && whole) ok = mkdir(p, (mode_t)mode) == 0 || errno == EEXIST;
  free(p);
  return ok;
}

char *dg_path_join(const char *dir, const char *rel)
{
  if (rel[0] == '/' || !dir || !dir[0] || !strcmp(dir, ".")) return dg_strdup(rel);
  return dg_printf("%s/%s", dir, rel);
}

uint64_t dg_hash_bytes(const void *p, size_t n, uint64_t seed)
{
  /* FNV-1a, then a final mix: fast enough for hash-consing keys. */
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

double dg_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t splitmix(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void dg_rng_seed(dg_rng *r, uint64_t seed)
{
  for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t dg_rng_next(dg_rng *r)
{
  uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return res;
}

double dg_rng_unit(dg_rng *r) { return (double)(dg_rng_next(r) >> 11) * 0x1.0p-53; }

double dg_rng_normal(dg_rng *r)
{
  double u = dg_rng_unit(r), v = dg_rng_unit(r);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

uint64_t dg_rng_below(dg_rng *r, uint64_t n)
{
  return n ? dg_rng_next(r) % n : 0;
}
