/* fuzz_run.c — campaigns: generate, run on the emulator, validate, shrink. */
#include "fuzz_run.h"
#include "gpu_gen.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
  [FUZZ_PASS] = "pass", [FUZZ_FAIL] = "fail", [FUZZ_FINDING] = "finding",
  [FUZZ_ERROR] = "error", [FUZZ_SKIPPED] = "skipped",
};

const char *fuzz_status_name(fuzz_status s) { return status_names[s]; }

/* Why the fuzzer would not run these sizes (a spec constraint, a tensor over
 * max_elems, a launch the spec or a GPU refuses), with the place where the
 * spec says so; NULL when it would. */
static char *space_refusal(const fuzz_space_ctx *ctx, const int64_t *ssizes)
{
  const dg_problem *p = ctx->p;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  fuzz_case c;
  memcpy(c.sizes, ssizes, sizeof c.sizes);
  fuzz_case_sizes(ctx, &c, sizes);
  dg_diags d = {0};
  char *why = NULL;
  if (!dg_problem_check_sizes(p, sizes, &d)) {   /* "FILE:LINE:COL: <the constraint>" */
    const dg_diag *e = d.v.n ? &d.v.v[0] : NULL;
    const char *path = e && e->span.file ? dg_srcmgr_path(&p->sm, e->span.file) : NULL;
    why = !e ? dg_strdup("the spec's constraints refuse them")
          : path ? dg_printf("%s:%u:%u: %s", path, e->span.line, e->span.col, e->msg) : dg_strdup(e->msg);
  }
  for (size_t t = 0; !why && t < p->tensors.n; t++) {
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    if (n < 0) why = dg_printf("tensor '%s' would have a negative size", p->tensors.v[t].name);
    else if (n > ctx->max_elems)
      why = dg_printf("tensor '%s' would have %" PRId64 " elements, over %" PRId64 " (--max-elems N; max_elems in Lua)",
                      p->tensors.v[t].name, n, ctx->max_elems);
  }
  for (size_t i = 0; !why && i < p->launches.n; i++) {
    int64_t g[3], b[3], sh;
    dg_diags_free(&d);
    d = (dg_diags){0};
    if (!dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, &d))
      why = dg_printf("launch %zu refuses them%s%s", i + 1, d.v.n ? ": " : "", d.v.n ? d.v.v[0].msg : "");
    else if (b[0] * b[1] * b[2] > 1024)
      why = dg_printf("launch %zu would have %" PRId64 " threads a block (at most 1024)", i + 1, b[0] * b[1] * b[2]);
    else if (g[0] < 1 || g[1] < 1 || g[2] < 1)
      why = dg_printf("launch %zu would have an empty grid (%" PRId64 " x %" PRId64 " x %" PRId64 ")", i + 1, g[0],
                      g[1], g[2]);
  }
  dg_diags_free(&d);
  free(sizes);
  return why;
}

static bool space_admissible(void *ud, const int64_t *ssizes)
{
  char *why = space_refusal(ud, ssizes);
  free(why);
  return !why;
}

void fuzz_space_init(fuzz_space *s, fuzz_space_ctx *ctx, const dg_problem *p, int64_t max_elems)
{
  fuzz_space_init2(s, ctx, p, max_elems, 0);
}

void fuzz_space_init2(fuzz_space *s, fuzz_space_ctx *ctx, const dg_problem *p, int64_t max_elems,
                      int64_t max_check)
{
  memset(s, 0, sizeof *s);
  memset(ctx, 0, sizeof *ctx);
  ctx->p = p;
  ctx->max_elems = max_elems > 0 ? max_elems : (1 << 13);
  ctx->max_check = max_check;
  for (size_t i = 0; i < p->sizes.n && s->nsyms < FUZZ_MAX_SYMS; i++) {
    const dg_size *z = &p->sizes.v[i];
    if (!z->from_op) continue;
    ctx->map[s->nsyms] = (int)i;
    s->syms[s->nsyms] = z->name;
    s->defaults[s->nsyms] = z->value;
    s->cands[s->nsyms] = z->candidates.v;
    s->ncands[s->nsyms] = (int)z->candidates.n;
    s->nsyms++;
  }
  for (size_t t = 0; t < p->tensors.n && s->ninputs < FUZZ_MAX_INPUTS; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_INPUT && !ts->accumulate) continue;
    s->input_has_range[s->ninputs] = ts->has_range;
    s->input_names[s->ninputs] = ts->name;
    s->input_inner[s->ninputs] = -1;
    for (int j = 0; ts->shape.n && j < s->nsyms; j++)
      if (!strcmp(ts->shape.v[ts->shape.n - 1].text, s->syms[j])) s->input_inner[s->ninputs] = j;
    ctx->inputs[s->ninputs++] = (int)t;
  }
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  dg_problem_default_sizes(p, sizes);
  dg_diags d = {0};
  for (size_t i = 0; i < p->launches.n && s->nblock < 4; i++) {
    int64_t g[3], b[3], sh;
    if (dg_problem_launch_dims(p, (int)i, sizes, g, b, &sh, &d)) s->block[s->nblock++] = b[0];
  }
  dg_diags_free(&d);
  free(sizes);
  s->admissible = space_admissible;
  s->huge = fuzz_huge_case;
  s->ud = ctx;
}

void fuzz_case_sizes(const fuzz_space_ctx *ctx, const fuzz_case *c, int64_t *sizes)
{
  dg_problem_default_sizes(ctx->p, sizes);
  int n = 0;
  for (size_t i = 0; i < ctx->p->sizes.n; i++)
    if (ctx->p->sizes.v[i].from_op && n < FUZZ_MAX_SYMS) sizes[ctx->map[n]] = c->sizes[n], n++;
}

/* The inputs of the case: input tensor tens[j] is fuzz_ctr_fill of the
 * counter-based descriptor g[j] (gpu_gen_desc_of: key from the case's seed
 * and the tensor, its distribution, dtype, row, range), so the GPU can draw
 * the same values on the device. */
typedef struct {
  int n;
  int tens[FUZZ_MAX_INPUTS];
  fuzz_ctr g[FUZZ_MAX_INPUTS];
  bool lazy;               /* drawn by the backend: filled here only when the host needs them */
} case_inputs;

static bool input_descs(const dg_problem *p, const fuzz_space *s, const fuzz_space_ctx *ctx,
                        const fuzz_case *c, const int64_t *sizes, case_inputs *ci, char *msg, size_t msgn)
{
  ci->n = s->ninputs;
  ci->lazy = false;
  for (int i = 0; i < s->ninputs; i++) {
    ci->tens[i] = ctx->inputs[i];
    if (!gpu_gen_desc_of(p, ci->tens[i], c->dist[i], c->seed, sizes, &ci->g[i], msg, msgn)) return false;
  }
  return true;
}

/* The case's digest: every input's descriptor, and its values at a few
 * elements (so a change of the values' definition changes it too). The
 * values are a function of the descriptor alone, on the host and on the
 * device (gpu_gen.h), so equal digests are equal inputs, byte for byte;
 * and no backend has to read every value to say which case it ran. */
static uint64_t inputs_digest(const case_inputs *ci)
{
  uint64_t h = 0;
  for (int j = 0; j < ci->n; j++) {
    const fuzz_ctr *g = &ci->g[j];
    uint64_t f[10] = { (uint64_t)ci->tens[j], g->key, (uint64_t)g->dist, (uint64_t)g->dtype, g->has_range,
                       g->positive, (uint64_t)g->lo, (uint64_t)g->hi, (uint64_t)g->row, (uint64_t)g->n };
    h = dg_hash_bytes(f, sizeof f, h);
    int64_t probe[6] = { 0, g->n - 1, g->n / 2, g->n / 3 + 1, 2 * g->n / 3, g->n / 7 + 3 };
    for (int k = 0; k < 6; k++)
      if (probe[k] >= 0 && probe[k] < g->n) {
        double v = fuzz_ctr_value(g, probe[k]);
        h = dg_hash_bytes(&v, sizeof v, h);
      }
  }
  return h;
}

/* False when the deadline (0: none) passed first. */
static bool fill_inputs(const case_inputs *ci, emu_io *io, double deadline)
{
  for (int j = 0; j < ci->n; j++) {
    int64_t n = io->numel[ci->tens[j]];
    if (fuzz_ctr_fill_until(&ci->g[j], n, io->data[ci->tens[j]], deadline) < n) return false;
  }
  return true;
}

static bool past(double deadline) { return deadline > 0 && dg_now() > deadline; }

static void budget_out(fuzz_outcome *out, const char *where)
{
  out->status = FUZZ_SKIPPED;
  snprintf(out->msg, sizeof out->msg, "not judged: the campaign's budget (--budget) ran out %s", where);
}

/* The backend draws the inputs itself (slot 0: its next run; c: case c of run_many). */
static bool backend_draws(const dg_problem *p, const fuzz_backend *be, int slot, case_inputs *ci)
{
  ci->lazy = be->gen && ci->n > 0 && be->gen(be->self, p, slot, ci->tens, ci->g, ci->n);
  return ci->lazy;
}

/* The values of inputs the backend drew, for the host's reference and envelope. */
static void materialize(const dg_problem *p, case_inputs *ci, const emu_io *io, double **env_data)
{
  if (!ci || !ci->lazy) return;
  (void)p;
  for (int j = 0; j < ci->n; j++) {
    int t = ci->tens[j];
    free(env_data[t]);
    env_data[t] = dg_malloc(sizeof(double) * (size_t)(io->numel[t] ? io->numel[t] : 1));
    fuzz_ctr_fill(&ci->g[j], 0, io->numel[t], env_data[t]);
  }
  ci->lazy = false;
}

static void unflatten(const dg_problem *p, int t, const int64_t *sizes, int64_t flat, fuzz_outcome *o)
{
  const dg_tensor *ts = &p->tensors.v[t];
  int64_t dims[8];
  o->nidx = ts->shape.n <= 8 ? (int)ts->shape.n : 0;
  if (!o->nidx || !dg_problem_shape(p, t, sizes, dims, NULL)) {
    o->nidx = 1;
    o->index[0] = flat;
    return;
  }
  for (int d = o->nidx - 1; d >= 0; d--) {
    o->index[d] = dims[d] ? flat % dims[d] : 0;
    flat = dims[d] ? flat / dims[d] : 0;
  }
}

static void say_index(char *buf, size_t n, const fuzz_outcome *o)
{
  size_t k = 0;
  for (int i = 0; i < o->nidx && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, i ? "," : "", o->index[i]);
}

/* The kernel-precision envelope (fuzz_envelope.c) re-judges failing elements. */
static int64_t envelope_filter(const fuzz_backend *be, const dg_problem *p, const int64_t *sizes,
                               double **env_data, int t, const double *got, const double *want,
                               const uint8_t *defined, const uint8_t *written, int64_t n, dg_tol tol,
                               int64_t *first, const fuzz_space_ctx *ctx)
{
  return fuzz_envelope_filter_on(be, p, sizes, env_data, NULL, t, got, want, defined, written, n, tol, first,
                                 ctx);
}

/* The sample's rows: the last dimension of output t (n when it has none). */
static int64_t sample_row(const dg_problem *p, int t, const int64_t *sizes, int64_t n, int64_t dims[8])
{
  const dg_tensor *ts = &p->tensors.v[t];
  int rank = ts->shape.n <= 8 ? (int)ts->shape.n : 0;
  if (rank && dg_problem_shape(p, t, sizes, dims, NULL) && dims[rank - 1] > 0) return dims[rank - 1];
  return n;
}

/* The sample's k-th pick (ref_sampled's rule; may repeat or fall outside). */
static int64_t sample_at(int64_t k, int64_t n, int64_t row, dg_rng *r)
{
  if (k < 64) return k;
  if (k < 128) return n - 1 - (k - 64);
  if (k < 384 && (k - 128) * row < n) return (k - 127) * row - 1;
  return (int64_t)dg_rng_below(r, (uint64_t)n);
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int64_t fuzz_sample_picks(const dg_problem *p, int t, const int64_t *sizes, int64_t n, int64_t max_check,
                          uint64_t seed, int64_t *idx)
{
  int64_t dims[8] = {0}, row = sample_row(p, t, sizes, n, dims), m = 0;
  dg_rng r;
  dg_rng_seed(&r, seed ^ 0xc0ffee);
  for (int64_t k = 0; k < max_check; k++) {
    int64_t i = sample_at(k, n, row, &r);
    if (i >= 0 && i < n) idx[m++] = i;
  }
  return m;
}

int64_t fuzz_sample_indices(const dg_problem *p, int t, const int64_t *sizes, int64_t n, int64_t max_check,
                            uint64_t seed, int64_t *idx)
{
  int64_t m = fuzz_sample_picks(p, t, sizes, n, max_check, seed, idx);
  qsort(idx, (size_t)m, sizeof *idx, cmp_i64);
  int64_t u = 0;
  for (int64_t j = 0; j < m; j++)
    if (!u || idx[j] != idx[u - 1]) idx[u++] = idx[j];
  return u;
}

/* The reference at a sample of the elements of output t, for outputs too
 * large to compute whole on the CPU: the first and last elements, the last
 * element of rows (where tails live), and a seeded uniform sample. */
static dg_ref_status ref_sampled(const dg_problem *p, const dg_ref_env *env, const int64_t *sizes,
                                 int t, int64_t n, int64_t max_check, uint64_t seed, const double *given,
                                 double *want, uint8_t *defined, char **err)
{
  /* the whole output instead, when the reference's batch path is cheaper */
  dg_ref_status whole = given ? DG_REF_NIL : dg_problem_ref_eval_all_within(p, env, t, max_check, want, defined, err);
  if (whole != DG_REF_NIL) return whole;
  const dg_tensor *ts = &p->tensors.v[t];
  int64_t dims[8] = {0}, row = sample_row(p, t, sizes, n, dims);
  int rank = ts->shape.n <= 8 ? (int)ts->shape.n : 0;
  dg_rng r;
  dg_rng_seed(&r, seed ^ 0xc0ffee);
  int64_t budget = max_check;
  for (int64_t k = 0; k < budget; k++) {
    int64_t i = sample_at(k, n, row, &r);
    if (i < 0 || i >= n || defined[i]) continue;
    if (given) {   /* the values are known (a backend's reference): the sample alone */
      want[i] = given[i];
      defined[i] = 1;
      continue;
    }
    int64_t idx[8], f = i;
    for (int d = rank - 1; d >= 0; d--) {
      idx[d] = dims[d] ? f % dims[d] : 0;
      f = dims[d] ? f / dims[d] : 0;
    }
    dg_refval v;
    dg_ref_status st = dg_problem_ref_eval(p, env, t, idx, &v, err);
    if (st == DG_REF_ERROR) return st;
    if (st == DG_REF_OK) {
      want[i] = v.num;
      defined[i] = 1;
    }
  }
  return DG_REF_OK;
}

void fuzz_ref_error(fuzz_outcome *out, const dg_tensor *ts, const char *err)
{
  out->status = FUZZ_ERROR;
  snprintf(out->msg, sizeof out->msg, "reference of '%s': %.*s", ts->name, err ? (int)strcspn(err, "\n") : 6,
           err ? err : "failed");
}

/* More written elements off the fp64 reference than the envelope re-judges:
 * judged whole, the rest would count as failures unexamined. */
static bool over_envelope(const dg_problem *p, int t, const emu_io *io, const double *want,
                          const uint8_t *defined, int64_t n)
{
  dg_tol tol = dg_problem_tol(p, t);
  int64_t off = 0;
  for (int64_t i = 0; i < n && off <= FUZZ_ENVELOPE_JUDGED; i++)
    off += defined[i] && io->written[t][i]
           && fuzz_elem_check(p->tensors.v[t].dtype, io->data[t][i], want[i], tol) != FUZZ_ELEM_OK;
  return off > FUZZ_ENVELOPE_JUDGED;
}

/* samp: the backend's reference is the validator's sample alone (its sample hook said so) */
static void validate(const dg_problem *p, const fuzz_backend *be, const int64_t *sizes, emu_io *io,
                     double **env_data, case_inputs *ci, const fuzz_space_ctx *ctx, bool samp, fuzz_outcome *out)
{
  dg_ref_env env = { .sizes = sizes, .data = (const double *const *)env_data, .deadline = ctx->deadline };
  for (int t = 0; t < (int)p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->role != DG_TENSOR_OUTPUT) continue;
    int64_t n = io->numel[t];
    if (be->judged) {   /* judged where it ran: a pass needs nothing back */
      fuzz_cmp dc;
      int j = be->judged(be->self, p, t, io, &dc, out->msg, sizeof out->msg);
      if (j < 0) {
        out->status = FUZZ_ERROR;
        return;
      }
      if (j > 0) {
        out->sampled |= samp;
        if (dc.max_abs > out->cmp.max_abs) out->cmp.max_abs = dc.max_abs;
        if (dc.max_ulp > out->cmp.max_ulp) out->cmp.max_ulp = dc.max_ulp;
        continue;
      }
    }
    materialize(p, ci, io, env_data);   /* judged here: the inputs' values too */
    double *want = dg_calloc((size_t)(n ? n : 1), sizeof *want);
    uint8_t *defined = dg_calloc((size_t)(n ? n : 1), 1);
    char *err = NULL;
    dg_ref_status rs;
    if (be->ref && be->ref(be->self, p, t, want, defined, n)) {
      rs = DG_REF_OK;   /* the backend's reference: every element, or the sample alone */
      if (samp) out->sampled = true;
      else if (ctx->max_check > 0 && n > ctx->max_check && over_envelope(p, t, io, want, defined, n)) {
        double *all = want;   /* the sample the CPU path judges, with these values */
        want = dg_calloc((size_t)n, sizeof *want);
        memset(defined, 0, (size_t)n);
        rs = ref_sampled(p, &env, sizes, t, n, ctx->max_check, out->c.seed, all, want, defined, &err);
        free(all);
        out->sampled = true;
      }
    } else if (ctx->max_check > 0 && n > ctx->max_check) {
      rs = ref_sampled(p, &env, sizes, t, n, ctx->max_check, out->c.seed, NULL, want, defined, &err);
      out->sampled = true;
    } else rs = dg_problem_ref_eval_all(p, &env, t, want, defined, &err);
    if (rs == DG_REF_ERROR && past(ctx->deadline)) {
      budget_out(out, "in the reference");
      free(err), free(want), free(defined);
      return;
    }
    if (rs == DG_REF_ERROR) {
      fuzz_ref_error(out, ts, err);
      free(err), free(want), free(defined);
      return;
    }
    fuzz_cmp cmp;
    dg_tol tol = dg_problem_tol(p, t);
    fuzz_compare(ts->dtype, io->data[t], want, defined, io->written[t], n, tol, &cmp);
    if (cmp.nfail) {
      int64_t first;
      int64_t remain = envelope_filter(be, p, sizes, env_data, t, io->data[t], want, defined,
                                       io->written[t], n, tol, &first, ctx);
      out->nexplained += cmp.nfail - remain;
      if (remain && first != cmp.first_fail) {
        cmp.first_fail = first;
        cmp.first_got = io->data[t][first];
        cmp.first_want = dg_dtype_round(ts->dtype, want[first]);
        cmp.first_kind = io->written[t][first] ? fuzz_elem_check(ts->dtype, cmp.first_got, want[first], tol)
                                               : FUZZ_ELEM_UNWRITTEN;
      }
      cmp.nfail = remain;
    }
    free(want), free(defined);
    if (cmp.max_abs > out->cmp.max_abs) out->cmp.max_abs = cmp.max_abs;
    if (cmp.max_ulp > out->cmp.max_ulp) out->cmp.max_ulp = cmp.max_ulp;
    if (cmp.nfail && out->status == FUZZ_PASS) {
      out->status = FUZZ_FAIL;
      out->tensor = t;
      out->cmp = cmp;
      unflatten(p, t, sizes, cmp.first_fail, out);
      char idx[96];
      say_index(idx, sizeof idx, out);
      snprintf(out->msg, sizeof out->msg, "%s[%s]: kernel %.9g, reference %.9g (%s); %" PRId64 " of %" PRId64 " elements fail",
               ts->name, idx, cmp.first_got, cmp.first_want, fuzz_elem_name(cmp.first_kind),
               cmp.nfail, cmp.checked);
    }
  }
}

/* The emulator as a backend: engine findings (races, out-of-bounds, ...)
 * end the case as FINDING; a refused or stopped launch as ERROR. */
static bool emu_backend_run(void *self, const dg_problem *p, const int64_t *sizes, emu_io *io,
                            double deadline, fuzz_outcome *out)
{
  emu_opts eo = { .deadline = deadline };
  return fuzz_emu_run(self, p, sizes, io, &eo, out, NULL);
}

bool fuzz_emu_run(const emu_kernels *k, const dg_problem *p, const int64_t *sizes, emu_io *io,
                  const emu_opts *eo, fuzz_outcome *out, emu_result *kept)
{
  dg_diags d = {0};
  emu_result res = {0};
  bool ok = false;
  if (!emu_run(p, k, sizes, io, eo, &res, &d)) {
    out->status = FUZZ_ERROR;
    dg_buf b = {0};
    if (d.v.n) dg_diag_format(&b, &p->sm, &d.v.v[0]);
    snprintf(out->msg, sizeof out->msg, "could not run: %s", b.s ? b.s : "unknown reason");
    dg_buf_free(&b);
    goto out;
  }
  /* A loop past the step limit that was not shown to loop forever only ran
   * long (check.c says `unknown` for it): the case is not judged, and a
   * finding elsewhere in the run still counts. */
  const simt_event *found = NULL, *long_loop = NULL;
  for (size_t e = 0; e < res.events.n && !found; e++) {
    const simt_event *ev = &res.events.v[e];
    if (ev->kind == SIMT_EV_RUNAWAY && !ev->endless) long_loop = long_loop ? long_loop : ev;
    else if (emu_event_is_finding(ev->kind)) found = ev;
  }
  if (found || long_loop) {
    out->status = found ? FUZZ_FINDING : FUZZ_SKIPPED;
    out->ev = *(found ? found : long_loop);
    dg_buf b = {0};
    simt_event_format(&b, &k->sm, &out->ev);
    snprintf(out->msg, sizeof out->msg, "%s%s", found ? "" : "not judged: ", b.s);
    if (!found)
      snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg),
               " (not shown to loop forever: a long loop is no finding)");
    dg_buf_free(&b);
    goto out;
  }
  if (res.status == SIMT_BADARGS) {
    out->status = FUZZ_ERROR;
    snprintf(out->msg, sizeof out->msg, "launch %d refused: %s", res.failed_launch + 1,
             res.error ? res.error : "?");
    goto out;
  }
  if (res.status == SIMT_STOPPED) {
    out->status = FUZZ_ERROR;
    snprintf(out->msg, sizeof out->msg, "launch %d stopped%s%s", res.failed_launch + 1,
             res.events.n ? ": " : "", res.events.n ? res.events.v[res.events.n - 1].msg : "");
    goto out;
  }
  ok = true;
out:
  if (kept) *kept = res;
  else emu_result_free(&res);
  dg_diags_free(&d);
  return ok;
}

fuzz_backend fuzz_backend_emu(const emu_kernels *k)
{
  return (fuzz_backend){ .name = "cpu", .run = emu_backend_run, .self = (void *)k };
}

void fuzz_run_case_on(const dg_problem *p, const fuzz_backend *be, const fuzz_space *s,
                      const fuzz_space_ctx *ctx, fuzz_case *c, fuzz_outcome *out)
{
  if (c->huge) {          /* lazily generated inputs, a sample of the blocks (fuzz_huge.c) */
    fuzz_huge_run_case(p, be, s, ctx, c, out);
    return;
  }
  double t0 = dg_now();
  memset(out, 0, sizeof *out);
  out->c = *c;
  out->status = FUZZ_PASS;
  int64_t *sizes = dg_malloc(sizeof *sizes * (p->sizes.n + 1));
  fuzz_case_sizes(ctx, c, sizes);
  emu_io io;
  dg_diags d = {0};
  double **env_data = dg_calloc(p->tensors.n + 1, sizeof *env_data);
  if (!emu_io_init(&io, p, sizes, &d)) {
    out->status = FUZZ_SKIPPED;
    snprintf(out->msg, sizeof out->msg, "tensors cannot be sized at %s", c->label);
    goto done;
  }
  case_inputs ci;
  if (!input_descs(p, s, ctx, c, sizes, &ci, out->msg, sizeof out->msg)) {
    out->status = FUZZ_SKIPPED;
    goto freeio;
  }
  out->input_digest = inputs_digest(&ci);
  if (!backend_draws(p, be, 0, &ci) && !fill_inputs(&ci, &io, ctx->deadline)) {
    budget_out(out, "drawing the inputs");
    goto freeio;
  }
  for (int t = 0; t < (int)p->tensors.n; t++) {     /* the reference sees inputs as they were */
    const dg_tensor *ts = &p->tensors.v[t];
    bool drawn = false;
    for (int j = 0; ci.lazy && j < ci.n; j++) drawn |= ci.tens[j] == t;
    if ((ts->role == DG_TENSOR_INPUT || ts->accumulate) && !drawn) {
      env_data[t] = dg_malloc(sizeof(double) * (size_t)(io.numel[t] ? io.numel[t] : 1));
      memcpy(env_data[t], io.data[t], sizeof(double) * (size_t)io.numel[t]);
    }
  }
  bool samp = be->sample && be->sample(be->self, p, sizes, c->seed, ctx->max_check);
  bool ran = be->run(be->self, p, sizes, &io, ctx->deadline, out);
  if (!ran && out->status == FUZZ_ERROR && past(ctx->deadline)) budget_out(out, "in the kernel's run on the emulator");
  if (ran) validate(p, be, sizes, &io, env_data, &ci, ctx, samp, out);
freeio:
  emu_io_free(&io);
done:
  for (size_t t = 0; t < p->tensors.n; t++) free(env_data[t]);
  free(env_data);
  dg_diags_free(&d);
  free(sizes);
  out->secs = dg_now() - t0;
}

void fuzz_run_case(const dg_problem *p, const emu_kernels *k, const fuzz_space *s,
                   const fuzz_space_ctx *ctx, fuzz_case *c, fuzz_outcome *out)
{
  fuzz_backend be = fuzz_backend_emu(k);
  fuzz_run_case_on(p, &be, s, ctx, c, out);
}

static bool failing(fuzz_status s) { return s == FUZZ_FAIL || s == FUZZ_FINDING; }

/* Smaller shapes that still fail: each symbol tries 1, 2, v/2 and v-1. */
static void shrink(const dg_problem *p, const fuzz_backend *be, const fuzz_space *s,
                   const fuzz_space_ctx *ctx, const fuzz_outcome *first, fuzz_summary *sum)
{
  fuzz_outcome best = *first;
  int budget = 60;
  for (bool progress = true; progress && budget > 0;) {
    progress = false;
    for (int i = 0; i < s->nsyms && budget > 0; i++) {
      int64_t v = best.c.sizes[i];
      int64_t tries[4] = { 1, 2, v / 2, v - 1 };
      for (int j = 0; j < 4 && budget > 0; j++) {
        if (tries[j] < 1 || tries[j] >= v) continue;
        fuzz_case c = best.c;
        c.sizes[i] = tries[j];
        if (!s->admissible(s->ud, c.sizes)) continue;
        fuzz_case_label(s, &c);
        fuzz_outcome o;
        budget--;
        fuzz_run_case_on(p, be, s, ctx, &c, &o);
        if (failing(o.status)) {
          o.k = best.k;
          best = o;
          progress = true;
          break;
        }
      }
    }
  }
  if (memcmp(best.c.sizes, first->c.sizes, sizeof best.c.sizes)) {
    sum->shrunk = true;
    sum->min = best;
  }
}

/* ---- the campaign: cases in order, in groups where the backend takes them ---- */
typedef struct {
  fuzz_case c;
  int64_t k;
  bool ok;                 /* the strategy gave it */
  bool have;
} pending_case;

static void gen_case(const fuzz_strategy *st, const fuzz_space *s, uint64_t seed, int64_t k, pending_case *pc)
{
  memset(pc, 0, sizeof *pc);
  pc->have = true;
  pc->k = k;
  pc->c.seed = fuzz_case_seed(seed, k);
  dg_rng r;
  dg_rng_seed(&r, pc->c.seed);
  if ((pc->ok = fuzz_strategy_gen(st, s, k, &r, &pc->c))) fuzz_case_label(s, &pc->c);
}

static void run_single(const dg_problem *p, const fuzz_backend *be, const fuzz_strategy *st, const fuzz_space *s,
                       const fuzz_space_ctx *ctx, pending_case *pc, fuzz_outcome *out)
{
  if (!pc->ok) {
    const char *why = fuzz_strategy_error(st);   /* a broken (Lua) strategy */
    memset(out, 0, sizeof *out);
    out->status = why ? FUZZ_ERROR : FUZZ_SKIPPED;
    snprintf(out->msg, sizeof out->msg, "%s", why ? why : "no admissible shape (constraints or size cap)");
  } else {
    fuzz_run_case_on(p, be, s, ctx, &pc->c, out);
  }
  out->k = pc->k;
}

static bool over_budget(const fuzz_opts *o, double t0) { return o->budget_s > 0 && dg_now() - t0 > o->budget_s; }

/* The group's shared io when the backend draws every input: the sizes
 * alone, no element arrays (a request reads nothing else of it; at realistic
 * sizes allocating and freeing them was most of the host's part of a case). */
static bool io_shell(emu_io *io, const dg_problem *p, const int64_t *sizes)
{
  memset(io, 0, sizeof *io);
  io->ntensors = (int)p->tensors.n;
  io->numel = dg_calloc((size_t)io->ntensors + 1, sizeof *io->numel);
  io->data = dg_calloc((size_t)io->ntensors + 1, sizeof *io->data);
  io->written = dg_calloc((size_t)io->ntensors + 1, sizeof *io->written);
  for (int t = 0; t < io->ntensors; t++)
    if ((io->numel[t] = dg_problem_numel(p, t, sizes)) < 0) {
      emu_io_free(io);
      return false;
    }
  return true;
}

/* A case's inputs and digest, as fuzz_run_case_on makes them, for a group:
 * 0: it stays out (its single run says why, if anything is wrong); 1: its
 * own io, filled (small cases); 2: the backend draws every input, so the
 * group's one io (*shared, made on first use: sizes, no elements) serves it. */
static int group_inputs(const dg_problem *p, const fuzz_backend *be, int slot, const fuzz_space *s,
                        const fuzz_space_ctx *ctx, fuzz_case *c, const int64_t *sizes, emu_io *io,
                        emu_io *shared, bool *have_shared, fuzz_outcome *out)
{
  memset(out, 0, sizeof *out);
  out->c = *c;
  out->status = FUZZ_PASS;
  case_inputs ci;
  if (!input_descs(p, s, ctx, c, sizes, &ci, out->msg, sizeof out->msg)) return 0;
  int64_t bytes = 0;
  for (size_t t = 0; t < p->tensors.n; t++) {
    int64_t n = dg_problem_numel(p, (int)t, sizes);
    if (n < 0) return 0;
    bytes += n * dg_dtypes[p->tensors.v[t].dtype].size;
  }
  out->input_digest = inputs_digest(&ci);
  dg_diags d = {0};
  int how = 0;
  if (backend_draws(p, be, slot, &ci)) {
    how = *have_shared || io_shell(shared, p, sizes) ? 2 : 0;
    *have_shared |= how == 2;
  } else if (bytes <= FUZZ_MANY_BYTES && emu_io_init(io, p, sizes, &d)) {
    fill_inputs(&ci, io, 0);   /* at most FUZZ_MANY_BYTES */
    how = 1;
  }
  dg_diags_free(&d);
  return how;
}

/* A group of cases of one shape (group_begin .. group_end): its cases, their
 * inputs, and the backend's request for them, in flight between the two
 * where the backend sends it ahead (many_send). */
typedef struct {
  pending_case g[FUZZ_MANY_MAX];
  int m, nin;
  int64_t *sizes;
  emu_io io[FUZZ_MANY_MAX], *ios[FUZZ_MANY_MAX], shared;
  bool have_shared, own[FUZZ_MANY_MAX];
  int idx[FUZZ_MANY_MAX];
  uint64_t seeds[FUZZ_MANY_MAX];
  void *job;                 /* many_send's: the request in flight */
  bool ran;
  fuzz_cmp cmp[FUZZ_MANY_MAX];
  uint8_t passed[FUZZ_MANY_MAX], sampled[FUZZ_MANY_MAX];
  int64_t explained[FUZZ_MANY_MAX];
  double t1;
} case_group;

/* The cases from *pc on that share its shape (generated ahead; the first of
 * another shape stays in *pc) into G, their inputs made, and the backend's
 * request for them sent (many_send: answered in group_end) or run
 * (run_many). 0: *pc is no group's (group_end is not called). */
static int group_begin(const dg_problem *p, const fuzz_backend *be, const fuzz_strategy *st, const fuzz_space *s,
                       const fuzz_space_ctx *ctx, const fuzz_opts *o, int64_t n, pending_case *pc, case_group *G,
                       fuzz_outcome *outs)
{
  int m = 0;
  while (m < FUZZ_MANY_MAX && pc->have && pc->ok && !pc->c.huge && be->run_many &&
         (!m || !memcmp(pc->c.sizes, G->g[0].c.sizes, sizeof G->g[0].c.sizes))) {
    G->g[m++] = *pc;
    pc->have = false;
    if (G->g[m - 1].k + 1 < n) gen_case(st, s, o->seed, G->g[m - 1].k + 1, pc);
  }
  G->m = m, G->nin = 0, G->job = NULL, G->ran = false, G->have_shared = false;
  if (m == 0) return 0;
  G->t1 = dg_now();
  G->sizes = dg_malloc(sizeof *G->sizes * (p->sizes.n + 1));
  fuzz_case_sizes(ctx, &G->g[0].c, G->sizes);
  memset(G->passed, 0, sizeof G->passed);
  memset(G->explained, 0, sizeof G->explained);
  memset(G->seeds, 0, sizeof G->seeds);
  memset(G->sampled, 0, sizeof G->sampled);
  for (int j = 0; m > 1 && j < m; j++) {
    int how = group_inputs(p, be, G->nin, s, ctx, &G->g[j].c, G->sizes, &G->io[j], &G->shared, &G->have_shared,
                           &outs[j]);
    if (!how) continue;
    G->ios[G->nin] = how == 2 ? &G->shared : &G->io[j];
    G->seeds[G->nin] = G->g[j].c.seed;
    G->own[G->nin] = how == 1;
    G->idx[G->nin++] = j;
  }
  if (G->nin > 1 && be->many_send) {
    G->ran = be->many_send(be->self, p, G->sizes, G->ios, G->nin, G->seeds, ctx->max_check, &G->job);
    if (!G->ran) G->job = NULL;   /* (nothing sent: nothing to end) */
  }
  else if (G->nin > 1)
    G->ran = be->run_many(be->self, p, G->sizes, G->ios, G->nin, G->seeds, ctx->max_check, G->cmp, G->passed,
                          G->explained, G->sampled);
  return m;
}

/* The group's outcomes into outs[] in case order: those the request judged,
 * the rest run one by one (a failure may end the group). discard: the
 * campaign stopped before it; its request is answered and nothing else
 * runs. Returns how many cases it judged (at least 1, 0 when discarded). */
static int group_end(const dg_problem *p, const fuzz_backend *be, const fuzz_strategy *st, const fuzz_space *s,
                     const fuzz_space_ctx *ctx, const fuzz_opts *o, double t0, case_group *G, bool discard,
                     fuzz_outcome *outs)
{
  if (G->job) G->ran = be->many_end(be->self, G->job, G->cmp, G->passed, G->explained, G->sampled);
  G->job = NULL;
  double each = (dg_now() - G->t1) / (G->nin ? G->nin : 1);
  bool judged[FUZZ_MANY_MAX] = {0};
  if (G->have_shared) emu_io_free(&G->shared);
  for (int i = 0; i < G->nin; i++) {
    int j = G->idx[i];
    if (G->own[i]) emu_io_free(&G->io[j]);
    if (!G->ran || !G->passed[i]) continue;
    judged[j] = true;
    outs[j].k = G->g[j].k;
    outs[j].cmp.max_abs = G->cmp[i].max_abs;
    outs[j].cmp.max_ulp = G->cmp[i].max_ulp;
    outs[j].nexplained = G->explained[i];   /* off the reference, inside the envelope (judged there) */
    outs[j].sampled = G->sampled[i];        /* judged there on the validator's sample */
    outs[j].secs = each;
  }
  free(G->sizes);
  G->sizes = NULL;
  if (discard) return 0;
  for (int j = 0; j < G->m; j++) {   /* the rest one by one, in order; a failure may end the group */
    if (judged[j]) continue;
    if (j > 0 && over_budget(o, t0)) return j;
    run_single(p, be, st, s, ctx, &G->g[j], &outs[j]);
    if (failing(outs[j].status) && !o->keep_going) return j + 1;
  }
  return G->m;
}

bool fuzz_campaign(const dg_problem *p, const emu_kernels *k, const fuzz_opts *o,
                   fuzz_summary *sum, dg_diags *d)
{
  memset(sum, 0, sizeof *sum);
  const fuzz_strategy *st = o->strategy ? o->strategy : fuzz_strategy_find("boundary+adversarial");
  fuzz_backend emu = fuzz_backend_emu(k);
  const fuzz_backend *be = o->backend ? o->backend : &emu;
  sum->strategy = st->name;
  sum->seed = o->seed;
  fuzz_space s;
  fuzz_space_ctx ctx;
  fuzz_space_init2(&s, &ctx, p, o->max_elems, o->max_check);
  ctx.on_fail = o->on_fail;
  ctx.on_fail_ud = o->ud;
  int64_t n = o->ncases > 0 ? o->ncases : 40;
  double t0 = dg_now();
  ctx.deadline = o->budget_s > 0 ? t0 + o->budget_s : 0;
  pending_case pc = {0};
  /* groups: the one whose outcomes come next, and the next one sent behind
     it where the backend sends ahead (two requests in flight) */
  case_group *G[2] = { dg_malloc(sizeof *G[0]), dg_malloc(sizeof *G[1]) };
  fuzz_outcome *outs[2] = { dg_malloc(sizeof *outs[0] * FUZZ_MANY_MAX), dg_malloc(sizeof *outs[1] * FUZZ_MANY_MAX) };
  int cur = 0;
  bool begun = false;   /* G[cur] begun ahead */
  bool stop = false;
  for (int64_t kk = 0; kk < n && !stop;) {
    if (over_budget(o, t0)) break;
    int m;
    if (!begun) {
      if (!pc.have) gen_case(st, &s, o->seed, kk, &pc);
      if (!pc.ok && st->finite && !fuzz_strategy_error(st)) break;   /* its cases are all given */
      m = group_begin(p, be, st, &s, &ctx, o, n, &pc, G[cur], outs[cur]);
    } else {
      m = G[cur]->m;
    }
    begun = false;
    if (m == 0) {   /* a case no group takes: alone */
      run_single(p, be, st, &s, &ctx, &pc, &outs[cur][0]);
      pc.have = false;
      m = 1;
    } else {
      /* the next group of this shape sent before this one's outcomes */
      if (G[cur]->job && kk + m < n && pc.have && pc.ok && !pc.c.huge &&
          !memcmp(pc.c.sizes, G[cur]->g[0].c.sizes, sizeof pc.c.sizes) && !over_budget(o, t0))
        begun = group_begin(p, be, st, &s, &ctx, o, n, &pc, G[!cur], outs[!cur]) > 0;
      m = group_end(p, be, st, &s, &ctx, o, t0, G[cur], false, outs[cur]);
    }
    for (int j = 0; j < m && !stop; j++) {
      if (j > 0 && over_budget(o, t0)) {
        stop = true;
        break;
      }
      const fuzz_outcome *out = &outs[cur][j];
      sum->ncases++;
      switch (out->status) {   /* tally by outcome */
      case FUZZ_PASS:
        sum->npass++;
        if (out->cmp.max_abs > sum->max_abs) sum->max_abs = out->cmp.max_abs;
        if (out->cmp.max_ulp > sum->max_ulp) sum->max_ulp = out->cmp.max_ulp;
        break;
      case FUZZ_FAIL: sum->nfail++; break;
      case FUZZ_FINDING: sum->nfinding++; break;
      case FUZZ_ERROR: sum->nerror++; break;
      case FUZZ_SKIPPED: sum->nskip++; break;
      }
      if (o->progress) o->progress(o->ud, out);
      if (failing(out->status) && !sum->failed) {
        sum->failed = true;
        sum->first = *out;
        sum->t_first = dg_now() - t0;
        if (!o->keep_going) stop = true;
      }
    }
    kk += m;
    if (begun) cur = !cur;
  }
  if (begun)   /* sent ahead, the campaign over before it: answered, not counted */
    group_end(p, be, st, &s, &ctx, o, t0, G[cur], true, outs[cur]);
  free(G[0]), free(G[1]);
  free(outs[0]);
  free(outs[1]);
  if (sum->failed && o->shrink && !sum->first.c.huge) shrink(p, be, &s, &ctx, &sum->first, sum);
  sum->secs = dg_now() - t0;
  (void)d;
  return true;
}

char *fuzz_witness(const fuzz_space *s, const char *strategy, uint64_t seed, int64_t k,
                   const fuzz_case *c, bool with_sizes)
{
  dg_buf b = {0};
  dg_buf_printf(&b, "fuzz:%s:%" PRIu64 ":%" PRId64, strategy, seed, k);
  with_sizes |= c->huge == 1;        /* a huge case's sizes are its point: always spelled out */
  for (int i = 0; with_sizes && i < s->nsyms; i++)
    dg_buf_printf(&b, "%c%s=%" PRId64, i ? ',' : '@', s->syms[i], c->sizes[i]);
  return dg_buf_take(&b);
}

bool fuzz_witness_parse(const char *w, const fuzz_space *s, fuzz_case *c, int64_t *k,
                        const fuzz_strategy **st, uint64_t *seed, char **err)
{
  char name[64];
  unsigned long long sd;
  long long kk;
  int used = 0;
  if (sscanf(w, "fuzz:%63[^:]:%llu:%lld%n", name, &sd, &kk, &used) != 3 || kk < 0) {
    *err = dg_printf("witness '%s': expected fuzz:STRATEGY:SEED:CASE[@SIZE=N,...]", w);
    return false;
  }
  if (!(*st = fuzz_strategy_find(name))) {
    *err = dg_printf("witness '%s': unknown strategy '%s'", w, name);
    return false;
  }
  *seed = sd;
  *k = kk;
  memset(c, 0, sizeof *c);
  c->seed = fuzz_case_seed(sd, kk);
  dg_rng r;
  dg_rng_seed(&r, c->seed);
  if (!fuzz_strategy_gen(*st, s, kk, &r, c)) {
    const char *why = fuzz_strategy_error(*st);
    *err = why ? dg_printf("witness '%s': %s", w, why)
               : dg_printf("witness '%s': the strategy gives no case %lld here", w, kk);
    return false;
  }
  const char *q = w + used;
  if (*q == '@') {
    for (q++; *q;) {
      char sym[64];
      long long v;
      int n = 0;
      if (sscanf(q, "%63[^=]=%lld%n", sym, &v, &n) != 2) {
        *err = dg_printf("witness '%s': bad size list at '%s'", w, q);
        return false;
      }
      int i = 0;
      while (i < s->nsyms && strcmp(s->syms[i], sym)) i++;
      if (i == s->nsyms) {
        *err = dg_printf("witness '%s': '%s' is not a size of this problem", w, sym);
        return false;
      }
      c->sizes[i] = v;
      q += n;
      if (*q == ',') q++;
      else if (*q) {
        *err = dg_printf("witness '%s': bad size list at '%s'", w, q);
        return false;
      }
    }
  } else if (*q) {
    *err = dg_printf("witness '%s': unexpected '%s'", w, q);
    return false;
  }
  /* sizes typed by hand: refuse what the space would never draw (a 10^10
   * element tensor aborted the emulator's allocation); huge cases are lazy */
  char *why = !c->huge && s->admissible == space_admissible ? space_refusal(s->ud, c->sizes) : NULL;
  if (why) {
    *err = dg_printf("witness '%s': sizes the fuzzer does not run: %s", w, why);
    free(why);
    return false;
  }
  fuzz_case_label(s, c);
  return true;
}
