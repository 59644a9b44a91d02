/* gpu_proto.h — internal to the gpu module: the request protocol between the
 * caller and its GPU child, and the I/O helpers both sides (and the NVRTC
 * worker) use. Not for other modules: they use gpu.h. */
#ifndef DG_GPU_PROTO_H
#define DG_GPU_PROTO_H
#include "gpu.h"
#include <sys/types.h>

enum {
  GP_HELLO = 1,   /* -> dg_gpu_info, or NO_DEVICE with the reason */
  GP_LOAD,        /* payload: u8 is_ptx, u32 nnames, names (u32 len + bytes), u64 len + image
                     -> u32 kernel index per name */
  GP_ALLOC,       /* b = bytes, payload = dg_gpu_pattern -> u32 buffer index */
  GP_UPLOAD,      /* a = buffer, b = offset, payload = bytes */
  GP_DOWNLOAD,    /* a = buffer, b = offset, c = n -> bytes */
  GP_POISON,      /* a = buffer */
  GP_FREE,        /* a = buffer */
  GP_LAUNCH,      /* payload: gp_launch + nargs gp_arg -> gp_guard hits (printf in out bytes) */
  GP_PARAMS,      /* a = kernel -> u64 size per parameter */
  GP_GUARD,       /* a = kernel: the guard check kernel (gpu_guard.c) from now on */
  GP_BATCH,       /* a = number of ops; payload: the ops (gp_op, each followed by its
                     bytes: upload data, or gp_launch + gp_args), 8-aligned ->
                     rep.pad = the failed launch's index (UINT32_MAX: none);
                     data: u32 launches run, per launch (f32 ms, u32 nguards,
                     gp_guard x nguards), then every download's bytes */
  GP_LANES,       /* a = lanes wanted (1..GP_LANES_MAX), payload = u32 buffer indices
                     kept one copy a lane (doc/gpu.md §3, session 6) -> u32 lanes granted */
};
/* Concurrent lanes of a batch: each a CUDA stream with its own copy of the
 * buffers GP_LANES named. An op's lane is in bits 8..15 of gp_op.kind as
 * lane + 1; 0 is a serial point (the legacy stream: after every lane's work
 * queued before it, before any queued after; an upload or poison of a
 * per-lane buffer there reaches every copy, a download or argument reads
 * lane 0's). Lane L runs on lane L % granted. */
#define GP_LANES_MAX 8
#define GP_OP_KIND(k) ((k) & 0xffu)
#define GP_OP_LANE(k) ((int)(((k) >> 8) & 0xffu) - 1)
#define GP_OP_WITH_LANE(kind, lane) ((uint32_t)(kind) | (uint32_t)((lane) + 1) << 8)

/* One operation of a batch. A launch that does not return OK stops the
 * launches after it (their uploads and poisons too); downloads still run
 * unless the context is lost. */
enum { GP_OP_UPLOAD = 1, GP_OP_POISON, GP_OP_LAUNCH, GP_OP_DOWNLOAD };
typedef struct {
  uint32_t kind, buf;    /* GP_OP_* (and the lane: GP_OP_LANE); buffer index */
  uint64_t off, len;     /* bytes of the buffer; for LAUNCH, len = bytes of gp_launch + args */
} gp_op;

typedef struct {
  uint32_t op, a;
  uint64_t b, c;
  uint64_t len;          /* payload bytes that follow */
} gp_req;

typedef struct {
  uint32_t status;       /* dg_gpu_status */
  uint32_t msg_len;      /* message bytes that follow, then out_len bytes of what
                            kernels printed, then len data bytes */
  uint32_t out_len, pad;
  double ms;
  uint64_t len;
} gp_rep;

typedef struct {
  uint32_t kernel, shmem, nargs, flags;   /* flags: GP_LAUNCH_* */
  dg_gpu_dim3 grid, block;
} gp_launch;
enum { GP_LAUNCH_UNGUARDED = 1 };   /* dirigo's own kernel: no guard check after it */
/* Session 7 (doc/gpu.md §3, "side streams"): SIDE runs the launch on its
 * lane's side stream, forked from the lane's stream at that point (it sees
 * everything queued before it there, and runs beside what is queued after);
 * JOIN makes the lane's stream wait for its side stream's work before the
 * launch. A serial op joins every open side stream first. */
enum { GP_LAUNCH_SIDE = 2, GP_LAUNCH_JOIN = 4 };
/* GP_BATCH's b: flags. ASYNC: the launches are queued without waiting for
 * each (guard checks queued behind them into a slot each), one
 * synchronisation at the end; a failure there names no launch (the caller
 * runs the cases again one by one to name it). */
enum { GP_BATCH_ASYNC = 1 };
/* UNTIMED (with ASYNC): no event records around the launches (dg_gpu_batch.untimed). */
enum { GP_BATCH_UNTIMED = 2 };

typedef struct {
  uint32_t kind, buf;    /* DG_GPU_ARG_* ; buffer index */
  uint64_t size, off;
  uint8_t value[64];
} gp_arg;

typedef struct {
  uint32_t buf, after;
  int64_t first_off;
  uint64_t nbytes;
} gp_guard;

/* Full read/write on a socket; write never raises SIGPIPE.
 * gp_read: 0 done, -1 peer closed or error, -2 deadline passed (deadline is
 * dg_now() seconds; <= 0 waits forever). */
int gp_read(int fd, void *p, size_t n, double deadline);
int gp_write(int fd, const void *p, size_t n);
/* "exited with status 3", "killed by signal 11 (Segmentation fault)"; caller frees. */
char *gp_describe_exit(int wstatus);
/* Forks with a socketpair: returns the pid (>0) in the parent with *fd its end,
 * 0 in the child with *fd the child's end; -1 on failure (errno). The child
 * dies with its parent and has its stdout sent to stderr (kernel printf must
 * not mix into a caller's TAP or JSON output). */
pid_t gp_fork(int *fd);
/* Kills (SIGKILL) and reaps; returns the wait status. */
int gp_kill(pid_t pid);

/* The guard check kernel (gpu_guard.c), compiled once per process and arch;
 * *out NULL (and a status other than OK) when NVRTC cannot build it. */
dg_gpu_status gp_guard_binary(const char *arch, const dg_gpu_binary **out);

/* Where the child says which launch of a batch it is in: a page shared with
 * the parent (set up before the fork), so a batch the watchdog kills names
 * its launch. NULL when it could not be mapped. */
extern volatile uint32_t *gp_progress;

/* The child's side (gpu_child.c): serves requests on fd until EOF, then _exits.
 * Never returns. */
_Noreturn void gp_child_main(int fd);

#endif
