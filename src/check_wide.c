/* check_wide.c — value witnesses at sizes beyond memory, and kernels whose
 * address arithmetic is unsigned 32-bit.
 *
 * `x + blockIdx.x * C` (C an int) is an unsigned 32-bit product: it wraps
 * only once the offset passes 2^32, and then to an offset inside the tensor.
 * The block reads (or writes) the wrong row: no out-of-bounds access, a
 * wrong value. Such a witness names input elements past 2^28 — a lazy
 * tensor of the check's huge instance (check_huge.c), no data in memory —
 * so it is replayed like this:
 *  - the witness's values of lazy inputs are a table (tensor, index, value)
 *    that the lazy fill consults before its counter-based values
 *    (check_wide_lookup: a binary search, safe in the fill's signal handler);
 *  - the writer block alone runs on the emulator's concrete machine with
 *    every input filled that way, and the element is read back from the
 *    output's reservation;
 *  - the reference is the reference's term (check_ref.c, built from the
 *    op's Lua reference for this element) evaluated on exactly the values
 *    the run read: held inputs from the witness, lazy ones from the table,
 *    or the counter-based value of an element the witness leaves alone.
 * A difference beyond tolerance is a replayed bug, as at any size.
 * Also here: draws of normal values before the solver at huge sizes
 * (check_huge_quick); a store that wrapped (no thread stores the element,
 * two blocks store the one 2^32 below: a race, each block run alone); a
 * count that wrapped small (no thread stores the element in a grid small
 * enough to run whole: a bug); the writer block too heavy for a symbolic
 * run (check_huge_heavy); and which kernels have such arithmetic
 * (check_wide_u32, check_wide_total: --auto's instances past 2^32 then,
 * check_big.c). */
#include "check_int.h"
#include "dom_sym.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int t; int64_t i; double v; } wide_val;
struct check_wide { wide_val *v; size_t n, cap; };

static int cmp_val(const void *a, const void *b)
{
  const wide_val *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

bool check_wide_lookup(const check_wide *w, int t, int64_t i, double *v)
{
  if (!w || !w->n) return false;
  size_t lo = 0, hi = w->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const wide_val *e = &w->v[mid];
    if (e->t == t && e->i == i) {
      *v = e->v;
      return true;
    }
    if (e->t < t || (e->t == t && e->i < i)) lo = mid + 1; else hi = mid;
  }
  return false;
}

void check_wide_free(check_wide *w)
{
  if (!w) return;
  free(w->v);
  free(w);
}

/* The table of c's lazy inputs, emptied (NULL: c is not huge). */
static check_wide *table(chk *c)
{
  check_wide **slot = check_huge_wide(c);
  if (!slot) return NULL;
  if (!*slot) *slot = dg_calloc(1, sizeof **slot);
  (*slot)->n = 0;
  return *slot;
}

/* Input tensor of variable i when it is lazy (no data), else -1. */
static int lazy_input(const chk *c, size_t i, int64_t *idx)
{
  const term_varinfo *vi = term_var_info(c->tc, i);
  if (vi->kind != TERM_VAR_INPUT) return -1;
  int t = dg_problem_tensor(c->p, vi->tensor);
  if (t < 0 || !c->io.lazy || !c->io.lazy[t] || c->p->tensors.v[t].role != DG_TENSOR_INPUT ||
      vi->index < 0 || vi->index >= c->io.numel[t])
    return -1;
  *idx = vi->index;
  return t;
}

static void sort_table(check_wide *w)
{
  if (w->n > 1) qsort(w->v, w->n, sizeof *w->v, cmp_val);     /* v is NULL while empty */
}

void check_huge_witness(chk *c, const term_value *vals, size_t nvals)
{
  check_wide *w = table(c);
  if (!w || !vals || !c->tc) return;
  for (size_t i = 0; i < nvals && i < term_var_count(c->tc); i++) {
    int64_t idx;
    int t = lazy_input(c, i, &idx);
    if (t < 0) continue;
    const dg_tensor *ts = &c->p->tensors.v[t];
    double v = dg_dtypes[ts->dtype].is_float ? vals[i].f : (double)vals[i].i;
    v = dg_dtype_round(ts->dtype, v);          /* as check_witness_inputs puts a held input's */
    dg_vec_push(w, ((wide_val){ t, idx, ts->positive ? fabs(v) : v }));
  }
  sort_table(w);
}

void check_huge_search_vals(chk *c, term_value *vals, size_t nvals, fuzz_dist dist, uint64_t seed, double scale)
{
  check_wide *w = table(c);
  if (!w || !c->tc) return;
  for (size_t i = 0; i < nvals && i < term_var_count(c->tc); i++) {
    int64_t idx;
    int t = lazy_input(c, i, &idx);
    if (t < 0) continue;
    const dg_tensor *ts = &c->p->tensors.v[t];
    int64_t row = c->dims[t][ts->shape.n ? ts->shape.n - 1 : 0];
    fuzz_ctr g = { .key = fuzz_ctr_key(seed, (uint64_t)t), .dist = dist, .dtype = ts->dtype,
                   .positive = ts->positive, .row = ts->shape.n ? row : 0, .n = c->io.numel[t] };
    double v = fuzz_ctr_value(&g, idx);
    if (scale > 0) v = dg_dtype_round(ts->dtype, 1 + scale * v);
    vals[i].f = v, vals[i].i = (int64_t)v;
    dg_vec_push(w, ((wide_val){ t, idx, v }));
  }
  sort_table(w);
}

/* ---- the replay ------------------------------------------------------------------ */
/* The reference's term on the values a run reads: held inputs from in (or
 * c's), lazy ones as their fill gives them. */
static double ref_value(chk *c, double **in, bool *err)
{
  const dg_problem *p = c->p;
  size_t nv = term_var_count(c->tc);
  term_value *vals = dg_calloc(nv + 1, sizeof *vals);
  for (size_t i = 0; i < nv; i++) {
    const term_varinfo *vi = term_var_info(c->tc, i);
    int t = vi->kind == TERM_VAR_INPUT ? dg_problem_tensor(p, vi->tensor) : -1;
    int64_t idx;
    double v = 0;
    double *held = t >= 0 ? (in && in[t] ? in[t] : c->io.data[t]) : NULL;
    if (held && vi->index >= 0 && vi->index < c->io.numel[t]) v = held[vi->index];
    else if ((t = lazy_input(c, i, &idx)) >= 0) v = check_huge_value(c, t, idx);
    else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "+inf")) v = INFINITY;
    else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "-inf")) v = -INFINITY;
    vals[i].f = v, vals[i].i = (int64_t)v;
  }
  double r = term_eval(c->tc, c->ref, vals, err).f;
  free(vals);
  return r;
}

bool check_huge_replay_value(chk *c, double **in, double *got, double *want)
{
  const dg_problem *p = c->p;
  *got = *want = NAN;
  if (p->launches.n != 1 || c->wl != 0 || !c->ref || !c->tc) {
    check_huge_replay(c);                  /* not replayed: said at the end */
    return false;
  }
  /* the inputs as the run reads them: held ones from the witness */
  emu_io io = c->io;
  io.data = dg_calloc(p->tensors.n + 1, sizeof *io.data);
  for (size_t t = 0; t < p->tensors.n; t++) io.data[t] = in && in[t] ? in[t] : c->io.data[t];
  check_mach cm;
  char *err = NULL;
  bool ran = false, stored = false;
  double t0 = dg_now();
  if (check_mach_init(&cm, p, c->sizes, &io, NULL, &err)) {
    int64_t block = c->wblock;
    cm.deadline = c->deadline;
    simt_status st = check_mach_launch(&cm, c->k, 0, &block, 1, &err);
    ran = st == SIMT_OK;
    if (st == SIMT_STOPPED && check_out_of_time(c)) c->cut = true;
    uint8_t b[16] = {0};
    if (ran && c->es <= 16) {
      simt_buf_read(cm.m, cm.bufs[c->t], c->off, b, c->es);
      for (int i = 0; i < c->es && !stored; i++) stored = b[i] != 0xff;   /* a lazy output's poison */
      if (!check_huge_out(c)) stored = true;
      *got = dg_dtype_load(p->tensors.v[c->t].dtype, b, 0);
    }
  }
  check_mach_free(&cm);
  free(err);
  free(io.data);
  c->r->t_replay += dg_now() - t0;
  if (!ran || !stored) {
    check_huge_replay(c);
    return false;
  }
  /* the reference on the same values */
  bool e = false;
  *want = ref_value(c, in, &e);
  if (e || !isfinite(*want)) return false;
  bool differs = fuzz_elem_check(p->tensors.v[c->t].dtype, *got, *want, dg_problem_tol(p, c->t)) != FUZZ_ELEM_OK;
  if (differs) check_huge_replayed(c);
  return differs;
}

/* ---- a witness before the solver -------------------------------------------------- */
/* At a huge instance a value bug is a wrong row: the two terms read
 * different input variables and differ on almost any values, while the
 * solver may spend its whole timeout on the exp and divisions of a softmax
 * (softmax_block's unsigned row offset: 10 s, then search_witness found it
 * on its first draw). So a few draws of normal values first (the lazy
 * inputs' through the table), each difference replayed as any witness. */
#define QUICK_DRAWS 4

bool check_huge_quick(chk *c, dg_term kt, dg_term rt)
{
  if (!c->huge || !c->tc || !kt || !rt || kt == rt) return false;   /* one term: no draw can differ */
  const dg_problem *p = c->p;
  size_t nv = term_var_count(c->tc);
  term_value *vals = dg_calloc(nv + 1, sizeof *vals);
  bool found = false;
  for (uint64_t k = 0; k < QUICK_DRAWS && !found && !check_out_of_time(c); k++) {
    for (size_t i = 0; i < nv; i++) {
      const term_varinfo *vi = term_var_info(c->tc, i);
      int t = vi->kind == TERM_VAR_INPUT ? dg_problem_tensor(p, vi->tensor) : -1;
      double v = 0;
      if (t >= 0 && c->io.data[t] && vi->index >= 0 && vi->index < c->io.numel[t]) v = c->io.data[t][vi->index];
      else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "+inf")) v = INFINITY;
      else if (vi->kind == TERM_VAR_FREE && !strcmp(vi->tensor, "-inf")) v = -INFINITY;
      vals[i].f = v, vals[i].i = (int64_t)v;
    }
    check_huge_search_vals(c, vals, nv, FUZZ_DIST_NORMAL, c->r->seed * 104729 + k, 0);
    bool e1 = false, e2 = false;
    double kv = term_eval(c->tc, kt, vals, &e1).f, rv = term_eval(c->tc, rt, vals, &e2).f;
    if (e1 || e2 || !isfinite(rv) ||
        fuzz_elem_check(p->tensors.v[c->t].dtype, kv, rv, dg_problem_tol(p, c->t)) == FUZZ_ELEM_OK)
      continue;
    found = check_try_values(c, vals, nv, "normal values drawn for every input the terms read (huge sizes: "
                                          "before the solver)");
  }
  free(vals);
  return found;
}

/* ---- an element nothing writes, in a grid small enough to run whole -------------- */
#define WHOLE_BLOCKS 4096
#define WHOLE_SECS 3.0

bool check_wide_unwritten(chk *c)
{
  const dg_problem *p = c->p;
  if (!check_huge_out(c) || p->launches.n != 1 || c->es > 16) return false;
  check_mach cm;
  simt_launch L;
  char *err = NULL;
  bool said = false, ended = false, stored = true;
  int64_t nb = 0;
  if (!check_mach_init(&cm, p, c->sizes, &c->io, NULL, &err)) {
    free(err);
    return false;
  }
  if (check_mach_dims(&cm, 0, &L, &err)) {
    nb = (int64_t)(L.grid[0] ? L.grid[0] : 1) * (L.grid[1] ? L.grid[1] : 1) * (L.grid[2] ? L.grid[2] : 1);
    if (nb <= WHOLE_BLOCKS) {
      int64_t *blocks = dg_malloc(sizeof *blocks * (size_t)nb);
      for (int64_t i = 0; i < nb; i++) blocks[i] = i;
      double dl = dg_now() + WHOLE_SECS;
      cm.deadline = c->deadline > 0 && c->deadline < dl ? c->deadline : dl;
      simt_status st = check_mach_launch(&cm, c->k, 0, blocks, (int)nb, &err);
      free(blocks);
      size_t ne;
      const simt_event *ev = simt_events(cm.m, &ne);
      said = st != SIMT_BADARGS && check_event_verdict(c, ev, ne, "concrete run on the emulator (every block of "
                                                       "this instance: no thread's store address reaches the element)");
      ended = st == SIMT_OK;
      uint8_t b[16];
      if (ended && !said) {
        simt_buf_read(cm.m, cm.bufs[c->t], c->off, b, c->es);
        stored = false;
        for (int i = 0; i < c->es && !stored; i++) stored = b[i] != 0xff;    /* the output's poison */
      }
    }
  }
  check_mach_free(&cm);
  free(err);
  if (said) return true;
  if (!ended || stored) return false;
  /* the reference's value of the element (it may leave it undefined) */
  if (!c->tc) {
    c->tc = term_ctx_new(c->o->model);
    c->sym = dom_sym_new(c->tc);
  }
  c->ref = check_ref_term(c);
  if (!c->ref) return true;            /* check_ref_term said: unchecked, or unknown */
  bool e = false;
  double want = ref_value(c, NULL, &e);
  if (e || !isfinite(want)) return false;
  c->r->have_values = true;
  c->r->kernel_value = NAN, c->r->ref_value = want;
  check_say(c->r, CHECK_BUG, "no thread writes this element (reference %.9g; its store addresses, inverted: none "
            "reaches it; replayed on the emulator: all %" PRId64 " blocks of this instance ran and left it unwritten, "
            "inputs past 2^28 elements filled lazily on touch)", want, nb);
  return true;
}

/* ---- the symbolic run's share --------------------------------------------------- */
/* The instances --auto builds keep a block's work small (check_big.c's
 * big_keep), except the fuzzer's (matmul's K = 5121, conv2d_k3's C = 1281:
 * 2e7-4e7 lane operations a block) and those past 2^32, built for
 * mutants' stores that wrap and need no symbolic run. At a huge instance
 * the writer's block runs once concretely (cut past HEAVY_LANE_OPS lane
 * operations, a work limit: the same decision at any load): an engine
 * finding there is the verdict (matmul_tiled's `a + row * K` in int32);
 * past BIG_LANE_MAX lane operations, an instance past 2^32 elements runs no
 * symbolic run (unknown at once: attention's online softmax at 1.3e7 took
 * 130-300 s and 3.7 GB, its normal form not watching the deadline), any
 * other gets half of what is left of the budget (the cost per lane
 * operation varies a hundredfold: matmul_regtile's 5.5e6 take 0.5 s), so
 * the instances after it still run. With no budget nothing changes. */
#define HEAVY_LANE_OPS 8388608.0     /* check_huge.c's BIG_LANE_MAX: one element's symbolic run in seconds */

/* An instance with a tensor past 2^32 elements (check_big.c's wide_case and
 * total_case, for mutants' 32-bit products): its blocks' work is not
 * capped as the others' is. */
static bool past_2_32(const chk *c)
{
  for (int t = 0; t < c->io.ntensors; t++) if (c->io.numel[t] > ((int64_t)1 << 32)) return true;
  return false;
}

bool check_huge_heavy(chk *c)
{
  /* without a budget the check may take what it takes (as before) */
  if (!c->huge || c->p->launches.n != 1 || c->wl != 0 || c->deadline <= 0) return false;
  check_mach cm;
  char *err = NULL;
  bool heavy = false, said = false;
  uint64_t ops = 0;
  if (check_mach_init(&cm, c->p, c->sizes, &c->io, NULL, &err)) {
    int64_t b = c->wblock;
    /* cut by work, not by the clock (session 9: a 1 s cut made the verdict
     * depend on the machine's load); the budget stays the last stop */
    cm.deadline = c->deadline;
    cm.max_lane_ops = (uint64_t)HEAVY_LANE_OPS;
    simt_status st = check_mach_launch(&cm, c->k, 0, &b, 1, &err);
    ops = simt_last_stats(cm.m).lane_ops;
    heavy = (double)ops > HEAVY_LANE_OPS;
    /* what that run (or its first HEAVY_LANE_OPS) met is as real as the
     * symbolic run's would be: matmul_tiled's `a + row * K` in int32 at K =
     * 5121. Light blocks too (session 9): conv2d_k3's filter offset wrapped
     * at C = 9103 with one pixel: the symbolic run of its 81,927
     * out-of-bounds loads took 33 s past a 20 s budget, this run 0.1 s */
    size_t ne;
    const simt_event *ev = simt_events(cm.m, &ne);
    said = st != SIMT_BADARGS &&
           check_event_verdict(c, ev, ne, heavy ? "concrete run on the emulator (the writer's block, too much work for a "
                                                  "symbolic run)" : "concrete run on the emulator (the writer's block)");
  }
  check_mach_free(&cm);
  free(err);
  if (said) return true;
  if (heavy && !past_2_32(c)) {
    /* the fuzzer's and big instances keep their symbolic run (matmul's
     * inner products are cheap per lane operation: K = 5121 is proved),
     * with half of what is left, so the instances after it still run
     * (conv2d_k3's third, where its mutant's filter offset wraps) */
    double now = dg_now();
    c->deadline = now + (c->deadline - now) / 2;
    return false;
  }
  if (heavy)
    check_say(c->r, CHECK_UNKNOWN, "not checked: the writer's block (%" PRId64 ") does %s%llu lane operations at "
              "these sizes, past what one element's symbolic run can take (%.0f; attention_online's keys at T = "
              "2049 took minutes and gigabytes)", c->wblock, ops > HEAVY_LANE_OPS ? "" : "more than ",
              (unsigned long long)ops, HEAVY_LANE_OPS);
  return heavy;
}

/* ---- a store that wrapped to another row ---------------------------------------- */
/* Block b alone on the emulator (concrete, lazy tensors as the check's):
 * false when it did not end; *ev_said when its engine finding is now the
 * verdict; else *stored and the element's bytes. */
static bool run_block(chk *c, int64_t b, int64_t flat, bool *ev_said, bool *stored, uint8_t *bytes)
{
  check_mach cm;
  char *err = NULL;
  bool ok = false;
  *ev_said = *stored = false;
  if (check_mach_init(&cm, c->p, c->sizes, &c->io, NULL, &err)) {
    cm.deadline = c->deadline;
    simt_status st = check_mach_launch(&cm, c->k, 0, &b, 1, &err);
    size_t ne;
    const simt_event *ev = simt_events(cm.m, &ne);
    char *when = dg_printf("concrete run on the emulator (block %" PRId64 " alone, a writer of the element 2^32 "
                           "elements below: no thread's store address reaches this one)", b);
    *ev_said = st != SIMT_BADARGS && check_event_verdict(c, ev, ne, when);
    free(when);
    ok = st == SIMT_OK;
    if (ok && !*ev_said) {
      simt_buf_read(cm.m, cm.bufs[c->t], flat * c->es, bytes, c->es);
      for (int i = 0; i < c->es && !*stored; i++) *stored = bytes[i] != 0xff;    /* the output's poison */
    }
  }
  check_mach_free(&cm);
  free(err);
  return ok;
}

bool check_wide_unstored(chk *c, const simt_launch *L)
{
  const int64_t wrap = (int64_t)1 << 32;
  const dg_problem *p = c->p;
  if (c->flat < wrap || c->es > 16 || !check_huge_out(c)) return false;
  int64_t k = c->flat - wrap, b[2], t[2];
  if (!check_invert_two(c, 0, L, k, b, t) || b[0] == b[1]) return false;
  uint8_t v[2][16];
  for (int i = 0; i < 2; i++) {
    bool said, stored;
    if (!run_block(c, b[i], k, &said, &stored, v[i])) return false;
    if (said) return true;
    if (!stored) return false;
  }
  if (!memcmp(v[0], v[1], (size_t)c->es)) return false;     /* the same value: a benign race */
  const dg_tensor *ts = &p->tensors.v[c->t];
  int64_t idx[8], f = k;
  for (int d = (int)ts->shape.n - 1; d >= 0; d--) idx[d] = f % c->dims[c->t][d], f /= c->dims[c->t][d];
  dg_buf e = {0};
  check_format_elem(&e, p, c->t, idx, (int)ts->shape.n);
  check_say(c->r, CHECK_RACE, "no thread stores this element (its store addresses, inverted: none reaches it); "
            "the element 2^32 elements below it, %s, is stored by two blocks (an offset wrapped past 2^32 "
            "elements): on the emulator block %" PRId64 " alone leaves %.9g there and block %" PRId64 " alone %.9g, "
            "so its value depends on which block the GPU runs last (replayed: each block of this instance alone, "
            "inputs past 2^28 elements filled lazily on touch)",
            e.s, b[0], dg_dtype_load(ts->dtype, v[0], 0), b[1], dg_dtype_load(ts->dtype, v[1], 0));
  dg_buf_free(&e);
  return true;
}

/* ---- unsigned 32-bit address arithmetic ------------------------------------------ */
typedef DG_VEC(const dg_func *) funcset;

static const dg_expr *uncast(const dg_expr *e)
{
  while (e && e->kind == DG_EX_CAST) e = e->a;
  return e;
}

/* An unsigned 32-bit product (or shift) whose operands are not both
 * builtins: `blockIdx.x * C` wraps once the tensor passes 2^32 elements,
 * `blockIdx.x * blockDim.x` only past 2^32 threads along a dimension, which
 * no instance has (flat ids fit an int) */
static bool product_of(const dg_expr *e, dg_tykind ty)
{
  if (!e || !e->type || e->type->kind != ty) return false;
  if (e->kind == DG_EX_BINARY && (e->op == DG_BIN_MUL || e->op == DG_BIN_SHL)) {
    const dg_expr *a = uncast(e->a), *b = uncast(e->b);
    return !(a && b && a->kind == DG_EX_BUILTIN && b->kind == DG_EX_BUILTIN);
  }
  if (e->kind == DG_EX_BINARY && (e->op == DG_BIN_ADD || e->op == DG_BIN_SUB))
    return product_of(e->a, ty) || product_of(e->b, ty);
  return false;
}

static bool has_product(const dg_expr *e) { return product_of(e, DG_TY_U32); }

/* A 64-bit integer made of one: `size_t base = blockIdx.y * T * D` wraps
 * before it widens */
static bool widened_product(const dg_expr *e, dg_tykind ty)
{
  return e && e->kind == DG_EX_CAST && e->op == DG_CAST_CONVERT && e->type &&
         (e->type->kind == DG_TY_U64 || e->type->kind == DG_TY_I64) && product_of(e->a, ty);
}

/* A pointer into memory that is not known to be __shared__ or local. */
static bool global_ptr(const dg_expr *e)
{
  return e && e->type && e->type->kind == DG_TY_PTR && e->type->space != DG_AS_SHARED &&
         e->type->space != DG_AS_LOCAL;
}

static bool u32_func(const dg_func *f, funcset *seen, int mode);
static bool u32_expr(const dg_expr *e, funcset *seen, int mode)
{
  if (!e) return false;
  if (mode == 0 && (e->kind == DG_EX_BINARY || e->kind == DG_EX_ASSIGN) && e->op == DG_BIN_PTRADD &&
      global_ptr(e->a) && has_product(e->b))
    return true;
  if (mode == 0 && e->kind == DG_EX_INDEX && global_ptr(e->a) && has_product(e->b)) return true;
  if (widened_product(e, mode == 0 ? DG_TY_U32 : DG_TY_I32)) return true;
  if (e->kind == DG_EX_CALL && e->func && u32_func(e->func, seen, mode)) return true;
  if (u32_expr(e->a, seen, mode) || u32_expr(e->b, seen, mode) || u32_expr(e->c, seen, mode)) return true;
  for (int i = 0; i < e->nargs; i++) if (u32_expr(e->args[i], seen, mode)) return true;
  return false;
}

static bool u32_stmt(const dg_stmt *s, funcset *seen, int mode)
{
  if (!s) return false;
  if (u32_expr(s->e, seen, mode) || u32_expr(s->step, seen, mode) || u32_stmt(s->init, seen, mode) ||
      u32_stmt(s->then, seen, mode) || u32_stmt(s->els, seen, mode))
    return true;
  for (int i = 0; i < s->ninits; i++) if (u32_expr(s->inits[i], seen, mode)) return true;
  for (int i = 0; i < s->nbody; i++) if (u32_stmt(s->body[i], seen, mode)) return true;
  return false;
}

static bool u32_func(const dg_func *f, funcset *seen, int mode)
{
  for (size_t i = 0; i < seen->n; i++) if (seen->v[i] == f) return false;
  dg_vec_push(seen, f);
  return u32_stmt(f->body, seen, mode);
}

static bool any_kernel(const emu_kernels *k, int mode)
{
  bool any = false;
  for (size_t i = 0; k && i < k->kern.n && !any; i++) {
    funcset seen = {0};
    any = k->kern.v[i] && u32_func(k->kern.v[i], &seen, mode);
    dg_vec_free(&seen);
  }
  return any;
}

bool check_wide_u32(const emu_kernels *k) { return any_kernel(k, 0); }

bool check_wide_total(const emu_kernels *k) { return any_kernel(k, 1); }
