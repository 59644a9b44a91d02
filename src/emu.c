/* emu.c — running a whole problem on the emulator (see emu.h). */
#include "emu.h"
#include "emu_lazy.h"
#include "fe.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dg_tykind dtype_ty[DG_DT__COUNT] = {
  [DG_DT_F32] = DG_TY_F32, [DG_DT_F16] = DG_TY_F16, [DG_DT_BF16] = DG_TY_BF16,
  [DG_DT_F64] = DG_TY_F64, [DG_DT_I32] = DG_TY_I32, [DG_DT_I64] = DG_TY_I64,
  [DG_DT_U8] = DG_TY_U8, [DG_DT_BOOL] = DG_TY_BOOL,
};

/* A scalar pointee of another size than the tensor's elements (elu_kernel<double> on f32
 * data), or the other 2-byte float (__half for bf16): the kernel would read and write
 * other bytes than the tensor's. Vectors, structs, void and same-size reinterpretations
 * (float4 *, unsigned * for f32 bits) are the kernel's business. */
static bool elem_mismatch(const dg_type *e, dg_dtype dt)
{
  if (!e || e->kind < DG_TY_I8 || e->kind > DG_TY_F64) return false;
  if (dg_type_size(e) != dg_dtypes[dt].size) return true;
  return (e->kind == DG_TY_F16 && dt == DG_DT_BF16) || (e->kind == DG_TY_BF16 && dt == DG_DT_F16);
}

bool emu_kernels_load(emu_kernels *k, const dg_problem *p, dg_diags *d)
{
  memset(k, 0, sizeof *k);
  dg_srcmgr_init(&k->sm);
  if (!p->source) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "the problem names no kernel source");
    return false;
  }
  fe_options opt = { .defines = p->defines.v, .ndefines = (int)p->defines.n };
  dg_diags fd = {0};
  k->mod = fe_load(&k->sm, p->source, &opt, &fd);
  if (!k->mod) {     /* unreadable or a preprocessor error: reported at the spec's source =
                        (else its problem {), with the kernel file's own position (in k->sm)
                        in the text */
    dg_span at = dg_problem_source_at(p);
    for (size_t i = 0; i < fd.v.n; i++) {
      const dg_diag *g = &fd.v.v[i];
      if (g->span.file) dg_diag_add(d, DG_SEV_ERROR, at, "%s:%u:%u: %s", dg_srcmgr_path(&k->sm, g->span.file),
                                    g->span.line, g->span.col, g->msg);
      else dg_diag_add(d, DG_SEV_ERROR, at, "%s", g->msg);
    }
    if (!fd.v.n) dg_diag_add(d, DG_SEV_ERROR, at, "cannot load kernel source %s", p->source);
    dg_diags_free(&fd);
    return false;
  }
  dg_diags_free(&fd);   /* kept in k->mod->diags, with spans into k->sm */
  bool ok = true;
  for (size_t i = 0; i < p->launches.n; i++) {
    const dg_launch *l = p->launches.v[i];
    bool templated;
    char *name = dg_problem_launch_instance(p, (int)i, &templated);
    dg_func *f = fe_find(k->mod, name);
    size_t nd = k->mod->diags.v.n;
    if (!f && templated) f = fe_instantiate(k->mod, name, NULL);
    if (!f && (f = fe_find(k->mod, l->kernel)) && templated) {
      /* the spec's template does not apply to this plain kernel (a pipeline's
       * other launch): not an error — drop instantiate's "not a template" */
      while (k->mod->diags.v.n > nd) {
        dg_diag *g = &k->mod->diags.v.v[--k->mod->diags.v.n];
        if (g->sev == DG_SEV_ERROR || g->sev == DG_SEV_UNSUPPORTED) k->mod->diags.nerrors--;
        free(g->msg);
      }
      if (p->launches.n == 1)
        dg_diag_add(d, DG_SEV_WARNING, l->span, "template arguments ignored: '%s' is not a template", l->kernel);
    }
    if (!f) {   /* the instance's refusals without a kernel-file position are about the spec's launch */
      size_t w = nd;
      for (size_t g = nd; g < k->mod->diags.v.n; g++) {
        dg_diag *x = &k->mod->diags.v.v[g];
        if (x->span.file) { k->mod->diags.v.v[w++] = *x; continue; }
        dg_diag_add(d, x->sev, l->span, "%s", x->msg);
        if (x->sev == DG_SEV_ERROR || x->sev == DG_SEV_UNSUPPORTED) k->mod->diags.nerrors--;
        free(x->msg);
      }
      k->mod->diags.v.n = w;
    }
    if (f && f->is_kernel && (int)l->args.n != f->nparams) {   /* else every run says so, without a position */
      dg_diag_add(d, DG_SEV_ERROR, l->span, "launch %zu: %s takes %d argument%s, the launch gives %zu",
                  i + 1, f->name, f->nparams, f->nparams == 1 ? "" : "s", l->args.n);
      ok = false;
    } else if (f && f->is_kernel) {
      /* a tensor goes to a pointer parameter and nothing else does (a number there ran as a
       * null pointer; a tensor for an int was an 'error' verdict without a position) */
      for (size_t a = 0; a < l->args.n; a++) {
        const dg_launch_arg *x = &l->args.v[a];
        const dg_var *pv = f->params[a];
        bool ptr = pv->type && pv->type->kind == DG_TY_PTR && !pv->by_ref;
        bool numeric = x->kind == DG_ARG_EXPR || x->kind == DG_ARG_BOOL || x->kind == DG_ARG_FLOAT || x->kind == DG_ARG_ATTR;
        bool fl = x->kind == DG_ARG_FLOAT || (x->kind == DG_ARG_ATTR && p->attrs.v[x->index].kind == DG_ATTR_FLOAT);
        double fv = x->kind == DG_ARG_FLOAT ? x->f : x->kind == DG_ARG_ATTR ? p->attrs.v[x->index].f : 0;
        bool inrange = fabs(fv) < 9.2e18;   /* (NaN: not) — the cast below only then */
        if (fl && pv->type && pv->type->kind >= DG_TY_BOOL && pv->type->kind <= DG_TY_U64 &&
            (!inrange || fv != (double)(int64_t)fv)) {
          char as[48] = "does not fit";
          if (inrange) snprintf(as, sizeof as, "runs as %lld", (long long)fv);
          dg_diag_add(d, DG_SEV_WARNING, dg_problem_launch_arg_span(p, (int)i, (int)a),
                      "launch %zu: argument %zu '%s' is a float for the integer parameter '%s' of %s: it %s",
                      i + 1, a + 1, x->text, pv->name, f->name, as);
          continue;
        }
        if (ptr && numeric)
          dg_diag_add(d, DG_SEV_ERROR, dg_problem_launch_arg_span(p, (int)i, (int)a),
                      "launch %zu: argument %zu '%s' is a number, but parameter '%s' of %s is a pointer (a tensor or scratch buffer goes there)",
                      i + 1, a + 1, x->text, pv->name, f->name);
        else if (!ptr && x->kind == DG_ARG_TENSOR)
          dg_diag_add(d, DG_SEV_ERROR, dg_problem_launch_arg_span(p, (int)i, (int)a),
                      "launch %zu: argument %zu '%s' is a tensor, but parameter '%s' of %s is not a pointer",
                      i + 1, a + 1, x->text, pv->name, f->name);
        else if (ptr && x->kind == DG_ARG_TENSOR && elem_mismatch(pv->type->elem, p->tensors.v[x->index].dtype)) {
          const dg_dtype_info *dt = &dg_dtypes[p->tensors.v[x->index].dtype];
          dg_diag_add(d, DG_SEV_ERROR, dg_problem_launch_arg_span(p, (int)i, (int)a),
                      "launch %zu: argument %zu '%s' is %s %s tensor (%d bytes an element), but parameter '%s' of %s points to %s (%lld bytes)",
                      i + 1, a + 1, x->text, strchr("fi", dt->name[0]) ? "an" : "a", dt->name, dt->size, pv->name, f->name, pv->type->elem->name,
                      (long long)dg_type_size(pv->type->elem));
        } else continue;
        ok = false;
      }
    }
    if (!f || !f->is_kernel) {
      dg_diag_add(d, DG_SEV_ERROR, l->span, "launch %zu: no usable __global__ kernel '%s' in %s%s",
                  i + 1, name, p->source, k->mod->diags.nerrors ? " (see the diagnostics above)" : "");
      ok = false;
    }
    dg_vec_push(&k->kern, f);
    free(name);
  }
  return ok;
}

void emu_kernels_print_diags(FILE *f, const emu_kernels *k)
{
  if (k->mod) dg_diags_print(f, &k->sm, &k->mod->diags);
}

void emu_kernels_free(emu_kernels *k)
{
  if (k->mod) fe_module_free(k->mod);
  dg_vec_free(&k->kern);
  dg_srcmgr_free(&k->sm);
  memset(k, 0, sizeof *k);
}

bool emu_io_init(emu_io *io, const dg_problem *p, const int64_t *sizes, dg_diags *d)
{
  return emu_io_init_lazy(io, p, sizes, NULL, NULL, NULL, d);
}

bool emu_io_init_lazy(emu_io *io, const dg_problem *p, const int64_t *sizes, const bool *lazy,
                      double (*value)(void *ud, int t, int64_t i), void *value_ud, dg_diags *d)
{
  memset(io, 0, sizeof *io);
  io->ntensors = (int)p->tensors.n;
  io->numel = dg_calloc((size_t)io->ntensors, sizeof *io->numel);
  io->data = dg_calloc((size_t)io->ntensors, sizeof *io->data);
  io->written = dg_calloc((size_t)io->ntensors, sizeof *io->written);
  for (int t = 0; t < io->ntensors; t++) {
    int64_t n = dg_problem_numel(p, t, sizes);
    if (n < 0) {
      dg_diag_add(d, DG_SEV_ERROR, p->tensors.v[t].span, "cannot size tensor '%s'", p->tensors.v[t].name);
      emu_io_free(io);
      return false;
    }
    io->numel[t] = n;
    if (lazy && lazy[t] && value && (p->tensors.v[t].role == DG_TENSOR_INPUT ||
                                     (p->tensors.v[t].role == DG_TENSOR_OUTPUT && !p->tensors.v[t].accumulate))) {
      if (!io->lazy) io->lazy = dg_calloc((size_t)io->ntensors, sizeof *io->lazy);
      io->lazy[t] = true;
      continue;
    }
    io->data[t] = dg_calloc((size_t)(n ? n : 1), sizeof(double));
    io->written[t] = dg_calloc((size_t)(n ? n : 1), 1);
  }
  io->value = value;
  io->value_ud = value_ud;
  return true;
}

void emu_io_free(emu_io *io)
{
  for (int t = 0; t < io->ntensors; t++) {
    free(io->data ? io->data[t] : NULL);
    free(io->written ? io->written[t] : NULL);
  }
  free(io->numel);
  free(io->data);
  free(io->written);
  free(io->lazy);
  memset(io, 0, sizeof *io);
}

void emu_result_free(emu_result *r)
{
  free(r->error);
  dg_vec_free(&r->events);
  memset(r, 0, sizeof *r);
}

bool emu_event_is_finding(simt_evkind k)
{
  static const bool finding[SIMT_EV__COUNT] = {
    [SIMT_EV_OOB] = true, [SIMT_EV_UNINIT] = true, [SIMT_EV_RACE] = true,
    [SIMT_EV_BARRIER_DIVERGENCE] = true, [SIMT_EV_RUNAWAY] = true,
    [SIMT_EV_READONLY] = true, [SIMT_EV_ASSERT] = true, [SIMT_EV_SHFL_INACTIVE] = true,
    [SIMT_EV_DIV_ZERO] = true,
  };
  return finding[k];
}

/* The tensor's initial bytes in the engine: inputs and accumulate outputs
 * carry the caller's values; scratch gets its zeroed prefix; the rest stays
 * poisoned so unwritten output and uninitialised reads show. */
typedef struct { const emu_io *io; int t; dg_dtype dt; int es; } lazy_src;

static void lazy_fill(void *ud, int64_t off, uint8_t *dst, int64_t n)
{
  const lazy_src *s = ud;
  int64_t first = off / s->es;
  for (int64_t j = 0; j < n / s->es; j++)
    dg_dtype_store(s->dt, dst, j, s->io->value(s->io->value_ud, s->t, first + j));
}

/* A tensor the spec declares an input (not an `accumulate` output) is
 * read-only: a kernel storing into it clobbers its caller's data, reported
 * as a readonly-write event (a finding), on the concrete and the symbolic
 * machine alike (check_run.c). In-place updates are `accumulate` outputs. */
unsigned emu_buf_flags(const dg_tensor *ts)
{
  return ts->role == DG_TENSOR_INPUT && !ts->accumulate ? SIMT_BUF_READONLY : 0;
}

/* A lazy input: a reservation the engine reads as plain bytes (emu_lazy.h). */
static int make_lazy(simt *m, const dg_problem *p, int t, const emu_io *io, lazy_src *src,
                     emu_lazy **z, dg_diags *d)
{
  const dg_tensor *ts = &p->tensors.v[t];
  *src = (lazy_src){ io, t, ts->dtype, dg_dtypes[ts->dtype].size };
  char *err = NULL;
  *z = emu_lazy_new(io->numel[t] * src->es, lazy_fill, src, &err);
  if (!*z) {
    dg_diag_add(d, DG_SEV_ERROR, ts->span, "tensor '%s': %s", ts->name, err);
    free(err);
    return -1;
  }
  return simt_buf_wrap(m, ts->name, ir_type_scalar(dtype_ty[ts->dtype]), emu_lazy_bytes(*z),
                       emu_lazy_size(*z), emu_buf_flags(ts));
}

static int make_buffer(simt *m, const dg_problem *p, int t, const int64_t *sizes,
                       const emu_io *io, dg_diags *d)
{
  const dg_tensor *ts = &p->tensors.v[t];
  int es = dg_dtypes[ts->dtype].size;
  int64_t n = io->numel[t], bytes = n * es;
  int buf = simt_buf_new(m, ts->name, ir_type_scalar(dtype_ty[ts->dtype]), bytes, emu_buf_flags(ts));
  if (ts->role == DG_TENSOR_INPUT || ts->accumulate) {
    uint8_t *raw = dg_malloc((size_t)(bytes ? bytes : 1));
    for (int64_t i = 0; i < n; i++) dg_dtype_store(ts->dtype, raw, i, io->data[t][i]);
    simt_buf_write(m, buf, 0, raw, bytes);
    free(raw);
  } else if (ts->role == DG_TENSOR_SCRATCH && ts->zero_bytes.text) {
    int64_t z = 0;
    if (!dg_problem_zero_bytes(p, t, sizes, &z, d)) return -1;
    if (z > bytes) z = bytes;
    uint8_t *zeros = dg_calloc((size_t)(z ? z : 1), 1);
    simt_buf_write(m, buf, 0, zeros, z);
    free(zeros);
  }
  return buf;
}

static bool launch_args(const dg_problem *p, int li, const int64_t *sizes, const int *bufs,
                        simt_arg *args, dg_diags *d)
{
  const dg_launch *l = p->launches.v[li];
  for (size_t a = 0; a < l->args.n; a++) {
    const dg_launch_arg *x = &l->args.v[a];
    simt_arg *s = &args[a];
    memset(s, 0, sizeof *s);
    switch (x->kind) {   /* one case per argument kind of launch.h */
    case DG_ARG_TENSOR: s->kind = SIMT_ARG_BUF; s->buf = bufs[x->index]; break;
    case DG_ARG_EXPR: case DG_ARG_BOOL:
      s->kind = SIMT_ARG_INT;
      if (!dg_problem_arg_int(p, li, (int)a, sizes, &s->i, d)) return false;
      break;
    case DG_ARG_FLOAT: s->kind = SIMT_ARG_FLOAT; s->f = x->f; break;
    case DG_ARG_NULL: s->kind = SIMT_ARG_NULL; break;
    case DG_ARG_ATTR: {
      const dg_attr *at = &p->attrs.v[x->index];
      if (at->kind == DG_ATTR_STR || at->kind == DG_ATTR_LIST) {
        dg_diag_add(d, DG_SEV_ERROR, l->span, "launch argument '%s': attribute is not a number", x->text);
        return false;
      }
      s->kind = at->kind == DG_ATTR_FLOAT ? SIMT_ARG_FLOAT : SIMT_ARG_INT;
      s->f = at->f;
      s->i = at->i;
      break;
    }
    case DG_ARG_TAG:
      dg_diag_add(d, DG_SEV_UNSUPPORTED, l->span, "launch argument '%s': C++ tag arguments do not run in the emulator", x->text);
      return false;
    }
  }
  return true;
}

/* tracked: accumulate outputs under block sampling, whose bytes count as
 * written from the start: the writer map says which ones the blocks stored */
static void read_back(simt *m, const dg_problem *p, int t, int buf, emu_io *io, bool tracked)
{
  const dg_tensor *ts = &p->tensors.v[t];
  int es = dg_dtypes[ts->dtype].size;
  const uint8_t *raw = simt_buf_data(m, buf);
  for (int64_t i = 0; i < io->numel[t]; i++) {
    io->data[t][i] = dg_dtype_load(ts->dtype, raw, i);
    bool w = true;
    for (int b = 0; b < es && w; b++)
      w = tracked ? simt_writer(m, buf, i * es + b, NULL) >= 0 : simt_buf_is_init(m, buf, i * es + b);
    io->written[t][i] = w;
  }
}

bool emu_run(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, emu_io *io,
             const emu_opts *o, emu_result *res, dg_diags *d)
{
  memset(res, 0, sizeof *res);
  res->failed_launch = -1;
  if (!dg_problem_check_sizes(p, sizes, d)) return false;
  bool sampled = o && o->blocks;
  if (sampled && p->launches.n != 1) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "block sampling runs a single launch, not a pipeline of %zu",
                p->launches.n);
    return false;
  }
  simt *m = simt_new(o ? o->domain : NULL);
  int *bufs = dg_calloc(p->tensors.n + 1, sizeof *bufs);
  emu_lazy **lz = dg_calloc(p->tensors.n + 1, sizeof *lz);
  lazy_src *lsrc = dg_calloc(p->tensors.n + 1, sizeof *lsrc);
  bool ok = true;
  for (int t = 0; t < (int)p->tensors.n && ok; t++) {
    if (io->lazy && io->lazy[t]) bufs[t] = make_lazy(m, p, t, io, &lsrc[t], &lz[t], d);
    else bufs[t] = make_buffer(m, p, t, sizes, io, d);
    ok = bufs[t] > 0;
    if (ok && sampled && p->tensors.v[t].accumulate) simt_track_writes(m, bufs[t]);
  }
  for (int li = 0; ok && li < (int)p->launches.n; li++) {
    const dg_launch *l = p->launches.v[li];
    simt_arg *args = dg_calloc(l->args.n + 1, sizeof *args);
    int64_t grid[3], block[3], shared = 0;
    ok = dg_problem_launch_dims(p, li, sizes, grid, block, &shared, d) &&
         launch_args(p, li, sizes, bufs, args, d);
    if (ok) {
      simt_launch L = { .shared_bytes = shared, .seed = o ? o->seed : 0,
                        .max_loop_iters = o ? o->max_loop_iters : 0, .deadline = o ? o->deadline : 0,
                        .max_lane_ops = o ? o->max_lane_ops : 0,
                        .blocks = sampled ? o->blocks : NULL, .nblocks = sampled ? o->nblocks : 0 };
      for (int j = 0; j < 3; j++) {
        L.grid[j] = (uint32_t)grid[j];
        L.block[j] = (uint32_t)block[j];
      }
      res->status = simt_run(m, k->kern.v[li], &L, args, (int)l->args.n);
      res->blocks_run += (int64_t)simt_last_stats(m).blocks;
      res->blocks_total += grid[0] * grid[1] * grid[2];
      size_t ne;
      const simt_event *ev = simt_events(m, &ne);
      for (size_t e = 0; e < ne; e++) dg_vec_push(&res->events, ev[e]);
      res->lane_ops += simt_last_stats(m).lane_ops;
      if (res->status == SIMT_BADARGS) res->error = dg_strdup(simt_error(m));
      if (res->status != SIMT_OK) res->failed_launch = li;
    }
    free(args);
    if (res->status != SIMT_OK) break;
  }
  if (ok)
    for (int t = 0; t < (int)p->tensors.n; t++)
      if (p->tensors.v[t].role != DG_TENSOR_INPUT && !(io->lazy && io->lazy[t]))   /* lazy: nothing to hold */
        read_back(m, p, t, bufs[t], io, sampled && p->tensors.v[t].accumulate);
  free(bufs);
  simt_free(m);
  for (size_t t = 0; t < p->tensors.n; t++) {
    if (lz[t]) res->lazy_fills += emu_lazy_fills(lz[t]);
    emu_lazy_free(lz[t]);            /* after simt_free: the engine held its bytes */
  }
  free(lz), free(lsrc);
  return ok;
}
