/* fuzz.h — the fuzzer's building blocks that know nothing of kernels:
 * value distributions (seeded, so every case replays) and the NaN-aware
 * validator. The campaign driver (fuzz_run.c) combines them with problems,
 * strategies and a backend. */
#ifndef DG_FUZZ_H
#define DG_FUZZ_H
#include "util.h"
#include "dtype.h"

/* ---- value distributions ------------------------------------------------- */
typedef enum {
#define FUZZ_DIST(id, name, help) FUZZ_DIST_##id,
#include "fuzz_dists.def"
#undef FUZZ_DIST
  FUZZ_DIST__COUNT
} fuzz_dist;

typedef struct { const char *name; const char *help; } fuzz_dist_info;
extern const fuzz_dist_info fuzz_dists[FUZZ_DIST__COUNT];
int fuzz_dist_parse(const char *name);   /* -1 if unknown */

/* Fills out[0..n) with values of distribution d, rounded to dtype dt.
 * row is the length of the innermost dimension (for row-shaped patterns such
 * as "the row maximum is the last element"); lo..hi bound index-valued
 * inputs (has_range), which are drawn uniformly as integers. */
typedef struct {
  fuzz_dist dist;
  dg_dtype dtype;
  int64_t row;
  bool has_range;
  int64_t lo, hi;
} fuzz_fill_opts;
void fuzz_fill(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n);

/* ---- counter-based values: any element on demand ------------------------
 * The value of element i of a tensor is a pure function of (seed, tensor, i),
 * so a buffer larger than memory is filled chunk by chunk when first touched
 * and the reference reads any input element without the whole tensor; the
 * GPU backend may compute the same values on the device. Definition, bit-exact
 * (all integer arithmetic mod 2^64; sm(x) = splitmix64: z = x + 0x9e3779b97f4a7c15,
 * z = (z ^ z>>30) * 0xbf58476d1ce4e5b9, z = (z ^ z>>27) * 0x94d049bb133111eb,
 * z ^ z>>31):
 *   key  = sm(seed ^ sm(tensor + 1))         (fuzz_ctr_key)
 *   h(i) = sm(key ^ i)                       (fuzz_ctr_bits; i as uint64)
 * mapped to a double by the distribution (u24 = h >> 40):
 *   normal:    s = sum of the four 16-bit fields of h; (double)s - 131070.0,
 *              times (1.7320508075688772 / 65536.0)   (Irwin-Hall, variance 1)
 *   uniform:   (double)u24 * 2^-23 - 1.0           in [-1, 1)
 *   positive:  (double)(u24 + 1) * 2^-24           in (0, 1];  negative: its negation
 *   all-equal: every element takes the normal value of element 0
 *   special:   h & 255 == 0: NaN, 1: +Inf, 2: -Inf, else normal
 *   any other distribution: normal
 * index-valued (range lo..hi, span = hi - lo + 1, w = min(span, 16)):
 *   huge: hi - h % w (the top of the range), tiny: lo + h % w, else lo + h % span
 * then fabs for positive-only tensors, then rounding to the tensor's dtype
 * (round to nearest even, as dg_dtype_round). Every step above is exact or
 * one correctly rounded IEEE operation, so the CPU and the GPU agree. */
typedef struct {
  uint64_t key;            /* fuzz_ctr_key(seed, tensor) */
  fuzz_dist dist;
  dg_dtype dtype;
  bool has_range, positive;
  int64_t lo, hi;
} fuzz_ctr;
uint64_t fuzz_ctr_key(uint64_t seed, uint64_t tensor);
uint64_t fuzz_ctr_bits(uint64_t key, int64_t i);
double fuzz_ctr_value(const fuzz_ctr *g, int64_t i);
void fuzz_ctr_fill(const fuzz_ctr *g, int64_t first, int64_t n, double *out);

/* ---- validation ----------------------------------------------------------- */

typedef enum {
  FUZZ_ELEM_OK, FUZZ_ELEM_MISMATCH, FUZZ_ELEM_NAN,     /* NaN/Inf where the reference is finite */
  FUZZ_ELEM_MISSING_NAN,                               /* reference NaN/Inf, kernel finite */
  FUZZ_ELEM_UNWRITTEN,
} fuzz_elem;

typedef struct {
  int64_t n, checked, nfail, nunwritten, nnan_agree;
  int64_t first_fail;        /* -1 if none */
  fuzz_elem first_kind;
  double first_got, first_want;
  double max_abs, p99_abs, max_ulp;
} fuzz_cmp;

/* One element: the reference is first rounded to the output dtype, so an fp64
 * reference that overflows float compares as the GPU would see it. NaN where
 * the reference is NaN, and Inf of the same sign, agree. */
fuzz_elem fuzz_elem_check(dg_dtype dt, double got, double want, dg_tol tol);
/* All elements. checked[i] == 0 skips i (a reference that returned nil);
 * written[i] == 0 marks i as never written by the kernel. Either may be NULL. */
void fuzz_compare(dg_dtype dt, const double *got, const double *want,
                  const uint8_t *checked, const uint8_t *written, int64_t n,
                  dg_tol tol, fuzz_cmp *res);
const char *fuzz_elem_name(fuzz_elem k);

/* ---- strategies: which shapes, dtypes and values a campaign tries --------- */
#define FUZZ_MAX_SYMS 16
#define FUZZ_MAX_INPUTS 16

struct fuzz_case;
/* What a strategy may choose from; filled by the campaign from a problem. */
typedef struct {
  int nsyms;
  const char *syms[FUZZ_MAX_SYMS];
  int64_t defaults[FUZZ_MAX_SYMS];          /* the spec's sizes */
  const int64_t *cands[FUZZ_MAX_SYMS];      /* the op's candidate values (boundaries included) */
  int ncands[FUZZ_MAX_SYMS];
  int64_t block[4];                         /* threads per block of the launches (x extent) */
  int nblock;
  int ninputs;                              /* value-carrying input tensors */
  bool input_has_range[FUZZ_MAX_INPUTS];    /* index-valued: drawn from ranges, not dists */
  const char *input_names[FUZZ_MAX_INPUTS]; /* may be NULL (a space built by hand) */
  int input_inner[FUZZ_MAX_INPUTS];         /* symbol of the innermost dim, -1 if none/not a bare symbol */
  /* constraints and a cost cap (emulator sizes); NULL accepts everything */
  bool (*admissible)(void *ud, const int64_t *sizes);
  void *ud;
  /* Huge sizes (fuzz_huge.c; NULL: none): case k of the huge cases of this
   * problem (some input past 2^31 elements, the others small), with its
   * value distributions and c->huge set; false when there is no case k.
   * space is this fuzz_space. */
  bool (*huge)(void *ud, const void *space, int64_t k, struct fuzz_case *c);
} fuzz_space;

typedef struct fuzz_case {
  int64_t sizes[FUZZ_MAX_SYMS];
  fuzz_dist dist[FUZZ_MAX_INPUTS];
  uint64_t seed;                            /* seeds the input values of this case */
  char label[96];                           /* "C=33 x:max-last" — for reports */
  uint8_t huge;                             /* 1: lazily generated inputs past 2^31 elements, a
                                               sample of the blocks (fuzz_huge.c); 2: the same,
                                               but the problem has no such case (run says why) */
} fuzz_case;

typedef struct {
  const char *name;
  const char *help;
  /* Fills case number k (0-based) of a campaign; false when the strategy has
   * no admissible case to give. Deterministic in (space, k, r's seed). */
  bool (*gen)(const fuzz_space *s, int64_t k, dg_rng *r, fuzz_case *c);
  /* Run-time strategies (Lua) leave gen NULL and are called through gen_ud
   * with their ud; error(ud) gives the reason of the last false, or NULL. */
  bool (*gen_ud)(void *ud, const fuzz_space *s, int64_t k, dg_rng *r, fuzz_case *c);
  const char *(*error)(void *ud);
  void *ud;
  const char *origin;                       /* file of a run-time strategy; NULL when built in */
} fuzz_strategy;

/* The built-in strategies: regular, boundary, adversarial, dtype-edge,
 * boundary+adversarial, huge, boundary+adversarial+huge. NULL-terminated. Lua strategies join them at run time. */
extern const fuzz_strategy fuzz_strategies[];
const fuzz_strategy *fuzz_strategy_find(const char *name);   /* built-in or registered */
/* Case k of st, built-in or registered: call this, not st->gen. */
bool fuzz_strategy_gen(const fuzz_strategy *st, const fuzz_space *s, int64_t k, dg_rng *r, fuzz_case *c);
/* Why the last fuzz_strategy_gen of st gave false (a broken strategy), or NULL. */
const char *fuzz_strategy_error(const fuzz_strategy *st);
/* The run-time registry: built-ins first, then registered strategies in
 * registration order. register copies st (name, help, origin duplicated) and
 * returns false if the name is taken; free_ud(st->ud) runs when the registry is
 * cleared. Pointers from find/at stay valid until fuzz_strategy_clear. */
bool fuzz_strategy_register(const fuzz_strategy *st, void (*free_ud)(void *));
size_t fuzz_strategy_count(void);
const fuzz_strategy *fuzz_strategy_at(size_t i);
void fuzz_strategy_clear(void);
/* The seed of case k of a campaign with seed s: replay needs only (s, k). */
uint64_t fuzz_case_seed(uint64_t campaign_seed, int64_t k);
void fuzz_case_label(const fuzz_space *s, fuzz_case *c);

#endif
