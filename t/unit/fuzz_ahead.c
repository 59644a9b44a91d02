/* fuzz_ahead.c — the campaign sends the next group of a shape before it
 * takes the outcomes of the one before (fuzz_backend many_send/many_end:
 * the GPU's two requests in flight, doc/gpu.md §3), and it is the same
 * campaign: a recording backend over the emulator, whose groups "pass"
 * every case but those it is told to leave (the campaign runs those alone
 * on the emulator). */
#include "fuzz_run.h"
#include "lua_spec.h"
#include "../tap.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  fuzz_backend emu;        /* runs single cases */
  char log[4096];          /* "s1 s2 e1 s3 e2 ..." */
  int nsend, nend, open, most_open;
  int leave;               /* the case (campaign index) a group does not judge; -1: none */
  int64_t ks[8][FUZZ_MANY_MAX];   /* per job: its cases' indices (for leave) */
  int nk[8];
  int64_t next_k;          /* the campaign index of the next case sent (cases go in order) */
  int64_t open_sizes[16];  /* the sizes of the last group sent */
  int cross;               /* groups sent while one of another shape was open */
} rec;

static void logf_(rec *r, const char *what, int job)
{
  size_t n = strlen(r->log);
  snprintf(r->log + n, sizeof r->log - n, "%s%s%d", n ? " " : "", what, job);
}

static bool rec_run(void *self, const dg_problem *p, const int64_t *sizes, emu_io *io, double deadline,
                    fuzz_outcome *out)
{
  rec *r = self;
  return r->emu.run(r->emu.self, p, sizes, io, deadline, out);
}

static void judge(rec *r, int job, int n, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained, uint8_t *sampled)
{
  for (int c = 0; c < n; c++) {
    memset(&cmp[c], 0, sizeof cmp[c]);
    passed[c] = r->ks[job % 8][c] != r->leave;
    explained[c] = 0, sampled[c] = 0;
  }
}

static void note_cases(rec *r, int job, int n)
{
  r->nk[job % 8] = n;
  for (int c = 0; c < n; c++) r->ks[job % 8][c] = r->next_k++;
}

static bool rec_many(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                     const uint64_t *seeds, int64_t max_check, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained,
                     uint8_t *sampled)
{
  (void)p, (void)sizes, (void)ios, (void)seeds, (void)max_check;
  rec *r = self;
  int job = ++r->nsend;
  note_cases(r, job, n);
  logf_(r, "r", job);
  judge(r, job, n, cmp, passed, explained, sampled);
  return true;
}

static bool rec_send(void *self, const dg_problem *p, const int64_t *sizes, emu_io *const *ios, int n,
                     const uint64_t *seeds, int64_t max_check, void **job)
{
  (void)seeds, (void)max_check;
  rec *r = self;
  size_t ns = p->sizes.n < 16 ? p->sizes.n : 16;
  if (r->open && memcmp(r->open_sizes, sizes, ns * sizeof *sizes)) r->cross++;
  memcpy(r->open_sizes, sizes, ns * sizeof *sizes);
  int j = ++r->nsend;
  note_cases(r, j, n);
  for (int c = 0; c < n; c++)   /* the inputs stay until the end: touched there */
    if (!ios[c] || !ios[c]->numel) return false;
  logf_(r, "s", j);
  if (++r->open > r->most_open) r->most_open = r->open;
  *job = (void *)(intptr_t)j;
  return true;
}

static bool rec_end(void *self, void *job, fuzz_cmp *cmp, uint8_t *passed, int64_t *explained, uint8_t *sampled)
{
  rec *r = self;
  int j = (int)(intptr_t)job;
  r->nend++, r->open--;
  logf_(r, "e", j);
  judge(r, j, r->nk[j % 8], cmp, passed, explained, sampled);
  return true;
}

static fuzz_summary campaign(const dg_problem *p, const emu_kernels *k, rec *r, bool ahead, const char *strategy,
                             int64_t n, bool keep_going)
{
  r->emu = fuzz_backend_emu(k);
  fuzz_backend b = { .name = "rec", .run = rec_run, .self = r, .run_many = rec_many };
  if (ahead) b.many_send = rec_send, b.many_end = rec_end;
  fuzz_opts o = { .strategy = fuzz_strategy_find(strategy), .backend = &b, .ncases = n, .seed = 3,
                  .keep_going = keep_going };
  fuzz_summary s;
  dg_diags d = {0};
  fuzz_campaign(p, k, &o, &s, &d);
  dg_diags_free(&d);
  return s;
}

static dg_problem *load(const char *rel, emu_kernels *k)
{
  const char *src = getenv("DG_SRCDIR");
  char *path = dg_printf("%s/samples/%s", src ? src : "..", rel);
  dg_diags d = {0};
  dg_problem *p = dg_spec_load(path, &d);
  bool okk = p && !d.nerrors && emu_kernels_load(k, p, &d);
  if (!okk && p) dg_diags_print(stdout, &p->sm, &d);
  dg_diags_free(&d);
  free(path);
  return okk ? p : NULL;
}

int main(void)
{
  emu_kernels k;
  dg_problem *p = load("elementwise/residual_add.lua", &k);
  ok(p != NULL, "residual_add loaded");
  if (!p) return tap_done();
  /* 100 cases of one shape: groups of 32, 32, 32, 4; each group's request
     sent before the outcomes of the one before are taken */
  rec a = { .leave = -1 }, b = { .leave = -1 };
  fuzz_summary sa = campaign(p, &k, &a, true, "adversarial", 100, true);
  fuzz_summary sb = campaign(p, &k, &b, false, "adversarial", 100, true);
  is_str(a.log, "s1 s2 e1 s3 e2 s4 e3 e4", "ahead: the next group sent before the last one's end");
  is_str(b.log, "r1 r2 r3 r4", "without many_send: one request at a time");
  ok(a.most_open == 2 && a.nend == a.nsend, "ahead: two open at most (%d), every one ended (%d of %d)", a.most_open,
     a.nend, a.nsend);
  ok(sa.ncases == 100 && sa.npass == sb.npass && sa.nfail == sb.nfail && sa.ncases == sb.ncases,
     "ahead: the same campaign (%lld cases, %lld pass; one at a time: %lld, %lld)", (long long)sa.ncases,
     (long long)sa.npass, (long long)sb.ncases, (long long)sb.npass);
  /* a case the group leaves runs alone, in its place */
  rec c = { .leave = 40 };
  fuzz_summary sc = campaign(p, &k, &c, true, "adversarial", 100, true);
  ok(sc.ncases == 100 && sc.npass == sa.npass, "ahead: a case left by its group runs alone (%lld pass)",
     (long long)sc.npass);
  /* a failing case ends a campaign without keep_going: the group sent ahead
     is answered, and none of its cases counts */
  emu_kernels kb;
  dg_problem *pb = load("elementwise/residual_add_gridfloor.lua", &kb);
  ok(pb != NULL, "residual_add_gridfloor loaded");
  if (pb) {
    rec f = { .leave = 5 };
    fuzz_summary sf = campaign(pb, &kb, &f, true, "adversarial", 100, false);
    ok(sf.failed && sf.first.k == 5 && sf.ncases == 6, "ahead: stopped at the failing case (case %lld, %lld counted)",
       (long long)sf.first.k, (long long)sf.ncases);
    is_str(f.log, "s1 s2 e1 e2", "ahead: the group sent ahead ended too, uncounted");
    emu_kernels_free(&kb);
    dg_problem_free(pb);
  }
  /* shapes that change (boundary): a group is sent ahead only behind one of its shape */
  rec v = { .leave = -1 }, w = { .leave = -1 };
  fuzz_summary sv = campaign(p, &k, &v, true, "boundary", 60, true);
  fuzz_summary sw = campaign(p, &k, &w, false, "boundary", 60, true);
  ok(sv.ncases == sw.ncases && sv.npass == sw.npass && v.nsend == w.nsend && v.nend == v.nsend,
     "boundary: the same campaign ahead or not (%lld cases, %d requests: %s)", (long long)sv.ncases, v.nsend, v.log);
  is_int(v.cross, 0, "boundary: never sent behind a group of another shape (its groups end at a shape's change)");
  emu_kernels_free(&k);
  dg_problem_free(p);
  return tap_done();
}
