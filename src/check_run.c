/* check_run.c — machines for the checker: a problem's tensors as engine
 * buffers (concrete or symbolic) and its launches run block-restricted, so
 * the checker can find L's writer, run only the blocks that matter, and read
 * the symbolic cells back. emu.c runs whole pipelines for the fuzzer and
 * does not hand out its machine; this is the part the checker needs open. */
#include "check_int.h"
#include "check_slice.h"
#include "dom_sym.h"
#include "fuzz.h"
#include "gpu_run.h"
#include <math.h>
#include <string.h>

static const dg_tykind dtype_ty[DG_DT__COUNT] = {
  [DG_DT_F32] = DG_TY_F32, [DG_DT_F16] = DG_TY_F16, [DG_DT_BF16] = DG_TY_BF16,
  [DG_DT_F64] = DG_TY_F64, [DG_DT_I32] = DG_TY_I32, [DG_DT_I64] = DG_TY_I64,
  [DG_DT_U8] = DG_TY_U8, [DG_DT_BOOL] = DG_TY_BOOL,
};

int check_tykind(dg_dtype dt) { return dtype_ty[dt]; }

bool check_mach_init(check_mach *cm, const dg_problem *p, const int64_t *sizes, const emu_io *io,
                     dom *sym, char **err)
{
  memset(cm, 0, sizeof *cm);
  cm->p = p;
  cm->sizes = sizes;
  cm->m = simt_new(sym);
  cm->sym = sym;
  cm->bufs = dg_calloc(p->tensors.n + 1, sizeof *cm->bufs);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int es = dg_dtypes[ts->dtype].size;
    int64_t n = io->numel[t], bytes = n * es, z = 0;
    bool input = ts->role == DG_TENSOR_INPUT || ts->accumulate;
    /* the symbolic domain reads an input as variables (or the fixed values
     * of a ranged one), never its bytes: they only need to count as written;
     * a concrete machine gets them before its first full launch (write_inputs) */
    int buf = io->lazy && io->lazy[t] ? check_huge_buf(cm, (int)t, io, err)     /* past memory */
            : simt_buf_new(cm->m, ts->name, ir_type_scalar(dtype_ty[ts->dtype]), bytes,
                           (input && sym ? SIMT_BUF_INIT : 0) | emu_buf_flags(ts));
    if (buf < 0) return false;
    cm->bufs[t] = buf;
    if (input && !sym) {
      cm->io = io;
    } else if (ts->role == DG_TENSOR_SCRATCH && ts->zero_bytes.text) {
      dg_diags d = {0};
      bool ok = dg_problem_zero_bytes(p, (int)t, sizes, &z, &d);
      dg_diags_free(&d);
      if (!ok) {
        *err = dg_printf("cannot evaluate zero_bytes of scratch '%s'", ts->name);
        return false;
      }
      if (z > bytes) z = bytes;
      uint8_t *zeros = dg_calloc((size_t)(z ? z : 1), 1);
      simt_buf_write(cm->m, buf, 0, zeros, z);
      free(zeros);
    }
    if (sym) {
      dom_sym_binding b = {
        .tensor = ts->name, .tykind = dtype_ty[ts->dtype], .elem_size = es, .input = input,
        .fixed = ts->has_range ? io->data[t] : NULL, .numel = n, .zero_bytes = z,
      };
      dom_sym_bind(sym, buf, &b);
    }
  }
  return true;
}

/* The inputs' values into a concrete machine's buffers (once). */
static void write_inputs(check_mach *cm)
{
  const dg_problem *p = cm->p;
  for (size_t t = 0; cm->io && t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if ((ts->role != DG_TENSOR_INPUT && !ts->accumulate) || !cm->io->data[t]) continue;   /* lazy: filled on touch */
    int64_t n = cm->io->numel[t], bytes = n * dg_dtypes[ts->dtype].size;
    uint8_t *raw = dg_malloc((size_t)(bytes ? bytes : 1));
    for (int64_t i = 0; i < n; i++) dg_dtype_store(ts->dtype, raw, i, cm->io->data[t][i]);
    simt_buf_write(cm->m, cm->bufs[t], 0, raw, bytes);
    free(raw);
  }
  cm->io = NULL;
}

void check_mach_free(check_mach *cm)
{
  simt_free(cm->m);
  check_huge_mach_free(cm);
  free(cm->bufs);
  memset(cm, 0, sizeof *cm);
}

static bool launch_args(const dg_problem *p, int li, const int64_t *sizes, const int *bufs,
                        simt_arg *args, char **err)
{
  const dg_launch *l = p->launches.v[li];
  dg_diags d = {0};
  bool ok = true;
  for (size_t a = 0; a < l->args.n && ok; a++) {
    const dg_launch_arg *x = &l->args.v[a];
    simt_arg *s = &args[a];
    memset(s, 0, sizeof *s);
    switch (x->kind) {
    case DG_ARG_TENSOR: s->kind = SIMT_ARG_BUF; s->buf = bufs[x->index]; break;
    case DG_ARG_EXPR: case DG_ARG_BOOL:
      s->kind = SIMT_ARG_INT;
      ok = dg_problem_arg_int(p, li, (int)a, sizes, &s->i, &d);
      if (!ok) *err = dg_printf("launch %d: cannot evaluate argument '%s'", li + 1, x->text);
      break;
    case DG_ARG_FLOAT: s->kind = SIMT_ARG_FLOAT; s->f = x->f; break;
    case DG_ARG_NULL: s->kind = SIMT_ARG_NULL; break;
    case DG_ARG_ATTR: {
      const dg_attr *at = &p->attrs.v[x->index];
      if (at->kind == DG_ATTR_STR || at->kind == DG_ATTR_LIST) {
        *err = dg_printf("launch argument '%s': attribute is not a number", x->text);
        ok = false;
        break;
      }
      s->kind = at->kind == DG_ATTR_FLOAT ? SIMT_ARG_FLOAT : SIMT_ARG_INT;
      s->f = at->f;
      s->i = at->i;
      break;
    }
    case DG_ARG_TAG:
      *err = dg_printf("launch argument '%s': C++ tag arguments do not run in the emulator", x->text);
      ok = false;
      break;
    }
  }
  dg_diags_free(&d);
  return ok;
}

bool check_mach_dims(const check_mach *cm, int li, simt_launch *L, char **err)
{
  int64_t grid[3], block[3], shared = 0;
  dg_diags d = {0};
  bool ok = dg_problem_launch_dims(cm->p, li, cm->sizes, grid, block, &shared, &d);
  dg_diags_free(&d);
  if (!ok) {
    *err = dg_printf("launch %d: cannot evaluate its grid or block", li + 1);
    return false;
  }
  memset(L, 0, sizeof *L);
  L->shared_bytes = shared;
  for (int j = 0; j < 3; j++) L->grid[j] = (uint32_t)grid[j], L->block[j] = (uint32_t)block[j];
  return true;
}

/* The writer search (a concrete machine running every block of a
 * one-launch problem, find_writer in check.c) needs only the writer map:
 * it runs the kernel's store slice (check_slice.c), which stores where and
 * when the kernel does without computing the values. A pipeline runs in
 * full: a later launch may read what an earlier one computed. */
static const dg_func *writer_slice(const check_mach *cm, const dg_func *f, const simt_launch *L, dg_arena *a)
{
  uint64_t nb = (uint64_t)(L->grid[0] ? L->grid[0] : 1) * (L->grid[1] ? L->grid[1] : 1) * (L->grid[2] ? L->grid[2] : 1);
  if (cm->sym || L->blocks || cm->p->launches.n != 1 || nb < 2) return NULL;
  const char *why;
  return check_slice_writes(a, f, &why);
}

simt_status check_mach_launch(check_mach *cm, const emu_kernels *k, int li, const int64_t *blocks,
                              int nblocks, char **err)
{
  const dg_launch *l = cm->p->launches.v[li];
  simt_launch L;
  if (!check_mach_dims(cm, li, &L, err)) return SIMT_BADARGS;
  L.blocks = blocks;
  L.nblocks = nblocks;
  L.deadline = cm->deadline;
  L.max_lane_ops = cm->max_lane_ops;
  simt_arg *args = dg_calloc(l->args.n + 1, sizeof *args);
  simt_status st = SIMT_BADARGS;
  dg_arena a = {0};
  if (launch_args(cm->p, li, cm->sizes, cm->bufs, args, err)) {
    const dg_func *f = writer_slice(cm, k->kern.v[li], &L, &a);
    if (!f) write_inputs(cm);
    st = simt_run(cm->m, f ? f : k->kern.v[li], &L, args, (int)l->args.n);
    if (st == SIMT_BADARGS) *err = dg_printf("launch %d: %s", li + 1, simt_error(cm->m));
  }
  dg_arena_free(&a);
  free(args);
  return st;
}

bool check_replay(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, int t,
                  const int64_t *idx, int64_t flat, double **in, double *got, double *want,
                  double deadline, bool *cut)
{
  emu_io io;
  emu_result res = {0};
  emu_opts eo = { .deadline = deadline };
  dg_diags d = {0};
  bool differs = false;
  *got = *want = NAN;
  if (!emu_io_init(&io, p, sizes, &d)) { dg_diags_free(&d); return false; }
  for (size_t i = 0; i < p->tensors.n; i++)
    if (in[i]) memcpy(io.data[i], in[i], sizeof(double) * (size_t)io.numel[i]);
  if (flat < io.numel[t] && emu_run(p, k, sizes, &io, &eo, &res, &d) && res.status == SIMT_OK) {
    double **env = dg_calloc(p->tensors.n + 1, sizeof *env);
    for (size_t i = 0; i < p->tensors.n; i++) env[i] = in[i] ? in[i] : io.data[i];
    dg_ref_env e = { .sizes = sizes, .data = (const double *const *)env, .deadline = deadline };
    dg_refval rv;
    char *err = NULL;
    dg_ref_status st = dg_problem_ref_eval(p, &e, t, idx, &rv, &err);
    if (st == DG_REF_ERROR && cut && deadline > 0 && dg_now() > deadline) *cut = true;
    if (st == DG_REF_OK && !rv.is_sym) {
      bool written = io.written[t][flat];
      *got = written ? io.data[t][flat] : NAN;
      *want = rv.num;
      differs = !written || fuzz_elem_check(p->tensors.v[t].dtype, *got, *want, dg_problem_tol(p, t)) != FUZZ_ELEM_OK;
    }
    free(err);
    free(env);
  } else if (cut && res.status == SIMT_STOPPED && deadline > 0 && dg_now() > deadline) {
    *cut = true;
  }
  emu_result_free(&res);
  emu_io_free(&io);
  dg_diags_free(&d);
  return differs;
}

bool check_replay_event(const dg_problem *p, const emu_kernels *k, const int64_t *sizes, double **in,
                        const int64_t *block, int kind, simt_event *ev, double deadline, bool *cut)
{
  emu_io io;
  emu_result res = {0};
  bool one = block && p->launches.n == 1;
  emu_opts eo = { .deadline = deadline, .blocks = one ? block : NULL, .nblocks = one ? 1 : 0 };
  dg_diags d = {0};
  bool found = false;
  if (!emu_io_init(&io, p, sizes, &d)) { dg_diags_free(&d); return false; }
  for (size_t i = 0; i < p->tensors.n; i++)
    if (in[i]) memcpy(io.data[i], in[i], sizeof(double) * (size_t)io.numel[i]);
  emu_run(p, k, sizes, &io, &eo, &res, &d);
  for (size_t i = 0; i < res.events.n && !found; i++) {
    const simt_event *e = &res.events.v[i];
    if (emu_event_is_finding(e->kind) && (kind == SIMT_EV__COUNT || (int)e->kind == kind)) *ev = *e, found = true;
  }
  if (!found && cut && res.status == SIMT_STOPPED && deadline > 0 && dg_now() > deadline) *cut = true;
  emu_result_free(&res);
  emu_io_free(&io);
  dg_diags_free(&d);
  return found;
}

void check_replay_gpu(const dg_problem *p, void *kernels, const char *device, check_result *r)
{
  gpu_kernels *gk = kernels;
  emu_io io;
  dg_diags d = {0};
  gpu_run_result res = {0};
  free(r->gpu_note);
  r->gpu_note = NULL;
  r->gpu = -1;
  if (!r->inputs || r->tensor < 0 || !r->sizes) {
    r->gpu_note = dg_strdup("no witness inputs");
    return;
  }
  if (!emu_io_init(&io, p, r->sizes, &d)) {
    r->gpu_note = dg_strdup("the tensors cannot be sized");
    dg_diags_free(&d);
    return;
  }
  for (size_t t = 0; t < p->tensors.n && (int)t < r->ntensors; t++)
    if (r->inputs[t]) memcpy(io.data[t], r->inputs[t], sizeof(double) * (size_t)io.numel[t]);
  if (!gpu_run(p, gk, r->sizes, &io, &res, &d)) {
    dg_buf b = {0};
    if (d.v.n) dg_diag_format(&b, &p->sm, &d.v.v[0]);
    r->gpu_note = dg_printf("could not run on the GPU: %s", b.s ? b.s : "unknown reason");
    dg_buf_free(&b);
  } else if (res.status != DG_GPU_OK) {
    r->gpu_note = dg_printf("%s: %s", dg_gpu_status_name(res.status), res.msg ? res.msg : dg_gpu_status_help(res.status));
  } else if (r->flat < io.numel[r->tensor]) {
    bool written = io.written[r->tensor][r->flat];
    r->gpu_value = written ? io.data[r->tensor][r->flat] : NAN;
    bool differs = !written || fuzz_elem_check(p->tensors.v[r->tensor].dtype, r->gpu_value, r->ref_value,
                                               dg_problem_tol(p, r->tensor)) != FUZZ_ELEM_OK;
    r->gpu = differs ? 1 : 2;
    r->gpu_note = dg_strdup(device ? device : "GPU");
  }
  gpu_run_result_free(&res);
  emu_io_free(&io);
  dg_diags_free(&d);
}
