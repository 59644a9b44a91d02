/* util.h — memory, growable buffers, strings and arenas shared by every module.
 * Out-of-memory aborts here, in one place (dg_oom); nothing else checks malloc. */
#ifndef DG_UTIL_H
#define DG_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>

void *dg_malloc(size_t n);                 /* never NULL; aborts on OOM */
void *dg_calloc(size_t n, size_t size);
void *dg_realloc(void *p, size_t n);
char *dg_strdup(const char *s);
char *dg_strndup(const char *s, size_t n);
char *dg_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* caller frees */
char *dg_vprintf(const char *fmt, va_list ap);
_Noreturn void dg_oom(void);

/* Growable array: DG_VEC(int) v = {0}; dg_vec_push(&v, 3); free(v.v); */
#define DG_VEC(T) struct { T *v; size_t n, cap; }
#define dg_vec_grow(vec, extra) \
  dg_grow_((void **)&(vec)->v, &(vec)->cap, (vec)->n + (extra), sizeof *(vec)->v)
#define dg_vec_push(vec, x) \
  (dg_vec_grow(vec, 1), (vec)->v[(vec)->n++] = (x))
#define dg_vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)
void dg_grow_(void **p, size_t *cap, size_t need, size_t elem);

/* String builder; s.s is always NUL-terminated once anything was appended. */
typedef struct { char *s; size_t n, cap; } dg_buf;
void dg_buf_put(dg_buf *b, const char *s, size_t n);
void dg_buf_puts(dg_buf *b, const char *s);
void dg_buf_putc(dg_buf *b, char c);
void dg_buf_printf(dg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dg_buf_vprintf(dg_buf *b, const char *fmt, va_list ap);
char *dg_buf_take(dg_buf *b);
/* Appends s as a JSON string literal (quotes and escapes included). */
void dg_buf_json_str(dg_buf *b, const char *s);              /* hands the string to the caller */
void dg_buf_free(dg_buf *b);

/* Arena: many small objects freed together (IR, terms of one check). */
typedef struct dg_arena_blk dg_arena_blk;
typedef struct { dg_arena_blk *head; size_t used_bytes; } dg_arena;
void *dg_arena_alloc(dg_arena *a, size_t n);   /* zeroed, 16-byte aligned */
char *dg_arena_strdup(dg_arena *a, const char *s);
char *dg_arena_strndup(dg_arena *a, const char *s, size_t n);
void dg_arena_free(dg_arena *a);

/* Whole-file read; NULL and errno set on failure. *len excludes the added NUL. */
char *dg_read_file(const char *path, size_t *len);
/* Directory part of a path ("a/b.cu" -> "a", "b.cu" -> "."); caller frees. */
char *dg_dirname(const char *path);
/* mkdir -p of path's directories (mode, less the umask), and of path itself
 * when whole; false with errno set when one cannot be made (one that exists is fine). */
bool dg_mkdirs(const char *path, bool whole, unsigned mode);
/* Join dir and a relative path (absolute paths returned as copies). */
char *dg_path_join(const char *dir, const char *rel);

uint64_t dg_hash_bytes(const void *p, size_t n, uint64_t seed);
double dg_now(void);                           /* monotonic seconds */

/* Deterministic PRNG (splitmix64 seeded xoshiro256**): fuzz cases replay by seed. */
typedef struct { uint64_t s[4]; } dg_rng;
void dg_rng_seed(dg_rng *r, uint64_t seed);
uint64_t dg_rng_next(dg_rng *r);
double dg_rng_unit(dg_rng *r);                 /* [0, 1) */
double dg_rng_normal(dg_rng *r);
uint64_t dg_rng_below(dg_rng *r, uint64_t n);  /* [0, n) */

#endif
