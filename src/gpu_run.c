/* gpu_run.c — a problem's pipeline on the GPU (see gpu_run.h): the GPU
 * counterpart of emu_run, built on the session of gpu.h. */
#include "gpu_run_int.h"
#include "gpu_env.h"
#include "gpu_gen.h"
#include <stdlib.h>
#include <string.h>

bool gpu_problem_compile(dg_problem *p, const char *arch, char **names, int *nnames, int *name_of,
                         dg_gpu_binary *bin, dg_diags *d)
{
  memset(bin, 0, sizeof *bin);
  *nnames = 0;
  if (!p->source) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "the problem names no kernel source");
    return false;
  }
  for (size_t i = 0; i < p->launches.n; i++) {
    char *name = dg_problem_launch_instance(p, (int)i, NULL);
    int k = 0;
    while (k < *nnames && strcmp(names[k], name)) k++;
    if (k == *nnames) names[(*nnames)++] = name;
    else free(name);
    name_of[i] = k;
  }
  char **defs = dg_calloc(p->defines.n + 1, sizeof *defs);
  for (size_t i = 0; i < p->defines.n; i++)
    defs[i] = dg_printf("%s=%s", p->defines.v[i].name, p->defines.v[i].value ? p->defines.v[i].value : "1");
  uint32_t file = dg_srcmgr_load(&p->sm, p->source);
  bool ok = file != 0;
  if (!ok) dg_diag_add(d, DG_SEV_ERROR, dg_problem_source_at(p), "cannot read kernel source %s", p->source);
  if (ok) {
    dg_gpu_copts co = { .defines = (const char *const *)defs, .ndefines = (int)p->defines.n,
                        .names = (const char *const *)names, .nnames = *nnames, .arch = arch };
    ok = dg_gpu_compile(&p->sm, file, &co, bin, d) == DG_GPU_OK;
  }
  for (size_t i = 0; i < p->defines.n; i++) free(defs[i]);
  free(defs);
  return ok;
}

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
  bool ok = gpu_problem_compile(p, dg_gpu_info_of(gk->g)->arch, gk->names, &gk->nnames, gk->name_of, &gk->bin, d);
  gk->kern = dg_calloc((size_t)gk->nnames + 1, sizeof *gk->kern);
  gk->np = dg_calloc((size_t)gk->nnames + 1, sizeof *gk->np);
  for (int i = 0; i < gk->nnames; i++) gk->np[i] = -1;
  gk->psize = dg_calloc(((size_t)gk->nnames + 1) * MAX_PARAMS, sizeof *gk->psize);
  gk->bufs = dg_calloc(p->tensors.n + 1, sizeof *gk->bufs);
  gk->buf_bytes = dg_calloc(p->tensors.n + 1, sizeof *gk->buf_bytes);
  gk->raw = dg_calloc(p->tensors.n + 1, sizeof *gk->raw);
  gk->raw_cap = dg_calloc(p->tensors.n + 1, sizeof *gk->raw_cap);
  gk->pend_bytes = dg_calloc(p->tensors.n + 1, sizeof *gk->pend_bytes);
  gk->dgen_on = dg_calloc((p->tensors.n + 1) * FUZZ_MANY_MAX, 1);
  gk->dgen_desc = dg_calloc((p->tensors.n + 1) * FUZZ_MANY_MAX, sizeof *gk->dgen_desc);
  gk->dgen_last = dg_calloc(p->tensors.n + 1, 1);
  gk->ntensors = (int)p->tensors.n;
  return ok;
}

void gpu_kernels_free(gpu_kernels *gk)
{
  gpu_env_free(gk);
  dg_gpu_close(gk->g);
  dg_gpu_binary_free(&gk->bin);
  for (int i = 0; i < gk->nnames; i++) free(gk->names[i]);
  free(gk->names);
  free(gk->name_of);
  free(gk->kern);
  free(gk->np);
  free(gk->psize);
  free(gk->bufs);
  free(gk->buf_bytes);
  for (int t = 0; gk->raw && t < gk->ntensors; t++) free(gk->raw[t]);
  free(gk->raw);
  free(gk->raw_cap);
  dg_gpu_batch_free(&gk->batch);
  dg_gpu_binary_free(&gk->ref_bin);
  free(gk->ref_why);
  free(gk->want);
  dg_gpu_binary_free(&gk->cmp_bin);
  dg_gpu_binary_free(&gk->fused_bin);
  free(gk->pend_bytes);
  gpu_many_jobs_free(gk);
  free(gk->rs_host);
  dg_gpu_binary_free(&gk->dgen_bin);
  free(gk->dgen_on);
  free(gk->dgen_desc);
  free(gk->dgen_last);
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
int grun_lanes(gpu_kernels *gk, int m)
{
  const char *v = getenv("DIRIGO_GPU_STREAMS");
  long s = v && *v ? strtol(v, NULL, 10) : 0;
  if (s < 1) {   /* unset (or not a count): by the case's device bytes */
    size_t bytes = gk->ref_bytes;
    for (int t = 0; t < gk->ntensors; t++) bytes += gk->buf_bytes[t];
    s = bytes < GRUN_LANES_BYTES ? 1 : bytes < GRUN_LANES8_BYTES ? 8 : 4;
  }
  if (s > GPU_LANES_MAX) s = GPU_LANES_MAX;
  if (s > m) s = m;
  return gk->prof.lanes = s < 1 ? 1 : (int)s;
}

bool gpu_run_ref_at_order(void)
{
  const char *v = getenv("DIRIGO_GPU_REF_AT_ORDER");
  return v && !strcmp(v, "1");
}

bool gpu_run_overlap(void)
{
  const char *v = getenv("DIRIGO_GPU_OVERLAP");
  return v && !strcmp(v, "1");
}

bool gpu_run_switched_off(const char *var)
{
  const char *v = getenv(var);
  return v && !strcmp(v, "0");
}

bool grun_child_lost(dg_gpu_status st)
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
bool grun_launch_args(const dg_problem *p, int li, const int64_t *sizes, const dg_gpu_buf *bufs,
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
dg_gpu_status grun_ensure_loaded(gpu_kernels *gk, char **msg)
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
  if (ts->dtype == DG_DT_F32 && pat.len == 4) {   /* the common case, without a call an element */
    uint32_t pw;
    memcpy(&pw, pat.b, 4);
    const uint32_t *w = (const uint32_t *)raw;
    for (int64_t i = 0; i < io->numel[t]; i++) {
      io->data[t][i] = ((const float *)raw)[i];
      io->written[t][i] = w[i] != pw;
    }
    return;
  }
  for (int64_t i = 0; i < io->numel[t]; i++) {
    io->data[t][i] = dg_dtype_load(ts->dtype, raw, i);
    io->written[t][i] = pat.len != es || memcmp(raw + i * es, pat.b, (size_t)es) != 0;
  }
}

/* One buffer per tensor of the bytes this run needs: the kept ones when
 * their size matches (same child), else freed and allocated again. */
dg_gpu_status grun_ensure_buffers(const dg_problem *p, gpu_kernels *gk, const emu_io *io,
                                    int *bad, char **msg)
{
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->buf_gen != gen) {
    memset(gk->buf_bytes, 0, sizeof *gk->buf_bytes * p->tensors.n);
    gk->ref_bytes = 0;
  }
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    size_t bytes = (size_t)io->numel[t] * (size_t)dg_dtypes[ts->dtype].size;
    if (gk->buf_gen == gen && gk->bufs[t] && gk->buf_bytes[t] == bytes + 1) continue;
    if (gk->buf_gen == gen && gk->bufs[t]) dg_gpu_free(gk->g, gk->bufs[t], NULL);
    gk->bufs[t] = 0;
    gk->buf_bytes[t] = 0;
    gk->buf_gen = gen;
    dg_gpu_status st = dg_gpu_alloc(gk->g, bytes, dg_gpu_poison_for(dg_dtypes[ts->dtype].name),
                                    &gk->bufs[t], msg);
    if (st != DG_GPU_OK) {
      gk->bufs[t] = 0;
      *bad = (int)t;
      if (grun_child_lost(st)) gk->buf_gen = 0;
      return st;
    }
    gk->allocs++;
    gk->buf_bytes[t] = bytes + 1;   /* + 1: 0 means none */
    if (gen != dg_gpu_generation(gk->g)) gk->buf_gen = 0;
  }
  return DG_GPU_OK;
}

/* Kernel k's parameter sizes, asked once per name. */
dg_gpu_status grun_param_sizes(gpu_kernels *gk, int name, char **msg)
{
  if (gk->np[name] >= 0) return DG_GPU_OK;
  int n = 0;
  dg_gpu_status st = dg_gpu_param_sizes(gk->g, gk->kern[name], gk->psize + (size_t)name * MAX_PARAMS,
                                        MAX_PARAMS, &n, msg);
  if (st == DG_GPU_OK) gk->np[name] = n;
  return st;
}

static void ref_off(gpu_kernels *gk, char *why)
{
  gk->ref_state = -1;
  free(gk->ref_why);
  gk->ref_why = why;
}

/* The GPU reference for this run: compiled once, loaded into the child, its
 * f64 buffer sized for the output. False: the run goes without it. */
bool grun_ref_ready(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, gpu_ref_plan *pl)
{
  gk->ref_out = -1;
  if (!gk->use_ref || gk->ref_state < 0) return false;
  if (gk->ref_state == 0) {
    if (gpu_run_switched_off("DIRIGO_GPU_REF")) {
      ref_off(gk, dg_strdup("disabled by DIRIGO_GPU_REF=0"));
      return false;
    }
    if (!gpu_ref_supported(p)) {
      ref_off(gk, dg_printf("no GPU reference for op '%s'", p->op_name ? p->op_name : "?"));
      return false;
    }
    dg_diags d = {0};
    if (gpu_ref_compile(dg_gpu_info_of(gk->g)->arch, &gk->ref_bin, &d) != DG_GPU_OK) {
      dg_buf b = {0};
      if (d.v.n) dg_diag_format(&b, NULL, &d.v.v[0]);
      ref_off(gk, dg_printf("the GPU reference does not compile: %s", b.s ? b.s : "?"));
      dg_buf_free(&b);
      dg_diags_free(&d);
      return false;
    }
    dg_diags_free(&d);
    gk->ref_state = 1;
  }
  if (!gpu_ref_plan_for(p, sizes, pl)) return false;
  char *msg = NULL;
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->ref_gen != gen) {
    if (dg_gpu_load(gk->g, &gk->ref_bin, gk->ref_kern, &msg) != DG_GPU_OK) {
      ref_off(gk, dg_printf("loading the GPU reference: %s", msg ? msg : "?"));
      free(msg);
      return false;
    }
    gk->ref_gen = gen;
  }
  size_t bytes = (size_t)dg_problem_numel(p, pl->out, sizes) * sizeof(double);
  if (!grun_keep_buf(gk, &gk->ref_buf, &gk->ref_bytes, bytes, true, "f64"))
    return false;   /* out of memory for it, perhaps: this run goes without */
  if (gen != dg_gpu_generation(gk->g)) return false;   /* a child restarted under us */
  gk->want = dg_realloc(gk->want, bytes ? bytes : 1);
  gk->want_n = (int64_t)(bytes / sizeof(double));
  return true;
}

bool gpu_run_ref_sampled(const gpu_kernels *gk, const gpu_ref_plan *pl, int64_t n, int64_t max_check)
{
  if (!gk->use_ref || gk->ref_state < 0 || max_check <= 0 || n <= max_check || !gpu_ref_can_sample(pl))
    return false;
  const char *v = getenv("DIRIGO_GPU_REF_SAMPLED");
  if (v && !strcmp(v, "0")) return false;
  if (v && !strcmp(v, "1")) return true;
  return gpu_ref_wants_sample(pl);
}

bool gpu_run_sample_next(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, uint64_t seed,
                         int64_t max_check)
{
  gk->samp_next = false;
  gpu_ref_plan pl;
  if (!gk->use_ref || gk->ref_state < 0 || !gpu_ref_plan_for(p, sizes, &pl)) return false;
  if (!gpu_run_ref_sampled(gk, &pl, dg_problem_numel(p, pl.out, sizes), max_check)) return false;
  gk->samp_next = true;
  gk->samp_seed = seed;
  gk->samp_max = max_check;
  return true;
}

/* Room for n x max_check picks on the host (gk->rs_host) and on the device
 * (gk->rs_idx, in the current child). */
bool grun_rs_ready(gpu_kernels *gk, int n, int64_t max_check)
{
  size_t count = (size_t)n * (size_t)max_check, bytes = count * sizeof(int64_t);
  if (count > gk->rs_cap) {
    free(gk->rs_host);
    gk->rs_host = dg_malloc(bytes);
    gk->rs_cap = count;
  }
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->rs_gen != gen) gk->rs_bytes = 0;   /* gone with its child */
  gk->rs_gen = gen;
  return grun_keep_buf(gk, &gk->rs_idx, &gk->rs_bytes, bytes, false, "i64") && gen == dg_gpu_generation(gk->g);
}

bool grun_keep_buf(gpu_kernels *gk, dg_gpu_buf *buf, size_t *kept, size_t bytes, bool exact, const char *dtype)
{
  if (exact ? *kept == bytes + 1 : *kept >= bytes + 1) return true;
  if (*kept) dg_gpu_free(gk->g, *buf, NULL);
  *kept = 0;
  char *msg = NULL;
  if (dg_gpu_alloc(gk->g, bytes, dg_gpu_poison_for(dtype), buf, &msg) != DG_GPU_OK) {
    free(msg);
    return false;
  }
  *kept = bytes + 1;
  return true;
}

/* The comparison kernel for output t of this run (gpu_cmp.c): compiled
 * once, loaded into the child, its summary buffer allocated. False: the
 * output comes back and the host compares. */
bool grun_cmp_ready(const dg_problem *p, gpu_kernels *gk, int t)
{
  if (!gk->dev_cmp || gk->cmp_state < 0 || !gpu_cmp_supported(p->tensors.v[t].dtype)) return false;
  if (gk->cmp_state == 0) {
    dg_diags d = {0};
    gk->cmp_state = gpu_run_switched_off("DIRIGO_GPU_CMP") ||
                    gpu_cmp_compile(dg_gpu_info_of(gk->g)->arch, &gk->cmp_bin, &d) != DG_GPU_OK ? -1 : 1;
    dg_diags_free(&d);
    if (gk->cmp_state < 0) return false;
  }
  char *msg = NULL;
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->cmp_gen != gen) {
    if (dg_gpu_load(gk->g, &gk->cmp_bin, gk->cmp_kern, &msg) != DG_GPU_OK) {
      free(msg);
      gk->cmp_state = -1;
      return false;
    }
    gk->cmp_gen = gen;
    gk->cmp_have = false;
  }
  if (!gk->cmp_have) {
    /* a summary a case of a request (gpu_many.c) */
    dg_gpu_status st = dg_gpu_alloc(gk->g, FUZZ_MANY_MAX * GPU_CMP_WORDS * sizeof(uint64_t), dg_gpu_poison_for("i64"),
                                    &gk->cmp_buf, &msg);
    free(msg);
    if (st != DG_GPU_OK) return false;
    gk->cmp_have = true;
  }
  return gen == dg_gpu_generation(gk->g);
}

dg_gpu_status gpu_run_fetch(const dg_problem *p, gpu_kernels *gk, emu_io *io, char **msg)
{
  *msg = NULL;
  if (!gk->pending) return DG_GPU_OK;
  gk->pending = false;
  dg_gpu_batch *b = &gk->batch;
  dg_gpu_batch_clear(b);
  for (size_t t = 0; t < p->tensors.n; t++)
    if (p->tensors.v[t].role != DG_TENSOR_INPUT)
      dg_gpu_batch_download(b, gk->bufs[t], 0, gk->raw[t], gk->pend_bytes[t]);
  if (gk->ref_out >= 0) dg_gpu_batch_download(b, gk->ref_buf, 0, gk->want, (size_t)gk->want_n * sizeof(double));
  dg_gpu_batch_result r;
  dg_gpu_status st = dg_gpu_batch_run(gk->g, b, &r);
  if (st == DG_GPU_OK && r.downloaded) {
    for (size_t t = 0; t < p->tensors.n; t++)
      if (p->tensors.v[t].role != DG_TENSOR_INPUT) read_back(p, (int)t, gk->raw[t], io);
  } else {
    *msg = dg_printf("fetching the outputs: %s", r.msg ? r.msg : dg_gpu_status_help(st));
    if (st == DG_GPU_OK) st = DG_GPU_CUDA;
    if (grun_child_lost(st)) gk->gen = 0, gk->buf_gen = 0;
  }
  dg_gpu_batch_result_free(&r);
  return st;
}

bool gpu_run(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *io,
             gpu_run_result *res, dg_diags *d)
{
  memset(res, 0, sizeof *res);
  res->failed_launch = -1;
  gk->ref_out = -1;
  gk->judged = gk->pending = gk->ref_sampled = false;
  bool want_samp = gk->samp_next;   /* consumed */
  gk->samp_next = false;
  if (gk->dgen_on) {   /* this run's registrations (gpu_run_gen), consumed */
    memcpy(gk->dgen_last, gk->dgen_on, p->tensors.n);
    memset(gk->dgen_on, 0, p->tensors.n * FUZZ_MANY_MAX);
  }
  if (!gk->g || !gk->bin.image) {
    dg_diag_add(d, DG_SEV_ERROR, p->span, "GPU backend: the kernels are not loaded");
    return false;
  }
  if (!dg_problem_check_sizes(p, sizes, d)) return false;
  char *msg = NULL;
  dg_gpu_status st = grun_ensure_loaded(gk, &msg);
  for (int k = 0; k < gk->nnames && st == DG_GPU_OK; k++) st = grun_param_sizes(gk, k, &msg);
  if (st != DG_GPU_OK) {
    fail(res, st, -1, dg_printf("loading the kernels: %s", msg ? msg : ""));
    free(msg);
    if (grun_child_lost(st)) gk->gen = 0;
    return true;
  }
  int bad = -1;
  st = grun_ensure_buffers(p, gk, io, &bad, &msg);
  if (st != DG_GPU_OK) {
    fail(res, st, -1, dg_printf("buffer %s: %s", p->tensors.v[bad].name, msg ? msg : ""));
    free(msg);
    if (grun_child_lost(st)) gk->gen = 0;
    return true;
  }
  size_t nt = p->tensors.n;
  dg_gpu_buf *bufs = gk->bufs;
  dg_gpu_batch *b = &gk->batch;
  dg_gpu_batch_clear(b);
  uint8_t **raw = gk->raw;
  int ngen = 0;   /* launches drawing inputs, first in the batch */
  bool ok = true;
  for (size_t t = 0; t < nt && ok; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    int es = dg_dtypes[ts->dtype].size;
    int64_t n = io->numel[t];
    size_t bytes = (size_t)n * (size_t)es;
    if (bytes + 1 > gk->raw_cap[t]) {   /* kept: no fresh pages for every case */
      free(raw[t]);
      gk->raw_cap[t] = bytes + 1;
      raw[t] = dg_malloc(gk->raw_cap[t]);
    }
    if (ts->role == DG_TENSOR_INPUT || ts->accumulate) {
      if (gk->dgen_last[t] && grun_dgen_ready(gk)) {   /* drawn on the device (gpu_gen.h) */
        gpu_gen_batch(b, gk->dgen_kern[0], bufs[t], &gk->dgen_desc[t]);
        ngen++;
        continue;
      }
      if (gk->dgen_last[t]) fuzz_ctr_fill(&gk->dgen_desc[t], 0, n, io->data[t]);   /* not there: here */
      grun_to_raw(ts, io, (int)t, raw[t]);
      dg_gpu_batch_upload(b, bufs[t], 0, raw[t], bytes);
      continue;
    }
    dg_gpu_batch_poison(b, bufs[t]);
    if (ts->role == DG_TENSOR_SCRATCH && ts->zero_bytes.text) {
      int64_t z = 0;
      ok = dg_problem_zero_bytes(p, (int)t, sizes, &z, d);
      if (z > (int64_t)bytes) z = (int64_t)bytes;
      if (ok && z > 0) {
        memset(raw[t], 0, (size_t)z);
        dg_gpu_batch_upload(b, bufs[t], 0, raw[t], (size_t)z);
      }
    }
  }
  gpu_ref_plan rp;
  bool ref = ok && grun_ref_ready(p, gk, sizes, &rp);
  /* at the validator's sample alone (gpu_run_sample_next); where that was
   * promised and cannot be, no GPU reference: the host's is sampled too */
  bool samp = ref && want_samp && gpu_run_ref_sampled(gk, &rp, gk->want_n, gk->samp_max);
  if (samp && !grun_rs_ready(gk, 1, gk->samp_max)) ref = samp = false;
  if (ref) {   /* the reference first: it reads the inputs before any kernel could change them */
    dg_gpu_arg ra[17];
    if (samp) {   /* undefined (the f64 poison) but at the sample; a whole reference writes every element */
      dg_gpu_batch_poison(b, gk->ref_buf);
      int64_t m = fuzz_sample_picks(p, rp.out, sizes, gk->want_n, gk->samp_max, gk->samp_seed, gk->rs_host);
      if (gpu_run_ref_at_order()) {   /* by column, for dg_ref_at's loads (the same values) */
        int64_t *tmp = dg_malloc((size_t)m * sizeof *tmp + 1);
        gpu_ref_at_order(&rp, gk->rs_host, m, tmp);
        free(tmp);
      }
      dg_gpu_dim3 sg, sb;
      gpu_ref_at_dims(&rp, m, &sg, &sb);
      dg_gpu_batch_upload(b, gk->rs_idx, 0, gk->rs_host, (size_t)m * sizeof *gk->rs_host);
      int na = gpu_ref_at_args(p, &rp, gk->ref_buf, bufs, gk->rs_idx, 0, m, ra);
      dg_gpu_batch_launch_unguarded(b, gk->ref_kern[GPU_REF_AT], sg, sb, 0, ra, na);
    } else {
      int na = gpu_ref_args(p, &rp, gk->ref_buf, bufs, ra);
      dg_gpu_batch_launch_unguarded(b, gk->ref_kern[rp.kind], rp.grid, rp.block, rp.shmem, ra, na);
    }
  }
  gk->ref_sampled = samp;
  int l0 = ngen + (ref ? 1 : 0);   /* batch launch index of the pipeline's first launch */
  DG_VEC(dg_gpu_arg) args = {0};
  for (int li = 0; ok && li < (int)p->launches.n; li++) {
    const dg_launch *l = p->launches.v[li];
    int name = gk->name_of[li];
    int64_t grid[3], block[3], shared = 0;
    args.n = 0;
    for (size_t a = 0; a <= l->args.n; a++) dg_vec_push(&args, dg_gpu_arg_null());
    ok = dg_problem_launch_dims(p, li, sizes, grid, block, &shared, d) &&
         grun_launch_args(p, li, sizes, bufs, gk->psize + (size_t)name * MAX_PARAMS, gk->np[name], args.v, d);
    if (!ok) break;
    dg_gpu_dim3 gd = { (uint32_t)grid[0], (uint32_t)grid[1], (uint32_t)grid[2] };
    dg_gpu_dim3 bd = { (uint32_t)block[0], (uint32_t)block[1], (uint32_t)block[2] };
    dg_gpu_batch_launch(b, gk->kern[name], gd, bd, (uint32_t)shared, args.v, (int)l->args.n);
  }
  dg_vec_free(&args);
  /* the comparison on the device: only its summary comes back (the outputs
   * when a later gpu_run_fetch asks) */
  bool cmp = ok && ref && grun_cmp_ready(p, gk, rp.out);
  int lcmp = l0 + (int)p->launches.n;   /* its batch launch index */
  if (cmp) {
    uint64_t init[GPU_CMP_WORDS];
    gpu_cmp_init(init);
    memcpy(gk->cmp_sum, init, sizeof init);   /* the upload's source: borrowed until the run */
    dg_gpu_arg ca[9];
    dg_gpu_dim3 cg, cb;
    int na = gpu_cmp_args(p->tensors.v[rp.out].dtype, bufs[rp.out], gk->ref_buf, gk->want_n,
                          dg_problem_tol(p, rp.out), gk->cmp_buf, ca);
    gpu_cmp_dims(gk->want_n, &cg, &cb);
    dg_gpu_batch_upload(b, gk->cmp_buf, 0, gk->cmp_sum, sizeof init);
    dg_gpu_batch_launch_unguarded(b, gk->cmp_kern[0], cg, cb, 0, ca, na);
    dg_gpu_batch_download(b, gk->cmp_buf, 0, gk->cmp_sum, sizeof init);
  }
  for (size_t t = 0; t < nt && ok; t++) {   /* outputs and scratch back (or later) */
    if (p->tensors.v[t].role == DG_TENSOR_INPUT) continue;
    gk->pend_bytes[t] = (size_t)io->numel[t] * (size_t)dg_dtypes[p->tensors.v[t].dtype].size;
    if (!cmp) dg_gpu_batch_download(b, bufs[t], 0, raw[t], gk->pend_bytes[t]);
  }
  if (ref && !cmp) dg_gpu_batch_download(b, gk->ref_buf, 0, gk->want, (size_t)gk->want_n * sizeof(double));
  if (ok) {
    dg_gpu_batch_result r;
    st = dg_gpu_batch_run(gk->g, b, &r);
    gk->ref_ms = ref && (int)r.launch_ms.n > ngen ? r.launch_ms.v[ngen] : 0;
    for (int li = l0; li < lcmp && li < (int)r.launch_ms.n; li++) res->ms += r.launch_ms.v[li];
    res->output = r.output;
    r.output = NULL;
    for (size_t h = 0; h < r.guards.n; h++)
      for (size_t t = 0; t < nt; t++)
        if (bufs[t] == r.guards.v[h].hit.buf) {
          int es = dg_dtypes[p->tensors.v[t].dtype].size;
          int64_t off = r.guards.v[h].hit.first_off;
          gpu_oob o = { r.guards.v[h].launch - l0, (int)t, r.guards.v[h].hit.after,
                        off >= 0 ? off / es : -((-off + es - 1) / es), r.guards.v[h].hit.nbytes };
          dg_vec_push(&res->oob, o);
        }
    if (st != DG_GPU_OK && cmp && r.failed_launch == lcmp) {   /* the comparison failed, not the kernel */
      res->ref_failed = true;
      fail(res, st, -1, dg_printf("the GPU comparison: %s", r.msg ? r.msg : dg_gpu_status_help(st)));
      gk->cmp_state = -1;
    } else if (st != DG_GPU_OK && r.failed_launch >= 0 && r.failed_launch < ngen) {   /* the generator */
      res->ref_failed = true;
      fail(res, st, -1, dg_printf("drawing the inputs on the GPU: %s", r.msg ? r.msg : dg_gpu_status_help(st)));
      gk->dgen_state = -1;
    } else if (st != DG_GPU_OK && ref && r.failed_launch == ngen) {   /* the reference failed, not the kernel */
      res->ref_failed = true;
      fail(res, st, -1, dg_printf("the GPU reference (%s): %s", p->op_name, r.msg ? r.msg : dg_gpu_status_help(st)));
      ref_off(gk, dg_printf("the GPU reference failed: %s", r.msg ? r.msg : dg_gpu_status_help(st)));
    } else if (st != DG_GPU_OK) {
      int li = r.failed_launch - l0;
      if (li >= 0)
        fail(res, st, li, dg_printf("launch %d (%s): %s", li + 1, gk->names[gk->name_of[li]],
                                    r.msg ? r.msg : dg_gpu_status_help(st)));
      else
        fail(res, st, -1, dg_strdup(r.msg ? r.msg : dg_gpu_status_help(st)));
    }
    for (size_t t = 0; r.downloaded && !cmp && t < nt; t++)
      if (p->tensors.v[t].role != DG_TENSOR_INPUT) read_back(p, (int)t, raw[t], io);
    if (ref && r.downloaded && r.nran > 0 && !res->ref_failed) gk->ref_out = rp.out;
    if (cmp && !grun_child_lost(st)) {
      gk->pending = true;
      gk->judged = st == DG_GPU_OK && r.downloaded && r.nran == lcmp + 1 && gk->ref_out >= 0;
    }
    dg_gpu_batch_result_free(&r);
  }
  if (grun_child_lost(res->status)) gk->gen = 0, gk->buf_gen = 0, gk->pending = false;   /* the next run starts afresh */
  return ok;
}
