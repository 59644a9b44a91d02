/* check_slice.c — the writer-search slice (src/check_slice.c): on every
 * one-launch sample of samples/ at its spec sizes, the writer map of the
 * sliced run (check_mach_launch on every block) equals the full kernel's
 * (the same launch given every block explicitly, which runs unsliced), byte
 * for byte of every output: last writer and writer count. And the slice
 * really cuts: the tiled matmul's slice has no loop left, kernels with
 * atomics are refused, the writer search at matmul 512^3 is cheap. */
#include "check_int.h"
#include "check_slice.h"
#include "lua_spec.h"
#include "../tap.h"
#include <dirent.h>
#include <unistd.h>

typedef struct { dg_problem *p; emu_kernels k; int64_t *sizes; emu_io io; } prob;

static bool load(prob *P, const char *path, const char *sizes_override)
{
  memset(P, 0, sizeof *P);
  dg_diags d = {0};
  P->p = dg_spec_load(path, &d);
  bool ok = !d.nerrors && emu_kernels_load(&P->k, P->p, &d);
  if (ok && sizes_override) {     /* "M=512,N=512,K=512" */
    for (size_t i = 0; i < P->p->sizes.n; i++) {
      char pat[64];
      snprintf(pat, sizeof pat, "%s=", P->p->sizes.v[i].name);
      const char *at = strstr(sizes_override, pat);
      if (at && (at == sizes_override || at[-1] == ',')) P->p->sizes.v[i].value = atoll(at + strlen(pat));
    }
  }
  if (ok) {
    P->sizes = dg_malloc(sizeof *P->sizes * (P->p->sizes.n + 1));
    dg_problem_default_sizes(P->p, P->sizes);
    ok = dg_problem_check_sizes(P->p, P->sizes, &d) && emu_io_init(&P->io, P->p, P->sizes, &d);
  }
  dg_diags_free(&d);
  return ok;
}

static void unload(prob *P)
{
  if (P->io.ntensors) emu_io_free(&P->io);
  if (P->k.mod) emu_kernels_free(&P->k);
  dg_problem_free(P->p);
  free(P->sizes);
}

/* Runs the one launch on a fresh concrete machine, every output tracked:
 * sliced (blocks NULL: the writer search) or in full (every block listed). */
static bool run(prob *P, bool sliced, check_mach *cm, double *secs)
{
  char *err = NULL;
  if (!check_mach_init(cm, P->p, P->sizes, &P->io, NULL, &err)) { free(err); return false; }
  for (size_t t = 0; t < P->p->tensors.n; t++)
    if (P->p->tensors.v[t].role == DG_TENSOR_OUTPUT) simt_track_writes(cm->m, cm->bufs[t]);
  simt_launch L;
  if (!check_mach_dims(cm, 0, &L, &err)) { free(err); return false; }
  int64_t nb = (int64_t)(L.grid[0] ? L.grid[0] : 1) * (L.grid[1] ? L.grid[1] : 1) * (L.grid[2] ? L.grid[2] : 1);
  int64_t *all = dg_malloc(sizeof *all * (size_t)(nb + 1));
  for (int64_t b = 0; b < nb; b++) all[b] = b;
  double t0 = dg_now();
  simt_status st = check_mach_launch(cm, &P->k, 0, sliced ? NULL : all, sliced ? 0 : (int)nb, &err);
  if (secs) *secs = dg_now() - t0;
  free(all);
  free(err);
  return st != SIMT_BADARGS;
}

/* Every byte of every output: the same last writer and writer count. */
static int64_t compare(prob *P, check_mach *a, check_mach *b, int64_t *written)
{
  int64_t diffs = 0;
  *written = 0;
  for (size_t t = 0; t < P->p->tensors.n; t++) {
    if (P->p->tensors.v[t].role != DG_TENSOR_OUTPUT) continue;
    int64_t bytes = simt_buf_size(a->m, a->bufs[t]);
    for (int64_t off = 0; off < bytes; off++) {
      int na, nb;
      int64_t wa = simt_writer(a->m, a->bufs[t], off, &na), wb = simt_writer(b->m, b->bufs[t], off, &nb);
      if (wa != wb || na != nb) diffs++;
      if (wb >= 0) (*written)++;
    }
  }
  return diffs;
}

static int nsliced, nrefused, nsame;

static void one_sample(const char *path, const char *name)
{
  prob P;
  if (!load(&P, path, NULL) || P.p->launches.n != 1) { unload(&P); return; }
  const char *why = NULL;
  dg_arena ar = {0};
  bool sliced = check_slice_writes(&ar, P.k.kern.v[0], &why) != NULL;
  dg_arena_free(&ar);
  if (!sliced) { nrefused++; printf("# %s: not sliced: %s\n", name, why); unload(&P); return; }
  nsliced++;
  check_mach a, b;
  if (run(&P, true, &a, NULL) && run(&P, false, &b, NULL)) {
    int64_t written, diffs = compare(&P, &a, &b, &written);
    if (diffs) ok(false, "%s: the sliced writer map differs in %lld of %lld written bytes", name,
                  (long long)diffs, (long long)written);
    else nsame++;
    size_t ea, eb;
    simt_events(a.m, &ea);
    simt_events(b.m, &eb);
    if (ea > eb) ok(false, "%s: the slice reports %zu events, the full run %zu", name, ea, eb);
  }
  check_mach_free(&a);
  check_mach_free(&b);
  unload(&P);
}

static void test_samples(const char *srcdir)
{
  char *root = dg_printf("%s/samples", srcdir);
  DIR *d = opendir(root);
  ok(d != NULL, "samples/ found");
  struct dirent *e;
  DG_VEC(char *) paths = {0};
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *sub = dg_printf("%s/%s", root, e->d_name);
    DIR *d2 = opendir(sub);
    struct dirent *f;
    while (d2 && (f = readdir(d2))) {
      size_t n = strlen(f->d_name);
      if (n > 4 && !strcmp(f->d_name + n - 4, ".lua")) dg_vec_push(&paths, dg_printf("%s/%s", sub, f->d_name));
    }
    if (d2) closedir(d2);
    free(sub);
  }
  if (d) closedir(d);
  for (size_t i = 0; i < paths.n; i++) {
    one_sample(paths.v[i], strrchr(paths.v[i], '/') + 1);
    free(paths.v[i]);
  }
  dg_vec_free(&paths);
  free(root);
  ok(nsliced >= 30, "%d one-launch samples sliced, %d refused", nsliced, nrefused);
  is_int(nsame, nsliced, "every sliced sample: the same writer map as the full kernel, byte for byte");
}

/* What gets cut, and what is refused. */
static bool has_loop(const dg_stmt *s)
{
  if (!s) return false;
  if (s->kind == DG_ST_FOR || s->kind == DG_ST_WHILE || s->kind == DG_ST_DO) return true;
  if (has_loop(s->then) || has_loop(s->els) || has_loop(s->init)) return true;
  for (int i = 0; i < s->nbody; i++)
    if (has_loop(s->body[i])) return true;
  return false;
}

static void test_cuts(const char *srcdir)
{
  static const struct { const char *spec; int loops; } cases[] = {
    { "samples/matmul/matmul_tiled.lua", 0 },    /* the K loop only computes the value */
    { "samples/conv/conv2d_direct.lua", 0 },     /* C x R x S with `continue`s: values only */
    { "samples/softmax/softmax_warp.lua", 1 },   /* the loop that stores stays, the max/sum loops go */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *path = dg_printf("%s/%s", srcdir, cases[i].spec);
    prob P;
    if (load(&P, path, NULL)) {
      dg_arena ar = {0};
      const char *why = NULL;
      const dg_func *f = check_slice_writes(&ar, P.k.kern.v[0], &why);
      ok(f && has_loop(f->body) == (cases[i].loops > 0), "%s: sliced, %s", cases[i].spec,
         cases[i].loops ? "the storing loop kept" : "no loop left");
      dg_arena_free(&ar);
    } else {
      ok(false, "%s loads", cases[i].spec);
    }
    unload(&P);
    free(path);
  }
  char *path = dg_printf("%s/samples/atomics/histogram_smem.lua", srcdir);
  prob P;
  if (load(&P, path, NULL)) {
    dg_arena ar = {0};
    const char *why = NULL;
    bool none = !check_slice_writes(&ar, P.k.kern.v[0], &why);
    ok(none && why, "atomics: not sliced (%s)", why ? why : "?");
    dg_arena_free(&ar);
  }
  unload(&P);
  free(path);
}

/* The point of it: the writer search at matmul 512^3 (134 M multiply-adds
 * in full) runs no multiply-add. Counted in lane operations, not time. */
static void test_cost(const char *srcdir)
{
  char *path = dg_printf("%s/samples/matmul/matmul_tiled.lua", srcdir);
  prob P;
  if (load(&P, path, "M=512,N=512,K=512")) {
    check_mach a;
    double secs = 0;
    if (run(&P, true, &a, &secs)) {
      simt_stats st = simt_last_stats(a.m);
      int64_t w = simt_writer(a.m, a.bufs[P.p->n_inputs], (int64_t)(512 * 512 - 1) * 4, NULL);
      ok(st.lane_ops < (uint64_t)512 * 512 * 64, "writer search at 512^3: %llu lane operations (%.2f s), not 10^8+",
         (unsigned long long)st.lane_ops, secs);
      is_int(w, (int64_t)(32 * 32 - 1) * 256 + 255, "the last element's writer: last block, last thread");
    }
    check_mach_free(&a);
  } else {
    ok(false, "matmul_tiled loads at 512^3");
  }
  unload(&P);
  free(path);
}

/* Kernels made to trip a slicer: partial register writes, break and
 * continue, a return inside a value loop, a grid-stride store loop (sliced,
 * and the writer map must match), and stores the slice must refuse. */
static const char *kernels =
  "__device__ void put(float* p, int i, float v) { p[i] = v; }\n"
  "__global__ void lanes(float* y, const float* x, int n) {\n"
  "  int2 p; p.x = blockIdx.x * blockDim.x + threadIdx.x; p.y = 7; int2 q; q.x = 1;\n"
  "  float v = x[p.x % n]; q.y = (int)v;\n"
  "  if (p.x < n) y[p.x + p.y - 7] = v + q.y;\n"
  "}\n"
  "__global__ void lanes2(float* y, const float* x, int n) {\n"
  "  int2 p; p.x = blockIdx.x * blockDim.x + threadIdx.x; p.y = 7;\n"
  "  float v = x[p.x % n]; p.y = (int)v;\n"
  "  if (p.x < n) y[p.x] = v;\n"
  "}\n"
  "__global__ void brk(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0.f;\n"
  "  for (int j = 0; j < 8; j++) { if (j == 3) continue; acc += x[(i + j) % n]; }\n"
  "  for (int r = 0; r < 4; r++) { int o = i * 4 + r; if (o >= n) break; if (r == 2) continue; y[o] = acc * r; }\n"
  "}\n"
  "__global__ void early(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0.f;\n"
  "  for (int j = 0; j < 4; j++) { if (j > i % 5) return; acc += x[(i + j) % n]; }\n"
  "  if (i < n) y[i] = acc;\n"
  "}\n"
  "__global__ void stride(float* y, const float* x, int n) {\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = 2.f * x[i];\n"
  "}\n"
  "__global__ void overlap(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x; int k = i / 3; float v = x[k % n];\n"
  "  if (k < n) y[k] = v;\n"
  "}\n"
  "__global__ void valuebreak(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x; int j;\n"
  "  for (j = 0; j < 4; j++) if (x[(i + j) % n] > 0.f) break;\n"
  "  if (i * 4 + j < n) y[i * 4 + j] = 1.f;\n"
  "}\n"
  "__global__ void dowhile(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x; int r = 0; float acc = 0.f;\n"
  "  do { acc += x[(i + r) % n]; if (2 * i + r < n) y[2 * i + r] = acc; r++; } while (r < 2);\n"
  "}\n"
  "__global__ void valuedep(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n && x[i] > 0.f) y[i] = x[i];\n"
  "}\n"
  "__global__ void viafunc(float* y, const float* x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) put(y, i, x[i]);\n"
  "}\n"
  "__global__ void viashared(float* y, const float* x, int n) {\n"
  "  __shared__ int s[64]; int t = threadIdx.x; s[t] = 63 - t; __syncthreads();\n"
  "  int i = blockIdx.x * blockDim.x + s[t];\n"
  "  if (i < n) y[i] = x[i];\n"
  "}\n";

static void test_kernels(void)
{
  static const struct { const char *name; bool sliced; } ks[] = {
    { "lanes", true }, { "lanes2", false }, { "brk", true }, { "early", true }, { "stride", true }, { "overlap", true },
    { "dowhile", true }, { "valuebreak", false }, { "valuedep", false }, { "viafunc", false }, { "viashared", false },
  };
  char dir[] = "/tmp/dg_slice.XXXXXX";
  if (!mkdtemp(dir)) { ok(false, "temp dir"); return; }
  char *cu = dg_printf("%s/k.cu", dir);
  FILE *f = fopen(cu, "w");
  if (f) fputs(kernels, f), fclose(f);
  for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
    char *spec = dg_printf("%s/%s.lua", dir, ks[i].name);
    f = fopen(spec, "w");
    if (f) {
      fprintf(f, "return problem { source = \"k.cu\", op = \"relu\", sizes = { N = 300 },\n"
                 "  launch = \"%s<<<3, 64>>>(y, x, N)\" }\n", ks[i].name);
      fclose(f);
    }
    prob P;
    if (!load(&P, spec, NULL)) { ok(false, "%s loads", ks[i].name); unload(&P); free(spec); continue; }
    dg_arena ar = {0};
    const char *why = NULL;
    bool sliced = check_slice_writes(&ar, P.k.kern.v[0], &why) != NULL;
    dg_arena_free(&ar);
    ok(sliced == ks[i].sliced, "%s: %s%s%s", ks[i].name, sliced ? "sliced" : "not sliced", why ? ": " : "",
       why ? why : "");
    check_mach a, b;
    for (int64_t j = 0; j < P.io.numel[0]; j++) P.io.data[0][j] = (double)(j % 7) - 3;
    if (run(&P, true, &a, NULL) && run(&P, false, &b, NULL)) {
      int64_t written, diffs = compare(&P, &a, &b, &written);
      ok(!diffs && written > 0, "%s: the writer map of the writer search = the full kernel's (%lld bytes written)",
         ks[i].name, (long long)written);
    } else {
      ok(false, "%s runs", ks[i].name);
    }
    check_mach_free(&a);
    check_mach_free(&b);
    unload(&P);
    remove(spec);
    free(spec);
  }
  remove(cu);
  free(cu);
  rmdir(dir);
}

int main(void)
{
  const char *srcdir = getenv("DG_SRCDIR");
  if (!srcdir) srcdir = DG_DATADIR;
  test_kernels();
  test_cuts(srcdir);
  test_cost(srcdir);
  test_samples(srcdir);
  return tap_done();
}
