/* gpu_io.c — sockets, deadlines and child processes for the gpu module;
 * plus the small pure helpers of gpu.h (status table, poison patterns,
 * kernel arguments) that need no CUDA. */
#define _GNU_SOURCE
#include "gpu_proto.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

static const struct { const char *name, *help; } status_tab[] = {
#define X(id, name, help) { name, help },
  DG_GPU_STATUS(X)
#undef X
};

const char *dg_gpu_status_name(dg_gpu_status s)
{
  return (unsigned)s < DG_GPU_NSTATUS ? status_tab[s].name : "?";
}

const char *dg_gpu_status_help(dg_gpu_status s)
{
  return (unsigned)s < DG_GPU_NSTATUS ? status_tab[s].help : "?";
}

volatile uint32_t *gp_progress;

int gp_read(int fd, void *p, size_t n, double deadline)
{
  char *c = p;
  while (n) {
    int ms = -1;
    if (deadline > 0) {
      double left = deadline - dg_now();
      if (left <= 0) return -2;
      ms = (int)ceil(left * 1000);
    }
    struct pollfd pf = { fd, POLLIN, 0 };
    int r = poll(&pf, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return -2;
    ssize_t got = read(fd, c, n);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return -1;
    c += got;
    n -= (size_t)got;
  }
  return 0;
}

int gp_write(int fd, const void *p, size_t n)
{
  const char *c = p;
  while (n) {
    ssize_t put = send(fd, c, n, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return -1;
    c += put;
    n -= (size_t)put;
  }
  return 0;
}

char *gp_describe_exit(int ws)
{
  if (WIFSIGNALED(ws))
    return dg_printf("killed by signal %d (%s)", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
  if (WIFEXITED(ws)) return dg_printf("exited with status %d", WEXITSTATUS(ws));
  return dg_strdup("stopped");
}

pid_t gp_fork(int *fd)
{
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return -1;
  }
  if (pid == 0) {
    close(sv[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN);
    dup2(2, 1);
    *fd = sv[1];
    return 0;
  }
  close(sv[1]);
  *fd = sv[0];
  return pid;
}

int gp_kill(pid_t pid)
{
  int ws = 0;
  kill(pid, SIGKILL);
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {}
  return ws;
}

/* ---- poison patterns ------------------------------------------------------ */
static const struct { const char *dtype; uint8_t len; uint64_t bits; } poison_tab[] = {
  { "f32", 4, 0x7fc0deadu },
  { "f64", 8, 0x7ff8deaddeaddeadull },
  { "f16", 2, 0x7eadu },
  { "bf16", 2, 0x7fedu },
  { "i64", 8, ~0ull }, { "u64", 8, ~0ull },
  { "i32", 4, 0xffffffffu }, { "u32", 4, 0xffffffffu },
  { "i16", 2, 0xffffu }, { "u16", 2, 0xffffu },
  { "i8", 1, 0xffu }, { "u8", 1, 0xffu }, { "bool", 1, 0xffu },
};

dg_gpu_pattern dg_gpu_poison_for(const char *dtype)
{
  dg_gpu_pattern p = { .len = 4 };
  memset(p.b, 0xff, sizeof p.b);
  for (size_t i = 0; dtype && i < sizeof poison_tab / sizeof *poison_tab; i++)
    if (!strcmp(dtype, poison_tab[i].dtype)) {
      p.len = poison_tab[i].len;
      for (int k = 0; k < p.len; k++) p.b[k] = (uint8_t)(poison_tab[i].bits >> (8 * k)); /* little endian */
      break;
    }
  return p;
}

size_t dg_gpu_unwritten(const void *data, size_t n, dg_gpu_pattern p, size_t *first)
{
  const uint8_t *d = data;
  size_t count = 0;
  if (first) *first = SIZE_MAX;
  if (!p.len) return 0;
  for (size_t i = 0; i < n; i++)
    if (!memcmp(d + i * p.len, p.b, p.len)) {
      if (!count && first) *first = i;
      count++;
    }
  return count;
}

/* ---- kernel arguments ----------------------------------------------------- */
dg_gpu_arg dg_gpu_arg_buf(dg_gpu_buf b)
{
  return (dg_gpu_arg){ .kind = DG_GPU_ARG_BUF, .buf = b, .size = sizeof(void *) };
}

dg_gpu_arg dg_gpu_arg_null(void)
{
  return dg_gpu_arg_bytes(&(void *){ NULL }, sizeof(void *));
}

dg_gpu_arg dg_gpu_arg_bytes(const void *p, size_t n)
{
  /* a size over 64 is kept as given: the launch refuses it, naming it */
  dg_gpu_arg a = { .kind = DG_GPU_ARG_VALUE, .size = n };
  memcpy(a.value, p, n > sizeof a.value ? sizeof a.value : n);
  return a;
}

dg_gpu_arg dg_gpu_arg_dtype(dg_dtype t, double v)
{
  uint8_t b[8] = {0};
  if ((unsigned)t >= DG_DT__COUNT) return dg_gpu_arg_bytes(b, 0);
  dg_dtype_store(t, b, 0, v);
  return dg_gpu_arg_bytes(b, (size_t)dg_dtypes[t].size);
}

dg_gpu_arg dg_gpu_arg_i32(int32_t v) { return dg_gpu_arg_bytes(&v, sizeof v); }
dg_gpu_arg dg_gpu_arg_i64(int64_t v) { return dg_gpu_arg_bytes(&v, sizeof v); }
dg_gpu_arg dg_gpu_arg_f32(float v) { return dg_gpu_arg_bytes(&v, sizeof v); }
dg_gpu_arg dg_gpu_arg_f64(double v) { return dg_gpu_arg_bytes(&v, sizeof v); }

void dg_gpu_result_free(dg_gpu_result *r)
{
  free(r->msg);
  free(r->output);
  dg_vec_free(&r->guards);
  r->msg = r->output = NULL;
}
