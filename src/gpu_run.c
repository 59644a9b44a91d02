/* gpu_run.c — a problem's pipeline on the GPU (see gpu_run.h): the GPU
 * counterpart of emu_run, built on the session of gpu.h. */
#include "gpu_run.h"
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 64

bool gpu_kernels_load(gpu_kernels *gk, dg_problem *p, const dg_gpu_opts *opts, dg_diags *d)
{
  memset(gk, 0, sizeof *gk);
  if (!p->source) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "the problem names no kernel source");
    return false;
  }
  char *why = NULL;
  gk->g = dg_gpu_open(opts, &why);
  if (!gk->g) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "GPU backend: %s", why ? why : "no GPU");
    free(why);
    return false;
  }
  gk->name_of = dg_calloc(p->launches.n + 1, sizeof *gk->name_of);
  gk->names = dg_calloc(p->launches.n + 1, sizeof *gk->names);
  for (size_t i = 0; i < p->launches.n; i++) {
    char *name = dg_problem_launch_instance(p, (int)i, NULL);
    int k = 0;
    while (k < gk->nnames && strcmp(gk->names[k], name)) k++;
    if (k == gk->nnames) gk->names[gk->nnames++] = name;
    else free(name);
    gk->name_of[i] = k;
  }
  char **defs = dg_calloc(p->defines.n + 1, sizeof *defs);
  for (size_t i = 0; i < p->defines.n; i++)
    defs[i] = dg_printf("%s=%s", p->defines.v[i].name, p->defines.v[i].value ? p->defines.v[i].value : "1");
  uint32_t file = dg_srcmgr_load(&p->sm, p->source);
  bool ok = file != 0;
  if (!ok) dg_diag_add(d, DG_SEV_ERROR, p->span, "cannot read kernel source %s", p->source);
  if (ok) {
    dg_gpu_copts co = { .defines = (const char *const *)defs, .ndefines = (int)p->defines.n,
                        .names = (const char *const *)gk->names, .nnames = gk->nnames,
                        .arch = dg_gpu_info_of(gk->g)->arch };
    ok = dg_gpu_compile(&p->sm, file, &co, &gk->bin, d) == DG_GPU_OK;
  }
  for (size_t i = 0; i < p->defines.n; i++) free(defs[i]);
  free(defs);
  gk->kern = dg_calloc((size_t)gk->nnames + 1, sizeof *gk->kern);
  return ok;
}

void gpu_kernels_free(gpu_kernels *gk)
{
  dg_gpu_close(gk->g);
  dg_gpu_binary_free(&gk->bin);
  for (int i = 0; i < gk->nnames; i++) free(gk->names[i]);
  free(gk->names);
  free(gk->name_of);
  free(gk->kern);
  memset(gk, 0, sizeof *gk);
}

void gpu_run_result_free(gpu_run_result *r)
{
  free(r->msg);
  free(r->output);
  dg_vec_free(&r->oob);
  memset(r, 0, sizeof *r);
}

/* A statement of what went wrong, once: the first failure names the run. */
static void fail(gpu_run_result *res, dg_gpu_status st, int launch, char *msg)
{
  if (res->status == DG_GPU_OK) {
    res->status = st;
    res->failed_launch = launch;
    res->msg = msg;
  } else {
    free(msg);
  }
}

/* Whether the session lost the child (its buffers and modules are gone). */
static bool child_lost(dg_gpu_status st)
{
  return st == DG_GPU_FAULT || st == DG_GPU_TIMEOUT || st == DG_GPU_CHILD_DIED || st == DG_GPU_NO_DEVICE;
}

/* A scalar argument of `size` bytes: integers truncate (two's complement,
 * little endian), floats take the parameter's width (2: half). */
static dg_gpu_arg scalar(bool is_float, int64_t i, double f, size_t size)
{
  if (is_float) {
    static const dg_dtype by_size[9] = { [2] = DG_DT_F16, [4] = DG_DT_F32, [8] = DG_DT_F64 };
    if (size < 9 && (size == 2 || size == 4 || size == 8)) return dg_gpu_arg_dtype(by_size[size], f);
    i = (int64_t)f;
  }
  uint8_t b[8] = {0};
  for (size_t k = 0; k < 8; k++) b[k] = (uint8_t)((uint64_t)i >> (8 * k));
  return dg_gpu_arg_bytes(b, size <= 8 ? size : 8);
}

/* The arguments of launch li, sized by the kernel's parameters. */
static bool launch_args(const dg_problem *p, int li, const int64_t *sizes, const dg_gpu_buf *bufs,
                        const size_t *psize, int np, dg_gpu_arg *args, dg_diags *d)
{
  const dg_launch *l = p->launches.v[li];
  for (size_t a = 0; a < l->args.n; a++) {
    const dg_launch_arg *x = &l->args.v[a];
    size_t size = (int)a < np ? psize[a] : 4;
    int64_t iv = 0;
    switch (x->kind) {   /* one case per argument kind of launch.h */
    case DG_ARG_TENSOR: args[a] = dg_gpu_arg_buf(bufs[x->index]); break;
    case DG_ARG_EXPR: case DG_ARG_BOOL:
      if (!dg_problem_arg_int(p, li, (int)a, sizes, &iv, d)) return false;
      args[a] = scalar(false, iv, 0, size);
      break;
    case DG_ARG_FLOAT: args[a] = scalar(true, 0, x->f, size); break;
    case DG_ARG_NULL: args[a] = dg_gpu_arg_null(); break;
    case DG_ARG_ATTR: {
      const dg_attr *at = &p->attrs.v[x->index];
      if (at->kind == DG_ATTR_STR || at->kind == DG_ATTR_LIST) {
        dg_diag_add(d, DG_SEV_ERROR, l->span, "launch argument '%s': attribute is not a number", x->text);
        return false;
      }
      args[a] = scalar(at->kind == DG_ATTR_FLOAT, at->i, at->f, size);
      break;
    }
    case DG_ARG_TAG: {   /* an empty tag object: its bytes are never read */
      uint8_t zero[64] = {0};
      args[a] = dg_gpu_arg_bytes(zero, size <= 64 ? size : 64);
      break;
    }
    }
  }
  return true;
}

/* Loads the kernels into the current child when it is a new one. */
static dg_gpu_status ensure_loaded(gpu_kernels *gk, char **msg)
{
  if (gk->gen && gk->gen == dg_gpu_generation(gk->g)) return DG_GPU_OK;
  dg_gpu_status st = dg_gpu_load(gk->g, &gk->bin, gk->kern, msg);
  gk->gen = st == DG_GPU_OK ? dg_gpu_generation(gk->g) : 0;
  return st;
}

static void read_back(const dg_problem *p, int t, const uint8_t *raw, emu_io *io)
{
  const dg_tensor *ts = &p->tensors.v[t];
  int es = dg_dtypes[ts->dtype].size;
  dg_gpu_pattern pat = dg_gpu_poison_for(dg_dtypes[ts->dtype].name);
  for (int64_t i = 0; i < io->numel[t]; i++) {
    io->data[t][i] = dg_dtype_load(ts->dtype, raw, i);
    io->written[t][i] = pat.len != es || memcmp(raw + i * es, pat.b, (size_t)es) != 0;
  }
}

bool gpu_run(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *io,
             gpu_run_result *res, dg_diags *d)
{
  memset(res, 0, sizeof *res);
  res->failed_launch = -1;
  if (!gk->g || !gk->bin.image) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "GPU backend: the kernels are not loaded");
    return false;
  }
  if (!dg_problem_check_sizes(p, sizes, d)) return false;
  char *msg = NULL;
  dg_gpu_status st = ensure_loaded(gk, &msg);
  if (st != DG_GPU_OK) {
    fail(res, st, -1, dg_printf("loading the kernels: %s", msg ? msg : ""));
    free(msg);
    return true;
  }
  size_t nt = p->tensors.n;
  dg_gpu_buf *bufs = dg_calloc(nt + 1, sizeof *bufs);
  bool *have = dg_calloc(nt + 1, sizeof *have);
  bool ok = true;
  for (size_t t = 0; t < nt && ok && res->status == DG_GPU_OK; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int es = dg_dtypes[ts->dtype].size;
    int64_t n = io->numel[t], bytes = n * es;
    st = dg_gpu_alloc(gk->g, (size_t)bytes, dg_gpu_poison_for(dg_dtypes[ts->dtype].name), &bufs[t], &msg);
    have[t] = st == DG_GPU_OK;
    if (st == DG_GPU_OK && (ts->role == DG_TENSOR_INPUT || ts->accumulate) && bytes) {
      uint8_t *raw = dg_malloc((size_t)bytes);
      for (int64_t i = 0; i < n; i++) dg_dtype_store(ts->dtype, raw, i, io->data[t][i]);
      st = dg_gpu_upload(gk->g, bufs[t], 0, raw, (size_t)bytes, &msg);
      free(raw);
    } else if (st == DG_GPU_OK && ts->role == DG_TENSOR_SCRATCH && ts->zero_bytes.text) {
      int64_t z = 0;
      ok = dg_problem_zero_bytes(p, (int)t, sizes, &z, d);
      if (z > bytes) z = bytes;
      if (ok && z > 0) {
        uint8_t *zeros = dg_calloc((size_t)z, 1);
        st = dg_gpu_upload(gk->g, bufs[t], 0, zeros, (size_t)z, &msg);
        free(zeros);
      }
    }
    if (st != DG_GPU_OK) fail(res, st, -1, dg_printf("buffer %s: %s", ts->name, msg ? msg : ""));
    free(msg);
    msg = NULL;
  }
  dg_buf out = {0};
  for (int li = 0; ok && res->status == DG_GPU_OK && li < (int)p->launches.n; li++) {
    const dg_launch *l = p->launches.v[li];
    dg_gpu_kernel k = gk->kern[gk->name_of[li]];
    size_t psize[MAX_PARAMS];
    int np = 0;
    int64_t grid[3], block[3], shared = 0;
    st = dg_gpu_param_sizes(gk->g, k, psize, MAX_PARAMS, &np, &msg);
    if (st != DG_GPU_OK) {
      fail(res, st, li, dg_printf("launch %d (%s): %s", li + 1, l->kernel, msg ? msg : ""));
      free(msg);
      msg = NULL;
      break;
    }
    dg_gpu_arg *args = dg_calloc(l->args.n + 1, sizeof *args);
    ok = dg_problem_launch_dims(p, li, sizes, grid, block, &shared, d) &&
         launch_args(p, li, sizes, bufs, psize, np, args, d);
    if (ok) {
      dg_gpu_dim3 gd = { (uint32_t)grid[0], (uint32_t)grid[1], (uint32_t)grid[2] };
      dg_gpu_dim3 bd = { (uint32_t)block[0], (uint32_t)block[1], (uint32_t)block[2] };
      dg_gpu_result r;
      st = dg_gpu_launch(gk->g, k, gd, bd, (uint32_t)shared, args, (int)l->args.n, &r);
      res->ms += r.ms;
      if (r.output) dg_buf_puts(&out, r.output);
      for (size_t h = 0; h < r.guards.n; h++)
        for (size_t t = 0; t < nt; t++)
          if (have[t] && bufs[t] == r.guards.v[h].buf) {
            int es = dg_dtypes[p->tensors.v[t].dtype].size;
            int64_t off = r.guards.v[h].first_off;
            gpu_oob o = { li, (int)t, r.guards.v[h].after,
                          off >= 0 ? off / es : -((-off + es - 1) / es), r.guards.v[h].nbytes };
            dg_vec_push(&res->oob, o);
          }
      if (st != DG_GPU_OK)
        fail(res, st, li, dg_printf("launch %d (%s): %s", li + 1, gk->names[gk->name_of[li]],
                                    r.msg ? r.msg : dg_gpu_status_help(st)));
      dg_gpu_result_free(&r);
    }
    free(args);
  }
  res->output = out.s ? dg_buf_take(&out) : NULL;
  /* outputs and scratch back, unless the child (and its memory) is gone */
  for (size_t t = 0; t < nt && !child_lost(res->status); t++) {
    if (!have[t] || p->tensors.v[t].role == DG_TENSOR_INPUT) continue;
    size_t bytes = (size_t)io->numel[t] * (size_t)dg_dtypes[p->tensors.v[t].dtype].size;
    uint8_t *raw = dg_malloc(bytes ? bytes : 1);
    st = dg_gpu_download(gk->g, bufs[t], 0, raw, bytes, &msg);
    if (st == DG_GPU_OK) read_back(p, (int)t, raw, io);
    else fail(res, st, -1, dg_printf("reading %s back: %s", p->tensors.v[t].name, msg ? msg : ""));
    free(msg);
    msg = NULL;
    free(raw);
  }
  for (size_t t = 0; t < nt && !child_lost(res->status); t++)
    if (have[t]) dg_gpu_free(gk->g, bufs[t], NULL);
  if (child_lost(res->status)) gk->gen = 0;   /* the next run loads into a fresh child */
  free(bufs);
  free(have);
  return ok;
}
