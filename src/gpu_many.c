/* gpu_many.c — several fuzz cases of one shape in one asynchronous request
 * to the GPU child (gpu_run_many, gpu_run.h), and inputs drawn on the
 * device (gpu_gen.h) instead of uploaded. */
#include "gpu_run_int.h"
#include "gpu_gen.h"
#include "gpu_env.h"
#include "gpu_fused.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The host bytes of input (or accumulate) tensor t of io, as the device holds them. */
void grun_to_raw(const dg_tensor *ts, const emu_io *io, int t, uint8_t *raw)
{
  int64_t n = io->numel[t];
  if (ts->dtype == DG_DT_F32)
    for (int64_t i = 0; i < n; i++) ((float *)raw)[i] = (float)io->data[t][i];
  else
    for (int64_t i = 0; i < n; i++) dg_dtype_store(ts->dtype, raw, i, io->data[t][i]);
}

typedef struct { dg_gpu_dim3 g, b; uint32_t shared; } many_dims;

/* What every request of one gpu_run_many shares. */
typedef struct {
  const dg_problem *p;
  gpu_kernels *gk;
  emu_io *const *ios;
  const uint8_t *on;            /* case c, tensor t drawn on the device: on[c * nt + t] */
  const fuzz_ctr *desc;         /* and its descriptor (the request's copy of gk->dgen_desc) */
  const int64_t *rs_host;       /* case c's sample picks at c x rs_stride (the request's copy of gk->rs_host) */
  size_t nt;
  bool dgen;
  const dg_gpu_arg *args;
  const size_t *at;             /* launch li's arguments: args + at[li] */
  const many_dims *dv;
  const int64_t *zero;          /* scratch zero prefixes, per tensor */
  const gpu_ref_plan *rp;
  dg_gpu_arg ra[14];
  int nra;
  dg_gpu_arg ca[9];
  int nca;
  dg_gpu_dim3 cg, cb;
  gpu_env_pipe envp;
  const uint64_t *init;
  bool fuse;                    /* dg_gen_many and its table buffer are there */
  int64_t *const *samp;         /* case c judged on its sample: samp[c][0..samp_m[c]-1], else NULL */
  const int64_t *samp_m;
  /* the sampled reference (dg_ref_at): case c's picks at gk->rs_idx + c x rs_stride
   * i64 (rs_m[c] of them), every case's uploaded at the head of each request */
  bool rsamp;
  int ncases;
  int64_t rs_stride;
  const int64_t *rs_m;
  dg_gpu_arg rsa[17];
  int nrsa;
  /* the first request's reference fused into the comparison (gpu_fused.h):
   * dg_fused_hash where the reference was, dg_fused where dg_cmp was */
  bool fz;
  gpu_fused_launch fl;
  uint8_t *changed;             /* case c's inputs changed under its kernel (the hash): run again unfused */
  bool overlap;                 /* the reference on its lane's side stream, beside the kernels (gpu_run.h) */
  dg_gpu_arg oha[7];            /* dg_in_hash's arguments over the reference's inputs (out: gk->ovh_buf) */
} many_req;

/* One asynchronous request for cases cs[0..m-1] (with the envelope in the
 * stream when env); their out[] filled. */
/* One request of a gpu_run_many: its batch, where each case's launches
 * are in it, the summaries it downloads; kept and reused (gpu_many_job). */
typedef struct {
  dg_gpu_batch b;
  int m, S;
  bool env, first_req, ov;
  int cs[FUZZ_MANY_MAX];
  int first[FUZZ_MANY_MAX + 1];   /* each case's first launch in the batch */
  int lref[FUZZ_MANY_MAX];        /* and its reference's (the kernels follow it) */
  int lcmp[FUZZ_MANY_MAX];        /* and its comparison's (dg_cmp_pick before it: a sample) */
  int lh[FUZZ_MANY_MAX][2];       /* the input hashes' (side streams) */
  uint64_t *tabs;                 /* dg_gen_many's tables, FUZZ_MANY_MAX cases' room */
  uint64_t *sum;                  /* case k's comparison summary at k x GPU_CMP_WORDS */
  size_t sum_n;
  uint64_t ovh[2 * FUZZ_MANY_MAX];
  uint8_t *raw;                   /* the host bytes it uploads (inputs not drawn on the device) */
  size_t raw_cap;
  double t0;
} many_call;

static void many_build(const many_req *R, many_call *C, const int *cs, int m, bool env, bool first_req)
{
  const dg_problem *p = R->p;
  gpu_kernels *gk = R->gk;
  size_t nt = R->nt;
  C->t0 = dg_now();
  C->m = m, C->env = env, C->first_req = first_req;
  memcpy(C->cs, cs, (size_t)m * sizeof *cs);
  if ((size_t)m > C->sum_n) {
    free(C->sum);
    C->sum = dg_malloc((size_t)m * GPU_CMP_WORDS * sizeof *C->sum);
    C->sum_n = (size_t)m;
  }
  dg_gpu_batch *b = &C->b;
  dg_gpu_batch_clear(b);
  b->async = true;
  b->untimed = !gk->many_timed;
  if (env) gpu_env_pipe_start(&R->envp, b);
  /* without the envelope (which reads and rewrites slot 0), case k's summary
   * is slot k of cmp_buf: initialised in one upload, read back in one */
  const size_t words = GPU_CMP_WORDS * sizeof *R->init;
  dg_gpu_arg ca[9];
  memcpy(ca, R->ca, sizeof ca);
  if (!env)
    for (int k = 0; k < m; k++) memcpy(C->sum + (size_t)k * GPU_CMP_WORDS, R->init, words);
  if (!env) dg_gpu_batch_upload(b, gk->cmp_buf, 0, C->sum, (size_t)m * words);
  int *first = C->first, *lref = C->lref, *lcmp = C->lcmp;
  uint8_t *raw = C->raw;
  /* each case's draws and poisons in one launch of dg_gen_many (gpu_gen.h),
   * every case's task table in one upload (filled below, before the request
   * is sent); a case that does not fit (over 8 buffers or 16 tasks) draws and
   * poisons with a launch or copies a tensor as before */
  const size_t tab_case = sizeof ((gpu_gen_many *)0)->tab;
  if (R->fuse && !C->tabs) C->tabs = dg_malloc(tab_case * FUZZ_MANY_MAX);
  uint64_t *tabs = R->fuse ? C->tabs : NULL;
  if (tabs) dg_gpu_batch_upload(b, gk->dgen_tab, 0, tabs, tab_case * (size_t)m);
  if (R->rsamp)
    dg_gpu_batch_upload(b, gk->rs_idx, 0, R->rs_host, (size_t)R->ncases * (size_t)R->rs_stride * sizeof(int64_t));
  int S = C->S = grun_lanes(gk, m);   /* case k on lane k * S / m, its own stream and buffers (gpu.h) */
  /* on S lanes a case's drawing gets a share of the GPU's threads (2048 an
     SM, 256-thread blocks), not all of them: a full grid of it kept the other
     lanes' kernels waiting (softmax 16 x 16384 on 8 lanes, 256 cases: 0.015
     ms a case at 1056 blocks, 0.013 at 132; doc/gpu.md §6, session 12) */
  int sms = dg_gpu_info_of(gk->g)->sm_count;
  int64_t gen_cap = S > 1 ? ((int64_t)(sms > 0 ? sms : 132) * 8 + S - 1) / S : 0;
  bool ov = C->ov = R->overlap && !(R->fz && first_req && !env && !R->samp);
  gk->prof.overlapped += ov;
  /* with the reference beside the kernels, a kernel writing into an input
   * could change what the reference reads: the inputs are hashed before and
   * after the kernels (dg_in_hash, two words a case), and a case whose
   * hashes differ runs again alone (the reference before the kernel) */
  static const uint64_t zeros[2 * FUZZ_MANY_MAX];
  int (*lh)[2] = C->lh;
  if (ov) dg_gpu_batch_upload(b, gk->ovh_buf, 0, zeros, (size_t)m * 2 * sizeof *zeros);
  for (int k = 0; k < m; k++) {
    int c = cs[k];
    emu_io *io = R->ios[c];
    if (S > 1 || ov) dg_gpu_batch_lane(b, S > 1 ? k * S / m : 0);   /* one lane: a side stream needs a lane */
    first[k] = b->nlaunch;
    bool fused = tabs != NULL;
    if (fused) {
      gpu_gen_many g;
      memset(&g, 0, sizeof g);
      for (size_t t = 0; t < nt && fused; t++) {
        const dg_tensor *ts = &p->tensors.v[t];
        size_t at = (size_t)c * nt + t;
        if (ts->role == DG_TENSOR_INPUT || ts->accumulate)
          fused = !(R->on[at] && R->dgen) || gpu_gen_many_draw(&g, gpu_gen_many_slot(&g, gk->bufs[t]), &R->desc[at]);
        else
          fused = gpu_gen_many_poison(&g, gpu_gen_many_slot(&g, gk->bufs[t]), dg_gpu_poison_for(dg_dtypes[ts->dtype].name),
                                      (int64_t)gk->buf_bytes[t] - 1);
      }
      /* the reference's buffer: poisoned only where the reference leaves
       * elements undefined (at a sample); a whole reference writes every one */
      fused = fused && (!R->rsamp || gpu_gen_many_poison(&g, gpu_gen_many_slot(&g, gk->ref_buf),
                                                         dg_gpu_poison_for("f64"), (int64_t)gk->ref_bytes - 1));
      memcpy((uint8_t *)tabs + (size_t)k * tab_case, g.tab, tab_case);
      if (fused) gpu_gen_many_batch(b, gk->dgen_kern[1], gk->dgen_tab, (size_t)k * tab_case, &g, gen_cap);
    }
    for (size_t t = 0; t < nt; t++) {
      const dg_tensor *ts = &p->tensors.v[t];
      size_t bytes = (size_t)io->numel[t] * (size_t)dg_dtypes[ts->dtype].size;
      if (ts->role == DG_TENSOR_INPUT || ts->accumulate) {
        size_t at = (size_t)c * nt + t;
        if (R->on[at] && R->dgen) {   /* drawn on the device (gpu_gen.h) */
          if (!fused) gpu_gen_batch(b, gk->dgen_kern[0], gk->bufs[t], &R->desc[at]);
          continue;
        }
        if (R->on[at]) fuzz_ctr_fill(&R->desc[at], 0, io->numel[t], io->data[t]);
        grun_to_raw(ts, io, (int)t, raw);
        dg_gpu_batch_upload(b, gk->bufs[t], 0, raw, bytes);
        raw += (bytes + 15) & ~(size_t)15;
        continue;
      }
      if (!fused) dg_gpu_batch_poison(b, gk->bufs[t]);
      if (R->zero[t] > 0) dg_gpu_batch_upload(b, gk->bufs[t], 0, gk->raw[t], (size_t)R->zero[t]);
    }
    dg_gpu_arg oha[7];
    memcpy(oha, R->oha, sizeof oha);
    if (ov) {
      oha[0].buf_off = (size_t)k * 16;
      lh[k][0] = b->nlaunch;
      dg_gpu_batch_launch_unguarded(b, gk->cmp_kern[2], R->cg, R->cb, 0, oha, 7);
    }
    if (env) gpu_env_pipe_before(&R->envp, b);
    if (!fused && R->rsamp) dg_gpu_batch_poison(b, gk->ref_buf);
    lref[k] = b->nlaunch;
    bool fz = R->fz && first_req && !env && !R->samp;
    if (fz) {
      dg_gpu_arg ha[GPU_FUSED_HASH_NARGS];
      memcpy(ha, R->fl.ha, sizeof ha);
      ha[GPU_FUSED_HASH_NARGS - 1].buf_off = (size_t)k * words;
      dg_gpu_batch_launch_unguarded(b, gk->fused_kern[0], R->fl.hg, R->fl.hb, 0, ha, GPU_FUSED_HASH_NARGS);
    } else if (R->rsamp) {   /* the reference at the case's sample alone */
      dg_gpu_arg ra[17];
      dg_gpu_dim3 sg, sb;
      memcpy(ra, R->rsa, sizeof ra);
      ra[14].buf_off = (size_t)c * (size_t)R->rs_stride * sizeof(int64_t);
      ra[15] = dg_gpu_arg_i64(R->rs_m[c]);
      gpu_ref_at_dims(R->rp, R->rs_m[c], &sg, &sb);
      dg_gpu_batch_launch_unguarded(b, gk->ref_kern[GPU_REF_AT], sg, sb, 0, ra, R->nrsa);
    } else
      dg_gpu_batch_launch_unguarded(b, gk->ref_kern[R->rp->kind], R->rp->grid, R->rp->block, R->rp->shmem, R->ra,
                                    R->nra);
    /* the reference reads the inputs as drawn and writes ref_buf alone, which
     * nothing reads before the comparison (or the sample's pick): beside the
     * kernels, joined at the first launch after them */
    if (ov) dg_gpu_batch_side(b, 1);
    for (int li = 0; li < (int)p->launches.n; li++)
      dg_gpu_batch_launch(b, gk->kern[gk->name_of[li]], R->dv[li].g, R->dv[li].b, R->dv[li].shared,
                          R->args + R->at[li], (int)p->launches.v[li]->args.n);
    if (ov) {
      oha[0].buf_off = (size_t)k * 16 + 8;
      lh[k][1] = b->nlaunch;
      dg_gpu_batch_launch_unguarded(b, gk->cmp_kern[2], R->cg, R->cb, 0, oha, 7);
    }
    if (env) dg_gpu_batch_upload(b, gk->cmp_buf, 0, R->init, words);
    ca[8].buf_off = env ? 0 : (size_t)k * words;
    gpu_env_pipe ep = R->envp;
    const int64_t *si = R->samp ? R->samp[c] : NULL;
    if (si) {   /* the validator's sample: the reference there alone, poison elsewhere */
      int64_t sm = R->samp_m[c];
      dg_gpu_batch_poison(b, gk->samp_ref);
      dg_gpu_batch_upload(b, gk->samp_idx, 0, si, (size_t)sm * sizeof *si);
      dg_gpu_arg pa[4] = { dg_gpu_arg_buf(gk->ref_buf), dg_gpu_arg_buf(gk->samp_ref), dg_gpu_arg_buf(gk->samp_idx),
                           dg_gpu_arg_i64(sm) };
      dg_gpu_dim3 pg = { (uint32_t)((sm + 255) / 256), 1, 1 }, pb = { 256, 1, 1 };
      dg_gpu_batch_launch_unguarded(b, gk->cmp_kern[1], pg, pb, 0, pa, 4);
      if (ov) dg_gpu_batch_side(b, 2);
      ca[1] = ep.gather_args[4] = dg_gpu_arg_buf(gk->samp_ref);
    } else ca[1] = R->ca[1];
    lcmp[k] = b->nlaunch;
    if (fz) {
      dg_gpu_arg fa[GPU_FUSED_NARGS];
      memcpy(fa, R->fl.fa, sizeof fa);
      fa[GPU_FUSED_NARGS - 1].buf_off = (size_t)k * words;
      dg_gpu_batch_launch_unguarded(b, gk->fused_kern[R->fl.kern], R->fl.fg, R->fl.fb, R->fl.fshmem, fa, GPU_FUSED_NARGS);
    } else
      dg_gpu_batch_launch_unguarded(b, gk->cmp_kern[0], R->cg, R->cb, 0, ca, R->nca);
    if (ov && !si) dg_gpu_batch_side(b, 2);
    if (env) gpu_env_pipe_after(&ep, b);
    if (env) dg_gpu_batch_download(b, gk->cmp_buf, 0, C->sum + (size_t)k * GPU_CMP_WORDS, words);
  }
  uint64_t *ovh = C->ovh;
  for (int L = 0, k0 = 0; (!env || ov) && L < S; L++) {   /* each lane's summaries (and hashes) from its copy */
    int k1 = S > 1 ? ((L + 1) * m + S - 1) / S : m;   /* past the last k with k * S / m == L */
    dg_gpu_batch_lane(b, S > 1 ? L : -1);
    if (!env)
      dg_gpu_batch_download(b, gk->cmp_buf, (size_t)k0 * words, C->sum + (size_t)k0 * GPU_CMP_WORDS,
                            (size_t)(k1 - k0) * words);
    if (ov) dg_gpu_batch_download(b, gk->ovh_buf, (size_t)k0 * 16, ovh + 2 * k0, (size_t)(k1 - k0) * 16);
    k0 = k1;
  }
  dg_gpu_batch_lane(b, -1);
  first[m] = b->nlaunch;
  gk->prof.prep_s += dg_now() - C->t0;
}

/* The request's answer (st, r) into out[] of its cases. */
static void many_decode(const many_req *R, many_call *C, dg_gpu_status st, dg_gpu_batch_result *r, gpu_many_case *out)
{
  const dg_problem *p = R->p;
  gpu_kernels *gk = R->gk;
  const int m = C->m, *cs = C->cs, *first = C->first, *lref = C->lref, *lcmp = C->lcmp;
  const bool env = C->env, first_req = C->first_req, ov = C->ov;
  int (*lh)[2] = C->lh;
  const uint64_t *ovh = C->ovh;
  const size_t words = GPU_CMP_WORDS * sizeof *R->init;
  (void)words;
  gk->prof.requests++;
  C->b.async = false;
  /* the cases before the first failure stand; from it on, run again one by one */
  int upto = st == DG_GPU_OK ? m : 0;
  while (st != DG_GPU_OK && r->failed_launch >= 0 && r->downloaded && upto < m && first[upto + 1] <= r->failed_launch)
    upto++;
  for (int k = 0; k < m; k++) {
    int c = cs[k];
    memset(&out[c], 0, sizeof out[c]);
    if (k >= upto || !r->downloaded) continue;
    out[c].judged = true;
    const uint64_t *sum = C->sum + (size_t)k * GPU_CMP_WORDS;
    gpu_cmp_decode(sum, gk->want_n, &out[c].cmp);
    out[c].nexplained = env && !out[c].cmp.nfail ? (int64_t)sum[7] : 0;
    if (env && sum[7] && getenv("DIRIGO_GPU_ENV_COUNTS"))   /* measuring the envelope's load (doc/gpu.md §6) */
      fprintf(stderr, "gpu_many: case %d of %d: %lld elements explained by the envelope\n", k, m, (long long)sum[7]);
    bool fz = R->fz && first_req && !env && !R->samp;
    if (fz && sum[7]) out[c].judged = false, R->changed[c] = 1;   /* an input changed under the kernel */
    if (ov && ovh[2 * k] != ovh[2 * k + 1]) out[c].judged = false, gk->prof.ov_changed++;   /* likewise: alone */
    for (int li = lref[k]; li <= lref[k] + (int)p->launches.n && li < (int)r->launch_ms.n; li++) {
      if (li == lref[k]) out[c].ref_ms = r->launch_ms.v[li];
      else out[c].ms += r->launch_ms.v[li];
    }
    if (fz && lcmp[k] < (int)r->launch_ms.n) out[c].ref_ms += r->launch_ms.v[lcmp[k]];   /* and the hash */
    if (first_req) gk->prof.cases++, gk->prof.rsampled += R->rsamp;   /* a case run again is counted once */
    if (R->samp) {   /* the sample as the host's: every element of it checked */
      out[c].sampled = true;
      if (out[c].cmp.checked != R->samp_m[c]) out[c].judged = false;
    }
    out[c].sampled |= R->rsamp;   /* the reference was the sample's alone */
    int lk = lref[k] + (int)p->launches.n;   /* the last kernel; the comparison, then the envelope's */
    for (int li = first[k]; li < first[k + 1] && li < (int)r->launch_ms.n; li++) {
      int cat = li < lref[k] - env ? 0 : li < lref[k] ? 1 : li == lref[k] ? 2 : li <= lk ? 3 : li <= lcmp[k] ? 4 : 5;
      if (fz && (li == lref[k] || li == lcmp[k])) cat = 6;
      if (ov && (li == lh[k][0] || li == lh[k][1])) cat = 1;   /* the inputs hashed */
      gk->prof.ms[cat] += r->launch_ms.v[li];
    }
  }
  if (grun_child_lost(st)) gk->gen = 0, gk->buf_gen = 0;
  dg_gpu_batch_result_free(r);
}

/* One request for cases cs[0..m-1] (with the envelope in the stream when
 * env), answered before it returns; their out[] filled. */
static void many_group(const many_req *R, many_call *C, const int *cs, int m, bool env, bool first_req,
                       gpu_many_case *out)
{
  many_build(R, C, cs, m, env, first_req);
  double t1 = dg_now();
  dg_gpu_batch_result r;
  dg_gpu_status st = dg_gpu_batch_run(R->gk->g, &C->b, &r);
  R->gk->prof.run_s += dg_now() - t1;
  many_decode(R, C, st, &r, out);
}


/* dg_gen_many's table buffer (every case's tasks) in the current child. */
static bool gen_tab_ready(gpu_kernels *gk)
{
  if (gpu_run_switched_off("DIRIGO_GPU_GEN_MANY")) return false;
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->dgen_tab_gen == gen) return true;
  char *msg = NULL;
  dg_gpu_status st = dg_gpu_alloc(gk->g, sizeof ((gpu_gen_many *)0)->tab * FUZZ_MANY_MAX, dg_gpu_poison_for("u8"),
                                  &gk->dgen_tab, &msg);
  free(msg);
  if (st != DG_GPU_OK || gen != dg_gpu_generation(gk->g)) return false;
  gk->dgen_tab_gen = gen;
  return true;
}

/* The buffers of a sampled comparison (the reference's size; the sample's
 * indices) in the current child. */
static bool samp_ready(gpu_kernels *gk, size_t ref_bytes, size_t idx_bytes)
{
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->samp_gen != gen) gk->samp_bytes = gk->samp_idx_bytes = 0;   /* gone with their child */
  gk->samp_gen = gen;
  return grun_keep_buf(gk, &gk->samp_ref, &gk->samp_bytes, ref_bytes, true, "f64") &&
         grun_keep_buf(gk, &gk->samp_idx, &gk->samp_idx_bytes, idx_bytes, false, "i64") &&
         gen == dg_gpu_generation(gk->g);
}

/* Side streams (DIRIGO_GPU_OVERLAP): dg_in_hash's buffer in this child and
 * its arguments over the reference's inputs (at most three; none of them an
 * accumulate output, which the kernels write by design). */
static bool ov_ready(const dg_problem *p, gpu_kernels *gk, many_req *R)
{
  int nin = 0;
  R->oha[0] = dg_gpu_arg_null();
  for (int i = 1; i < 7; i += 2) R->oha[i] = dg_gpu_arg_null(), R->oha[i + 1] = dg_gpu_arg_i64(0);
  for (size_t t = 0; t < p->tensors.n; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    if (ts->accumulate) return false;
    if (ts->role != DG_TENSOR_INPUT) continue;
    if (nin == 3) return false;
    R->oha[1 + 2 * nin] = dg_gpu_arg_buf(gk->bufs[t]);
    R->oha[2 + 2 * nin] = dg_gpu_arg_i64((int64_t)gk->buf_bytes[t] - 1);   /* (+ 1 there: 0 means none) */
    nin++;
  }
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->ovh_gen != gen) gk->ovh_bytes = 0;   /* gone with its child */
  gk->ovh_gen = gen;
  if (!grun_keep_buf(gk, &gk->ovh_buf, &gk->ovh_bytes, 16 * FUZZ_MANY_MAX, true, "u8") || gen != dg_gpu_generation(gk->g))
    return false;
  R->oha[0] = dg_gpu_arg_buf(gk->ovh_buf);
  return true;
}

/* Cases with more elements off the whole reference than the envelope
 * judges (none unwritten) on an output over max_check elements: the host
 * would judge them on the validator's sample (fuzz_run.c); they run again,
 * the comparison (and the envelope) over that sample alone. */
static void many_sampled(many_req *R, many_call *C, const int64_t *sizes, const uint64_t *seeds, int64_t max_check,
                         int n, bool env, gpu_many_case *out)
{
  gpu_kernels *gk = R->gk;
  int64_t nout = gk->want_n;
  if (!seeds || max_check <= 0 || nout <= max_check || gpu_run_switched_off("DIRIGO_GPU_SAMPLE")) return;
  int cs[FUZZ_MANY_MAX], m = 0;
  for (int c = 0; c < n; c++)
    if (out[c].judged && out[c].cmp.nunwritten == 0 && out[c].cmp.nfail > FUZZ_ENVELOPE_JUDGED) cs[m++] = c;
  if (!m || !samp_ready(gk, (size_t)nout * sizeof(double), (size_t)max_check * sizeof(int64_t))) return;
  int64_t *samp[FUZZ_MANY_MAX] = {0}, samp_m[FUZZ_MANY_MAX] = {0};
  for (int k = 0; k < m; k++) {
    int c = cs[k];
    samp[c] = dg_malloc((size_t)max_check * sizeof(int64_t));
    samp_m[c] = fuzz_sample_indices(R->p, R->rp->out, sizes, nout, max_check, seeds[c], samp[c]);
  }
  R->samp = samp, R->samp_m = samp_m;
  many_group(R, C, cs, m, env, false, out);
  R->samp = NULL, R->samp_m = NULL;
  for (int k = 0; k < m; k++) free(samp[cs[k]]);
}

/* A gpu_run_many between its first request's send and its end
 * (gpu_run_many_send, gpu_run_many_end): R and everything it points to. A
 * gpu_kernels keeps two (gk->many_jobs) and reuses their memory. */
struct gpu_many_job {
  bool busy;
  many_req R;
  many_call first, more;        /* the first request; the later ones (answered at once) */
  DG_VEC(dg_gpu_arg) args;
  DG_VEC(size_t) at;
  DG_VEC(many_dims) dv;
  uint8_t on[FUZZ_MANY_MAX * 64];
  fuzz_ctr desc[FUZZ_MANY_MAX * 64];
  int64_t zero[64];
  gpu_ref_plan rp;
  uint64_t init[GPU_CMP_WORDS];
  int64_t rs_m[FUZZ_MANY_MAX];
  int64_t *rs;                  /* the sample picks, n x max_check */
  size_t rs_cap;
  uint8_t changed[FUZZ_MANY_MAX];
  emu_io *ios[FUZZ_MANY_MAX];
  int64_t sizes[64];
  uint64_t seeds[FUZZ_MANY_MAX];
  bool have_seeds, env, env_first;
  int n;
  int64_t max_check;
  double t_send;
};

void gpu_many_jobs_free(gpu_kernels *gk)
{
  for (int i = 0; i < 2; i++) {
    gpu_many_job *J = gk->many_jobs[i];
    if (!J) continue;
    many_call *cc[2] = { &J->first, &J->more };
    for (int k = 0; k < 2; k++) {
      dg_gpu_batch_free(&cc[k]->b);
      free(cc[k]->tabs), free(cc[k]->sum), free(cc[k]->raw);
    }
    dg_vec_free(&J->args), dg_vec_free(&J->at), dg_vec_free(&J->dv);
    free(J->rs);
    free(J);
    gk->many_jobs[i] = NULL;
  }
}

static void call_raw(many_call *C, size_t per)
{
  if (per + 1 > C->raw_cap) {
    free(C->raw);
    C->raw_cap = per + 1;
    C->raw = dg_malloc(C->raw_cap);
  }
}

bool gpu_run_many_send(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *const *ios, int n,
                       const uint64_t *seeds, int64_t max_check, gpu_many_job **jobp)
{
  double t0 = dg_now();
  *jobp = NULL;
  gk->ref_out = -1;
  gk->judged = gk->pending = false;
  size_t nt = p->tensors.n, per = 0;
  gpu_many_job *J = NULL;
  for (int i = 0; i < 2 && !J; i++) {
    if (!gk->many_jobs[i]) gk->many_jobs[i] = dg_calloc(1, sizeof *gk->many_jobs[i]);
    if (!gk->many_jobs[i]->busy) J = gk->many_jobs[i];
  }
  if (!J) return false;   /* (two open already: the caller's slip) */
  uint8_t *on = J->on;    /* this request's registrations (gpu_run_gen), consumed */
  memset(on, 0, sizeof J->on);
  if (gk->dgen_on) {
    if (nt <= 64) {
      memcpy(on, gk->dgen_on, nt * FUZZ_MANY_MAX);
      memcpy(J->desc, gk->dgen_desc, nt * FUZZ_MANY_MAX * sizeof *J->desc);
    }
    memset(gk->dgen_on, 0, nt * FUZZ_MANY_MAX);
    memset(gk->dgen_last, 0, nt);
  }
  if (!gk->g || !gk->bin.image || n < 1 || n > FUZZ_MANY_MAX || !gk->dev_cmp || nt > 64 || p->sizes.n > 64)
    return false;
  dg_diags d = {0};
  char *msg = NULL;
  int bad = -1;
  bool ok = dg_problem_check_sizes(p, sizes, &d);
  dg_gpu_status st = ok ? grun_ensure_loaded(gk, &msg) : DG_GPU_BAD_REQUEST;
  for (int k = 0; k < gk->nnames && st == DG_GPU_OK; k++) st = grun_param_sizes(gk, k, &msg);
  if (st == DG_GPU_OK) st = grun_ensure_buffers(p, gk, ios[0], &bad, &msg);
  gpu_ref_plan *rp = &J->rp;
  ok = st == DG_GPU_OK && grun_ref_ready(p, gk, sizes, rp) && grun_cmp_ready(p, gk, rp->out);
  for (size_t t = 0; ok && t < p->tensors.n; t++)   /* the summary judges the one output alone */
    ok = p->tensors.v[t].role != DG_TENSOR_OUTPUT || (int)t == rp->out;
  free(msg);
  if (grun_child_lost(st)) gk->gen = 0, gk->buf_gen = 0;
  bool dgen = ok && grun_dgen_ready(gk);
  for (int c = 0; ok && c < n; c++)   /* host bytes the cases upload (not those drawn on the device) */
    for (size_t t = 0; t < nt; t++) {
      const dg_tensor *ts = &p->tensors.v[t];
      if ((ts->role == DG_TENSOR_INPUT || ts->accumulate) && !(dgen && on[(size_t)c * nt + t])) {
        per += ((size_t)ios[c]->numel[t] * (size_t)dg_dtypes[ts->dtype].size + 15) & ~(size_t)15;
        ok = ios[c]->data[t] != NULL;   /* a group's io without elements (fuzz_run.c): nothing ran */
      }
    }
  /* the launches' arguments: the same sizes, the same buffers in every case */
  J->args.n = J->at.n = J->dv.n = 0;
  for (int li = 0; ok && li < (int)p->launches.n; li++) {
    const dg_launch *l = p->launches.v[li];
    int name = gk->name_of[li];
    dg_vec_push(&J->at, J->args.n);
    for (size_t a = 0; a <= l->args.n; a++) dg_vec_push(&J->args, dg_gpu_arg_null());
    int64_t grid[3], block[3], shared = 0;
    ok = dg_problem_launch_dims(p, li, sizes, grid, block, &shared, &d) &&
         grun_launch_args(p, li, sizes, gk->bufs, gk->psize + (size_t)name * MAX_PARAMS, gk->np[name],
                     J->args.v + J->at.v[li], &d);
    many_dims x = { { (uint32_t)grid[0], (uint32_t)grid[1], (uint32_t)grid[2] },
               { (uint32_t)block[0], (uint32_t)block[1], (uint32_t)block[2] }, (uint32_t)shared };
    dg_vec_push(&J->dv, x);
  }
  int64_t *zero = J->zero;   /* scratch zero prefixes, per tensor (as gpu_run writes them) */
  memset(J->zero, 0, sizeof J->zero);
  for (size_t t = 0; ok && t < nt && t < 64; t++) {
    const dg_tensor *ts = &p->tensors.v[t];
    size_t bytes = (size_t)ios[0]->numel[t] * (size_t)dg_dtypes[ts->dtype].size;
    if (ts->role == DG_TENSOR_SCRATCH && ts->zero_bytes.text) {
      ok = dg_problem_zero_bytes(p, (int)t, sizes, &zero[t], &d);
      if (zero[t] > (int64_t)bytes) zero[t] = (int64_t)bytes;
      if (ok && zero[t] > 0) {
        if ((size_t)zero[t] + 1 > gk->raw_cap[t]) {
          free(gk->raw[t]);
          gk->raw_cap[t] = (size_t)zero[t] + 1;
          gk->raw[t] = dg_malloc(gk->raw_cap[t]);
        }
        memset(gk->raw[t], 0, (size_t)zero[t]);
      }
    }
  }
  /* the reference at each case's sample alone where it pays (gpu_run.h):
   * judged on that sample in the first request, as the host judges it;
   * without room for the picks nothing runs (the cases run one by one) */
  bool rsamp = ok && seeds && gpu_run_ref_sampled(gk, rp, gk->want_n, max_check);
  ok = ok && (!rsamp || grun_rs_ready(gk, n, max_check));
  dg_diags_free(&d);
  if (!ok) return false;
  J->busy = true;
  call_raw(&J->first, per), call_raw(&J->more, per);
  gpu_cmp_init(J->init);
  many_req *R = &J->R;
  memset(R, 0, sizeof *R);
  memcpy(J->ios, ios, (size_t)n * sizeof *ios);
  memcpy(J->sizes, sizes, p->sizes.n * sizeof *sizes);
  J->have_seeds = seeds != NULL, J->n = n, J->max_check = max_check;
  if (seeds) memcpy(J->seeds, seeds, (size_t)n * sizeof *seeds);
  R->p = p, R->gk = gk, R->ios = J->ios, R->on = on, R->desc = J->desc, R->nt = nt, R->dgen = dgen;
  R->args = J->args.v, R->at = J->at.v, R->dv = J->dv.v, R->zero = zero, R->rp = rp, R->init = J->init;
  R->nra = gpu_ref_args(p, rp, gk->ref_buf, gk->bufs, R->ra);
  memset(J->rs_m, 0, sizeof J->rs_m);
  R->rsamp = rsamp;
  if (R->rsamp) {
    size_t need = (size_t)n * (size_t)max_check + 1;
    if (need > J->rs_cap) free(J->rs), J->rs = dg_malloc(need * sizeof *J->rs), J->rs_cap = need;
    R->ncases = n, R->rs_stride = max_check, R->rs_m = J->rs_m, R->rs_host = J->rs;
    int64_t *tmp = gpu_run_ref_at_order() ? dg_malloc((size_t)max_check * sizeof *tmp + 1) : NULL;
    for (int c = 0; c < n; c++) {
      J->rs_m[c] = fuzz_sample_picks(p, rp->out, sizes, gk->want_n, max_check, seeds[c],
                                     J->rs + (size_t)c * (size_t)max_check);
      if (tmp) gpu_ref_at_order(rp, J->rs + (size_t)c * (size_t)max_check, J->rs_m[c], tmp);
    }
    free(tmp);
    R->nrsa = gpu_ref_at_args(p, rp, gk->ref_buf, gk->bufs, gk->rs_idx, 0, 0, R->rsa);
  }
  R->nca = gpu_cmp_args(p->tensors.v[rp->out].dtype, gk->bufs[rp->out], gk->ref_buf, gk->want_n,
                        dg_problem_tol(p, rp->out), gk->cmp_buf, R->ca);
  gpu_cmp_dims(gk->want_n, &R->cg, &R->cb);
  /* the envelope inside the stream (gpu_env.h), when the op has one: only
   * for the cases whose comparison found elements off the reference that it
   * could explain, run again in a second request (most cases have none, and
   * the hash and the three envelope launches were a third of a small case) */
  J->env = gpu_ref_env_kind(rp) && gpu_env_pipe_ready(gk, p, sizes, rp->out, &R->envp);
  R->fuse = dgen && gen_tab_ready(gk);
  R->fz = !R->rsamp && gpu_fused_ready(gk, rp) && gpu_fused_prepare(p, rp, gk->bufs, gk->cmp_buf, &R->fl);
  int cs[FUZZ_MANY_MAX];
  for (int c = 0; c < n; c++) cs[c] = c;
  gk->prof.prep_s += dg_now() - t0;   /* loads and buffers on a first request, the arguments */
  /* where the reference is sampled (a kernel that costs more than the
   * envelope's launches: matmul, conv2d at realistic sizes) the envelope is
   * in the first request, not in a second that runs the kernel again */
  J->env_first = J->env && R->rsamp;
  memset(J->changed, 0, sizeof J->changed);
  R->changed = J->changed;
  R->overlap = gpu_run_overlap() && ov_ready(p, gk, R);
  many_build(R, &J->first, cs, n, J->env_first, true);
  J->t_send = dg_now();
  dg_gpu_batch_send(gk->g, &J->first.b);
  gk->prof.run_s += dg_now() - J->t_send;
  *jobp = J;
  return true;
}

int gpu_run_many_cases(const gpu_many_job *J) { return J->n; }

bool gpu_run_many_end(gpu_many_job *J, gpu_many_case *out)
{
  many_req *R = &J->R;
  gpu_kernels *gk = R->gk;
  int n = J->n;
  double t1 = dg_now();
  dg_gpu_batch_result r;
  dg_gpu_status st = dg_gpu_batch_recv(gk->g, &J->first.b, &r);
  gk->prof.run_s += dg_now() - t1;
  many_decode(R, &J->first, st, &r, out);
  /* the second request: the cases the envelope could explain, and those
   * whose inputs changed under the fused pass (a kernel writing into its
   * input: judged there as the unfused first request judged them, the
   * reference before the kernel) */
  int cs[FUZZ_MANY_MAX], m = 0;
  for (int c = 0; c < n; c++)
    if ((J->env && !J->env_first && out[c].judged && out[c].cmp.nfail > 0 && out[c].cmp.nunwritten == 0 &&
         out[c].cmp.nfail <= FUZZ_ENVELOPE_JUDGED) || J->changed[c])
      cs[m++] = c;
  if (m) many_group(R, &J->more, cs, m, J->env, false, out);
  many_sampled(R, &J->more, J->sizes, J->have_seeds ? J->seeds : NULL, J->max_check, n, J->env, out);
  for (int c = 0; c < n; c++) {
    const fuzz_cmp *x = &out[c].cmp;
    if (out[c].sampled && !R->rsamp && out[c].judged && !x->nfail) gk->prof.sampled++;
    if (!out[c].judged) gk->prof.left[3]++;
    else if (x->nunwritten) gk->prof.left[1]++;
    else if (x->nfail > FUZZ_ENVELOPE_JUDGED) gk->prof.left[0]++;
    else if (x->nfail) gk->prof.left[2]++;
  }
  J->busy = false;
  return true;
}

bool gpu_run_many(const dg_problem *p, gpu_kernels *gk, const int64_t *sizes, emu_io *const *ios, int n,
                  const uint64_t *seeds, int64_t max_check, gpu_many_case *out)
{
  gpu_many_job *J;
  return gpu_run_many_send(p, gk, sizes, ios, n, seeds, max_check, &J) && gpu_run_many_end(J, out);
}

/* The generator kernel compiled, once (DIRIGO_GPU_GEN=0: never): false when it is off. */
static bool dgen_compiled(gpu_kernels *gk)
{
  if (gk->dgen_state == 0) {
    dg_diags d = {0};
    gk->dgen_state = gpu_run_switched_off("DIRIGO_GPU_GEN") ||
                     gpu_gen_compile(dg_gpu_info_of(gk->g)->arch, &gk->dgen_bin, &d) != DG_GPU_OK ? -1 : 1;
    dg_diags_free(&d);
  }
  return gk->dgen_state > 0;
}

/* The generator kernel (gpu_gen.c): compiled once, loaded into each child. */
bool grun_dgen_ready(gpu_kernels *gk)
{
  if (!dgen_compiled(gk)) return false;
  unsigned gen = dg_gpu_generation(gk->g);
  if (gk->dgen_gen != gen) {
    char *msg = NULL;
    dg_gpu_status st = dg_gpu_load(gk->g, &gk->dgen_bin, gk->dgen_kern, &msg);
    free(msg);
    if (st != DG_GPU_OK) {
      if (!grun_child_lost(st)) gk->dgen_state = -1;
      return false;
    }
    gk->dgen_gen = gen;
  }
  return gen == dg_gpu_generation(gk->g);
}

bool gpu_run_gen(gpu_kernels *gk, const dg_problem *p, int slot, int t, const fuzz_ctr *g)
{
  if (!gk->g || slot < 0 || slot >= FUZZ_MANY_MAX || t < 0 || t >= (int)p->tensors.n) return false;
  if (!dgen_compiled(gk)) return false;   /* compiled on first use (the load is the run's) */
  size_t at = (size_t)slot * p->tensors.n + (size_t)t;
  gk->dgen_on[at] = 1;
  gk->dgen_desc[at] = *g;
  return true;
}

void gpu_run_host_inputs(const dg_problem *p, gpu_kernels *gk)
{
  for (size_t t = 0; t < p->tensors.n; t++) {
    if (!gk->dgen_last[t]) continue;
    const fuzz_ctr *g = &gk->dgen_desc[t];
    const dg_tensor *ts = &p->tensors.v[t];
    size_t bytes = (size_t)g->n * (size_t)dg_dtypes[ts->dtype].size;
    if (bytes + 1 > gk->raw_cap[t]) {
      free(gk->raw[t]);
      gk->raw_cap[t] = bytes + 1;
      gk->raw[t] = dg_malloc(gk->raw_cap[t]);
    }
    double *v = dg_malloc(sizeof *v * (size_t)(g->n ? g->n : 1));
    fuzz_ctr_fill(g, 0, g->n, v);
    for (int64_t i = 0; i < g->n; i++) dg_dtype_store(ts->dtype, gk->raw[t], i, v[i]);
    free(v);
    gk->dgen_last[t] = 0;
  }
}
