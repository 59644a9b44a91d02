/* gpu_nvrtc.c — device code to CUBIN: NVRTC in a forked worker, the on-disk
 * cache, and NVRTC's log turned into diagnostics at the user's file:line:col.
 *
 * The worker is forked per cold compile so that an NVRTC crash or a compile
 * that never ends (deep templates) costs a child, not the caller; the cache
 * makes the common case (same kernel, many fuzz runs) a file read. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include "config.h"
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef DG_HAVE_CUDA
#include <nvrtc.h>
#endif

#define DEFAULT_ARCH "sm_90"
#define MAX_HEADERS 64

typedef struct {
  char *name;       /* as written in #include "..." */
  char *text;       /* host code blanked */
  uint32_t file;    /* in the caller's srcmgr */
} header;

typedef struct {
  char *source;     /* prelude + #line 1 "path" + device text */
  DG_VEC(header) hdrs;
  DG_VEC(char *) opts;
  char *arch;       /* "sm_90", or "compute_120" for PTX */
  bool ptx;
  uint32_t main_file;
  const char *main_path;  /* as in the #line directive */
} job;

/* ---- blob: what the worker sends back and what the cache holds ----------- */
#define UNUSED_OK __attribute__((unused))   /* the writers serve the worker, absent without CUDA */
static UNUSED_OK void put_u32(dg_buf *b, uint32_t v) { dg_buf_put(b, (char *)&v, 4); }
static UNUSED_OK void put_u64(dg_buf *b, uint64_t v) { dg_buf_put(b, (char *)&v, 8); }
static UNUSED_OK void put_str(dg_buf *b, const char *s, size_t n) { put_u64(b, n); dg_buf_put(b, s, n); }

typedef struct { const uint8_t *p, *end; bool bad; } cursor;
static uint64_t get_u(cursor *c, int bytes)
{
  uint64_t v = 0;
  if (c->end - c->p < bytes) { c->bad = true; return 0; }
  memcpy(&v, c->p, bytes);
  c->p += bytes;
  return v;
}
static char *get_str(cursor *c, size_t *len)
{
  uint64_t n = get_u(c, 8);
  if (c->bad || (uint64_t)(c->end - c->p) < n) { c->bad = true; return NULL; }
  char *s = dg_malloc(n + 1);
  memcpy(s, c->p, n);
  s[n] = 0;
  c->p += n;
  if (len) *len = n;
  return s;
}

/* blob = log, nnames, lowered names, is_ptx, image */
static bool blob_parse(const uint8_t *p, size_t n, int nnames, dg_gpu_binary *out)
{
  cursor c = { p, p + n, false };
  out->log = get_str(&c, NULL);
  uint32_t k = (uint32_t)get_u(&c, 4);
  if (c.bad || (int)k != nnames) { free(out->log); out->log = NULL; return false; }
  out->lowered = dg_calloc(k ? k : 1, sizeof(char *));
  out->nnames = (int)k;
  for (uint32_t i = 0; i < k; i++) out->lowered[i] = get_str(&c, NULL);
  out->is_ptx = get_u(&c, 1);
  out->image = (uint8_t *)get_str(&c, &out->image_len);
  if (c.bad) { dg_gpu_binary_free(out); return false; }
  return true;
}

void dg_gpu_binary_free(dg_gpu_binary *b)
{
  for (int i = 0; b->lowered && i < b->nnames; i++) free(b->lowered[i]);
  free(b->lowered);
  free(b->image);
  free(b->log);
  free(b->arch);
  memset(b, 0, sizeof *b);
}

/* ---- preparing the job ---------------------------------------------------- */
static void add_headers(dg_srcmgr *sm, const char *dir, const dg_gpu_src *s, job *j,
                        dg_buf *prelude, int depth)
{
  for (size_t i = 0; i < s->local_includes.n && depth < 8 && j->hdrs.n < MAX_HEADERS; i++) {
    const char *name = s->local_includes.v[i];
    bool seen = false;
    for (size_t k = 0; k < j->hdrs.n; k++) seen |= !strcmp(j->hdrs.v[k].name, name);
    if (seen) continue;
    char *path = dg_path_join(dir, name);
    uint32_t f = dg_srcmgr_load(sm, path);
    free(path);
    if (!f) continue;      /* NVRTC reports the missing header at its line */
    dg_gpu_src hs;
    dg_gpu_src_prepare(sm->files.v[f].text, sm->files.v[f].len, &hs);
    if (*hs.prelude && (!prelude->s || !strstr(prelude->s, hs.prelude)))
      dg_buf_puts(prelude, hs.prelude);
    header h = { dg_strdup(name), hs.text, f };
    hs.text = NULL;
    dg_vec_push(&j->hdrs, h);
    add_headers(sm, dir, &hs, j, prelude, depth + 1);
    dg_gpu_src_free(&hs);
  }
}

static int arch_number(const char *arch)
{
  const char *u = arch ? strchr(arch, '_') : NULL;
  return u ? atoi(u + 1) : 0;
}

static void job_init(job *j, dg_srcmgr *sm, uint32_t file, const dg_gpu_copts *o,
                     int max_supported)
{
  memset(j, 0, sizeof *j);
  j->main_file = file;
  const char *path = dg_srcmgr_path(sm, file);
  j->main_path = path;
  dg_gpu_src s;
  dg_gpu_src_prepare(sm->files.v[file].text, sm->files.v[file].len, &s);
  dg_buf prelude = {0};
  dg_buf_puts(&prelude, s.prelude);
  char *dir = dg_dirname(path);
  add_headers(sm, dir, &s, j, &prelude, 0);

  dg_buf src = {0};
  dg_buf_put(&src, prelude.s ? prelude.s : "", prelude.n);
  dg_buf_puts(&src, "#line 1 \"");
  for (const char *c = path; *c; c++) {
    if (*c == '"' || *c == '\\') dg_buf_putc(&src, '\\');
    dg_buf_putc(&src, *c);
  }
  dg_buf_puts(&src, "\"\n");
  dg_buf_put(&src, s.text, s.len);
  j->source = dg_buf_take(&src);
  dg_buf_free(&prelude);
  dg_gpu_src_free(&s);

  const char *arch = o && o->arch ? o->arch : DEFAULT_ARCH;
  int want = arch_number(arch);
  if (max_supported && want > max_supported) {  /* newer device: PTX the driver JITs */
    j->ptx = true;
    j->arch = dg_printf("compute_%d", max_supported);
  } else {
    j->arch = dg_strdup(arch);
  }
  dg_vec_push(&j->opts, dg_printf("--gpu-architecture=%s", j->arch));
  dg_vec_push(&j->opts, dg_strdup("-default-device"));
  dg_vec_push(&j->opts, dg_strdup("-std=c++17"));
  dg_vec_push(&j->opts, dg_strdup("-lineinfo"));
  /* the toolkit's headers (cuda_fp16.h, cooperative_groups.h; CUDA 13 keeps
   * cuda/std under include/cccl); $DIRIGO_CUDA_DIR where it moved */
  const char *cuda = getenv("DIRIGO_CUDA_DIR");
#ifdef DG_CUDA_DIR
  if (!cuda || !*cuda) cuda = DG_CUDA_DIR;
#endif
  if (cuda && *cuda) {
    dg_vec_push(&j->opts, dg_printf("-I%s/include", cuda));
    dg_vec_push(&j->opts, dg_printf("-I%s/include/cccl", cuda));
  }
  dg_vec_push(&j->opts, dg_printf("-I%s", dir));
  for (int i = 0; o && i < o->ndefines; i++) dg_vec_push(&j->opts, dg_printf("-D%s", o->defines[i]));
  for (int i = 0; o && i < o->nextra; i++) dg_vec_push(&j->opts, dg_strdup(o->extra[i]));
  free(dir);
}

static void job_free(job *j)
{
  free(j->source);
  for (size_t i = 0; i < j->hdrs.n; i++) { free(j->hdrs.v[i].name); free(j->hdrs.v[i].text); }
  for (size_t i = 0; i < j->opts.n; i++) free(j->opts.v[i]);
  dg_vec_free(&j->hdrs);
  dg_vec_free(&j->opts);
  free(j->arch);
}

/* ---- the cache ------------------------------------------------------------- */
char *dg_gpu_cache_dir(void)
{
  const char *e = getenv("DIRIGO_CUBIN_CACHE");
  if (e && *e) return dg_strdup(e);
  e = getenv("XDG_CACHE_HOME");
  if (e && *e) return dg_printf("%s/dirigo/cubin", e);
  e = getenv("HOME");
  return dg_printf("%s/.cache/dirigo/cubin", e && *e ? e : "/tmp");
}

static char *cache_path(const job *j, const dg_gpu_copts *o)
{
  uint64_t h[2];
  for (int k = 0; k < 2; k++) {
    uint64_t x = dg_hash_bytes("dirigo-cubin-1", 14, 0x9e3779b97f4a7c15ull * (k + 1));
    const char *ver = dg_gpu_nvrtc_version();
    x = dg_hash_bytes(ver, strlen(ver) + 1, x);
    x = dg_hash_bytes(j->source, strlen(j->source) + 1, x);
    for (size_t i = 0; i < j->hdrs.n; i++) {
      x = dg_hash_bytes(j->hdrs.v[i].name, strlen(j->hdrs.v[i].name) + 1, x);
      x = dg_hash_bytes(j->hdrs.v[i].text, strlen(j->hdrs.v[i].text) + 1, x);
    }
    for (size_t i = 0; i < j->opts.n; i++) x = dg_hash_bytes(j->opts.v[i], strlen(j->opts.v[i]) + 1, x);
    for (int i = 0; o && i < o->nnames; i++) x = dg_hash_bytes(o->names[i], strlen(o->names[i]) + 1, x);
    h[k] = x;
  }
  char *dir = dg_gpu_cache_dir();
  char *p = dg_printf("%s/%016llx%016llx.bin", dir, (unsigned long long)h[0], (unsigned long long)h[1]);
  free(dir);
  return p;
}

static void cache_store(const char *path, const dg_buf *blob)
{
  dg_mkdirs(path, false, 0755);   /* a failure shows when the file is written */
  char *tmp = dg_printf("%s.%d.tmp", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  bool good = f && fwrite(blob->s, 1, blob->n, f) == blob->n;
  if (f && fclose(f)) good = false;
  if (!good || rename(tmp, path)) unlink(tmp);   /* a cache that cannot be written is no error */
  free(tmp);
}

/* ---- NVRTC ----------------------------------------------------------------- */
#ifdef DG_HAVE_CUDA
const char *dg_gpu_nvrtc_version(void)
{
  static char v[16];
  int ma = 0, mi = 0;
  if (!*v && nvrtcVersion(&ma, &mi) == NVRTC_SUCCESS) snprintf(v, sizeof v, "%d.%d", ma, mi);
  return *v ? v : "unknown";
}

static int max_supported_arch(void)
{
  int n = 0, best = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return 0;
  int *a = dg_calloc((size_t)n, sizeof *a);
  if (nvrtcGetSupportedArchs(a) == NVRTC_SUCCESS)
    for (int i = 0; i < n; i++) if (a[i] > best) best = a[i];
  free(a);
  return best;
}

/* In the worker: result code (0 ok, 1 rejected, 2 NVRTC failure) + blob. */
static void worker_compile(const job *j, const dg_gpu_copts *o, dg_buf *blob, uint32_t *code)
{
  nvrtcProgram prog;
  const char **hn = dg_calloc(j->hdrs.n + 1, sizeof *hn), **ht = dg_calloc(j->hdrs.n + 1, sizeof *ht);
  for (size_t i = 0; i < j->hdrs.n; i++) { hn[i] = j->hdrs.v[i].name; ht[i] = j->hdrs.v[i].text; }
  nvrtcResult r = nvrtcCreateProgram(&prog, j->source, "dirigo-prelude", (int)j->hdrs.n, ht, hn);
  free(hn);
  free(ht);
  if (r != NVRTC_SUCCESS) {
    const char *e = nvrtcGetErrorString(r);
    put_str(blob, e, strlen(e));
    put_u32(blob, 0);
    *code = 2;
    return;
  }
  for (int i = 0; o && i < o->nnames; i++) nvrtcAddNameExpression(prog, o->names[i]);
  r = nvrtcCompileProgram(prog, (int)j->opts.n, (const char *const *)j->opts.v);
  size_t loglen = 0;
  nvrtcGetProgramLogSize(prog, &loglen);
  char *log = dg_calloc(loglen + 1, 1);
  nvrtcGetProgramLog(prog, log);
  put_str(blob, log, strlen(log));
  free(log);
  *code = r == NVRTC_SUCCESS ? 0 : r == NVRTC_ERROR_COMPILATION ? 1 : 2;
  if (r != NVRTC_SUCCESS) {
    put_u32(blob, 0);
    nvrtcDestroyProgram(&prog);
    return;
  }
  put_u32(blob, o ? (uint32_t)o->nnames : 0);
  for (int i = 0; o && i < o->nnames; i++) {
    const char *low = NULL;
    if (nvrtcGetLoweredName(prog, o->names[i], &low) != NVRTC_SUCCESS || !low) low = "";
    put_str(blob, low, strlen(low));
  }
  size_t n = 0;
  char *img;
  if (j->ptx) {
    nvrtcGetPTXSize(prog, &n);
    img = dg_malloc(n);
    nvrtcGetPTX(prog, img);
  } else {
    nvrtcGetCUBINSize(prog, &n);
    img = dg_malloc(n);
    nvrtcGetCUBIN(prog, img);
  }
  dg_buf_put(blob, (char *)&(uint8_t){ j->ptx }, 1);
  put_str(blob, img, n);
  free(img);
  nvrtcDestroyProgram(&prog);
}

/* Forks the worker and waits (watchdog). Returns the status; blob and code set on OK. */
static dg_gpu_status run_worker(const job *j, const dg_gpu_copts *o, double timeout,
                                dg_buf *blob, uint32_t *code, char **why)
{
  int fd;
  pid_t pid = gp_fork(&fd);
  if (pid < 0) { *why = dg_printf("fork: %s", strerror(errno)); return DG_GPU_CHILD_DIED; }
  if (pid == 0) {
    dg_buf b = {0};
    uint32_t c = 2;
    worker_compile(j, o, &b, &c);
    uint64_t n = b.n;
    int bad = gp_write(fd, &c, 4) || gp_write(fd, &n, 8) || gp_write(fd, b.s, b.n);
    _exit(bad);
  }
  double deadline = dg_now() + timeout;
  uint64_t n = 0;
  int r = gp_read(fd, code, 4, deadline);
  if (!r) r = gp_read(fd, &n, 8, deadline);
  if (!r) {
    char *data = dg_malloc(n + 1);
    r = gp_read(fd, data, n, deadline);
    if (!r) dg_buf_put(blob, data, n);
    free(data);
  }
  close(fd);
  if (r == 0) {
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {}
    return DG_GPU_OK;
  }
  int ws = gp_kill(pid);
  if (r == -2) {
    *why = dg_printf("NVRTC ran past %.0f s and was stopped", timeout);
    return DG_GPU_TIMEOUT;
  }
  char *how = gp_describe_exit(ws);
  *why = dg_printf("the NVRTC worker %s", how);
  free(how);
  return DG_GPU_CHILD_DIED;
}
#else
const char *dg_gpu_nvrtc_version(void) { return "none"; }
#endif

/* ---- NVRTC's log -> diagnostics ------------------------------------------- */
/* Severity words after "file(line): "; "remark" lines are dropped. */
static const struct { const char *word; dg_severity sev; } log_sev[] = {
  { "catastrophic error", DG_SEV_ERROR }, { "error", DG_SEV_ERROR }, { "warning", DG_SEV_WARNING },
};

static uint32_t file_of(const job *j, const char *name, size_t n)
{
  for (size_t i = 0; i < j->hdrs.n; i++)
    if (strlen(j->hdrs.v[i].name) == n && !memcmp(j->hdrs.v[i].name, name, n)) return j->hdrs.v[i].file;
  if (strlen(j->main_path) == n && !memcmp(j->main_path, name, n)) return j->main_file;
  return 0;   /* the prelude, or a system header */
}

/* Parses "path(12): error: msg" followed by the source line (indented by two)
 * and a caret line; adds one diagnostic per message. Returns errors added. */
static int log_to_diags(const job *j, const dg_gpu_copts *o, const char *log, dg_diags *d)
{
  int errors = 0;
  const char *p = log;
  while (p && *p) {
    const char *eol = strchr(p, '\n');
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    const char *lp = memchr(p, '(', n);
    const char *rp = lp ? memchr(lp, ')', n - (lp - p)) : NULL;
    if (lp && rp && rp + 2 < p + n && rp[1] == ':' && rp[2] == ' ') {
      uint32_t line = (uint32_t)strtoul(lp + 1, NULL, 10);
      const char *w = rp + 3;
      for (size_t k = 0; k < sizeof log_sev / sizeof *log_sev; k++) {
        size_t wl = strlen(log_sev[k].word);
        if (strncmp(w, log_sev[k].word, wl)) continue;
        const char *msg = memchr(w, ':', n - (w - p));
        msg = msg ? msg + 2 : w;
        int mlen = (int)(p + n - msg);
        /* column from the caret line two lines down */
        uint32_t col = 1;
        const char *l2 = eol ? strchr(eol + 1, '\n') : NULL;
        if (l2) {
          const char *c = l2 + 1;
          size_t sp = 0;
          while (c[sp] == ' ') sp++;
          if (c[sp] == '^' && sp >= 2) col = (uint32_t)(sp - 1);
        }
        bool name_map = (size_t)(lp - p) == 13 && !strncmp(p, "__nv_name_map", 13);
        if (name_map) {
          dg_diag_add(d, log_sev[k].sev, (dg_span){0, 0, 0},
                      "kernel name expression: %.*s", mlen, msg);
        } else {
          dg_span sp = { file_of(j, p, (size_t)(lp - p)), line, col };
          if (sp.file)
            dg_diag_add(d, log_sev[k].sev, sp, "%.*s", mlen, msg);
          else
            dg_diag_add(d, log_sev[k].sev, sp, "in %.*s line %u: %.*s", (int)(lp - p), p, line, mlen, msg);
        }
        if (log_sev[k].sev == DG_SEV_ERROR) errors++;
        break;
      }
    }
    p = eol ? eol + 1 : NULL;
  }
  (void)o;
  return errors;
}

dg_gpu_status dg_gpu_compile(dg_srcmgr *sm, uint32_t file, const dg_gpu_copts *o,
                             dg_gpu_binary *out, dg_diags *d)
{
  memset(out, 0, sizeof *out);
  double t0 = dg_now();
  int nnames = o ? o->nnames : 0;
#ifndef DG_HAVE_CUDA
  (void)sm; (void)file; (void)nnames; (void)t0; (void)blob_parse; (void)job_init; (void)job_free;
  (void)cache_path; (void)cache_store; (void)log_to_diags;
  dg_diag_add(d, DG_SEV_ERROR, (dg_span){0, 0, 0}, "GPU backend: built without CUDA");
  return DG_GPU_NO_DEVICE;
#else
  job j;
  job_init(&j, sm, file, o, max_supported_arch());
  out->arch = dg_strdup(j.arch);
  char *cpath = o && o->no_cache ? NULL : cache_path(&j, o);
  size_t clen = 0;
  char *cached = cpath ? dg_read_file(cpath, &clen) : NULL;
  dg_gpu_status st = DG_GPU_OK;
  if (cached && blob_parse((uint8_t *)cached, clen, nnames, out)) {
    out->cache_hit = true;
    out->arch = out->arch ? out->arch : dg_strdup(j.arch);
    log_to_diags(&j, o, out->log, d);
  } else {
    if (!out->arch) out->arch = dg_strdup(j.arch);
    dg_buf blob = {0};
    uint32_t code = 2;
    char *why = NULL;
    double timeout = o && o->timeout_s > 0 ? o->timeout_s : 120;
    bool cache = cpath != NULL;   /* the forked worker must not inherit (and leak) the path */
    free(cpath);
    cpath = NULL;
    st = run_worker(&j, o, timeout, &blob, &code, &why);
    if (cache) cpath = cache_path(&j, o);
    if (st != DG_GPU_OK) {
      dg_diag_add(d, DG_SEV_ERROR, (dg_span){ file, 1, 1 }, "device compile: %s", why);
      free(why);
    } else if (code == 0 && blob_parse((uint8_t *)blob.s, blob.n, nnames, out)) {
      out->arch = out->arch ? out->arch : dg_strdup(j.arch);
      log_to_diags(&j, o, out->log, d);
      for (int i = 0; i < nnames; i++)
        if (!*out->lowered[i]) {
          dg_diag_add(d, DG_SEV_ERROR, (dg_span){0, 0, 0}, "no kernel named '%s' in the device code", o->names[i]);
          st = DG_GPU_COMPILE;
        }
      if (st == DG_GPU_OK && cpath) cache_store(cpath, &blob);
    } else {
      cursor c = { (uint8_t *)blob.s, (uint8_t *)blob.s + blob.n, false };
      char *log = get_str(&c, NULL);
      if (!log_to_diags(&j, o, log ? log : "", d))
        dg_diag_add(d, DG_SEV_ERROR, (dg_span){ file, 1, 1 }, "NVRTC: %s", log && *log ? log : "failed");
      out->log = log ? log : dg_strdup("");
      st = DG_GPU_COMPILE;
    }
    dg_buf_free(&blob);
  }
  if (st != DG_GPU_OK) {
    char *log = out->log;
    out->log = NULL;
    dg_gpu_binary_free(out);
    out->log = log;
  }
  free(cached);
  free(cpath);
  job_free(&j);
  out->seconds = dg_now() - t0;
  return st;
#endif
}

dg_gpu_status dg_gpu_compile_own(const char *what, char *text, size_t len, const char *const *names, int nnames,
                                 const char *arch, dg_gpu_binary *bin, dg_diags *d)
{
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  char *path = dg_printf("<dirigo: %s>", what);
  uint32_t f = dg_srcmgr_add(&sm, path, text, len);
  free(path);
  static const char *const extra[] = { "--fmad=false" };
  /* 600 s, not the 120 s a user's kernel gets: dirigo's own modules are large
   * (the envelope with matmul's windows: 54 s of NVRTC's CPU on a 2-core box,
   * past 120 s of wall time there at load 10; seconds on the GPU machine) and
   * compiled once, then cached */
  dg_gpu_copts o = { .names = names, .nnames = nnames, .arch = arch, .extra = extra, .nextra = 1, .timeout_s = 600 };
  dg_gpu_status st = dg_gpu_compile(&sm, f, &o, bin, d);
  if (st != DG_GPU_OK && d) {   /* the diagnostics point into sm: flatten them to text */
    for (size_t i = 0; i < d->v.n; i++)
      if (d->v.v[i].span.file == f) {
        char *m = dg_printf("%s, line %u:%u: %s", what, d->v.v[i].span.line, d->v.v[i].span.col, d->v.v[i].msg);
        free(d->v.v[i].msg);
        d->v.v[i].msg = m;
        d->v.v[i].span = (dg_span){ 0, 0, 0 };
      }
  }
  dg_srcmgr_free(&sm);
  return st;
}
