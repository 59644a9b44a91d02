/* gpu_host.c — the caller's side of a GPU session: starts the child, sends
 * requests, and turns a child that hangs (watchdog) or dies into a status on
 * the request that did it. The caller never initialises CUDA, so it can fork
 * a fresh child at any time. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include "config.h"
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <poll.h>

struct dg_gpu {
  pid_t pid;            /* 0: no child now */
  int fd;
  unsigned gen;         /* children started */
  dg_gpu_opts o;
  dg_gpu_info info;
  size_t last_len;      /* data bytes of the last reply read into *datap */
  char *last_out;       /* what kernels printed, from the last reply; owned */
  uint32_t last_fail;   /* the last reply's pad: a batch's failed launch */
  dg_buf batch_pl;      /* a batch's payload, and its reply's data: kept (same size each case) */
  uint8_t *rdata;
  size_t rcap;
  unsigned guard_gen;   /* the guard check kernel is loaded in this generation */
  bool guard_host;      /* no guard kernel (NVRTC cannot build it): the child compares on the host */
  unsigned lanes_gen;   /* GP_LANES sent in this generation, asking lanes_want for lanes_set (sorted:
                           every buffer named since, the child keeps their copies) */
  int lanes_want, lanes_got;
  DG_VEC(uint32_t) lanes_set, lanes_tmp;
  /* batches sent and not received yet (dg_gpu_batch_send), oldest first;
     answered: the reply is read (a synchronous call or a later send read it) */
  struct owed {
    const dg_gpu_batch *b;
    double timeout;
    bool answered;
    dg_gpu_batch_result res;
  } owe[DG_GPU_INFLIGHT];
  int nowe;
};

static void set_msg(char **msg, char *m)
{
  if (msg) *msg = m;
  else free(m);
}

/* The batches owed an answer by a child that is gone: their answers will not come. */
static void fail_owed(dg_gpu *g)
{
  for (int i = 0; i < g->nowe; i++)
    if (!g->owe[i].answered) {
      g->owe[i].answered = true;
      g->owe[i].res.status = DG_GPU_CHILD_DIED;
      free(g->owe[i].res.msg);
      g->owe[i].res.msg = dg_strdup("the GPU child stopped before it answered this batch (a request before it failed)");
    }
}

static void drop_child(dg_gpu *g, bool kill_it)
{
  if (!g->pid) return;
  fail_owed(g);
  close(g->fd);
  if (kill_it) {
    gp_kill(g->pid);
  } else {
    int ws;
    while (waitpid(g->pid, &ws, 0) < 0 && errno == EINTR) {}
  }
  g->pid = 0;
}

/* One round trip. data/len: where the reply's data goes (len checked);
 * *datap: a malloc'd copy instead when datap is set. */
static dg_gpu_status call(dg_gpu *g, gp_req rq, const void *pl1, size_t n1, const void *pl2,
                          size_t n2, double timeout, void *data, size_t len, uint8_t **datap,
                          double *ms, char **msg);

static dg_gpu_status start(dg_gpu *g, char **why)
{
  if (!gp_progress) {   /* one shared page, inherited by every child forked after */
    void *pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (pg != MAP_FAILED) gp_progress = pg;
  }
  int fd;
  pid_t pid = gp_fork(&fd);
  if (pid < 0) {
    set_msg(why, dg_printf("cannot start the GPU child: %s", strerror(errno)));
    return DG_GPU_CHILD_DIED;
  }
  if (pid == 0) gp_child_main(fd);
  g->pid = pid;
  g->fd = fd;
  g->gen++;
  gp_req rq = { .op = GP_HELLO, .b = g->o.guard_bytes };
  dg_gpu_status st = call(g, rq, NULL, 0, NULL, 0, g->o.call_timeout_s, &g->info,
                          sizeof g->info, NULL, NULL, why);
  if (st != DG_GPU_OK) drop_child(g, true);
  return st;
}

static void answer_oldest(dg_gpu *g);

/* Every batch owed an answer has it read (before a request of another kind
 * is written: the answers come in order). */
static void drain_owed(dg_gpu *g)
{
  for (int i = 0; i < g->nowe; i++)
    if (!g->owe[i].answered) answer_oldest(g);
}

static dg_gpu_status call_read(dg_gpu *g, double timeout, void *data, size_t len, uint8_t **datap, double *ms,
                               char **msg, int r);

static int write_owed(dg_gpu *g, const void *p, size_t n, int before);

static dg_gpu_status call(dg_gpu *g, gp_req rq, const void *pl1, size_t n1, const void *pl2,
                          size_t n2, double timeout, void *data, size_t len, uint8_t **datap,
                          double *ms, char **msg)
{
  if (!g->pid && rq.op != GP_HELLO) {   /* the last child faulted or died: a fresh one */
    dg_gpu_status st = start(g, msg);
    if (st != DG_GPU_OK) return st;
  }
  rq.len = n1 + n2;
  /* written at once, behind any batch still owed its answer (the child
     answers that first): the owed answers are read, then this one */
  int r = write_owed(g, &rq, sizeof rq, g->nowe) || (n1 && write_owed(g, pl1, n1, g->nowe))
          || (n2 && write_owed(g, pl2, n2, g->nowe)) ? -1 : 0;
  drain_owed(g);   /* (written or not: an answer the child sent before it went is read) */
  return call_read(g, timeout, data, len, datap, ms, msg, r || !g->pid ? -1 : 0);
}

/* The reply to the request written (r: 0, or -1 when writing it failed). */
static dg_gpu_status call_read(dg_gpu *g, double timeout, void *data, size_t len, uint8_t **datap, double *ms,
                               char **msg, int r)
{
  double deadline = dg_now() + timeout;
  gp_rep rep;
  if (!r) r = gp_read(g->fd, &rep, sizeof rep, deadline);
  char *text = NULL;
  if (!r) {
    text = dg_calloc(rep.msg_len + 1, 1);
    r = gp_read(g->fd, text, rep.msg_len, deadline);
  }
  free(g->last_out);
  g->last_out = NULL;
  if (!r && rep.out_len) {
    g->last_out = dg_calloc(rep.out_len + 1, 1);
    r = gp_read(g->fd, g->last_out, rep.out_len, deadline);
  }
  if (!r && datap == &g->rdata) {   /* the kept reply buffer */
    if (rep.len + 1 > g->rcap) {
      free(g->rdata);
      g->rcap = rep.len + 1;
      g->rdata = dg_malloc(g->rcap);
    }
    g->last_len = rep.len;
    r = gp_read(g->fd, g->rdata, rep.len, deadline);
  } else if (!r && datap) {
    *datap = dg_malloc(rep.len + 1);
    g->last_len = rep.len;
    r = gp_read(g->fd, *datap, rep.len, deadline);
  } else if (!r && rep.len) {
    if (rep.len != len || !data) {   /* the protocol broke: start afresh */
      free(text);
      drop_child(g, true);
      set_msg(msg, dg_printf("GPU child answered %llu bytes, %zu expected", (unsigned long long)rep.len, len));
      return DG_GPU_CHILD_DIED;
    }
    r = gp_read(g->fd, data, len, deadline);
  }
  if (r == -2) {
    free(text);
    drop_child(g, true);
    set_msg(msg, dg_printf("no answer within %.3g s: the watchdog killed the GPU child", timeout));
    return DG_GPU_TIMEOUT;
  }
  if (r) {
    free(text);
    char *how = dg_strdup("stopped");
    if (g->pid) {   /* (none: it went while an answer owed before this one was read) */
      int ws = gp_kill(g->pid);
      close(g->fd);
      g->pid = 0;
      fail_owed(g);
      free(how);
      how = gp_describe_exit(ws);
    }
    set_msg(msg, dg_printf("the GPU child %s", how));
    free(how);
    return DG_GPU_CHILD_DIED;
  }
  if (ms) *ms = rep.ms;
  g->last_fail = rep.pad;
  /* the child exits after these; killing spares us waiting on a driver teardown */
  if (rep.status == DG_GPU_FAULT || rep.status == DG_GPU_NO_DEVICE) drop_child(g, true);
  if (rep.status != DG_GPU_OK || rep.msg_len) set_msg(msg, text);
  else free(text);
  return (dg_gpu_status)rep.status;
}

dg_gpu *dg_gpu_open(const dg_gpu_opts *o, char **why)
{
  if (why) *why = NULL;
  const char *off = getenv("DIRIGO_NO_GPU");
  if (off && *off && strcmp(off, "0")) {
    set_msg(why, dg_strdup("disabled by DIRIGO_NO_GPU"));
    return NULL;
  }
#ifndef DG_HAVE_CUDA
  (void)o;
  set_msg(why, dg_strdup("built without CUDA"));
  return NULL;
#else
  dg_gpu *g = dg_calloc(1, sizeof *g);
  if (o) g->o = *o;
  if (g->o.launch_timeout_s <= 0) g->o.launch_timeout_s = 10;
  if (g->o.call_timeout_s <= 0) g->o.call_timeout_s = 60;
  if (!g->o.guard_bytes) g->o.guard_bytes = 64 * 1024;
  g->o.guard_bytes = (g->o.guard_bytes + 255) & ~(size_t)255;   /* keeps buffers 256-aligned */
  char *m = NULL;
  if (start(g, &m) != DG_GPU_OK) {
    set_msg(why, m ? m : dg_strdup("the GPU child did not start"));
    dg_gpu_close(g);
    return NULL;
  }
  free(m);
  return g;
#endif
}

void dg_gpu_close(dg_gpu *g)
{
  if (!g) return;
  drop_child(g, true);
  free(g->last_out);
  dg_buf_free(&g->batch_pl);
  for (int i = 0; i < g->nowe; i++) dg_gpu_batch_result_free(&g->owe[i].res);
  dg_vec_free(&g->lanes_set);
  dg_vec_free(&g->lanes_tmp);
  free(g->rdata);
  free(g);
}

const dg_gpu_info *dg_gpu_info_of(const dg_gpu *g) { return &g->info; }
unsigned dg_gpu_generation(const dg_gpu *g) { return g->gen; }

bool dg_gpu_available(char **why)
{
  static int known = -1;
  static char *reason;
  if (known < 0) {
    dg_gpu *g = dg_gpu_open(NULL, &reason);
    known = g != NULL;
    if (g) reason = dg_printf("%s (%s)", g->info.name, g->info.arch);
    dg_gpu_close(g);
  }
  if (why) *why = dg_strdup(reason ? reason : "?");
  return known;
}

/* ---- handles: generation in the top byte ------------------------------------ */
static uint32_t handle(const dg_gpu *g, uint32_t idx) { return (g->gen & 0xff) << 24 | idx; }

static bool unpack(dg_gpu *g, uint32_t h, uint32_t *idx, const char *what, char **msg)
{
  if (g->pid && h >> 24 == (g->gen & 0xff)) {
    *idx = h & 0xffffff;
    return true;
  }
  set_msg(msg, dg_printf("%s handle %#x is from an earlier GPU child (now generation %u): "
                         "load and allocate again after a fault", what, h, g->gen));
  return false;
}

dg_gpu_status dg_gpu_load(dg_gpu *g, const dg_gpu_binary *b, dg_gpu_kernel *kernels, char **msg)
{
  if (msg) *msg = NULL;
  dg_buf pl = {0};
  uint32_t k = (uint32_t)b->nnames;
  dg_buf_putc(&pl, (char)b->is_ptx);
  dg_buf_put(&pl, (char *)&k, 4);
  for (uint32_t i = 0; i < k; i++) {
    uint32_t len = (uint32_t)strlen(b->lowered[i]);
    dg_buf_put(&pl, (char *)&len, 4);
    dg_buf_put(&pl, b->lowered[i], len);
  }
  uint64_t ilen = b->image_len;
  dg_buf_put(&pl, (char *)&ilen, 8);
  /* the image goes last: the child NUL-terminates payloads, as PTX needs */
  gp_req rq = { .op = GP_LOAD };
  uint32_t *ids = dg_calloc(k + 1, sizeof *ids);
  dg_gpu_status st = call(g, rq, pl.s, pl.n, b->image, b->image_len, g->o.call_timeout_s,
                          ids, k * sizeof *ids, NULL, NULL, msg);
  for (uint32_t i = 0; st == DG_GPU_OK && i < k; i++) kernels[i] = handle(g, ids[i]);
  dg_buf_free(&pl);
  free(ids);
  return st;
}

dg_gpu_status dg_gpu_param_sizes(dg_gpu *g, dg_gpu_kernel k, size_t *sizes, int max, int *n, char **msg)
{
  if (msg) *msg = NULL;
  *n = 0;
  uint32_t idx;
  if (!unpack(g, k, &idx, "kernel", msg)) return DG_GPU_BAD_REQUEST;
  gp_req rq = { .op = GP_PARAMS, .a = idx };
  uint8_t *data = NULL;
  dg_gpu_status st = call(g, rq, NULL, 0, NULL, 0, g->o.call_timeout_s, NULL, 0, &data, NULL, msg);
  for (size_t off = 0; st == DG_GPU_OK && data && off + 8 <= g->last_len && *n < max; off += 8) {
    uint64_t v;
    memcpy(&v, data + off, 8);
    sizes[(*n)++] = (size_t)v;
  }
  free(data);
  return st;
}

dg_gpu_status dg_gpu_alloc(dg_gpu *g, size_t bytes, dg_gpu_pattern poison, dg_gpu_buf *out, char **msg)
{
  if (msg) *msg = NULL;
  gp_req rq = { .op = GP_ALLOC, .b = bytes };
  uint32_t id = 0;
  dg_gpu_status st = call(g, rq, &poison, sizeof poison, NULL, 0, g->o.call_timeout_s,
                          &id, sizeof id, NULL, NULL, msg);
  if (st == DG_GPU_OK) *out = handle(g, id);
  return st;
}

static dg_gpu_status buf_call(dg_gpu *g, uint32_t op, dg_gpu_buf b, size_t off, const void *src,
                              void *dst, size_t n, char **msg)
{
  if (msg) *msg = NULL;
  uint32_t idx;
  if (!unpack(g, b, &idx, "buffer", msg)) return DG_GPU_BAD_REQUEST;
  gp_req rq = { .op = op, .a = idx, .b = off, .c = n };
  return call(g, rq, src, src ? n : 0, NULL, 0, g->o.call_timeout_s, dst, dst ? n : 0,
              NULL, NULL, msg);
}

dg_gpu_status dg_gpu_upload(dg_gpu *g, dg_gpu_buf b, size_t off, const void *src, size_t n, char **msg)
{
  return buf_call(g, GP_UPLOAD, b, off, n ? src : NULL, NULL, n, msg);
}

dg_gpu_status dg_gpu_download(dg_gpu *g, dg_gpu_buf b, size_t off, void *dst, size_t n, char **msg)
{
  return buf_call(g, GP_DOWNLOAD, b, off, NULL, n ? dst : NULL, n, msg);
}

dg_gpu_status dg_gpu_poison(dg_gpu *g, dg_gpu_buf b, char **msg)
{
  return buf_call(g, GP_POISON, b, 0, NULL, NULL, 0, msg);
}

dg_gpu_status dg_gpu_free(dg_gpu *g, dg_gpu_buf b, char **msg)
{
  return buf_call(g, GP_FREE, b, 0, NULL, NULL, 0, msg);
}

/* The guard check kernel (gpu_guard.c) in the current child, once per
 * child; without it the child reads the guards back and compares on the
 * host (DIRIGO_GPU_HOST_GUARDS=1 asks for that). */
static void ensure_guard(dg_gpu *g)
{
  if (g->guard_host || (g->pid && g->guard_gen == g->gen)) return;
  const char *host = getenv("DIRIGO_GPU_HOST_GUARDS");
  const dg_gpu_binary *b = NULL;
  if ((host && *host && strcmp(host, "0")) || gp_guard_binary(g->info.arch, &b) != DG_GPU_OK) {
    g->guard_host = true;
    return;
  }
  dg_gpu_kernel k;
  uint32_t idx;
  char *m = NULL;
  dg_gpu_status st = dg_gpu_load(g, b, &k, &m);
  free(m);
  m = NULL;
  if (st == DG_GPU_OK && unpack(g, k, &idx, "kernel", &m)) {
    gp_req rq = { .op = GP_GUARD, .a = idx };
    st = call(g, rq, NULL, 0, NULL, 0, g->o.call_timeout_s, NULL, 0, NULL, NULL, &m);
    if (st == DG_GPU_OK) g->guard_gen = g->gen;
  }
  free(m);
  if (st == DG_GPU_CUDA || st == DG_GPU_BAD_REQUEST) g->guard_host = true;   /* the child lives: stay on the host */
}

dg_gpu_status dg_gpu_launch(dg_gpu *g, dg_gpu_kernel k, dg_gpu_dim3 grid, dg_gpu_dim3 block,
                            uint32_t shmem, const dg_gpu_arg *args, int nargs, dg_gpu_result *res)
{
  memset(res, 0, sizeof *res);
  uint32_t kidx;
  if (!unpack(g, k, &kidx, "kernel", &res->msg)) return res->status = DG_GPU_BAD_REQUEST;
  ensure_guard(g);
  gp_launch L = { kidx, shmem, (uint32_t)nargs, 0, grid, block };
  gp_arg *ga = dg_calloc((size_t)nargs + 1, sizeof *ga);
  for (int i = 0; i < nargs; i++) {
    ga[i].kind = args[i].kind;
    ga[i].size = args[i].size;
    memcpy(ga[i].value, args[i].value, sizeof ga[i].value);
    if (args[i].kind == DG_GPU_ARG_BUF) {
      ga[i].off = args[i].buf_off;
      if (!unpack(g, args[i].buf, &ga[i].buf, "buffer", &res->msg)) {
        free(ga);
        return res->status = DG_GPU_BAD_REQUEST;
      }
    }
  }
  gp_req rq = { .op = GP_LAUNCH };
  uint8_t *data = NULL;
  res->status = call(g, rq, &L, sizeof L, ga, (size_t)nargs * sizeof *ga, g->o.launch_timeout_s,
                     NULL, 0, &data, &res->ms, &res->msg);
  free(ga);
  res->output = g->last_out;
  g->last_out = NULL;
  for (size_t off = 0; res->status == DG_GPU_OOB_WRITE && data && off + sizeof(gp_guard) <= g->last_len;
       off += sizeof(gp_guard)) {
    gp_guard gg;
    memcpy(&gg, data + off, sizeof gg);
    dg_gpu_guard_hit h = { handle(g, gg.buf), gg.after != 0, gg.first_off, gg.nbytes };
    dg_vec_push(&res->guards, h);
  }
  free(data);
  return res->status;
}

/* ---- batches ---------------------------------------------------------------- */
static dg_gpu_batch_op *push_op(dg_gpu_batch *b, uint32_t kind, dg_gpu_buf buf, size_t off, size_t n)
{
  dg_gpu_batch_op op = { .kind = kind, .buf = buf, .off = off, .len = n, .lane = b->lane1 - 1 };
  dg_vec_push(&b->ops, op);
  return &b->ops.v[b->ops.n - 1];
}

void dg_gpu_batch_upload(dg_gpu_batch *b, dg_gpu_buf buf, size_t off, const void *src, size_t n)
{
  push_op(b, GP_OP_UPLOAD, buf, off, n)->src = src;
}

void dg_gpu_batch_poison(dg_gpu_batch *b, dg_gpu_buf buf) { push_op(b, GP_OP_POISON, buf, 0, 0); }

void dg_gpu_batch_download(dg_gpu_batch *b, dg_gpu_buf buf, size_t off, void *dst, size_t n)
{
  push_op(b, GP_OP_DOWNLOAD, buf, off, n)->dst = dst;
}

void dg_gpu_batch_launch(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_dim3 grid, dg_gpu_dim3 block,
                         uint32_t shmem, const dg_gpu_arg *args, int nargs)
{
  dg_gpu_batch_op *op = push_op(b, GP_OP_LAUNCH, 0, 0, 0);
  op->k = k, op->grid = grid, op->block = block, op->shmem = shmem;
  op->first_arg = b->args.n, op->nargs = nargs;
  for (int i = 0; i < nargs; i++) dg_vec_push(&b->args, args[i]);
  b->nlaunch++;
}

void dg_gpu_batch_launch_unguarded(dg_gpu_batch *b, dg_gpu_kernel k, dg_gpu_dim3 grid, dg_gpu_dim3 block,
                                   uint32_t shmem, const dg_gpu_arg *args, int nargs)
{
  dg_gpu_batch_launch(b, k, grid, block, shmem, args, nargs);
  b->ops.v[b->ops.n - 1].unguarded = true;
}

void dg_gpu_batch_lane(dg_gpu_batch *b, int lane)
{
  b->lane1 = lane < 0 ? 0 : lane >= GPU_LANES_MAX ? GPU_LANES_MAX : lane + 1;
}

void dg_gpu_batch_side(dg_gpu_batch *b, int how)
{
  if (b->ops.n && b->ops.v[b->ops.n - 1].kind == GP_OP_LAUNCH) b->ops.v[b->ops.n - 1].side = (uint8_t)how;
}

int dg_gpu_lanes_granted(const dg_gpu *g) { return g->lanes_got; }

void dg_gpu_batch_clear(dg_gpu_batch *b)
{
  b->lane1 = 0;
  b->ops.n = 0;
  b->args.n = 0;
  b->nlaunch = 0;
}

void dg_gpu_batch_free(dg_gpu_batch *b)
{
  dg_vec_free(&b->ops);
  dg_vec_free(&b->args);
  memset(b, 0, sizeof *b);
}

void dg_gpu_batch_result_free(dg_gpu_batch_result *r)
{
  free(r->msg);
  free(r->output);
  dg_vec_free(&r->guards);
  dg_vec_free(&r->launch_ms);
  memset(r, 0, sizeof *r);
}

static void put_pad(dg_buf *pl)
{
  while (pl->n % 8) dg_buf_putc(pl, 0);
}

/* The request's payload; false (message in *msg) on a stale handle. */
static bool encode(dg_gpu *g, const dg_gpu_batch *b, dg_buf *pl, size_t *down, char **msg)
{
  *down = 0;
  for (size_t i = 0; i < b->ops.n; i++) {
    const dg_gpu_batch_op *o = &b->ops.v[i];
    gp_op w = { o->lane >= 0 ? GP_OP_WITH_LANE(o->kind, o->lane) : o->kind, 0, o->off, o->len };
    if (o->kind != GP_OP_LAUNCH && !unpack(g, o->buf, &w.buf, "buffer", msg)) return false;
    if (o->kind == GP_OP_DOWNLOAD) *down += o->len;
    if (o->kind != GP_OP_LAUNCH) {
      dg_buf_put(pl, (const char *)&w, sizeof w);
      if (o->kind == GP_OP_UPLOAD && o->len) dg_buf_put(pl, o->src, o->len);
      put_pad(pl);
      continue;
    }
    gp_launch L = { 0, o->shmem, (uint32_t)o->nargs, o->unguarded ? GP_LAUNCH_UNGUARDED : 0u, o->grid, o->block };
    L.flags |= o->side == 1 ? GP_LAUNCH_SIDE : o->side == 2 ? GP_LAUNCH_JOIN : 0u;
    if (!unpack(g, o->k, &L.kernel, "kernel", msg)) return false;
    w.len = sizeof L + (size_t)o->nargs * sizeof(gp_arg);
    dg_buf_put(pl, (const char *)&w, sizeof w);
    dg_buf_put(pl, (const char *)&L, sizeof L);
    for (int a = 0; a < o->nargs; a++) {
      const dg_gpu_arg *x = &b->args.v[o->first_arg + (size_t)a];
      gp_arg ga = { x->kind, 0, x->size, 0, {0} };
      memcpy(ga.value, x->value, sizeof ga.value);
      if (x->kind == DG_GPU_ARG_BUF) {
        ga.off = x->buf_off;
        if (!unpack(g, x->buf, &ga.buf, "buffer", msg)) return false;
      }
      dg_buf_put(pl, (const char *)&ga, sizeof ga);
    }
  }
  return true;
}

/* The reply's data: per launch (f32 ms, u32 nguards, hits), then downloads. */
static bool decode(dg_gpu *g, const dg_gpu_batch *b, const uint8_t *data, size_t len,
                   dg_gpu_batch_result *res)
{
  size_t at = 0;
  uint32_t nran;
  if (len == 0) return true;                       /* a refusal or a fault: nothing ran */
  if (len < 4) return false;
  memcpy(&nran, data, 4);
  at = 4;
  for (uint32_t l = 0; l < nran; l++) {
    float ms;
    uint32_t nh;
    if (len - at < 8) return false;
    memcpy(&ms, data + at, 4);
    memcpy(&nh, data + at + 4, 4);
    at += 8;
    res->ms += ms;
    dg_vec_push(&res->launch_ms, (double)ms);
    if ((len - at) / sizeof(gp_guard) < nh) return false;
    for (uint32_t h = 0; h < nh; h++, at += sizeof(gp_guard)) {
      gp_guard gg;
      memcpy(&gg, data + at, sizeof gg);
      dg_gpu_batch_hit hit = { (int)l, { handle(g, gg.buf), gg.after != 0, gg.first_off, gg.nbytes } };
      dg_vec_push(&res->guards, hit);
    }
  }
  res->nran = (int)nran;
  size_t want = 0;
  for (size_t i = 0; i < b->ops.n; i++)
    if (b->ops.v[i].kind == GP_OP_DOWNLOAD) want += b->ops.v[i].len;
  if (len - at == 0 && want) return true;          /* no downloads: the child lost its context */
  if (len - at != want) return false;
  for (size_t i = 0; i < b->ops.n; i++) {
    const dg_gpu_batch_op *o = &b->ops.v[i];
    if (o->kind != GP_OP_DOWNLOAD) continue;
    if (o->len) memcpy(o->dst, data + at, o->len);
    at += o->len;
  }
  res->downloaded = true;
  return true;
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* v[0..n-1] sorted, duplicates gone; the count left. */
static size_t sort_unique(uint32_t *v, size_t n)
{
  if (n) qsort(v, n, sizeof *v, cmp_u32);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!k || v[k - 1] != v[i]) v[k++] = v[i];
  return k;
}

/* A batch with lanes: the buffers its lanes name get their copies in the
 * child (GP_LANES), unless they have them already (with as many lanes: the
 * lanes asked for never shrink, the set only grows, in a generation). */
static dg_gpu_status ensure_lanes(dg_gpu *g, const dg_gpu_batch *b, char **msg)
{
  int want = 0;
  g->lanes_tmp.n = 0;
  uint32_t idx;
  for (size_t i = 0; i < b->ops.n; i++) {
    const dg_gpu_batch_op *o = &b->ops.v[i];
    if (o->lane < 0) continue;
    if (o->lane + 1 > want) want = o->lane + 1;
    if (o->kind != GP_OP_LAUNCH && unpack(g, o->buf, &idx, "buffer", NULL)) dg_vec_push(&g->lanes_tmp, idx);
    for (int a = 0; o->kind == GP_OP_LAUNCH && a < o->nargs; a++) {
      const dg_gpu_arg *x = &b->args.v[o->first_arg + (size_t)a];
      if (x->kind == DG_GPU_ARG_BUF && unpack(g, x->buf, &idx, "buffer", NULL)) dg_vec_push(&g->lanes_tmp, idx);
    }
  }
  if (!want) return DG_GPU_OK;
  size_t n = g->lanes_tmp.n = sort_unique(g->lanes_tmp.v, g->lanes_tmp.n);
  bool same = g->pid && g->lanes_gen == g->gen;
  if (!same) g->lanes_set.n = 0, g->lanes_want = 0;
  bool have = want <= g->lanes_want;
  for (size_t i = 0, j = 0; have && i < n; i++) {   /* both sorted: is tmp in the set? */
    while (j < g->lanes_set.n && g->lanes_set.v[j] < g->lanes_tmp.v[i]) j++;
    have = j < g->lanes_set.n && g->lanes_set.v[j] == g->lanes_tmp.v[i];
  }
  if (same && have) return DG_GPU_OK;
  for (size_t i = 0; i < g->lanes_set.n; i++) dg_vec_push(&g->lanes_tmp, g->lanes_set.v[i]);   /* the union */
  n = g->lanes_tmp.n = sort_unique(g->lanes_tmp.v, g->lanes_tmp.n);
  if (g->lanes_want > want) want = g->lanes_want;
  gp_req rq = { .op = GP_LANES, .a = (uint32_t)want };
  uint32_t got = 0;
  dg_gpu_status st = call(g, rq, g->lanes_tmp.v, n * sizeof *g->lanes_tmp.v, NULL, 0, g->o.call_timeout_s, &got,
                          sizeof got, NULL, NULL, msg);
  if (st != DG_GPU_OK) return st;
  g->lanes_gen = g->gen, g->lanes_want = want, g->lanes_got = (int)got;
  g->lanes_set.n = 0;
  for (size_t i = 0; i < n; i++) dg_vec_push(&g->lanes_set, g->lanes_tmp.v[i]);
  return DG_GPU_OK;
}

static void answer(dg_gpu *g, struct owed *o, int wrote);

/* Writes n bytes of a request while batches are owed answers: where the
 * socket is full, an answer arriving is read (the child may be writing one
 * before it reads on), so neither side waits on the other for good. */
static int write_owed(dg_gpu *g, const void *p, size_t n, int before)
{
  const char *c = p;
  while (n) {
    if (!g->pid) return -1;
    ssize_t put = send(g->fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (put > 0) {
      c += put, n -= (size_t)put;
      continue;
    }
    if (put < 0 && errno == EINTR) continue;
    if (put == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return -1;
    int first = 0;   /* the oldest batch before this one still owed an answer */
    while (first < before && g->owe[first].answered) first++;
    /* a child that neither reads nor answers (a batch hangs): its watchdog */
    struct pollfd pf = { g->fd, POLLOUT | POLLIN, 0 };
    int pr = poll(&pf, 1, first < before ? (int)(g->owe[first].timeout * 1000) : -1);
    if (pr < 0 && errno != EINTR) return -1;
    if (pr == 0) pf.revents = POLLIN;   /* the answer's own read times out and stops the child */
    if ((pf.revents & POLLIN) && first < before) {
      answer(g, &g->owe[first], 0);
      if (!g->pid) return -1;
    } else if (pf.revents & (POLLERR | POLLHUP) && !(pf.revents & POLLOUT)) {
      return -1;
    }
  }
  return 0;
}

/* The reply to owed batch o (written before), read and decoded into its
 * result and its downloads' destinations. */
static void answer(dg_gpu *g, struct owed *o, int wrote)
{
  dg_gpu_batch_result *res = &o->res;
  const dg_gpu_batch *b = o->b;
  if (!g->pid) {   /* (fail_owed answers these; a guard for a child gone otherwise) */
    o->answered = true;
    res->status = DG_GPU_CHILD_DIED;
    res->msg = dg_strdup("the GPU child stopped before it answered this batch");
    return;
  }
  g->last_fail = UINT32_MAX;
  g->last_len = 0;
  o->answered = true;   /* (before the read: a child lost there fails the others, not this one) */
  res->status = call_read(g, o->timeout, NULL, 0, &g->rdata, NULL, &res->msg, wrote);
  const uint8_t *data = g->rdata;
  res->output = g->last_out;
  g->last_out = NULL;
  if (res->status == DG_GPU_TIMEOUT && gp_progress && *gp_progress < (uint32_t)b->nlaunch)
    res->failed_launch = (int)*gp_progress;
  else if (g->last_fail < (uint32_t)b->nlaunch)
    res->failed_launch = (int)g->last_fail;
  bool lost = res->status == DG_GPU_TIMEOUT || res->status == DG_GPU_CHILD_DIED
              || res->status == DG_GPU_NO_DEVICE || res->status == DG_GPU_FAULT;
  if (!lost && data && !decode(g, b, data, g->last_len, res)) {
    drop_child(g, true);
    free(res->msg);
    res->msg = dg_strdup("GPU child answered a batch with malformed data");
    res->status = DG_GPU_CHILD_DIED;
  }
}

static void answer_oldest(dg_gpu *g)
{
  for (int i = 0; i < g->nowe; i++)
    if (!g->owe[i].answered) {
      answer(g, &g->owe[i], 0);
      return;
    }
}

dg_gpu_status dg_gpu_batch_send(dg_gpu *g, const dg_gpu_batch *b)
{
  if (g->nowe == DG_GPU_INFLIGHT) return DG_GPU_BAD_REQUEST;   /* (the caller's slip: at most two) */
  /* the entry counts from its write on: the calls before it (the guard
     kernel, lanes, a fresh child) read the answers owed before it */
  struct owed *o = &g->owe[g->nowe];
  memset(o, 0, sizeof *o);
  o->b = b;
  dg_gpu_batch_result *res = &o->res;
  res->failed_launch = -1;
  dg_buf *pl = &g->batch_pl;
  size_t down;
  if (b->nlaunch && g->pid) ensure_guard(g);
  pl->n = 0;
  if (!encode(g, b, pl, &down, &res->msg)) res->status = DG_GPU_BAD_REQUEST;
  else res->status = ensure_lanes(g, b, &res->msg);
  if (res->status == DG_GPU_OK && !g->pid) res->status = start(g, &res->msg);   /* the last child went: a fresh one */
  if (res->status != DG_GPU_OK) {
    o->answered = true;
    g->nowe++;
    return res->status;
  }
  /* a launch's watchdog per launch; copies of more than 64 MiB get the call's */
  o->timeout = g->o.launch_timeout_s * (b->async ? 2 : b->nlaunch ? b->nlaunch : 1);
  if (pl->n + down > ((size_t)64 << 20)) o->timeout += g->o.call_timeout_s;
  int me = g->nowe++;
  bool owed = false;
  for (int i = 0; i < me; i++) owed |= !g->owe[i].answered;
  if (gp_progress && !owed) *gp_progress = UINT32_MAX;
  gp_req rq = { .op = GP_BATCH, .a = (uint32_t)b->ops.n, .len = pl->n,
                .b = b->async ? GP_BATCH_ASYNC | (b->untimed ? GP_BATCH_UNTIMED : 0u) : 0u };
  int r = write_owed(g, &rq, sizeof rq, me) || write_owed(g, pl->s, pl->n, me) ? -1 : 0;
  if (r) drain_owed(g);   /* the child went while it was written: what it answered before, then this one's end */
  return DG_GPU_OK;
}

dg_gpu_status dg_gpu_batch_recv(dg_gpu *g, const dg_gpu_batch *b, dg_gpu_batch_result *res)
{
  int i = 0;
  while (i < g->nowe && g->owe[i].b != b) i++;
  if (i == g->nowe) {
    memset(res, 0, sizeof *res);
    res->failed_launch = -1;
    res->msg = dg_strdup("no batch of this kind was sent");
    return res->status = DG_GPU_BAD_REQUEST;
  }
  while (!g->owe[i].answered) answer_oldest(g);
  *res = g->owe[i].res;
  memmove(&g->owe[i], &g->owe[i + 1], (size_t)(g->nowe - i - 1) * sizeof *g->owe);
  g->nowe--;
  return res->status;
}

dg_gpu_status dg_gpu_batch_run(dg_gpu *g, const dg_gpu_batch *b, dg_gpu_batch_result *res)
{
  dg_gpu_batch_send(g, b);
  return dg_gpu_batch_recv(g, b, res);
}
