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

/* Fills out[0..n) with values of distribution d, rounded to dtype dt: the
 * counter-based values below (fuzz_ctr) with key = the first draw of r, so
 * the caller's generator seeds the case and the device can draw the same
 * values (gpu_gen.h). row is the length of the innermost dimension (for
 * row-shaped patterns such as "the row maximum is the last element"); lo..hi
 * bound index-valued inputs (has_range). */
typedef struct {
  fuzz_dist dist;
  dg_dtype dtype;
  int64_t row;
  bool has_range;
  int64_t lo, hi;
} fuzz_fill_opts;
void fuzz_fill(dg_rng *r, const fuzz_fill_opts *o, double *out, int64_t n);
/* The key fuzz_fill draws for input tensor t of a case with seed case_seed,
 * seeded as the campaign (fuzz_run.c) and the checker seed it:
 * dg_rng_seed(case_seed ^ 0x9e3779b97f4a7c15 * (t + 1)), first dg_rng_next. */
uint64_t fuzz_input_key(uint64_t case_seed, int t);

/* ---- counter-based values: any element on demand ------------------------
 * The value of element i of a tensor is a pure function of (key, i) and the
 * tensor's description, so a buffer larger than memory is filled chunk by
 * chunk when first touched, the reference reads any input element without
 * the whole tensor, and the GPU computes the same values on the device
 * (gpu_gen.c compiles the same source text, fuzz_ctr_source). Definition,
 * bit-exact (integer arithmetic mod 2^64; sm(x) = splitmix64: z = x + 0x9e3779b97f4a7c15,
 * z = (z ^ z>>30) * 0xbf58476d1ce4e5b9, z = (z ^ z>>27) * 0x94d049bb133111eb,
 * z ^ z>>31; doc/strategies.md has the table):
 *   h = sm(key ^ i), h1 = sm(h + 1), u = (h >> 11) * 2^-53 in [0, 1),
 *   normal(h) = ((double)(s << 34 | sm(h + 2) >> 30) - 131070 * 2^34) * (sqrt(3) * 2^-50),
 *               s the sum of h's four 16-bit fields (Irwin-Hall, variance 1, |v| < 3.4642)
 *   r = row (or n), j = i mod r, sign = h1 & 1 ? -1 : 1
 *   normal: normal(h)          uniform: (h >> 11) * 2^-52 - 1     positive: ((h >> 11) + 1) * 2^-53
 *   negative: -1 - 4u          huge: sign * (max(dtype) / 16 * (0.5 + u))
 *   tiny: sign * (min_normal(dtype) * ((u + 0.01) / 2^(h1 >> 1 & 7)))    ties: h % 3 - 1
 *   sorted: -2 + 4 * (j + u) / r (ascending in each row)     all-equal: normal(sm(key))
 *   max-last: j == r - 1 ? 4 + u : normal(h) (4 > every normal value)
 *   large-offset: (f16 ? 1000 : 10000) + normal(h)
 *   special: NaN, +Inf, -Inf ((h1 >> 4) % 3) where h1 & 15 == 0 or i == sm(key ^ 0x5bd1e9955bd1e995) % n,
 *            else normal(h)
 *   near-equal: normal(sm(key ^ ~(i / r))) + 0.001 * normal(h)
 *   index-valued (range lo..hi, span = hi - lo + 1, w = min(span, 16)) with h:
 *            huge: hi - h % w (the top of the range), tiny: lo + h % w, else lo + h % span
 * integer dtypes (not index-valued): round(8 v) (0 if not finite); then the
 * dtype's rounding (as dg_dtype_round), then fabs for positive-only tensors.
 * Every step above is exact or one correctly rounded IEEE operation. */
typedef struct {
  uint64_t key;            /* fuzz_input_key(case seed, tensor), or fuzz_ctr_key(seed, tensor) */
  fuzz_dist dist;
  dg_dtype dtype;
  bool has_range, positive;
  int64_t lo, hi;
  int64_t row;             /* innermost dimension; 0: the whole tensor is one row */
  int64_t n;               /* elements of the tensor (special's one sure position); 0: unknown */
} fuzz_ctr;
uint64_t fuzz_ctr_key(uint64_t seed, uint64_t tensor);
uint64_t fuzz_ctr_bits(uint64_t key, int64_t i);
int fuzz_ctr_flags(const fuzz_ctr *g);      /* 1 has_range | 2 positive: the device's flags */
double fuzz_ctr_value(const fuzz_ctr *g, int64_t i);
void fuzz_ctr_fill(const fuzz_ctr *g, int64_t first, int64_t n, double *out);
/* fuzz_ctr_fill(g, 0, n, out) in chunks of 2^20 values, looking at the
 * deadline (dg_now seconds; 0: none) between them: the values filled before
 * it passed (n: all; the same values as one fill). */
int64_t fuzz_ctr_fill_until(const fuzz_ctr *g, int64_t n, double *out, double deadline);
/* The definition as CUDA-compatible source text (ctr_value(key, dist, dtype,
 * flags, row, n, lo, hi, i) and its helpers), for gpu_gen.c's prelude. */
const char *fuzz_ctr_source(void);

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
  bool finite;   /* its cases are an enumeration: the first k it has no case for ends the campaign */
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
