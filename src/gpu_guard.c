/* gpu_guard.c — the guard check as a kernel: after each launch every guard
 * region of every live buffer must still hold the canary. Reading them back
 * (2 x 64 KiB a buffer) and comparing on the host cost ~30 us a buffer on
 * the H200; this kernel compares on the device and returns, per region, the
 * count of changed bytes and the first one's offset (16 bytes a region).
 * Compiled here with NVRTC (cached, like any kernel) and loaded into each
 * GPU child on its first launch; without it (no NVRTC) the child compares
 * on the host as before, with the same results. */
#include "gpu_proto.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The canary's bytes are gpu_child.c's (ca fe f0 0d 5a fe 6a 4d). out[r] is
 * region r's count of changed bytes, out[n + r] the first one's offset
 * (~0 when none): the caller sets them to 0 and ~0 before the launch. */
static const char guard_source[] =
  "__device__ void dg_guard_byte(const unsigned char *g, unsigned long long k, unsigned char want,\n"
  "                              unsigned long long *cnt, unsigned long long *first) {\n"
  "  if (g[k] != want) {\n"
  "    ++*cnt;\n"
  "    if (k < *first) *first = k;\n"
  "  }\n"
  "}\n"
  "/* region blockIdx.y, read as 8-byte words from its first aligned byte\n"
  "   (the canary rotated to that phase: one word a compare), the unaligned\n"
  "   head and tail byte by byte; a word that differs is counted byte by byte */\n"
  "extern \"C\" __global__ void dg_guard_check(unsigned char *const *regions, unsigned long long len,\n"
  "                                          unsigned long long n, unsigned long long *out) {\n"
  "  const unsigned char canary[8] = { 0xca, 0xfe, 0xf0, 0x0d, 0x5a, 0xfe, 0x6a, 0x4d };\n"
  "  unsigned long long r = blockIdx.y, cnt = 0, first = ~0ull;\n"
  "  const unsigned char *g = regions[r];\n"
  "  unsigned long long head = (8 - ((unsigned long long)g & 7)) & 7;\n"
  "  if (head > len) head = len;\n"
  "  unsigned long long nw = (len - head) / 8, tail = head + 8 * nw, want = 0;\n"
  "  for (int j = 0; j < 8; j++) want |= (unsigned long long)canary[(head + j) & 7] << (8 * j);\n"
  "  const unsigned long long *w = (const unsigned long long *)(g + head);\n"
  "  unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x,\n"
  "                     step = (unsigned long long)gridDim.x * blockDim.x;\n"
  "#pragma unroll 8\n"
  "  for (unsigned long long i = tid; i < nw; i += step)\n"
  "    if (w[i] != want)\n"
  "      for (int j = 0; j < 8; j++) dg_guard_byte(g, head + 8 * i + j, canary[(head + j) & 7], &cnt, &first);\n"
  "  if (tid < head) dg_guard_byte(g, tid, canary[tid & 7], &cnt, &first);\n"
  "  if (tid < len - tail) dg_guard_byte(g, tail + tid, canary[(tail + tid) & 7], &cnt, &first);\n"
  "  if (cnt) {\n"
  "    atomicAdd(&out[r], cnt);\n"
  "    atomicMin(&out[n + r], first);\n"
  "  }\n"
  "}\n";

dg_gpu_status gp_guard_binary(const char *arch, const dg_gpu_binary **out)
{
  static dg_gpu_binary bin;
  static char built_for[16];
  static dg_gpu_status st = DG_GPU_NSTATUS;   /* not tried */
  if (st != DG_GPU_NSTATUS && !strcmp(built_for, arch ? arch : "")) {
    *out = st == DG_GPU_OK ? &bin : NULL;
    return st;
  }
  if (st == DG_GPU_OK) dg_gpu_binary_free(&bin);
  snprintf(built_for, sizeof built_for, "%s", arch ? arch : "");
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  uint32_t f = dg_srcmgr_add(&sm, "<dirigo guard check>", dg_strdup(guard_source), sizeof guard_source - 1);
  static const char *const names[] = { "dg_guard_check" };
  dg_gpu_copts o = { .names = names, .nnames = 1, .arch = arch };
  dg_diags d = {0};
  st = dg_gpu_compile(&sm, f, &o, &bin, &d);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  *out = st == DG_GPU_OK ? &bin : NULL;
  return st;
}
