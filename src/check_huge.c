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
 *  - a value difference is replayed by running the writer block alone with
 *    the witness's values in the lazy inputs (check_wide.c).
 * --auto's huge instances are chosen in check_big.c. */
#include "check_int.h"
#include "emu_lazy.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


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


/* Threads of every launch at sizes (the writer search runs them all); -1 when one cannot be sized. */
int64_t check_huge_threads(const dg_problem *p, const int64_t *sizes, dg_diags *d)
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
bool check_huge_lazyable(const dg_tensor *ts)
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
    /* once one tensor is past memory, every other one past CHECK_HUGE_SMALL that
     * can be is lazy too (an output as large as its input: no doubles, no
     * writer map of 9 bytes a byte) */
    lazy[t] = check_huge_lazyable(ts) && (n > CHECK_HUGE_ELEMS || (past && n > CHECK_HUGE_SMALL));
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
  int64_t threads = check_huge_threads(p, c->sizes, d);
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
    } else if (why && strstr(why, "no thread's store address reaches") && check_huge_flat_ids_fit(c->p, c->sizes)) {
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

#define REPLAY_SECS 10
#define DG_STR_(x) #x
#define DG_STR(x) DG_STR_(x)

/* ---- the end of a huge check ------------------------------------------------------------ */
/* An engine finding replayed on the emulator: only the block the event
 * names runs, on the same lazily filled inputs. True when the same kind of
 * event comes back at the same place; *why says otherwise why not. */
static bool replay_event(chk *c, const char **why, bool *in_prefix)
{
  const dg_problem *p = c->p;
  const simt_event *ev = &c->r->event;
  *in_prefix = false;
  if (p->launches.n != 1) {
    *why = "a pipeline runs every block of every launch, too many at these sizes";
    return false;
  }
  int64_t block = ev->block;
  /* the block's first CHECK_PREFIX_OPS lane operations first: an event met
   * there is met by the whole run too (a prefix of the same execution), and
   * a heavy block then costs no more (matmul_tn_naive's writer at load:
   * "the check's budget ran out" replaying a load met at its start); then,
   * unless the check found it in that prefix itself, at most REPLAY_SECS of
   * the whole block */
  bool same = false;
  for (int pass = 0; pass < 2 && !same; pass++) {
    double dl = dg_now() + REPLAY_SECS;
    emu_opts eo = { .blocks = &block, .nblocks = 1, .deadline = c->deadline > 0 && c->deadline < dl ? c->deadline : dl,
                    .max_lane_ops = pass == 0 ? CHECK_PREFIX_OPS : 0 };
    emu_result res = {0};
    dg_diags d = {0};
    bool more = false;
    if (emu_run(p, c->k, c->sizes, &c->io, &eo, &res, &d)) {
      for (size_t i = 0; i < res.events.n && !same; i++) {
        const simt_event *e = &res.events.v[i];
        same = e->kind == ev->kind && e->span.file == ev->span.file && e->span.line == ev->span.line;
      }
      bool work = pass == 0 && res.status == SIMT_STOPPED && res.lane_ops > CHECK_PREFIX_OPS;
      *in_prefix = same && work;
      more = !same && work && !c->prefix;
      if (!same && res.status == SIMT_STOPPED && c->deadline > 0 && dg_now() > c->deadline)
        *why = "the check's budget ran out in the emulator's run of that block", more = false;
      else if (!same && work && c->prefix)
        *why = "the emulator's run of that block, cut at the same prefix, did not report it";
      else if (!same && res.status == SIMT_STOPPED)
        *why = "the emulator's run of that block was cut at " DG_STR(REPLAY_SECS) " s before it";
      else if (!same) *why = "the emulator's run of that block did not report it";
    } else {
      *why = "the emulator could not start the launch";
    }
    emu_result_free(&res);
    dg_diags_free(&d);
    if (!more) break;
  }
  if (same) *why = NULL;
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
    bool in_prefix;
    bool same = replay_event(c, &why, &in_prefix);
    if (same) {
      /* a witness file names the sizes, the seed, the block and the prefix:
       * `dirigo replay` runs that block alone again (check_block_replay) */
      r->block_witness = true;
      r->witness_block = r->event.block;
      r->witness_ops = in_prefix ? CHECK_PREFIX_OPS : 0;
    }
    if (same && in_prefix && !c->prefix)
      check_say(r, r->verdict, "%s; replayed on the emulator: block %" PRId64 " of this instance (met in its first "
                "%llu lane operations), inputs past 2^28 elements filled lazily on touch", reason, r->event.block,
                (unsigned long long)CHECK_PREFIX_OPS);
    else if (same && c->prefix)
      check_say(r, r->verdict, "%s; replayed on the emulator: block %" PRId64 " of this instance, cut at the same "
                "prefix (%llu lane operations), inputs past 2^28 elements filled lazily on touch", reason,
                r->event.block, (unsigned long long)CHECK_PREFIX_OPS);
    else if (!why)
      check_say(r, r->verdict, "%s; replayed on the emulator: block %" PRId64 " of this instance, inputs past "
                "2^28 elements filled lazily on touch", reason, r->event.block);
    else
      check_say(r, r->verdict, "%s; not replayed: %s", reason, why);
    r->t_replay += dg_now() - t0;
    free(reason);
  } else if (r->verdict == CHECK_BUG && h->replayed) {
    /* no witness inputs: a lazy input's values are the table's and the
     * counter's, and a witness file or a GPU replay would hold (and
     * allocate) every element of every tensor at these sizes */
    for (int t = 0; r->inputs && t < r->ntensors; t++) free(r->inputs[t]);
    free(r->inputs), free(r->numel);
    r->inputs = NULL, r->numel = NULL, r->ntensors = 0;
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
  check_huge_free(c);
}

void check_huge_free(chk *c)
{
  struct check_huge *h = c->huge;
  if (!h) return;
  check_wide_free(h->wide);
  free(h->gen);
  free(h->out);
  free(h);
  c->huge = NULL;
}
