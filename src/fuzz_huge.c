/* fuzz_huge.c — fuzz cases at sizes beyond memory (issue #3). Index
 * arithmetic in 32-bit int breaks only once a flat offset passes 2^31, where
 * an input no longer fits in the emulator's memory and its grid has millions
 * of blocks. A huge case therefore
 *  - chooses sizes from the op's schema that push one input's outermost
 *    offset past 1.25 * 2^31 elements while every other tensor stays small;
 *  - backs that input with lazily filled address space (emu_lazy.h) whose
 *    values are the counter-based fuzz_ctr values, which the reference reads
 *    element by element as well;
 *  - runs only a sample of the blocks (first, last, last along each grid
 *    dimension, a few seeded ones) and validates exactly the elements they
 *    wrote, so elements of other blocks are never reported as unwritten.
 * Sound only when blocks do not communicate: kernels with global atomics or
 * __threadfence, and pipelines, are skipped with the reason. */
#include "fuzz_run.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define HUGE_OFFSET ((int64_t)5 << 29)   /* 1.25 * 2^31: the outermost index's offset to reach */
#define WIDE_OFFSET ((int64_t)5 << 30)   /* 1.25 * 2^32: where an unsigned 32-bit product wraps */
#define OTHER_CAP ((int64_t)1 << 22)     /* elements of each other tensor */
#define LAZY_BYTES ((int64_t)1 << 26)    /* inputs larger than this are generated on touch */
#define MAX_VALIDATE 4096                /* written elements validated per output, at most */
#define READ_BUDGET ((int64_t)1 << 22)   /* input reads of the reference per case: then stop */
#define RANDOM_BLOCKS 3

/* ---- sizes ---------------------------------------------------------------------- */
static void full_sizes(const fuzz_space_ctx *ctx, const int64_t *ss, int64_t *sizes)
{
  fuzz_case c;
  memcpy(c.sizes, ss, sizeof c.sizes);
  fuzz_case_sizes(ctx, &c, sizes);
}

/* Do space sizes ss keep the constraints, every tensor but target under
 * OTHER_CAP elements and the launches valid? *off gets the offset of the
 * target's last outermost slice ((d0 - 1) * d1 * ... ), capped at 2^62. */
static bool huge_ok(const fuzz_space_ctx *ctx, int target, const int64_t *ss, int64_t *off)
{
  const dg_problem *p = ctx->p;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  full_sizes(ctx, ss, sizes);
  dg_diags d = {0};
  bool ok = dg_problem_check_sizes(p, sizes, &d);
  for (int t = 0; ok && t < (int)p->tensors.n; t++) {
    int64_t n = dg_problem_numel(p, t, sizes);
    ok = n >= 0 && (t == target || n <= OTHER_CAP);
  }
  const dg_tensor *ts = &p->tensors.v[target];
  int64_t dims[8];
  *off = 0;
  if (ok && ts->shape.n >= 1 && ts->shape.n <= 8 && dg_problem_shape(p, target, sizes, dims, &d)) {
    int64_t o = dims[0] - 1;
    for (size_t i = 1; i < ts->shape.n && o > 0; i++)
      o = dims[i] > 0 && o > ((int64_t)1 << 62) / dims[i] ? (int64_t)1 << 62 : o * dims[i];
    *off = o < 0 ? 0 : o;
  }
  for (size_t i = 0; ok && i < p->launches.n; i++) {
    int64_t g[3], b[3], sh;
    ok = dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, &d) && b[0] * b[1] * b[2] <= 1024 &&
         g[0] >= 1 && g[1] >= 1 && g[2] >= 1 && g[0] < ((int64_t)1 << 31) && g[1] <= 65535 && g[2] <= 65535;
  }
  dg_diags_free(&d);
  free(sizes);
  return ok;
}

/* Symbol i was just doubled from ss[i] / 2 (short) to ss[i] (passes): the
 * smallest value in between reaching HUGE_OFFSET, rounded up to the first
 * power-of-two multiple that the constraints accept; else ss[i] stays. */
static void refine(const fuzz_space_ctx *ctx, int target, int64_t *ss, int i, int64_t goal)
{
  int64_t orig = ss[i], hi = orig, lo = orig / 2, off;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    ss[i] = mid;
    huge_ok(ctx, target, ss, &off);
    if (off >= goal) hi = mid; else lo = mid;
  }
  for (int64_t m = 1; m <= 1024; m *= 2) {
    int64_t v = (hi + m - 1) / m * m;
    if (v >= orig) break;
    ss[i] = v;
    if (huge_ok(ctx, target, ss, &off) && off >= goal) return;
  }
  ss[i] = orig;
}

/* Is symbol name a dimension of some output? */
static bool in_output(const dg_problem *p, const char *name)
{
  for (size_t t = 0; t < p->tensors.n; t++)
    for (size_t d = 0; p->tensors.v[t].role == DG_TENSOR_OUTPUT && d < p->tensors.v[t].shape.n; d++)
      if (!strcmp(p->tensors.v[t].shape.v[d].text, name)) return true;
  return false;
}

/* Sizes (space order) that make input tensor `target` huge: the symbols of
 * its dimensions double in turn while the other tensors, the constraints and
 * the grid limits allow; the others start small. Symbols that are also
 * output dimensions grow first (their extent is spread over blocks, which
 * are sampled; a reduction dimension is walked by every thread and by the
 * reference for every element), the smallest first within a tier (balanced
 * products: an int32 product of moderate factors is what overflows). */
static bool search(const fuzz_space_ctx *ctx, const fuzz_space *s, int target, int64_t *ss, int64_t goal)
{
  const dg_tensor *ts = &ctx->p->tensors.v[target];
  bool push[FUZZ_MAX_SYMS] = {0};
  int tier[FUZZ_MAX_SYMS] = {0}, np = 0;
  for (size_t d = 0; d < ts->shape.n; d++)
    for (int i = 0; i < s->nsyms; i++)
      if (!push[i] && !strcmp(ts->shape.v[d].text, s->syms[i]))
        push[i] = true, np++, tier[i] = in_output(ctx->p, s->syms[i]) ? 0 : 1;
  if (!np) return false;
  static const int64_t starts[] = { 1, 2, 4, 8, 16, 32, 64 };
  int64_t off = 0;
  bool ok = false;
  for (size_t j = 0; j < sizeof starts / sizeof *starts && !ok; j++) {
    for (int i = 0; i < s->nsyms; i++) ss[i] = starts[j] < s->defaults[i] ? starts[j] : s->defaults[i];
    ok = huge_ok(ctx, target, ss, &off);
  }
  if (!ok) {
    memcpy(ss, s->defaults, sizeof(int64_t) * FUZZ_MAX_SYMS);
    if (!huge_ok(ctx, target, ss, &off)) return false;
  }
  int last = -1;
  for (int it = 0; it < 256 && off < goal; it++) {
    int best = -1;
    for (int i = 0; i < s->nsyms; i++) {
      if (!push[i] || ss[i] > ((int64_t)1 << 40)) continue;
      int64_t v = ss[i], o;
      ss[i] = v * 2;
      bool good = huge_ok(ctx, target, ss, &o);
      ss[i] = v;
      if (good && (best < 0 || tier[i] < tier[best] || (tier[i] == tier[best] && ss[i] < ss[best])))
        best = i;
    }
    if (best < 0) return false;
    ss[best] *= 2;
    last = best;
    huge_ok(ctx, target, ss, &off);
  }
  if (off < goal) return false;
  if (last >= 0) refine(ctx, target, ss, last, goal);
  return true;
}

/* Case k >= 0: target number k % n (inputs that can be made huge, in tensor
 * order), values of mode k / n: 0 index inputs at the top of their range and
 * normal values, 1 index inputs uniform and uniform values; k >= 2n: none.
 * Case k < 0: the wide case -1 - k, mode 0's values, for each input that can
 * pass 1.25 * 2^32 in turn: an unsigned 32-bit product (`blockIdx.x * C`, C
 * unsigned, with its size_t cast dropped) wraps only there and is still
 * right past 2^31. Numbered apart so that check_huge_sizes, which walks the
 * cases from 0 up, keeps its instances; the huge strategy asks for them
 * after the others (fuzz_strategy.c). */
bool fuzz_huge_case(void *ud, const void *space, int64_t k, fuzz_case *c)
{
  const fuzz_space_ctx *ctx = ud;
  const fuzz_space *s = space;
  if (!ctx || !ctx->p) return false;
  int targets[FUZZ_MAX_INPUTS], nt = 0, wide[FUZZ_MAX_INPUTS], nw = 0;
  int64_t ss[FUZZ_MAX_SYMS] = {0};
  for (int i = 0; i < s->ninputs; i++) {
    const dg_tensor *ts = &ctx->p->tensors.v[ctx->inputs[i]];
    if (ts->role == DG_TENSOR_INPUT && search(ctx, s, ctx->inputs[i], ss, HUGE_OFFSET)) targets[nt++] = i;
  }
  if (!nt || k >= 2 * nt || k < -nt) return false;
  int64_t goal = HUGE_OFFSET;
  int target;
  if (k >= 0) target = targets[k % nt];
  else {
    for (int j = 0; j < nt; j++)
      if (search(ctx, s, ctx->inputs[targets[j]], ss, WIDE_OFFSET)) wide[nw++] = targets[j];
    if (-1 - k >= nw) return false;
    target = wide[-1 - k], goal = WIDE_OFFSET;
  }
  search(ctx, s, ctx->inputs[target], ss, goal);
  memcpy(c->sizes, ss, sizeof c->sizes);
  int mode = k >= 0 ? (int)(k / nt) : 0;
  for (int i = 0; i < s->ninputs && i < FUZZ_MAX_INPUTS; i++)
    c->dist[i] = s->input_has_range[i] ? (mode ? FUZZ_DIST_NORMAL : FUZZ_DIST_HUGE)
                                       : (mode ? FUZZ_DIST_UNIFORM : FUZZ_DIST_NORMAL);
  c->huge = 1;
  return true;
}

/* ---- refusals: blocks that communicate ---------------------------------------------- */
typedef DG_VEC(const dg_func *) funcset;

static bool is_atomic(dg_iclass c)
{
  static const bool atomic[DG_IC__COUNT] = {
    [DG_IC_ATOMIC_ADD] = true, [DG_IC_ATOMIC_SUB] = true, [DG_IC_ATOMIC_MAX] = true,
    [DG_IC_ATOMIC_MIN] = true, [DG_IC_ATOMIC_EXCH] = true, [DG_IC_ATOMIC_CAS] = true,
    [DG_IC_ATOMIC_AND] = true, [DG_IC_ATOMIC_OR] = true,
  };
  return atomic[c];
}

/* The first expression by which blocks may talk: an atomic on memory not
 * known to be __shared__, or a device-wide __threadfence. */
static const dg_expr *talks_func(const dg_func *f, funcset *seen);
static const dg_expr *talks_expr(const dg_expr *e, funcset *seen)
{
  if (!e) return NULL;
  if (e->kind == DG_EX_INTRIN && e->op >= 0 && e->op < DG_IN__COUNT) {
    dg_iclass c = dg_intrins[e->op].cls;
    bool shared = e->nargs && e->args[0]->type && e->args[0]->type->kind == DG_TY_PTR &&
                  e->args[0]->type->space == DG_AS_SHARED;
    if ((is_atomic(c) && !shared) || e->op == DG_IN___THREADFENCE) return e;
  }
  const dg_expr *r = NULL;
  if (e->kind == DG_EX_CALL && e->func) r = talks_func(e->func, seen);
  if (!r) r = talks_expr(e->a, seen);
  if (!r) r = talks_expr(e->b, seen);
  if (!r) r = talks_expr(e->c, seen);
  for (int i = 0; !r && i < e->nargs; i++) r = talks_expr(e->args[i], seen);
  return r;
}

static const dg_expr *talks_stmt(const dg_stmt *s, funcset *seen)
{
  if (!s) return NULL;
  const dg_expr *r = talks_expr(s->e, seen);
  if (!r) r = talks_expr(s->step, seen);
  for (int i = 0; !r && i < s->ninits; i++) r = talks_expr(s->inits[i], seen);
  if (!r) r = talks_stmt(s->init, seen);
  if (!r) r = talks_stmt(s->then, seen);
  if (!r) r = talks_stmt(s->els, seen);
  for (int i = 0; !r && i < s->nbody; i++) r = talks_stmt(s->body[i], seen);
  return r;
}

static const dg_expr *talks_func(const dg_func *f, funcset *seen)
{
  for (size_t i = 0; i < seen->n; i++) if (seen->v[i] == f) return NULL;
  dg_vec_push(seen, f);
  return talks_stmt(f->body, seen);
}

const dg_expr *fuzz_huge_talks(const dg_func *f)
{
  funcset seen = {0};
  const dg_expr *e = f ? talks_func(f, &seen) : NULL;
  dg_vec_free(&seen);
  return e;
}

/* Why this case cannot run sampled (written to why), or false. */
static bool refused(const dg_problem *p, const fuzz_backend *be, const fuzz_case *c, char *why, size_t n)
{
  if (c->huge == 2) {
    snprintf(why, n, "no input of this problem passes 2^31 elements with every other tensor under "
             "2^22 elements, inside the constraints and the grid limits");
    return true;
  }
  if (strcmp(be->name, "cpu")) {
    snprintf(why, n, "huge cases run on the emulator (--backend cpu) only");
    return true;
  }
  if (p->launches.n != 1) {
    snprintf(why, n, "a pipeline of %zu launches: a launch reads what every block of the one before "
             "wrote, so a sample of the blocks is unsound", p->launches.n);
    return true;
  }
  const emu_kernels *k = be->self;
  funcset seen = {0};
  const dg_expr *e = k && k->kern.n && k->kern.v[0] ? talks_func(k->kern.v[0], &seen) : NULL;
  dg_vec_free(&seen);
  if (e) {
    snprintf(why, n, "%s at line %u of %s: blocks communicate through global memory, so a sample of "
             "the blocks is unsound", dg_intrins[e->op].name, e->span.line, p->source ? p->source : "?");
    return true;
  }
  return false;
}

/* ---- blocks ------------------------------------------------------------------------- */
static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* First, last, last along each grid dimension and RANDOM_BLOCKS seeded ones
 * (linear ids, x fastest), sorted, without repeats. Returns how many. */
static int pick_blocks(const int64_t g[3], uint64_t seed, int64_t *out)
{
  int64_t nb = g[0] * g[1] * g[2];
  int n = 0;
  out[n++] = 0;
  out[n++] = nb - 1;
  out[n++] = g[0] - 1;
  out[n++] = (g[1] - 1) * g[0];
  out[n++] = (g[2] - 1) * g[0] * g[1];
  dg_rng r;
  dg_rng_seed(&r, seed ^ 0xb10c5);
  for (int i = 0; i < RANDOM_BLOCKS; i++) out[n++] = (int64_t)dg_rng_below(&r, (uint64_t)nb);
  qsort(out, (size_t)n, sizeof *out, cmp_i64);
  int m = 0;
  for (int i = 0; i < n; i++) if (!m || out[i] != out[m - 1]) out[m++] = out[i];
  return m;
}

/* ---- values ---------------------------------------------------------------------- */
typedef struct {
  const dg_problem *p;
  const emu_io *io;
  fuzz_ctr *gen;               /* per tensor (inputs) */
  int64_t (*dims)[8];          /* per tensor */
  int64_t reads;               /* input elements the reference read */
} hvals;

static double gen_value(void *ud, int t, int64_t i)
{
  const hvals *h = ud;
  return fuzz_ctr_value(&h->gen[t], i);
}

static bool ref_read(void *ud, int t, const int64_t *idx, dg_refval *out)
{
  hvals *h = ud;
  h->reads++;
  const dg_tensor *ts = &h->p->tensors.v[t];
  int64_t flat = dg_flat_index(h->dims[t], ts->shape.n, idx);
  if (flat < 0) return false;
  /* the generator, not io: an accumulate output's data holds the kernel's result by now */
  if (ts->role == DG_TENSOR_INPUT || ts->accumulate) out->num = fuzz_ctr_value(&h->gen[t], flat);
  else return false;
  out->is_sym = false;
  return true;
}

/* ---- validation of what the sampled blocks wrote ---------------------------------------- */
static void validate_written(const dg_problem *p, const int64_t *sizes, emu_io *io, hvals *h,
                             const fuzz_space_ctx *ctx, fuzz_outcome *out, int64_t *nval)
{
  dg_ref_env env = { .sizes = sizes, .read = ref_read, .ud = h };
  fuzz_values lazy = { gen_value, h };
  double **no_data = dg_calloc(p->tensors.n + 1, sizeof *no_data);   /* every input from gen_value */
  for (int t = 0; t < (int)p->tensors.n && out->status == FUZZ_PASS; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_OUTPUT) continue;
    int64_t n = io->numel[t], nw = 0;
    for (int64_t i = 0; i < n; i++) nw += io->written[t][i];
    double *want = dg_calloc((size_t)(n ? n : 1), sizeof *want);
    uint8_t *defined = dg_calloc((size_t)(n ? n : 1), 1);
    int64_t stride = nw > MAX_VALIDATE ? (nw + MAX_VALIDATE - 1) / MAX_VALIDATE : 1, seen = 0;
    int rank = ts->shape.n <= 8 ? (int)ts->shape.n : 0;
    char *err = NULL;
    for (int64_t i = 0; i < n; i++) {
      if (!io->written[t][i] || (seen++ % stride && seen != nw)) continue;
      if (h->reads > READ_BUDGET && *nval) break;   /* enough: a reduction over a huge dimension */
      int64_t idx[8] = {0}, f = i;
      for (int d = rank - 1; d >= 0; d--) {
        idx[d] = h->dims[t][d] ? f % h->dims[t][d] : 0;
        f = h->dims[t][d] ? f / h->dims[t][d] : 0;
      }
      dg_refval v;
      dg_ref_status st = dg_problem_ref_eval(p, &env, t, idx, &v, &err);
      if (st == DG_REF_ERROR) {
        fuzz_ref_error(out, ts, err);
        break;
      }
      if (st == DG_REF_OK) want[i] = v.num, defined[i] = 1, (*nval)++;
    }
    free(err);
    if (out->status == FUZZ_PASS) {
      fuzz_cmp cmp;
      dg_tol tol = dg_problem_tol(p, t);
      fuzz_compare(ts->dtype, io->data[t], want, defined, io->written[t], n, tol, &cmp);
      if (cmp.nfail) {
        int64_t first;
        cmp.nfail = fuzz_envelope_filter(p, sizes, no_data, &lazy, t, io->data[t], want, defined,
                                         io->written[t], n, tol, &first, ctx);
        if (cmp.nfail) {
          cmp.first_fail = first;
          cmp.first_got = io->data[t][first];
          cmp.first_want = dg_dtype_round(ts->dtype, want[first]);
          cmp.first_kind = fuzz_elem_check(ts->dtype, cmp.first_got, want[first], tol);
        }
      }
      if (cmp.max_abs > out->cmp.max_abs) out->cmp.max_abs = cmp.max_abs;
      if (cmp.nfail) {
        out->status = FUZZ_FAIL;
        out->tensor = t;
        out->cmp = cmp;
        int64_t f = cmp.first_fail;
        out->nidx = rank ? rank : 1;
        for (int d = out->nidx - 1; d >= 0; d--) {
          int64_t dim = rank ? h->dims[t][d] : n;
          out->index[d] = dim ? f % dim : 0;
          f = dim ? f / dim : 0;
        }
        char ix[96];
        size_t k = 0;
        for (int d = 0; d < out->nidx && k < sizeof ix; d++)
          k += (size_t)snprintf(ix + k, sizeof ix - k, "%s%" PRId64, d ? "," : "", out->index[d]);
        snprintf(out->msg, sizeof out->msg, "%s[%s]: kernel %.9g, reference %.9g (%s); %" PRId64 " of %" PRId64
                 " elements fail", ts->name, ix, cmp.first_got, cmp.first_want, fuzz_elem_name(cmp.first_kind),
                 cmp.nfail, cmp.checked);
      }
    }
    free(want), free(defined);
  }
  free(no_data);
}

/* ---- one case ----------------------------------------------------------------------- */
static void __attribute__((format(printf, 2, 3))) append(fuzz_outcome *out, const char *fmt, ...)
{
  size_t k = strlen(out->msg);
  va_list ap;
  va_start(ap, fmt);
  if (k < sizeof out->msg) vsnprintf(out->msg + k, sizeof out->msg - k, fmt, ap);
  va_end(ap);
}

void fuzz_huge_run_case(const dg_problem *p, const fuzz_backend *be, const fuzz_space *s,
                        const fuzz_space_ctx *ctx, const fuzz_case *c, fuzz_outcome *out)
{
  double t0 = dg_now();
  memset(out, 0, sizeof *out);
  out->c = *c;
  out->status = FUZZ_PASS;
  char why[256];
  if (refused(p, be, c, why, sizeof why)) {
    out->status = FUZZ_SKIPPED;
    snprintf(out->msg, sizeof out->msg, "huge: skipped: %s", why);
    out->secs = dg_now() - t0;
    return;
  }
  size_t nt = p->tensors.n;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  fuzz_case_sizes(ctx, c, sizes);
  hvals h = { .p = p, .gen = dg_calloc(nt + 1, sizeof *h.gen), .dims = dg_calloc(nt + 1, sizeof *h.dims) };
  bool *lazy = dg_calloc(nt + 1, sizeof *lazy);
  dg_diags d = {0};
  emu_io io;
  bool io_ok = false;
  for (size_t t = 0; t < nt; t++)
    if (p->tensors.v[t].shape.n <= 8) dg_problem_shape(p, (int)t, sizes, h.dims[t], NULL);
  for (int i = 0; i < s->ninputs; i++) {
    int t = ctx->inputs[i];
    const dg_tensor *ts = &p->tensors.v[t];
    h.gen[t] = (fuzz_ctr){ .key = fuzz_ctr_key(c->seed, (uint64_t)t), .dist = c->dist[i],
                           .dtype = ts->dtype, .has_range = ts->has_range, .positive = ts->positive };
    if (ts->has_range && (!dg_problem_range(p, t, sizes, &h.gen[t].lo, &h.gen[t].hi, &d) ||
                          h.gen[t].hi < h.gen[t].lo)) {
      out->status = FUZZ_SKIPPED;
      snprintf(out->msg, sizeof out->msg, "the range of '%s' is empty at these sizes", ts->name);
      goto done;
    }
    lazy[t] = ts->role == DG_TENSOR_INPUT &&
              dg_problem_numel(p, t, sizes) > LAZY_BYTES / dg_dtypes[ts->dtype].size;
  }
  if (!(io_ok = emu_io_init_lazy(&io, p, sizes, lazy, gen_value, &h, &d))) {
    out->status = FUZZ_SKIPPED;
    snprintf(out->msg, sizeof out->msg, "tensors cannot be sized at %s", c->label);
    goto done;
  }
  h.io = &io;
  for (int i = 0; i < s->ninputs; i++) {
    int t = ctx->inputs[i];
    if (io.data[t]) {
      fuzz_ctr_fill(&h.gen[t], 0, io.numel[t], io.data[t]);
      out->input_digest = dg_hash_bytes(io.data[t], sizeof(double) * (size_t)io.numel[t], out->input_digest);
    } else {          /* a lazy input is its generator */
      uint64_t key[3] = { h.gen[t].key, (uint64_t)h.gen[t].dist, (uint64_t)io.numel[t] };
      out->input_digest = dg_hash_bytes(key, sizeof key, out->input_digest);
    }
  }
  int64_t g[3], b[3], sh, blocks[16];
  if (!dg_problem_launch_dims(p, 0, sizes, g, b, &sh, &d)) {
    out->status = FUZZ_SKIPPED;
    snprintf(out->msg, sizeof out->msg, "the launch cannot be sized at %s", c->label);
    goto done;
  }
  emu_opts eo = { .blocks = blocks, .nblocks = pick_blocks(g, c->seed, blocks) };
  emu_result res;
  int64_t nval = 0;
  if (fuzz_emu_run(be->self, p, sizes, &io, &eo, out, &res)) {
    validate_written(p, sizes, &io, &h, ctx, out, &nval);
    if (out->status == FUZZ_FAIL)
      append(out, "; huge case: ran %" PRId64 " of %" PRId64 " blocks, validated %" PRId64 " elements they wrote",
             res.blocks_run, res.blocks_total, nval);
  } else if (out->status == FUZZ_FINDING || out->status == FUZZ_ERROR) {
    append(out, "; huge case: ran %" PRId64 " of %" PRId64 " blocks", res.blocks_run, res.blocks_total);
  }
  emu_result_free(&res);
done:
  if (io_ok) emu_io_free(&io);
  dg_diags_free(&d);
  free(h.gen), free(h.dims), free(lazy), free(sizes);
  out->secs = dg_now() - t0;
}
