/* fuzz_gpu.c — the GPU as a fuzz backend (gpu_run.h): the same cases, inputs
 * and validator as the emulator; what the GPU itself finds (a write into a
 * guard region, a fault, a hang) ends the case as a finding. */
#include "fuzz_gpu.h"
#include "gpu_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool gpu_case(gpu_kernels *gk, fuzz_gpu_timed *t, const dg_problem *p, const int64_t *sizes,
                     emu_io *io, fuzz_outcome *out)
{
  dg_diags d = {0};
  gpu_run_result r = {0};
  bool ok = false;
  double t0 = t ? dg_now() : 0;
  bool ran = gpu_run(p, gk, sizes, io, &r, &d);
  if (t) {
    t->runs++;
    t->run_s += dg_now() - t0;
    t->kernel_ms += r.ms;
  }
  if (!ran) {
    out->status = FUZZ_ERROR;
    dg_buf b = {0};
    if (d.v.n) dg_diag_format(&b, &p->sm, &d.v.v[0]);
    snprintf(out->msg, sizeof out->msg, "could not run on the GPU: %s", b.s ? b.s : "unknown reason");
    dg_buf_free(&b);
  } else if (r.ref_failed) {
    out->status = FUZZ_ERROR;
    snprintf(out->msg, sizeof out->msg, "%s: %s", dg_gpu_status_name(r.status), r.msg ? r.msg : "");
  } else if (r.status == DG_GPU_OK) {
    ok = true;
  } else if (r.status == DG_GPU_OOB_WRITE && r.oob.n) {
    const gpu_oob *o = &r.oob.v[0];
    out->status = FUZZ_FINDING;
    snprintf(out->msg, sizeof out->msg,
             "out-of-bounds: launch %d wrote %s '%s' (element %lld; caught in the guard region)",
             o->launch + 1, o->after ? "past the end of" : "before the start of",
             p->tensors.v[o->tensor].name, (long long)o->element);
  } else {
    bool kernel_bug = r.status == DG_GPU_FAULT || r.status == DG_GPU_TIMEOUT ||
                      r.status == DG_GPU_OOB_WRITE;
    out->status = kernel_bug ? FUZZ_FINDING : FUZZ_ERROR;
    snprintf(out->msg, sizeof out->msg, "%s: %s", dg_gpu_status_name(r.status),
             r.msg ? r.msg : dg_gpu_status_help(r.status));
  }
  gpu_run_result_free(&r);
  dg_diags_free(&d);
  return ok;
}

static bool gpu_backend_run(void *self, const dg_problem *p, const int64_t *sizes, emu_io *io,
                            double deadline, fuzz_outcome *out)
{
  (void)deadline;     /* the child's watchdog bounds a launch */
  return gpu_case(self, NULL, p, sizes, io, out);
}

static bool gpu_timed_run(void *self, const dg_problem *p, const int64_t *sizes, emu_io *io,
                          double deadline, fuzz_outcome *out)
{
  (void)deadline;
  fuzz_gpu_timed *t = self;
  return gpu_case(t->gk, t, p, sizes, io, out);
}

/* The GPU reference of output t, when the last run computed one (gpu_ref.c):
 * elements still holding the f64 poison are left undefined. */
static bool gpu_ref_of(gpu_kernels *gk, int t, double *want, uint8_t *defined, int64_t n)
{
  if (gk->ref_out != t || gk->want_n != n) return false;
  dg_gpu_pattern pat = dg_gpu_poison_for("f64");
  uint64_t pw, w;
  memcpy(&pw, pat.b, 8);
  memcpy(want, gk->want, (size_t)n * sizeof *want);
  for (int64_t i = 0; i < n; i++) {
    memcpy(&w, &want[i], 8);
    defined[i] = w != pw;
  }
  return true;
}

/* Output t as the comparison kernel judged it (gpu_cmp.c): a pass is taken
 * as is; anything else brings the outputs and the reference back for the
 * host's comparison (fuzz_run.c's validate). */
static int gpu_judged(gpu_kernels *gk, const dg_problem *p, int t, emu_io *io, fuzz_cmp *cmp, char *msg,
                      size_t msgn)
{
  if (gk->judged && gk->ref_out == t && gk->want_n == io->numel[t]) {
    gpu_cmp_decode(gk->cmp_sum, io->numel[t], cmp);
    if (!cmp->nfail) return 1;
  }
  char *m = NULL;
  if (gpu_run_fetch(p, gk, io, &m) != DG_GPU_OK) {
    snprintf(msg, msgn, "%s", m ? m : "fetching the outputs failed");
    free(m);
    return -1;
  }
  gpu_run_host_inputs(p, gk);   /* inputs drawn on the device: their bytes here too (the envelope's) */
  return 0;
}

/* Inputs drawn on the device (gpu_gen.h), all or none. */
static bool gpu_gen_inputs(gpu_kernels *gk, const dg_problem *p, int slot, const int *tens, const fuzz_ctr *g,
                           int ng)
{
  for (int j = 0; j < ng; j++)
    if (!gpu_run_gen(gk, p, slot, tens[j], &g[j])) {
      if (gk->dgen_on) memset(gk->dgen_on + (size_t)slot * p->tensors.n, 0, p->tensors.n);
      return false;
    }
  return true;
}

static bool gpu_backend_gen(void *self, const dg_problem *p, int slot, const int *tens, const fuzz_ctr *g, int ng)
{
  return gpu_gen_inputs(self, p, slot, tens, g, ng);
}

static bool gpu_timed_gen(void *self, const dg_problem *p, int slot, const int *tens, const fuzz_ctr *g, int ng)
{
  return gpu_gen_inputs(((fuzz_gpu_timed *)self)->gk, p, slot, tens, g, ng);
}

static int gpu_backend_judged(void *self, const dg_problem *p, int t, emu_io *io, fuzz_cmp *cmp, char *msg,
                              size_t msgn)
{
  return gpu_judged(self, p, t, io, cmp, msg, msgn);
}

static int gpu_timed_judged(void *self, const dg_problem *p, int t, emu_io *io, fuzz_cmp *cmp, char *msg,
                            size_t msgn)
{
  fuzz_gpu_timed *tm = self;
  int j = gpu_judged(tm->gk, p, t, io, cmp, msg, msgn);
  if (j > 0) {   /* the reference judged it: counted as the ref hook counts */
    tm->ref_runs++;
    tm->ref_ms += tm->gk->ref_ms;
    tm->dev_judged++;
  }
  return j;
}

/* Several cases at once (gpu_run_many): a case passes when the device judged
 * it and no element failed; any other goes back to the campaign, which runs
 * it alone. In two halves (many_send, many_end: the next group's request
 * sent before this one's outcomes are taken). */
static bool gpu_many_send(gpu_kernels *gk, fuzz_gpu_timed *t, const dg_problem *p, const int64_t *sizes,
                          emu_io *const *ios, int n, const uint64_t *seeds, int64_t max_check, void **job)
{
  if (n > FUZZ_MANY_MAX) return false;
  double t0 = t ? dg_now() : 0;
  gk->many_timed = t && !t->untimed_many;   /* (the untimed backend's kernel times go nowhere) */
  gpu_many_job *J = NULL;
  bool sent = gpu_run_many_send(p, gk, sizes, ios, n, seeds, max_check, &J);
  *job = J;
  if (t) t->run_s += dg_now() - t0;
  return sent;
}

static bool gpu_many_end(gpu_kernels *gk, fuzz_gpu_timed *t, void *job, fuzz_cmp *cmp, uint8_t *passed,
                         int64_t *explained, uint8_t *sampled)
{
  (void)gk;
  gpu_many_case mc[FUZZ_MANY_MAX];
  double t0 = t ? dg_now() : 0;
  gpu_many_job *J = job;
  int n = gpu_run_many_cases(J);
  if (!gpu_run_many_end(J, mc)) return false;
  for (int c = 0; c < n; c++) {
    passed[c] = mc[c].judged && !mc[c].cmp.nfail;
    cmp[c] = mc[c].cmp;
    explained[c] = passed[c] ? mc[c].nexplained : 0;
    sampled[c] = passed[c] && mc[c].sampled;
    if (t && passed[c]) {   /* counted as the one-by-one runs count theirs */
      t->runs++;
      t->kernel_ms += mc[c].ms;
      t->ref_runs++;
      t->ref_ms += mc[c].ref_ms;
      t->dev_judged++;
      t->many++;
      t->env_passed += mc[c].nexplained > 0;
      t->sampled += sampled[c];
    }
  }
  if (t) t->run_s += dg_now() - t0;
  return true;
}

static bool gpu_many(gpu_kernels *gk, fuzz_gpu_timed *t, const dg_problem *p, const int64_t *sizes,
                     emu_io *const *ios, int n, const uint64_t *seeds, int64_t max_check, fuzz_cmp *cmp,
                     uint8_t *passed, int64_t *explained, uint8_t *sampled)
{
  void *job;
  return gpu_many_send(gk, t, p, sizes, ios, n, seeds, max_check, &job) &&
         gpu_many_end(gk, t, job, cmp, passed, explained, sampled);
}

static bool gpu_backend_send(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                             const uint64_t *seeds, int64_t max_check, void **job)
{
  return gpu_many_send(self, NULL, p, sizes, ios, n, seeds, max_check, job);
}

static bool gpu_backend_end(void *self, void *job, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained,
                            uint8_t *sampled)
{
  return gpu_many_end(self, NULL, job, cmp, passed, explained, sampled);
}

static bool gpu_timed_send(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                           const uint64_t *seeds, int64_t max_check, void **job)
{
  fuzz_gpu_timed *t = self;
  return gpu_many_send(t->gk, t, p, sizes, ios, n, seeds, max_check, job);
}

static bool gpu_timed_end(void *self, void *job, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained,
                          uint8_t *sampled)
{
  fuzz_gpu_timed *t = self;
  return gpu_many_end(t->gk, t, job, cmp, passed, explained, sampled);
}

static bool gpu_backend_many(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                             const uint64_t *seeds, int64_t max_check, fuzz_cmp *cmp, uint8_t *passed,
                             int64_t *explained, uint8_t *sampled)
{
  return gpu_many(self, NULL, p, sizes, ios, n, seeds, max_check, cmp, passed, explained, sampled);
}

static bool gpu_timed_many(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                           const uint64_t *seeds, int64_t max_check, fuzz_cmp *cmp, uint8_t *passed,
                           int64_t *explained, uint8_t *sampled)
{
  fuzz_gpu_timed *t = self;
  return gpu_many(t->gk, t, p, sizes, ios, n, seeds, max_check, cmp, passed, explained, sampled);
}

static bool gpu_backend_ref(void *self, const dg_problem *p, int t, double *want, uint8_t *defined, int64_t n)
{
  (void)p;
  return gpu_ref_of(self, t, want, defined, n);
}

static bool gpu_timed_ref(void *self, const dg_problem *p, int t, double *want, uint8_t *defined, int64_t n)
{
  fuzz_gpu_timed *tm = self;
  (void)p;
  bool got = gpu_ref_of(tm->gk, t, want, defined, n);
  tm->ref_runs += got;
  tm->ref_ms += got ? tm->gk->ref_ms : 0;
  return got;
}

/* The envelope's verdicts on the GPU (gpu_env.c), after a run with the GPU reference. */
static bool env_judge(gpu_kernels *gk, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                      const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *ok)
{
  gpu_ref_plan pl;   /* an op without the envelope on the device (conv2d): the host's */
  if (!gpu_ref_plan_for(p, sizes, &pl) || !gpu_ref_env_kind(&pl)) return false;
  return gpu_env_judge(gk, p, sizes, t, idx, got, want, m, tol, ok);
}

static bool gpu_backend_envelope(void *self, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                                 const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *ok)
{
  return env_judge(self, p, sizes, t, idx, got, want, m, tol, ok);
}

static bool gpu_timed_envelope(void *self, const dg_problem *p, const int64_t *sizes, int t, const int64_t *idx,
                               const double *got, const double *want, int64_t m, dg_tol tol, uint8_t *ok)
{
  return env_judge(((fuzz_gpu_timed *)self)->gk, p, sizes, t, idx, got, want, m, tol, ok);
}

/* The next case's reference at the validator's sample alone (gpu_run_sample_next). */
static bool gpu_backend_sample(void *self, const dg_problem *p, const int64_t *sizes, uint64_t seed,
                               int64_t max_check)
{
  return gpu_run_sample_next(self, p, sizes, seed, max_check);
}

static bool gpu_timed_sample(void *self, const dg_problem *p, const int64_t *sizes, uint64_t seed,
                             int64_t max_check)
{
  return gpu_run_sample_next(((fuzz_gpu_timed *)self)->gk, p, sizes, seed, max_check);
}

/* DIRIGO_GPU_MANY=0: every case in a request of its own. */
static bool many_on(void) { return !gpu_run_switched_off("DIRIGO_GPU_MANY"); }
/* DIRIGO_GPU_AHEAD=0: each group's request answered before the next is sent
 * (the measurement's other side, doc/gpu.md §6). */
static bool ahead_on(void) { return !gpu_run_switched_off("DIRIGO_GPU_AHEAD"); }

fuzz_backend fuzz_backend_gpu(gpu_kernels *gk)
{
  gk->use_ref = gk->dev_cmp = true;
  fuzz_backend b = { "gpu", gpu_backend_run, gk, gpu_backend_ref, gpu_backend_judged };
  if (many_on()) b.run_many = gpu_backend_many;
  if (many_on() && ahead_on()) b.many_send = gpu_backend_send, b.many_end = gpu_backend_end;
  b.gen = gpu_backend_gen;
  b.envelope = gpu_backend_envelope;
  b.sample = gpu_backend_sample;
  gpu_env_prepare(gk);
  return b;
}

fuzz_backend fuzz_backend_gpu_timed(fuzz_gpu_timed *t)
{
  t->gk->use_ref = t->gk->dev_cmp = true;
  fuzz_backend b = { "gpu", gpu_timed_run, t, gpu_timed_ref, gpu_timed_judged };
  if (many_on()) b.run_many = gpu_timed_many;
  if (many_on() && ahead_on()) b.many_send = gpu_timed_send, b.many_end = gpu_timed_end;
  b.gen = gpu_timed_gen;
  b.envelope = gpu_timed_envelope;
  b.sample = gpu_timed_sample;
  gpu_env_prepare(t->gk);
  return b;
}
