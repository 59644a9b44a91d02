/* check_big.c — --auto's instances at sizes beyond memory (check_huge_sizes).
 *
 * The fuzzer's size chooser (fuzz_huge_case: one input past 1.25 * 2^31
 * elements), rebalanced for the symbolic run; for an input that chooser
 * cannot make huge alone (its output has its shape: softmax, layernorm,
 * transpose) and for outputs past 2^31 with small inputs (matmul's C), an
 * instance whose outputs are as large, lazy and poisoned, their writers
 * found by inverting the store addresses (big_case); for kernels with
 * unsigned 32-bit address products, an instance past 1.25 * 2^32
 * (wide_case), and for a 32-bit count widened after it wraps, one just past
 * 2^32 (total_case; check_wide.c). The elements are the last one and the
 * start of the last outermost slice (check_tail_locs, check_auto.c). The
 * checks themselves are check_huge.c's. */
#include "check_int.h"
#include "fuzz_run.h"
#include <math.h>
#include <string.h>

#define HUGE_OFF ((int64_t)5 << 29)      /* the target's last outermost offset: 1.25 * 2^31 (as fuzz_huge.c) */
#define WIDE_OFF ((int64_t)5 << 30)      /* and 1.25 * 2^32, where unsigned 32-bit offsets wrap (check_wide.c) */
#define BIG_BYTES ((int64_t)1 << 38)     /* address space of an instance's lazy tensors together */
#define BIG_LANE_OPS 1048576.0           /* lane operations of the two blocks measured, at most (big_keep) */
#define BIG_LANE_MAX 8388608.0           /* at most, when the grown sizes only add blocks */
#define BIG_WORK 1.5                     /* a block's work at a big instance, at most, in blocks' at half its sizes */
#define WORK_CAP ((uint64_t)BIG_LANE_MAX) /* a block's work is measured up to this many lane operations */
#define SHRINK_CAP ((uint64_t)1 << 25)   /* shrink_others measures up to this many (4 x WORK_CAP) */
#define WORK_SECS 20.0                   /* ... and this long (a safety stop only: the cap comes first) */

/* The check's deadline while check_huge_sizes chooses (0: none): every
 * measurement below stops at it too. Choosing runs blocks on lazy tensors,
 * whose chunks are filled on touch (mmap, page faults): matmul_tn_naive's
 * instances took 8 s of it at load 7 and a sweep's --budget 20 child 27 s,
 * the chooser looking at no clock. Past it the budget is spent and no
 * instance is checked, so a cut measurement decides nothing. */
static _Thread_local double big_deadline;

static double work_deadline(void)
{
  double d = dg_now() + WORK_SECS;
  return big_deadline > 0 && big_deadline < d ? big_deadline : d;
}

/* ---- --auto's huge instance ------------------------------------------------------------ */

static bool is_dim(const dg_tensor *ts, const char *name)
{
  for (size_t d = 0; d < ts->shape.n; d++) if (!strcmp(ts->shape.v[d].text, name)) return true;
  return false;
}

/* Blocks of every launch at sizes; -1 when one cannot be sized. */
static int64_t blocks_at(const dg_problem *p, const int64_t *sizes)
{
  int64_t nb = 0, g[3], b[3], sh;
  dg_diags d = {0};
  for (size_t i = 0; i < p->launches.n && nb >= 0; i++)
    nb = dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, &d) ? nb + g[0] * g[1] * g[2] : -1;
  dg_diags_free(&d);
  return nb;
}

/* Every launch's flat thread id along each grid dimension fits an int
 * (blockIdx.x * blockDim.x + threadIdx.x): a kernel written with one
 * cannot reach more (attention_naive's flat idx), and an instance past it
 * could only show that. A 2-D grid may have more threads in all (matmul:
 * M*N of them). */
bool check_huge_flat_ids_fit(const dg_problem *p, const int64_t *sizes)
{
  int64_t g[3], b[3], sh;
  dg_diags d = {0};
  bool ok = true;
  for (size_t i = 0; i < p->launches.n && ok; i++) {
    ok = dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, &d);
    for (int x = 0; x < 3 && ok; x++) ok = g[x] * b[x] <= INT32_MAX;
  }
  dg_diags_free(&d);
  return ok;
}

/* Largest hi of an index-valued input at sizes (-1: none or unusable). */
static int64_t range_hi(const dg_problem *p, const int64_t *sizes)
{
  int64_t m = -1, lo, hi;
  dg_diags d = {0};
  for (size_t t = 0; t < p->tensors.n; t++)
    if (p->tensors.v[t].has_range && dg_problem_range(p, (int)t, sizes, &lo, &hi, &d) && hi > m) m = hi;
  dg_diags_free(&d);
  return m;
}

/* The chooser's conditions (fuzz_huge.c's huge_ok), and every index range
 * inside its input's dtype; *off gets the target's last outermost offset.
 * big: every tensor that can be lazy may be as large as the target (a
 * one-launch problem: the writer of a lazy output comes from inverting the
 * store addresses), within BIG_BYTES of address space. */
static bool fits_at(const dg_problem *p, int target, const int64_t *sizes, bool big, double *off)
{
  dg_diags d = {0};
  bool ok = dg_problem_check_sizes(p, sizes, &d) && (!big || p->launches.n == 1);
  for (size_t i = 0; ok && big && i < p->sizes.n; i++)
    ok = sizes[i] <= INT32_MAX;    /* a size is an int argument: C = 2684354561 ran as a negative C */
  int64_t dims[8], lo, hi, g[3], b[3], sh;
  double bytes = 0;
  *off = 0;
  for (int t = 0; ok && t < (int)p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t n = dg_problem_numel(p, t, sizes);
    ok = n >= 0 && (t == target || n <= CHECK_HUGE_SMALL || (big && check_huge_lazyable(ts)));
    if (n > CHECK_HUGE_SMALL) bytes += (double)n * dg_dtypes[ts->dtype].size;
    if (ok && big) ok = bytes <= (double)BIG_BYTES;
    if (ok && ts->has_range && !dg_dtypes[ts->dtype].is_float && dg_dtypes[ts->dtype].size <= 4)
      ok = dg_problem_range(p, t, sizes, &lo, &hi, &d) && hi < ((int64_t)1 << (8 * dg_dtypes[ts->dtype].size - 1));
  }
  const dg_tensor *ts = &p->tensors.v[target];
  if (ok) ok = ts->shape.n >= 1 && ts->shape.n <= 8 && dg_problem_shape(p, target, sizes, dims, &d);
  if (ok) {
    *off = (double)(dims[0] - 1);
    for (size_t i = 1; i < ts->shape.n; i++) *off *= (double)dims[i];
  }
  for (size_t i = 0; ok && i < p->launches.n; i++)
    ok = dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, &d) && b[0] * b[1] * b[2] <= 1024 &&
         g[0] >= 1 && g[1] >= 1 && g[2] >= 1 && g[0] < ((int64_t)1 << 31) && g[1] <= 65535 && g[2] <= 65535;
  dg_diags_free(&d);
  return ok;
}

static bool fits(const dg_problem *p, int target, const int64_t *sizes)
{
  double off;
  return fits_at(p, target, sizes, false, &off) && off >= (double)HUGE_OFF;
}

/* ---- instances whose outputs are as large as the input ----
 * A softmax, layernorm, transpose or attention has an output of its input's
 * shape: the fuzzer's chooser (every other tensor under CHECK_HUGE_SMALL) has no
 * instance for them. From the spec's sizes, the dimensions of the target
 * double in turn, only those that add blocks, the outermost first (a batch,
 * the rows; the per-block work — a row, a key sequence — stays the spec's;
 * none adds blocks: no instance), until the target's last outermost offset passes HUGE_OFF; the
 * last one doubled is then brought down to the smallest value that still
 * passes (rounded to a power-of-two multiple the constraints accept), so
 * the int32 offset wraps to a negative one rather than back into bounds. */
static int dim_pos(const dg_tensor *ts, const char *name)
{
  for (size_t d = 0; d < ts->shape.n; d++) if (!strcmp(ts->shape.v[d].text, name)) return (int)d;
  return -1;
}

/* wide: an instance past 2^32 whose flat thread ids still fit an int
 * (big_keep's rule, kept while it grows: softmax_block's rows stop at 2^24
 * blocks of 128 threads and the row grows instead) */
static bool big_ok(const dg_problem *p, int target, const int64_t *sz, double *off, bool wide)
{
  return fits_at(p, target, sz, true, off) && (!wide || check_huge_flat_ids_fit(p, sz));
}

static void big_refine(const dg_problem *p, int target, int64_t *sz, int x, double need, bool wide)
{
  int64_t orig = sz[x], hi = orig, lo = orig / 2;
  double off;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    sz[x] = mid;
    if (big_ok(p, target, sz, &off, wide) && off >= need) hi = mid; else lo = mid;
  }
  for (int64_t m = 1; m <= 1024; m *= 2) {
    int64_t v = (hi + m - 1) / m * m;
    if (v >= orig) break;
    sz[x] = v;
    if (big_ok(p, target, sz, &off, wide) && off >= need) return;
  }
  sz[x] = orig;
}

/* The work of a block at sizes (lane operations of the middle and the last
 * block of the one launch, on lazy zeros: full, and past the start of a
 * causal mask): what the symbolic run of a writer block costs, roughly. -1
 * when it cannot run. */
static double zero_value(void *ud, int t, int64_t i) { (void)ud, (void)t, (void)i; return 0; }

static double block_work_in(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, uint64_t cap);
static double block_work(const dg_problem *p, const emu_kernels *k, const int64_t *sizes)
{
  return block_work_in(p, k, sizes, WORK_CAP);
}

/* Cut past cap lane operations (-1 then: more than the caller takes), not
 * by the clock: until session 9 a 0.5 s cut made which instances --auto
 * checks, and in what order, depend on the machine's load. WORK_SECS only
 * stops a run the work limit does not reach (a block stuck filling lazy
 * chunks), far past what cap takes on a loaded machine. */
/* Measurements already made in this check_huge_sizes call: the same sizes
 * at the same cap do the same work (the sort at its end measured every
 * instance again; on lazy tensors each run maps and fills chunks anew). */
#define MEMO_MAX 64
#define MEMO_SIZES 16
static _Thread_local struct {
  const dg_problem *p;
  int n;
  struct { int64_t sz[MEMO_SIZES]; uint64_t cap; double work; } v[MEMO_MAX];
} memo;

static bool memo_get(const dg_problem *p, const int64_t *sizes, uint64_t cap, double *work)
{
  for (int i = 0; memo.p == p && p->sizes.n <= MEMO_SIZES && i < memo.n; i++)
    if (memo.v[i].cap == cap && !memcmp(memo.v[i].sz, sizes, sizeof *sizes * p->sizes.n)) {
      *work = memo.v[i].work;
      return true;
    }
  return false;
}

static void memo_put(const dg_problem *p, const int64_t *sizes, uint64_t cap, double work)
{
  if (memo.p != p || p->sizes.n > MEMO_SIZES || memo.n >= MEMO_MAX) return;
  memcpy(memo.v[memo.n].sz, sizes, sizeof *sizes * p->sizes.n);
  memo.v[memo.n].cap = cap;
  memo.v[memo.n++].work = work;
}

static double block_work_in(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, uint64_t cap)
{
  double known;
  if (memo_get(p, sizes, cap, &known)) return known;
  if (big_deadline > 0 && dg_now() > big_deadline) return -1;   /* spent: nothing is chosen */
  bool *lazy = dg_calloc(p->tensors.n + 1, sizeof *lazy);
  for (size_t t = 0; t < p->tensors.n; t++)
    lazy[t] = check_huge_lazyable(&p->tensors.v[t]) && dg_problem_numel(p, (int)t, sizes) > CHECK_HUGE_SMALL;
  emu_io io;
  emu_result res = {0};
  dg_diags d = {0};
  double work = -1;
  int64_t nb = blocks_at(p, sizes), which[2] = { nb / 2, nb - 1 };
  /* the last block too: the elements checked are the last ones (the middle
   * block of attention_online's (T/4, B*H) grid is its first queries, whose
   * keys do not grow with T) */
  emu_opts eo = { .blocks = which, .nblocks = nb > 1 ? 2 : 1, .max_loop_iters = (int64_t)1 << 24,
                  .max_lane_ops = cap, .deadline = work_deadline() };   /* a block like the spec's takes milliseconds */
  if (nb > 0 && emu_io_init_lazy(&io, p, sizes, lazy, zero_value, NULL, &d)) {
    if (emu_run(p, k, sizes, &io, &eo, &res, &d) && res.status == SIMT_OK) work = (double)res.lane_ops;
    for (size_t e = 0; e < res.events.n; e++) {
      if (res.events.v[e].kind == SIMT_EV_RUNAWAY) work = -1;    /* cut short: the work is unknown */
    }
    emu_result_free(&res);
    emu_io_free(&io);
  }
  dg_diags_free(&d);
  free(lazy);
  if (!(big_deadline > 0 && dg_now() > big_deadline)) memo_put(p, sizes, cap, work);   /* a cut one is not known */
  return work;
}

static bool big_case(const dg_problem *p, int target, int64_t *sz, double need, bool wide)
{
  const dg_tensor *ts = &p->tensors.v[target];
  size_t ns = p->sizes.n;
  double off;
  dg_problem_default_sizes(p, sz);
  if (!ts->shape.n || !big_ok(p, target, sz, &off, wide)) return false;
  int last = -1;
  for (int it = 0; it < 80 && off < need; it++) {
    int best = -1, best_pos = 0;
    bool best_adds = false;
    int64_t nb = blocks_at(p, sz);
    for (size_t x = 0; x < ns; x++) {
      int pos = dim_pos(ts, p->sizes.v[x].name);
      if (pos < 0 || sz[x] < 1 || sz[x] > ((int64_t)1 << 40)) continue;
      double o;
      int64_t v = sz[x];
      sz[x] = v * 1024;            /* adds blocks once large: (N + 63) / 64 is one block until N passes 64 */
      bool adds = blocks_at(p, sz) > nb;
      sz[x] = v * 2;
      bool good = big_ok(p, target, sz, &o, wide);
      sz[x] = v;
      if (good && (best < 0 || (adds && !best_adds) || (adds == best_adds && pos < best_pos)))
        best = (int)x, best_pos = pos, best_adds = adds;
    }
    /* none adds blocks: a fixed grid walks it all (batchnorm_infer: 2
     * blocks); or those that add are at their limits (embedding's rows: the
     * ids are held, under CHECK_HUGE_SMALL), and a row or a reduction grows:
     * big_keep then bounds a block's work */
    if (best < 0 || (!best_adds && last < 0)) return false;
    sz[best] *= 2;
    last = best;
    big_ok(p, target, sz, &off, wide);
  }
  if (off < need) return false;
  if (last >= 0) big_refine(p, target, sz, last, need, wide);
  return big_ok(p, target, sz, &off, wide) && off >= need;
}

/* The fuzzer grows output dimensions first: right for its block sampling,
 * costly for the symbolic run when the dimension is walked inside a block
 * (embedding's D: one block copies the whole row). A symbol of the target
 * that adds no blocks and is no index range (a row length, a reduction) is
 * halved while one that adds blocks or only bounds an index range (a
 * vocabulary) doubles, as long as the sizes still fit; not below the
 * spec's value. */
static void rebalance(const dg_problem *p, int target, int64_t *sizes)
{
  size_t ns = p->sizes.n;
  const dg_tensor *ts = &p->tensors.v[target];
  int64_t *s2 = dg_malloc(sizeof *s2 * (ns + 1));
  for (int it = 0; it < 64; it++) {
    bool moved = false;
    int64_t nb = blocks_at(p, sizes), hi = range_hi(p, sizes);
    for (size_t x = 0; x < ns && !moved; x++) {
      if (!is_dim(ts, p->sizes.v[x].name) || sizes[x] / 2 < (p->sizes.v[x].value > 1 ? p->sizes.v[x].value : 1))
        continue;
      memcpy(s2, sizes, sizeof *s2 * ns);
      s2[x] *= 2;
      if (blocks_at(p, s2) > nb || range_hi(p, s2) > hi) continue;      /* cheap itself */
      for (size_t y = 0; y < ns && !moved; y++) {
        if (y == x || !is_dim(ts, p->sizes.v[y].name)) continue;
        memcpy(s2, sizes, sizeof *s2 * ns);
        s2[y] *= 2;
        bool out = false;
        for (size_t t = 0; t < p->tensors.n; t++)
          out |= p->tensors.v[t].role == DG_TENSOR_OUTPUT && is_dim(&p->tensors.v[t], p->sizes.v[y].name);
        if (!(blocks_at(p, s2) > nb || (range_hi(p, s2) > hi && !out))) continue;
        s2[x] /= 2;
        if (fits(p, target, s2)) memcpy(sizes, s2, sizeof *s2 * ns), moved = true;
      }
    }
    if (!moved) break;
  }
  free(s2);
}

/* The target's last outermost offset at sizes (what passes HUGE_OFF); -1 when it cannot be sized. */
static double last_offset(const dg_problem *p, int t, const int64_t *sizes)
{
  const dg_tensor *ts = &p->tensors.v[t];
  int64_t dims[8];
  dg_diags d = {0};
  double off = -1;
  if (ts->shape.n >= 1 && ts->shape.n <= 8 && dg_problem_shape(p, t, sizes, dims, &d)) {
    off = (double)(dims[0] - 1);
    for (size_t i = 1; i < ts->shape.n; i++) off *= (double)dims[i];
  }
  dg_diags_free(&d);
  return off;
}

/* A big instance is kept when every flat thread id fits an int, it is new,
 * and the work of its middle and last blocks (what the symbolic run of a
 * writer block costs, roughly; lane operations on lazy zeros) is small:
 * at most BIG_LANE_OPS (the row kernels: 50,000-140,000; embedding_vec4 at
 * D = 65544, a row grown: 560,000, its symbolic run 1.3 s), or at most
 * BIG_LANE_MAX when the sizes grown only add blocks (the work at half of
 * them is within BIG_WORK of it: matmul_regtile's 5.5e6, 0.5 s an element
 * symbolically). Attention_online's keys at T = 2049: 1.3e7, one element's
 * symbolic run 130-300 s and 3.7 GB; its ratio passes (the last block of
 * the half instance works as much), the cap does not. */
static bool big_keep(const dg_problem *p, const emu_kernels *k, const int64_t *sz, const int64_t *out, int n)
{
  size_t ns = p->sizes.n;
  if (!check_huge_flat_ids_fit(p, sz)) return false;
  for (int j = 0; j < n; j++)
    if (!memcmp(out + (size_t)j * ns, sz, sizeof *sz * ns)) return false;
  double w = block_work(p, k, sz);
  if (w < 0 || w > BIG_LANE_MAX) return false;
  if (w <= BIG_LANE_OPS) return true;
  int64_t *half = dg_malloc(sizeof *half * (ns + 1)), *spec = dg_malloc(sizeof *spec * (ns + 1));
  dg_problem_default_sizes(p, spec);
  for (size_t x = 0; x < ns; x++) half[x] = sz[x] / 2 > spec[x] ? sz[x] / 2 : sz[x];
  double wh = block_work(p, k, half);
  free(half), free(spec);
  return wh > 0 && w <= BIG_WORK * wh;
}

/* ---- past 2^32 elements (unsigned 32-bit offsets wrap there; check_wide.c) ----
 * Each dimension of the target in turn is the one kept small (the work of
 * a block: a row, attention's keys), the others raised to the most that
 * fits, outermost first; it is then brought down to the least that passes
 * WIDE_OFF. The candidate whose middle and last blocks do the least work
 * (on the emulator, cut at 2^21, then 2^23, then WIDE_LANE_MAX lane operations) is kept, when its work is at most
 * WIDE_LANE_MAX: big_case's doubling grows attention_online's T (it adds
 * blocks) to 4097, where B*H at the grid's limit and D at 64 need T = 1281.
 * A writer block past BIG_LANE_MAX runs no symbolic run (check_huge_heavy):
 * a wrapped store needs none (its element has no writer, check_wide.c). */
#define WIDE_LANE_MAX 33554432.0

static void raise_dim(const dg_problem *p, int target, int64_t *sz, size_t y)
{
  double off;
  int64_t ok = sz[y], bad = -1;
  while (ok < INT32_MAX && bad < 0) {
    sz[y] = ok * 2 > INT32_MAX ? INT32_MAX : ok * 2;
    if (big_ok(p, target, sz, &off, true)) ok = sz[y]; else bad = sz[y];
  }
  while (bad > ok + 1) {
    sz[y] = ok + (bad - ok) / 2;
    if (big_ok(p, target, sz, &off, true)) ok = sz[y]; else bad = sz[y];
  }
  sz[y] = ok;
}

static double wide_case(const dg_problem *p, const emu_kernels *k, int target, int64_t *out)
{
  const dg_tensor *ts = &p->tensors.v[target];
  size_t ns = p->sizes.n;
  int64_t *cand = dg_malloc(sizeof *cand * (ns + 1) * (ns + 1));
  int nc = 0;
  double off;
  for (size_t x = 0; x < ns; x++) {
    int64_t *sz = cand + (size_t)nc * ns;
    if (dim_pos(ts, p->sizes.v[x].name) < 0) continue;
    dg_problem_default_sizes(p, sz);
    if (!big_ok(p, target, sz, &off, true)) continue;
    for (size_t pos = 0; pos < ts->shape.n; pos++)
      for (size_t y = 0; y < ns; y++)
        if (y != x && dim_pos(ts, p->sizes.v[y].name) == (int)pos) raise_dim(p, target, sz, y);
    big_ok(p, target, sz, &off, true);
    while (off < (double)WIDE_OFF && sz[x] < INT32_MAX) {     /* x must grow too */
      sz[x] = sz[x] * 2 > INT32_MAX ? INT32_MAX : sz[x] * 2;
      if (!big_ok(p, target, sz, &off, true)) break;
    }
    if (!big_ok(p, target, sz, &off, true) || off < (double)WIDE_OFF) continue;
    int64_t lo = 0, hi = sz[x];               /* the least x that passes */
    while (hi - lo > 1) {
      sz[x] = lo + (hi - lo) / 2;
      if (big_ok(p, target, sz, &off, true) && off >= (double)WIDE_OFF) hi = sz[x]; else lo = sz[x];
    }
    sz[x] = hi;
    nc++;
  }
  /* the work of each, cut short first: a candidate whose block walks a
   * raised row runs for seconds, the good one for milliseconds */
  double best = -1;
  static const uint64_t cut[] = { (uint64_t)1 << 21, (uint64_t)1 << 23, (uint64_t)WIDE_LANE_MAX };
  bool *tried = dg_calloc((size_t)nc + 1, sizeof *tried);
  for (size_t r = 0; r < sizeof cut / sizeof *cut && best < 0; r++)
    for (int i = 0; i < nc; i++) {
      double w = tried[i] ? -1 : block_work_in(p, k, cand + (size_t)i * ns, cut[r]);
      if (w < 0 || w > WIDE_LANE_MAX) continue;
      tried[i] = true;
      if (best >= 0 && w >= best) continue;
      best = w;
      memcpy(out, cand + (size_t)i * ns, sizeof *cand * ns);
    }
  free(tried);
  free(cand);
  return best;
}

/* A 32-bit product widened after it wrapped (`size_t total = N * C * HW`,
 * ints): just past 2^32 elements it wraps to a small count, and a loop
 * bounded by it leaves the rest unwritten — cheap to run whole, unlike
 * the instance past 1.25 * 2^31 (a negative count: every thread walks
 * 2^31 / threads iterations, batchnorm_infer's 1.7e7). The outermost
 * dimension of the target that can, the others at the spec's, brought to
 * the least value whose element count passes 2^32; kept when its blocks'
 * work is small. */
static bool total_case(const dg_problem *p, const emu_kernels *k, int target, int64_t *sz)
{
  const dg_tensor *ts = &p->tensors.v[target];
  size_t ns = p->sizes.n;
  double off;
  const double wrap = 4294967296.0;
  for (size_t pos = 0; pos < ts->shape.n; pos++)
    for (size_t x = 0; x < ns; x++) {
      if (dim_pos(ts, p->sizes.v[x].name) != (int)pos) continue;
      dg_problem_default_sizes(p, sz);
      int64_t lo = sz[x], hi = -1;
      while (hi < 0 && lo < INT32_MAX) {
        sz[x] = lo * 2 > INT32_MAX ? INT32_MAX : lo * 2;
        if (!big_ok(p, target, sz, &off, true)) break;
        if ((double)dg_problem_numel(p, target, sz) > wrap) hi = sz[x]; else lo = sz[x];
      }
      if (hi < 0) continue;
      while (hi - lo > 1) {
        sz[x] = lo + (hi - lo) / 2;
        if (big_ok(p, target, sz, &off, true) && (double)dg_problem_numel(p, target, sz) > wrap) hi = sz[x];
        else lo = sz[x];
      }
      sz[x] = hi;
      /* a cap in lane operations (a 0.4 s cut until session 9, then a cap of 0: none) */
      double w = block_work_in(p, k, sz, (uint64_t)BIG_LANE_OPS);
      if (big_ok(p, target, sz, &off, true) && w >= 0 && w <= BIG_LANE_OPS) return true;
    }
  return false;
}

/* ---- one inner dimension past 2^31: decided by a concrete prefix ----
 * A row index times a row length in int (`q + base + (i) * D`, the query i
 * of attention_online) passes 2^31 only when the rows of one slice alone
 * hold 2^31 elements: i past 2^31 / D. big_case grows the outermost
 * dimensions first (a batch, the heads), so its offsets pass 2^31 while
 * every i * D stays small. Here one inner dimension x of the target grows
 * until its last index times the elements inside it passes 2^31, the
 * dimensions outside it at 1 (a later slice's base, a size_t, would carry
 * the wrapped offset back in bounds: a wrong row, not an access out of
 * bounds), the others at the spec's. The last block of such an instance
 * may walk the whole dimension (attention's 2^25 keys: 2.1e11 lane
 * operations), so the instance is kept only when the first PREFIX_OPS lane
 * operations of that block, on lazy zeros, already meet an engine finding
 * (the q loads come before the key loop): the check then runs the writer's
 * block to that prefix and no further (check.c's invert_writer, check_huge.c's
 * replay). A correct kernel meets none: no instance, nothing changes. */
#define PREFIX_OPS ((uint64_t)CHECK_PREFIX_OPS)

static bool prefix_finding(const dg_problem *p, const emu_kernels *k, const int64_t *sizes)
{
  bool *lazy = dg_calloc(p->tensors.n + 1, sizeof *lazy), found = false;
  for (size_t t = 0; t < p->tensors.n; t++)
    lazy[t] = check_huge_lazyable(&p->tensors.v[t]) && dg_problem_numel(p, (int)t, sizes) > CHECK_HUGE_SMALL;
  emu_io io;
  emu_result res = {0};
  dg_diags d = {0};
  int64_t last = blocks_at(p, sizes) - 1;
  emu_opts eo = { .blocks = &last, .nblocks = 1, .max_lane_ops = PREFIX_OPS, .deadline = work_deadline() };
  if (last >= 0 && emu_io_init_lazy(&io, p, sizes, lazy, zero_value, NULL, &d)) {
    if (emu_run(p, k, sizes, &io, &eo, &res, &d))
      for (size_t e = 0; e < res.events.n && !found; e++) {
        const simt_event *ev = &res.events.v[e];
        found = emu_event_is_finding(ev->kind) && (ev->kind != SIMT_EV_RUNAWAY || ev->endless);
      }
    emu_result_free(&res);
    emu_io_free(&io);
  }
  dg_diags_free(&d);
  free(lazy);
  return found;
}

static bool prefix_case(const dg_problem *p, const emu_kernels *k, int target, int64_t *sz, const int64_t *out, int n)
{
  const dg_tensor *ts = &p->tensors.v[target];
  size_t ns = p->sizes.n;
  int64_t dims[8];
  double off;
  for (size_t pos = 1; pos < ts->shape.n && ts->shape.n <= 8; pos++) {
    int x = -1;
    for (size_t y = 0; y < ns; y++) if (!strcmp(ts->shape.v[pos].text, p->sizes.v[y].name)) x = (int)y;
    if (x < 0) continue;
    dg_problem_default_sizes(p, sz);
    for (size_t y = 0; y < ns; y++) {       /* outside x: at 1 where the constraints take it */
      int q = dim_pos(ts, p->sizes.v[y].name);
      if (q < 0 || q >= (int)pos) continue;
      int64_t v = sz[y];
      sz[y] = 1;
      dg_diags d = {0};
      if (!dg_problem_check_sizes(p, sz, &d)) sz[y] = v;
      dg_diags_free(&d);
    }
    dg_diags d = {0};
    bool ok = dg_problem_shape(p, target, sz, dims, &d);
    dg_diags_free(&d);
    double inner = 1;
    for (size_t i = pos + 1; ok && i < ts->shape.n; i++) inner *= (double)dims[i];
    /* the least x whose last index times the elements inside it passes 2^31 */
    double want = floor(2147483648.0 / inner) + 2;
    if (!ok || inner < 1 || want > (double)INT32_MAX || want <= (double)sz[x]) continue;
    sz[x] = (int64_t)want;
    if (!fits_at(p, target, sz, true, &off) || !check_huge_flat_ids_fit(p, sz)) continue;
    bool seen = false;
    for (int j = 0; j < n && !seen; j++) seen = !memcmp(out + (size_t)j * ns, sz, sizeof *sz * ns);
    if (!seen && prefix_finding(p, k, sz)) return true;
  }
  return false;
}

/* ---- the fuzzer's instances, made cheaper ----
 * The fuzzer's chooser grows what its block sampling needs, not what one
 * element's symbolic run can take: conv2d_k3's x at C = 1281 (a block of 64
 * threads each summing 11,529 products: 32 s an element, symbolically) and
 * its w at C = 9103 with 4x4 pixels (16 threads of 81,927). A heavy instance
 * (a block's work past BIG_LANE_OPS) first has each size that is no
 * dimension of the target set to 1 where that lowers the work (w's H and W:
 * one thread walks the channels), then, still past BIG_LANE_MAX, is replaced
 * by big_case's instance for the same target when that one is kept
 * (big_keep) and works less (x with N, H and W grown, C at the spec's 3).
 * Decided by lane operations (a work limit), never by the clock. */
static void shrink_others(const dg_problem *p, const emu_kernels *k, int target, int64_t *sz, double *w)
{
  const dg_tensor *ts = &p->tensors.v[target];
  size_t ns = p->sizes.n;
  /* all of them at once first (each alone may still be past the cap: w's H
   * at 1 leaves 4 threads of 81,927 products), then one at a time (measured
   * up to WORK_CAP only: each costs chooser time outside the budget) */
  int64_t *all = dg_malloc(sizeof *all * (ns + 1));
  memcpy(all, sz, sizeof *all * ns);
  /* measured past block_work's cap (a heavy instance is -1 there): less than it did */
  uint64_t cap = *w > 0 ? (uint64_t)*w : SHRINK_CAP;
  for (size_t x = 0; x < ns; x++)
    if (dim_pos(ts, p->sizes.v[x].name) < 0 && all[x] > 1) all[x] = 1;
  double wa = memcmp(all, sz, sizeof *all * ns) && fits(p, target, all) && check_huge_flat_ids_fit(p, all)
              ? block_work_in(p, k, all, cap) : -1;
  if (wa >= 0 && (*w < 0 || wa < *w)) memcpy(sz, all, sizeof *all * ns), *w = wa;
  free(all);
  for (size_t x = 0; x < ns; x++) {
    if (dim_pos(ts, p->sizes.v[x].name) >= 0 || sz[x] <= 1) continue;
    int64_t v = sz[x];
    sz[x] = 1;
    double w1 = fits(p, target, sz) && check_huge_flat_ids_fit(p, sz)
                ? block_work_in(p, k, sz, *w > 0 ? (uint64_t)*w : WORK_CAP) : -1;
    if (w1 >= 0 && (*w < 0 || w1 < *w)) *w = w1;
    else sz[x] = v;
  }
}

static void cheaper_fuzz_case(const dg_problem *p, const emu_kernels *k, int target, int64_t *sz, const int64_t *out,
                              int n)
{
  double w = block_work(p, k, sz);
  if (w >= 0 && w <= BIG_LANE_OPS) return;
  shrink_others(p, k, target, sz, &w);
  if (w >= 0 && w <= BIG_LANE_MAX) return;
  size_t ns = p->sizes.n;
  int64_t *alt = dg_malloc(sizeof *alt * (ns + 1));
  if (big_case(p, target, alt, (double)HUGE_OFF, false) && big_keep(p, k, alt, out, n)) {
    double wa = block_work(p, k, alt);
    if (wa >= 0 && (w < 0 || wa < w)) memcpy(sz, alt, sizeof *alt * ns);
  }
  free(alt);
}

static int huge_sizes(const dg_problem *p, const emu_kernels *k, int64_t *out, int max);

int check_huge_sizes(const dg_problem *p, const emu_kernels *k, int64_t *out, int max, double deadline)
{
  big_deadline = deadline;
  memo.p = p, memo.n = 0;
  int n = deadline > 0 && dg_now() > deadline ? 0 : huge_sizes(p, k, out, max);
  if (deadline > 0 && dg_now() > deadline) n = 0;    /* spent while choosing: nothing is checked */
  big_deadline = 0;
  memo.p = NULL, memo.n = 0;
  return n;
}

static int huge_sizes(const dg_problem *p, const emu_kernels *k, int64_t *out, int max)
{
  /* blocks that communicate (global atomics): every writer block runs
   * symbolically, and the writer search walks every atomic of the huge
   * input (l2norm_atomic: minutes) — the answer could only be unknown */
  for (size_t i = 0; k && i < k->kern.n; i++)
    if (fuzz_huge_talks(k->kern.v[i])) return 0;
  fuzz_space s;
  fuzz_space_ctx ctx;
  fuzz_space_init(&s, &ctx, p, 0);
  int n = 0;
  size_t ns = p->sizes.n;
  bool *covered = dg_calloc(p->tensors.n + 1, sizeof *covered);
  for (int64_t ci = 0; n < max; ci++) {
    fuzz_case fc;
    memset(&fc, 0, sizeof fc);
    if (!fuzz_huge_case(&ctx, &s, ci, &fc)) break;
    int64_t *sz = out + (size_t)n * ns;
    fuzz_case_sizes(&ctx, &fc, sz);
    int target = -1;
    for (int t = 0; t < (int)p->tensors.n; t++)
      if (p->tensors.v[t].role == DG_TENSOR_INPUT &&
          (target < 0 || dg_problem_numel(p, t, sz) > dg_problem_numel(p, target, sz))) target = t;
    if (target < 0 || p->tensors.v[target].has_range) continue;   /* index values are held: too many */
    rebalance(p, target, sz);
    if (k) cheaper_fuzz_case(p, k, target, sz, out, n);
    dg_diags d = {0};
    int64_t threads = check_huge_threads(p, sz, &d);
    dg_diags_free(&d);
    if (threads < 0 || threads > CHECK_HUGE_THREADS) continue;   /* would be unknown: not checked */
    covered[target] = true;     /* else the big chooser below may find it one */
    bool seen = false;
    for (int j = 0; j < n && !seen; j++) seen = !memcmp(out + (size_t)j * ns, sz, sizeof *sz * ns);
    if (!seen) n++;
  }
  /* the inputs the fuzzer's chooser cannot make huge alone: with their
   * outputs, when a block's work stays small (big_keep: attention's keys
   * grow with the queries, T=2049 took its symbolic run 130 s and 3.7 GB);
   * then the outputs no instance so far makes huge (matmul's C = M*N with
   * small inputs: its store offset `row * N + col`) */
  for (int t = 0; t < (int)p->tensors.n && n < max; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t *sz = out + (size_t)n * ns;
    if (ts->role != DG_TENSOR_INPUT || ts->has_range || covered[t]) continue;
    if (!k || !big_case(p, t, sz, (double)HUGE_OFF, false)) continue;
    if (!big_keep(p, k, sz, out, n)) continue;
    covered[t] = true;
    n++;
  }
  /* an inner dimension past 2^31 alone, kept on a concrete prefix's finding */
  for (int t = 0; k && t < (int)p->tensors.n && n < max; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t *sz = out + (size_t)n * ns;
    if (ts->role != DG_TENSOR_INPUT || ts->has_range || covered[t] || !check_huge_lazyable(ts)) continue;
    if (!prefix_case(p, k, t, sz, out, n)) continue;
    covered[t] = true;
    n++;
  }
  for (int t = 0; t < (int)p->tensors.n && n < max; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t *sz = out + (size_t)n * ns;
    if (ts->role != DG_TENSOR_OUTPUT || !check_huge_lazyable(ts) || !k) continue;
    bool huge = false;             /* already past the offset at an instance so far, and not wrapping back in */
    for (int j = 0; j < n && !huge; j++) {
      double o = last_offset(p, t, out + (size_t)j * ns);
      huge = o >= (double)HUGE_OFF && o < 4294967296.0;
    }
    if (huge || !big_case(p, t, sz, (double)HUGE_OFF, false) || !big_keep(p, k, sz, out, n)) continue;
    n++;
  }
  /* unsigned 32-bit address arithmetic (`x + blockIdx.x * C`, C an int)
   * wraps only past 2^32 elements, and then back inside the tensor (a wrong
   * row: a value witness, check_wide.c): one instance more whose target
   * passes 1.25 * 2^32, for kernels that have such a product */
  for (int t = 0; k && t < (int)p->tensors.n && n < max && check_wide_u32(k); t++) {
    int64_t *sz = out + (size_t)n * ns;
    bool wide = false;
    for (int j = 0; j < n && !wide; j++) wide = last_offset(p, t, out + (size_t)j * ns) >= (double)WIDE_OFF;
    if (!check_huge_lazyable(&p->tensors.v[t]) || wide || wide_case(p, k, t, sz) < 0) continue;
    bool seen = false;
    for (int j = 0; j < n && !seen; j++) seen = !memcmp(out + (size_t)j * ns, sz, sizeof *sz * ns);
    if (!seen) n++;
  }
  for (int t = 0; k && t < (int)p->tensors.n && n < max && check_wide_total(k); t++) {
    int64_t *sz = out + (size_t)n * ns;
    if (p->tensors.v[t].role != DG_TENSOR_OUTPUT || !check_huge_lazyable(&p->tensors.v[t]) || !total_case(p, k, t, sz)) continue;
    bool seen = false;
    for (int j = 0; j < n && !seen; j++) seen = !memcmp(out + (size_t)j * ns, sz, sizeof *sz * ns);
    if (!seen) n++;
  }
  free(covered);
  /* the cheapest first, by a block's work (one that cannot be measured
   * last): matmul_regtile's fuzzer instance walks K = 1281 in a block and
   * spent the budget before the output's instance, which walks the spec's K */
  double *w = dg_malloc(sizeof *w * (size_t)(n + 1));
  int64_t *tmp = dg_malloc(sizeof *tmp * (ns + 1));
  for (int j = 0; j < n; j++) {
    w[j] = k && n > 1 ? block_work(p, k, out + (size_t)j * ns) : 0;
    if (w[j] < 0) w[j] = INFINITY;
  }
  for (int j = 1; j < n; j++)
    for (int i = j; i > 0 && w[i] < w[i - 1]; i--) {
      double x = w[i];
      w[i] = w[i - 1], w[i - 1] = x;
      memcpy(tmp, out + (size_t)i * ns, sizeof *tmp * ns);
      memcpy(out + (size_t)i * ns, out + (size_t)(i - 1) * ns, sizeof *tmp * ns);
      memcpy(out + (size_t)(i - 1) * ns, tmp, sizeof *tmp * ns);
    }
  free(w), free(tmp);
  return n;
}
