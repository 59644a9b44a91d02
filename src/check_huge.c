/* check_huge.c — the symbolic check at sizes beyond memory (issue #4).
 *
 * Int32 index arithmetic breaks only once a flat offset passes 2^31: the
 * input then has more elements than the checker can hold as doubles plus
 * engine bytes plus shadows. The check needs none of them:
 *  - the writer search runs the kernel's store slice (check_slice.c), which
 *    reads no memory; the symbolic machine reads input variables, not bytes;
 *  - so an input past CHECK_HUGE_ELEMS elements is an emu_io lazy tensor (no
 *    data) and, in the check's machines, a lazily filled reservation
 *    (emu_lazy.h) wrapped as an engine buffer (simt_buf_wrap: no shadow).
 *    Its size is the tensor's, so an int32-wrapped (negative) offset is an
 *    out-of-bounds access like any other. Touched bytes get the counter-based
 *    values of fuzz_ctr (seed, tensor, index), the same ones every time;
 *  - index-valued inputs (ranges) are set to the top of their range: the
 *    largest id times a row length is the offset that overflows;
 *  - an engine finding (out-of-bounds, ...) is replayed on the emulator with
 *    the same lazy inputs, running only the block the event names (emu_run
 *    block sampling); the verdict says whether it replayed;
 *  - a value difference is not replayed (a witness would need every input
 *    value in memory): the verdict is unknown and says so.
 * --auto's huge instance: the fuzzer's size chooser (fuzz_huge_case) and the
 * output elements at the end of the huge dimension (check_tail_locs, check_auto.c);
 * for an input that chooser cannot make huge alone (its output has its shape:
 * softmax, layernorm, transpose), an instance whose outputs are as large,
 * lazy and poisoned, their writers found by inverting the store addresses. */
#include "check_int.h"
#include "emu_lazy.h"
#include "fuzz_run.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK_HUGE_THREADS ((int64_t)1 << 29)
#define HUGE_OFF ((int64_t)5 << 29)      /* the target's last outermost offset: 1.25 * 2^31 (as fuzz_huge.c) */
#define WIDE_OFF ((int64_t)5 << 30)      /* and 1.25 * 2^32, where unsigned 32-bit offsets wrap (check_wide.c) */
#define SMALL_CAP ((int64_t)1 << 22)     /* elements of every other tensor (as fuzz_huge.c) */
#define BIG_BYTES ((int64_t)1 << 38)     /* address space of an instance's lazy tensors together */
#define BIG_LANE_OPS 1048576.0           /* lane operations of the two blocks measured, at most (big_keep) */
#define BIG_LANE_MAX 8388608.0           /* at most, when the grown sizes only add blocks */
#define BIG_WORK 1.5                     /* a block's work at a big instance, at most, in blocks' at half its sizes */

struct check_huge {
  fuzz_ctr *gen;            /* per tensor: the values of lazy inputs */
  bool *out;                /* per tensor: a lazy output (poison, no values) */
  bool noreplay;            /* a replay was asked for and not done */
  bool replayed;            /* a value witness replayed (check_wide.c) */
  check_wide *wide;         /* the witness's values of lazy inputs (check_wide.c); NULL none */
};

/* One lazy buffer of a machine: its reservation and what fills it. */
typedef struct { const emu_io *io; int t; dg_dtype dt; int es; bool poison; emu_lazy *z; } lazybuf;
#define LAZY_POISON 0xff           /* an output's bytes before a store: a NaN no arithmetic makes */
typedef struct { lazybuf *v; size_t n; } machlazy;

static bool flat_ids_fit(const dg_problem *p, const int64_t *sizes);

/* Threads of every launch at sizes (the writer search runs them all); -1 when one cannot be sized. */
static int64_t threads_at(const dg_problem *p, const int64_t *sizes, dg_diags *d)
{
  int64_t n = 0, g[3], b[3], sh;
  for (size_t i = 0; i < p->launches.n && n >= 0; i++)
    n = dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, d) ? n + g[0] * g[1] * g[2] * b[0] * b[1] * b[2] : -1;
  return n;
}

/* ---- inputs ------------------------------------------------------------------------ */
/* An input's counter-based value; an output's poison (NaN: what an
 * unwritten element reads as in the emulator's replay). */
static double gen_value(void *ud, int t, int64_t i)
{
  const struct check_huge *h = ud;
  double v;
  if (h->out[t]) return (double)NAN;
  return check_wide_lookup(h->wide, t, i, &v) ? v : fuzz_ctr_value(&h->gen[t], i);
}

check_wide **check_huge_wide(chk *c) { return c->huge ? &c->huge->wide : NULL; }

double check_huge_value(const chk *c, int t, int64_t i) { return gen_value(c->huge, t, i); }

void check_huge_replayed(chk *c) { if (c->huge) c->huge->replayed = true; }

/* A tensor the check can hold as a reservation: an input without a range
 * (its values are counter-based) or an output that does not accumulate
 * (poisoned until stored; never read back). */
static bool lazyable(const dg_tensor *ts)
{
  return (ts->role == DG_TENSOR_INPUT && !ts->has_range) || (ts->role == DG_TENSOR_OUTPUT && !ts->accumulate);
}

bool check_huge_io_init(chk *c, dg_diags *d)
{
  const dg_problem *p = c->p;
  bool *lazy = dg_calloc(p->tensors.n + 1, sizeof *lazy), any = false, past = false;
  for (size_t t = 0; t < p->tensors.n; t++) past |= dg_problem_numel(p, (int)t, c->sizes) > CHECK_HUGE_ELEMS;
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t n = dg_problem_numel(p, (int)t, c->sizes);
    /* once one tensor is past memory, every other one past SMALL_CAP that
     * can be is lazy too (an output as large as its input: no doubles, no
     * writer map of 9 bytes a byte) */
    lazy[t] = lazyable(ts) && (n > CHECK_HUGE_ELEMS || (past && n > SMALL_CAP));
    any |= lazy[t];
    if (n > CHECK_HUGE_ELEMS && !lazy[t]) {   /* values the check must hold: refuse, do not die */
      check_say(c->r, CHECK_ERROR, "%s '%s' has %lld elements at these sizes: more than %lld, which only an input "
                "without a range or an output can have (they are reserved lazily; %s are held in memory)",
                ts->role == DG_TENSOR_INPUT ? "index-valued input" : ts->role == DG_TENSOR_OUTPUT ?
                "accumulating output" : "tensor", ts->name, (long long)n, (long long)CHECK_HUGE_ELEMS,
                ts->role == DG_TENSOR_INPUT ? "index values" : ts->role == DG_TENSOR_OUTPUT ?
                "the values it accumulates onto" : "scratch contents");
      free(lazy);
      return false;
    }
  }
  if (!any) {
    free(lazy);
    return emu_io_init(&c->io, p, c->sizes, d);
  }
  /* the writer search runs every thread (a store slice, ~3e7 threads/s);
   * a lazy output has no search: its writer comes from the store addresses */
  int64_t threads = threads_at(p, c->sizes, d);
  if (threads > CHECK_HUGE_THREADS && !lazy[c->t]) {
    check_say(c->r, CHECK_UNKNOWN, "not checked: at these sizes the writer search would run %lld threads (more than "
              "%lld; an input past 2^28 elements is generated lazily, the threads are not)", (long long)threads,
              (long long)CHECK_HUGE_THREADS);
    free(lazy);
    return false;
  }
  struct check_huge *h = dg_calloc(1, sizeof *h);
  h->gen = dg_calloc(p->tensors.n + 1, sizeof *h->gen);
  h->out = dg_calloc(p->tensors.n + 1, sizeof *h->out);
  for (size_t t = 0; t < p->tensors.n; t++) h->out[t] = lazy[t] && p->tensors.v[t].role == DG_TENSOR_OUTPUT;
  uint64_t seed = c->r->seed;
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    h->gen[t] = (fuzz_ctr){ .key = fuzz_ctr_key(seed, (uint64_t)t), .dist = FUZZ_DIST_NORMAL,
                            .dtype = ts->dtype, .positive = ts->positive };
  }
  c->huge = h;
  bool ok = emu_io_init_lazy(&c->io, p, c->sizes, lazy, gen_value, h, d);
  free(lazy);
  return ok;
}

void check_huge_ranges(chk *c)
{
  if (!c->huge) return;
  const dg_problem *p = c->p;
  c->r->ranges_at_top = true;
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t lo, hi;
    dg_diags d = {0};
    if (ts->role == DG_TENSOR_INPUT && ts->has_range && c->io.data[t] &&
        dg_problem_range(p, (int)t, c->sizes, &lo, &hi, &d) && hi >= lo)
      for (int64_t i = 0; i < c->io.numel[t]; i++) c->io.data[t][i] = (double)hi;
    dg_diags_free(&d);
  }
}

bool check_huge_replay(chk *c)
{
  if (!c->huge) return false;
  c->huge->noreplay = true;
  return true;
}

/* ---- machines ---------------------------------------------------------------------- */
static void lazy_fill(void *ud, int64_t off, uint8_t *dst, int64_t n)
{
  const lazybuf *s = ud;
  if (s->poison) {                 /* an output: no value before a store */
    memset(dst, LAZY_POISON, (size_t)n);
    return;
  }
  int64_t first = off / s->es, last = (off + n + s->es - 1) / s->es;
  uint8_t tmp[16];
  for (int64_t i = first; i < last; i++) {
    dg_dtype_store(s->dt, tmp, 0, s->io->value(s->io->value_ud, s->t, i));
    for (int b = 0; b < s->es; b++) {
      int64_t o = i * s->es + b - off;
      if (o >= 0 && o < n) dst[o] = tmp[b];
    }
  }
}

int check_huge_buf(check_mach *cm, int t, const emu_io *io, char **err)
{
  const dg_tensor *ts = &cm->p->tensors.v[t];
  machlazy *ml = cm->huge;
  if (!ml) {
    ml = cm->huge = dg_calloc(1, sizeof *ml);
    ml->v = dg_calloc(cm->p->tensors.n + 1, sizeof *ml->v);
  }
  lazybuf *s = &ml->v[ml->n++];
  *s = (lazybuf){ io, t, ts->dtype, dg_dtypes[ts->dtype].size, ts->role == DG_TENSOR_OUTPUT, NULL };
  s->z = emu_lazy_new(io->numel[t] * s->es, lazy_fill, s, err);
  if (!s->z) return -1;
  return simt_buf_wrap(cm->m, ts->name, ir_type_scalar(check_tykind(ts->dtype)), emu_lazy_bytes(s->z),
                       emu_lazy_size(s->z), emu_buf_flags(ts));
}

void check_huge_mach_free(check_mach *cm)
{
  machlazy *ml = cm->huge;
  if (!ml) return;
  for (size_t i = 0; i < ml->n; i++) emu_lazy_free(ml->v[i].z);
  free(ml->v);
  free(ml);
  cm->huge = NULL;
}

bool check_huge_out(const chk *c)
{
  return c->huge && c->io.lazy && c->t >= 0 && c->t < c->io.ntensors && c->io.lazy[c->t];
}

bool check_huge_stored(check_mach *cm, int t, int64_t off)
{
  machlazy *ml = cm->huge;
  for (size_t i = 0; ml && i < ml->n; i++)
    if (ml->v[i].t == t && ml->v[i].poison && off >= 0 && off < emu_lazy_size(ml->v[i].z))
      return emu_lazy_bytes(ml->v[i].z)[off] != LAZY_POISON;    /* a dropped chunk refills as poison */
  return false;
}

bool check_huge_no_search(chk *c)
{
  if (!check_huge_out(c)) return false;
  /* why the inversion gave nothing (asked again: one solver call) */
  check_mach cm;
  simt_launch L;
  char *err = NULL;
  int64_t b, t;
  const char *why = "a pipeline";
  bool said = false;
  if (c->p->launches.n == 1 && check_mach_init(&cm, c->p, c->sizes, &c->io, NULL, &err)) {
    if (check_mach_dims(&cm, 0, &L, &err) && check_invert_writer(c, 0, &L, &b, &t, &why)) {
      why = "the block of the thread they give did not store it alone";
    } else if (why && strstr(why, "no thread's store address reaches") && flat_ids_fit(c->p, c->sizes)) {
      /* nobody stores the element: its natural writer's store went elsewhere
       * (`y + row * C` wrapped negative). The last block, run once, shows
       * where; a finding there is as real as the search's would be. Not past
       * 2^31 threads along a grid dimension: a kernel's flat int thread id
       * cannot reach them (an elementwise kernel's limit, not the bug looked
       * for); a 2-D grid may have more in all (matmul's M*N) */
      int64_t last = (int64_t)(L.grid[0] ? L.grid[0] : 1) * (L.grid[1] ? L.grid[1] : 1) * (L.grid[2] ? L.grid[2] : 1) - 1;
      cm.deadline = c->deadline;
      simt_status st = check_mach_launch(&cm, c->k, 0, &last, 1, &err);
      size_t ne;
      const simt_event *ev = simt_events(cm.m, &ne);
      said = st != SIMT_BADARGS && check_event_verdict(c, ev, ne, "concrete run on the emulator (the grid's last block: "
                                                       "no thread's store address reaches the element)");
      /* no finding there: the store went inside the tensor (check_wide.c) */
      if (!said && st == SIMT_OK) said = check_wide_unstored(c, &L);
      if (!said && st == SIMT_OK) said = check_wide_unwritten(c);
    }
    check_mach_free(&cm);
  }
  free(err);
  if (said) return true;
  check_say(c->r, CHECK_UNKNOWN, "not checked: '%s' has %lld elements at these sizes, past memory, so its writer "
            "is found only by inverting the store addresses, and they did not invert: %s",
            c->p->tensors.v[c->t].name, (long long)c->io.numel[c->t], why ? why : "no answer");
  return true;
}

/* ---- the end of a huge check ------------------------------------------------------------ */
/* An engine finding replayed on the emulator: only the block the event
 * names runs, on the same lazily filled inputs. True when the same kind of
 * event comes back at the same place; *why says otherwise why not. */
static bool replay_event(chk *c, const char **why)
{
  const dg_problem *p = c->p;
  const simt_event *ev = &c->r->event;
  if (p->launches.n != 1) {
    *why = "a pipeline runs every block of every launch, too many at these sizes";
    return false;
  }
  int64_t block = ev->block;
  emu_opts eo = { .blocks = &block, .nblocks = 1, .deadline = c->deadline };
  emu_result res = {0};
  dg_diags d = {0};
  bool same = false;
  if (emu_run(p, c->k, c->sizes, &c->io, &eo, &res, &d)) {
    for (size_t i = 0; i < res.events.n && !same; i++) {
      const simt_event *e = &res.events.v[i];
      same = e->kind == ev->kind && e->span.file == ev->span.file && e->span.line == ev->span.line;
    }
    if (!same && res.status == SIMT_STOPPED && c->deadline > 0 && dg_now() > c->deadline)
      *why = "the check's budget ran out in the emulator's run of that block";
    else if (!same) *why = "the emulator's run of that block did not report it";
  } else {
    *why = "the emulator could not start the launch";
  }
  emu_result_free(&res);
  dg_diags_free(&d);
  return same;
}

/* check.c's note on an equivalence (fixed_note), which is not what a huge check does */
#define FIXED_RANDOM "index-valued inputs fixed to random in-range values (seed in --explain)"

void check_huge_finish(chk *c)
{
  struct check_huge *h = c->huge;
  if (!h) return;
  check_result *r = c->r;
  const char *q;
  if (check_verdict_is_finding(r->verdict) && r->verdict != CHECK_BUG && r->have_event) {
    const char *why = NULL;
    char *reason = dg_strdup(r->reason ? r->reason : "");
    double t0 = dg_now();
    if (replay_event(c, &why))
      check_say(r, r->verdict, "%s; replayed on the emulator: block %" PRId64 " of this instance, inputs past "
                "2^28 elements filled lazily on touch", reason, r->event.block);
    else
      check_say(r, r->verdict, "%s; not replayed: %s", reason, why);
    r->t_replay += dg_now() - t0;
    free(reason);
  } else if (r->verdict == CHECK_BUG && h->replayed) {
    char *reason = dg_strdup(r->reason ? r->reason : "");
    check_say(r, CHECK_BUG, "%s: block %" PRId64 " of this instance alone, inputs past 2^28 elements filled lazily "
              "(the witness's values where it names them); the reference's term evaluated on the same values",
              reason, c->wblock);
    free(reason);
  } else if (r->verdict == CHECK_EQUIVALENT && r->reason && (q = strstr(r->reason, FIXED_RANDOM))) {
    char *reason = dg_printf("%.*sindex-valued inputs fixed to the top of their range (the largest offsets)%s",
                             (int)(q - r->reason), r->reason, q + strlen(FIXED_RANDOM));
    check_say(r, CHECK_EQUIVALENT, "%s", reason);
    free(reason);
  } else if (h->noreplay && r->verdict == CHECK_UNKNOWN) {
    /* check.c's "the witness did not replay" is not what happened: none ran */
    bool coarse = r->reason && strstr(r->reason, "did not replay");
    char *reason = dg_strdup(r->reason && !coarse ? r->reason : "");
    check_say(r, CHECK_UNKNOWN, "%s%sthe solver's candidate witness was not replayed: at these sizes an input "
              "past 2^28 elements is generated lazily, and a value witness needs every input in memory "
              "(check at smaller sizes for a replayed one)", reason, *reason ? "; " : "");
    free(reason);
  } else if (h->noreplay && r->verdict == CHECK_UNCHECKED && c->wl < 0) {
    check_say(r, CHECK_UNKNOWN, "no thread writes this element; not replayed at these sizes (inputs past "
              "2^28 elements are generated lazily)");
  }
  check_wide_free(h->wide);
  free(h->gen);
  free(h->out);
  free(h);
  c->huge = NULL;
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
static bool flat_ids_fit(const dg_problem *p, const int64_t *sizes)
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
    ok = n >= 0 && (t == target || n <= SMALL_CAP || (big && lazyable(ts)));
    if (n > SMALL_CAP) bytes += (double)n * dg_dtypes[ts->dtype].size;
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
 * shape: the fuzzer's chooser (every other tensor under SMALL_CAP) has no
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
  return fits_at(p, target, sz, true, off) && (!wide || flat_ids_fit(p, sz));
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

static double block_work_in(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, double secs);
static double block_work(const dg_problem *p, const emu_kernels *k, const int64_t *sizes)
{
  return block_work_in(p, k, sizes, 0.5);
}

static double block_work_in(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, double secs)
{
  bool *lazy = dg_calloc(p->tensors.n + 1, sizeof *lazy);
  for (size_t t = 0; t < p->tensors.n; t++)
    lazy[t] = lazyable(&p->tensors.v[t]) && dg_problem_numel(p, (int)t, sizes) > SMALL_CAP;
  emu_io io;
  emu_result res = {0};
  dg_diags d = {0};
  double work = -1;
  int64_t nb = blocks_at(p, sizes), which[2] = { nb / 2, nb - 1 };
  /* the last block too: the elements checked are the last ones (the middle
   * block of attention_online's (T/4, B*H) grid is its first queries, whose
   * keys do not grow with T) */
  emu_opts eo = { .blocks = which, .nblocks = nb > 1 ? 2 : 1, .max_loop_iters = (int64_t)1 << 24,
                  .deadline = dg_now() + secs };   /* a block like the spec's takes milliseconds */
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
     * ids are held, under SMALL_CAP), and a row or a reduction grows:
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
  if (!flat_ids_fit(p, sz)) return false;
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
 * (on the emulator, cut at WIDE_SECS) is kept, when its work is at most
 * WIDE_LANE_MAX: big_case's doubling grows attention_online's T (it adds
 * blocks) to 4097, where B*H at the grid's limit and D at 64 need T = 1281.
 * A writer block past BIG_LANE_MAX runs no symbolic run (check_huge_heavy):
 * a wrapped store needs none (its element has no writer, check_wide.c). */
#define WIDE_SECS 1.5
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
  static const double cut[] = { 0.1, 0.4, WIDE_SECS };
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
      double w = block_work_in(p, k, sz, 0.4);
      if (big_ok(p, target, sz, &off, true) && w >= 0 && w <= BIG_LANE_OPS) return true;
    }
  return false;
}

int check_huge_sizes(const dg_problem *p, const emu_kernels *k, int64_t *out, int max)
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
  for (int64_t k = 0; n < max; k++) {
    fuzz_case fc;
    memset(&fc, 0, sizeof fc);
    if (!fuzz_huge_case(&ctx, &s, k, &fc)) break;
    int64_t *sz = out + (size_t)n * ns;
    fuzz_case_sizes(&ctx, &fc, sz);
    int target = -1;
    for (int t = 0; t < (int)p->tensors.n; t++)
      if (p->tensors.v[t].role == DG_TENSOR_INPUT &&
          (target < 0 || dg_problem_numel(p, t, sz) > dg_problem_numel(p, target, sz))) target = t;
    if (target < 0 || p->tensors.v[target].has_range) continue;   /* index values are held: too many */
    rebalance(p, target, sz);
    dg_diags d = {0};
    int64_t threads = threads_at(p, sz, &d);
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
  for (int t = 0; t < (int)p->tensors.n && n < max; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int64_t *sz = out + (size_t)n * ns;
    if (ts->role != DG_TENSOR_OUTPUT || !lazyable(ts) || !k) continue;
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
    if (!lazyable(&p->tensors.v[t]) || wide || wide_case(p, k, t, sz) < 0) continue;
    bool seen = false;
    for (int j = 0; j < n && !seen; j++) seen = !memcmp(out + (size_t)j * ns, sz, sizeof *sz * ns);
    if (!seen) n++;
  }
  for (int t = 0; k && t < (int)p->tensors.n && n < max && check_wide_total(k); t++) {
    int64_t *sz = out + (size_t)n * ns;
    if (p->tensors.v[t].role != DG_TENSOR_OUTPUT || !lazyable(&p->tensors.v[t]) || !total_case(p, k, t, sz)) continue;
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
