/* simt_fast.c — the concrete domain's fast paths against the engine's
 * general path. The engine takes its shortcuts (uniform programs, one-lane
 * uniform values, direct loads and stores, inline arithmetic) only when the
 * domain IS dom_concrete(); a copy of its vtable at another address runs
 * the same operations through the general path. Every kernel here runs on
 * both: buffers (bytes and initialised shadow), events (kind, place,
 * thread, message, count), thread-instruction counts and traces must be
 * identical. The kernels mix uniform and per-lane values the way the fast
 * paths have to notice: registers uniform only some of the time, device
 * functions, divergent loops with break and continue, retired threads,
 * integer corner cases (division by zero, shifts past the width), half
 * precision, casts, out-of-bounds and uninitialised reads, shared races. */
#include "simt.h"
#include "simt_int.h"      /* simt_params_ro */
#include "fe.h"
#include "../tap.h"
#include <math.h>

static dg_srcmgr sm;

static const char src[] =
  "__device__ int twice(int a) { return a * 2 + blockIdx.x; }\n"
  "__global__ void mix(int *out, const int *tab, int n, float f)\n"
  "{\n"
  "  int t = threadIdx.x, b = blockIdx.x;\n"
  "  int s = n * 3 + b, z = n - n;\n"
  "  unsigned u = (unsigned)n << 31;\n"
  "  long long L = (long long)n * 1000000007LL + (n >> 40) + (n << 33) + (-n >> 1);\n"
  "  int q = n / z + n % z + (-2147483647 - 1) / -1;\n"
  "  float g = f * (float)n / 3.0f - (float)s;\n"
  "  __half h = __float2half(f * 1000.0f);\n"
  "  h = h * h + h;\n"
  "  double d = (double)f * n - 1e300 * 1e10;\n"
  "  if (t % 3 == 1) s = s + t;\n"
  "  int w = s * 2 + n;\n"
  "  for (int i = 0; i < n; i++) {\n"
  "    if (i == t % 5) continue;\n"
  "    if (i * 2 > t + b) break;\n"
  "    w += i * n + (b << 2) - (u >> 30);\n"
  "  }\n"
  "  int c = twice(n + b) + twice(t);\n"
  "  for (int k = n; k > 0; k >>= 1) c += k ^ (b | 1);\n"
  "  unsigned ut = t;\n"
  "  int a3 = (n * 5 + t) + b, b3 = (s + t) + n, d3 = (2147483647 + t) + n;\n"
  "  unsigned c3 = (u + ut) + 7u;\n"
  "  if (t == 6) return;\n"
  "  int v = (n + 1) * 2;\n"
  "  v = v > 7 ? tab[v - 8 + b % 2] : ~v;\n"
  "  out[(b * blockDim.x + t) * 8 + 0] = s + w;\n"
  "  out[(b * blockDim.x + t) * 8 + 1] = c + v + q;\n"
  "  out[(b * blockDim.x + t) * 8 + 2] = (int)(L % 1000003) + (int)u;\n"
  "  out[(b * blockDim.x + t) * 8 + 3] = __float_as_int(g) ^ (int)__half2float(h);\n"
  "  out[(b * blockDim.x + t) * 8 + 4] = d < 0 ? 1 : 2;\n"
  "  out[(b * blockDim.x + t) * 8 + 5] = tab[(n * 7 + b) % 16] + tab[t % 16];\n"
  "  out[(b * blockDim.x + t) * 8 + 6] = (int)(g * 0.5f) - (int)(float)(n / 2) + a3 + b3 + d3 + (int)c3;\n"
  "  out[(b * blockDim.x + t) * 8 + 7] = tab[n * 10];\n"
  "}\n"
  "__global__ void reduce(float *y, const float *x, int C)\n"
  "{\n"
  "  __shared__ float red[64];\n"
  "  __shared__ float pad[64];\n"
  "  float s = 0.0f;\n"
  "  for (int c = threadIdx.x; c < C; c += blockDim.x) s += x[blockIdx.x * C + c];\n"
  "  red[threadIdx.x] = s;\n"
  "  __syncthreads();\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];\n"
  "    if (k == 4) pad[k] = red[k + 1];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (threadIdx.x == 0) y[blockIdx.x] = red[0] / C + pad[3] + red[1];\n"
  "}\n"
  "#define TILE 8\n"
  "__global__ void matmul(float *C, const float *A, const float *B, int M, int N, int K)\n"
  "{\n"
  "  __shared__ float As[TILE][TILE];\n"
  "  __shared__ float Bs[TILE][TILE + 1];\n"
  "  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;\n"
  "  float acc = 0.0f;\n"
  "  for (int k0 = 0; k0 < K; k0 += TILE) {\n"
  "    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;\n"
  "    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;\n"
  "    __syncthreads();\n"
  "    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (row < M && col < N) C[row * N + col] = acc;\n"
  "}\n"
  "__global__ void conv(float *y, const float *x, const float *w, int Ci, int H, int W, int Co)\n"
  "{\n"
  "  int ow = blockIdx.x * blockDim.x + threadIdx.x, oh = blockIdx.y;\n"
  "  int n = blockIdx.z / Co, co = blockIdx.z % Co;\n"
  "  int OH = H - 2, OW = W - 2;\n"
  "  if (ow >= OW) return;\n"
  "  float acc = 0.0f;\n"
  "  for (int ci = 0; ci < Ci; ci++)\n"
  "    for (int kh = 0; kh < 3; kh++)\n"
  "      for (int kw = 0; kw < 3; kw++)\n"
  "        acc += x[((n * Ci + ci) * H + oh + kh) * W + ow + kw] * w[((co * Ci + ci) * 3 + kh) * 3 + kw];\n"
  "  y[((n * Co + co) * OH + oh) * OW + ow] = acc;\n"
  "}\n"
  "__global__ void racy(int *out, int n)\n"
  "{\n"
  "  __shared__ int sh[32];\n"
  "  __shared__ int un[32];\n"
  "  int i = n - 1;\n"
  "  sh[threadIdx.x % 8] = threadIdx.x;\n"
  "  sh[i] = n;\n"
  "  int r = sh[(threadIdx.x + 1) % 8] + un[i];\n"
  "  out[threadIdx.x] = r + out[threadIdx.x + n * 100] + out[n * 2 + 40] + out[n * 90];\n"
  "  i++;\n"
  "  out[i] = i--;\n"
  "}\n"
  "__global__ void bcast(int *out, int n)\n"
  "{\n"
  "  __shared__ int sh[16];\n"
  "  sh[threadIdx.x % 16] = threadIdx.x;\n"
  "  __syncthreads();\n"
  "  int a = sh[threadIdx.x / 4];\n"
  "  int b = sh[n];\n"
  "  if (threadIdx.x == 4) sh[1] = a;\n"
  "  if (threadIdx.x == n) sh[n] = b;\n"
  "  __syncthreads();\n"
  "  int c = sh[threadIdx.x / 4 % 2] + sh[threadIdx.x % 3 == 0 ? 7 : 9];\n"
  "  if (threadIdx.x % 5 == 2) sh[threadIdx.x / 8 + 7] = c;\n"
  "  out[threadIdx.x] = a + b + c + out[threadIdx.x + 16];\n"
  "}\n"
  "__global__ void wsync(int *out, int n)\n"
  "{\n"
  "  __shared__ int sh[64];\n"
  "  sh[threadIdx.x] = threadIdx.x;\n"
  "  __syncthreads();\n"
  "  int a = sh[(threadIdx.x + n) % 64] + sh[0];\n"
  "  __syncwarp();\n"
  "  sh[threadIdx.x] = a + 1;\n"
  "  __syncthreads();\n"
  "  int b = sh[threadIdx.x % 8];\n"
  "  __syncthreads();\n"
  "  out[threadIdx.x] = a + b + sh[63 - threadIdx.x];\n"
  "}\n"
  "__global__ void tidr(int *out, int n)\n"
  "{\n"
  "  int v = 0;\n"
  "  unsigned m = n * 2;\n"
  "  if (threadIdx.x < n) v += 1;\n"
  "  if (threadIdx.x >= m) v += 32;\n"
  "  if (threadIdx.x % 3 == 1) return;\n"
  "  if (threadIdx.x <= (unsigned)(n + 2)) v += 2;\n"
  "  if (threadIdx.x > 5u) v += 4;\n"
  "  if (threadIdx.x >= blockDim.x / 2) v += 8;\n"
  "  if (threadIdx.x < m) v += 16; else v -= 1;\n"
  "  for (int k = 16; k > 0; k >>= 1) if (threadIdx.x < k) v += k;\n"
  "  out[threadIdx.x + blockIdx.x * blockDim.x] = v;\n"
  "}\n"
  "__global__ void crun(int *out, int n)\n"
  "{\n"
  "  __shared__ int sh[80];\n"
  "  sh[threadIdx.x] = threadIdx.x;\n"
  "  __syncthreads();\n"
  "  int a = sh[threadIdx.x];\n"
  "  int b = sh[(threadIdx.x + 1) % 32];\n"
  "  int c = sh[threadIdx.x + n];\n"
  "  sh[threadIdx.x] = a + b + c;\n"
  "  sh[threadIdx.x + 2 * n] = a;\n"
  "  __syncthreads();\n"
  "  out[threadIdx.x] = sh[threadIdx.x] + sh[threadIdx.x + 40];\n"
  "}\n"
  "__global__ void tree(int *out, int n)\n"
  "{\n"
  "  __shared__ int sh[160];\n"
  "  sh[threadIdx.x] = threadIdx.x;\n"
  "  sh[threadIdx.x + n] = 7;\n"
  "  int a = sh[threadIdx.x + 2 * n];\n"
  "  __syncthreads();\n"
  "  int b = sh[threadIdx.x + n];\n"
  "  sh[threadIdx.x] = a + b;\n"
  "  int c = sh[threadIdx.x + (n & 1)];\n"
  "  __syncthreads();\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];\n"
  "    if (threadIdx.x < k && n == 2) sh[threadIdx.x + k / 2] = k;\n"
  "    __syncthreads();\n"
  "  }\n"
  "  sh[threadIdx.x + 64] = c;\n"
  "  if (n == 3) __syncwarp();\n"
  "  int d = sh[threadIdx.x + 64 + n / 2] + sh[threadIdx.x + 1];\n"
  "  if (threadIdx.x < 32) sh[threadIdx.x + 96] = sh[threadIdx.x + 97 - (n & 2)];\n"
  "  sh[threadIdx.x + 32 * (n & 1)] = d;\n"
  "  __syncthreads();\n"
  "  out[threadIdx.x] = a + b + c + d + sh[threadIdx.x] + sh[threadIdx.x + 96];\n"
  "}\n"
  "__global__ void uload(int *out, int n)\n"
  "{\n"
  "  __shared__ int sh[64];\n"
  "  sh[threadIdx.x] = threadIdx.x;\n"
  "  __syncthreads();\n"
  "  int a = sh[n];\n"
  "  if (threadIdx.x == 5) sh[n] = 1;\n"
  "  int b = sh[n + 1];\n"
  "  if (n > 2) __syncwarp();\n"
  "  sh[threadIdx.x] = b;\n"
  "  int c = sh[n + 2] + sh[n + 2];\n"
  "  if (threadIdx.x % 2) c += sh[n + 3];\n"
  "  __syncthreads();\n"
  "  int d = sh[n] + sh[2 * n];\n"
  "  if (threadIdx.x == n) sh[n + 1] = d;\n"
  "  __syncthreads();\n"
  "  out[threadIdx.x] = a + b + c + d;\n"
  "}\n"
  "__global__ void fuse(int *out, int n)\n"
  "{\n"
  "  __shared__ float f[96];\n"
  "  __shared__ float g[96];\n"
  "  __shared__ int a[96];\n"
  "  __shared__ unsigned b[96];\n"
  "  f[threadIdx.x] = (float)threadIdx.x * 0.5f;\n"
  "  a[threadIdx.x] = threadIdx.x * 3 - n;\n"
  "  b[threadIdx.x + 1] = threadIdx.x;\n"
  "  if (threadIdx.x < 16) g[threadIdx.x + 2] = 1.5f;\n"
  "  __syncthreads();\n"
  "  unsigned un = n, uv = threadIdx.x % 2;\n"
  "  int k = n, m = n + threadIdx.x % 3;\n"
  "  if (threadIdx.x < k) f[threadIdx.x] += f[threadIdx.x + k];\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x % 3) a[threadIdx.x] -= a[threadIdx.x + 2 * k];\n"
  "  __syncthreads();\n"
  "  b[threadIdx.x] *= b[un + threadIdx.x];\n"
  "  __syncthreads();\n"
  "  g[threadIdx.x] += f[threadIdx.x + 3];\n"
  "  f[threadIdx.x] /= g[threadIdx.x + (unsigned)(n - 4)];\n"
  "  __syncthreads();\n"
  "  a[threadIdx.x] += a[threadIdx.x + m];\n"
  "  b[threadIdx.x] += b[threadIdx.x + uv];\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x >= 8) f[threadIdx.x] -= f[threadIdx.x + 8];\n"
  "  out[threadIdx.x] = __float_as_int(f[threadIdx.x]) ^ __float_as_int(g[threadIdx.x]) ^ a[threadIdx.x] ^ (int)b[threadIdx.x];\n"
  "}\n"
  "__global__ void steps(int *out, int n)\n"
  "{\n"
  "  int s = 0;\n"
  "  for (int i = 0; i < n; ++i) s += i * 3;\n"
  "  for (unsigned u = n; u > 0u; u--) s ^= (int)u;\n"
  "  for (int j = n; j >= 0; --j) { if (threadIdx.x == j) break; s += j; }\n"
  "  for (int a = 0; a < 3; a++)\n"
  "    for (int b = a; b < n; b++) { if (threadIdx.x % 4 == b) continue; s += a * b; }\n"
  "  int c = 0;\n"
  "  for (c = threadIdx.x % 3; c < n; c++) s += c;\n"
  "  for (unsigned w = 4294967294u; w != 1u; w++) s += (int)w;\n"
  "  out[threadIdx.x] = s + c;\n"
  "}\n"
  "__global__ void umath(int *out, int n)\n"
  "{\n"
  "  __shared__ float sh[64];\n"
  "  sh[threadIdx.x] = sqrtf((float)threadIdx.x);\n"
  "  __syncthreads();\n"
  "  float u = rsqrtf(sh[n] / 3.0f + 1e-5f) + fmaxf((float)n, 2.5f) + fminf(sh[n + 1], (float)n);\n"
  "  float v = fmaxf((float)threadIdx.x, sqrtf((float)n)) + expf(sh[threadIdx.x] - u) + fmaf(u, 2.0f, (float)n);\n"
  "  double w = pow(2.0, (double)n) + sqrt((double)u) + fabs(-(double)n);\n"
  "  if (threadIdx.x % 3 == 0) v += logf(u) + __expf(-u) + fabsf(-u);\n"
  "  out[threadIdx.x] = __float_as_int(u) ^ __float_as_int(v) ^ (int)(w * 1000.0);\n"
  "}\n"
  /* block packing (simt_pack.c): consecutive blocks in one lane vector where
   * they cannot see each other; anything else runs block by block */
  "__device__ int pkf(int a) { return a * 3 + blockIdx.y - (int)blockIdx.x; }\n"
  "__global__ void pk(int *out, const int *in, int n, int mode)\n"
  "{\n"
  "  int b = blockIdx.y * gridDim.x + blockIdx.x, t = threadIdx.x, g = b * blockDim.x + t;\n"
  "  int loc[4];\n"
  "  for (int i = 0; i < 4; i++) loc[i] = in[(g + i) % 64] + i;\n"
  "  if (t >= 24 + b % 3) return;\n"
  "  int s = in[n] + in[n + blockIdx.y] + pkf(t);\n"
  "  if (b % 2) s += loc[t % 4]; else s -= in[t % 8];\n"
  "  for (int k = 0; k < n + (int)blockIdx.x % 3; k++) { if (k == t % 7) continue; s += k * b; }\n"
  "  if (mode == 1 && b == 1 && t == 5) s += in[n * 1000];\n"
  "  if (mode == 2 && b == 2) s += out[g];\n"
  "  if (mode == 3) s += out[g + 9000];\n"
  "  if (mode == 4 && b > 0) s += out[(b - 1) * blockDim.x + t];\n"
  "  if (mode == 5) out[t] = b;\n"
  "  out[g] = s;\n"
  "  if (mode == 6 && b == 3) out[g + 32] = s + 1;\n"
  "}\n"
  "__global__ void pkbar(int *out, int n)\n"
  "{\n"
  "  int g = blockIdx.x * blockDim.x + threadIdx.x, s = g * n;\n"
  "  if (blockIdx.x == 1 && threadIdx.x < 8) __syncthreads();\n"
  "  out[g] = s;\n"
  "}\n"
  /* tree reductions' loops: steps k >>= 1, k /= 2, k += st (a uniform
   * register of another type), float and per-lane right sides; fused steps
   * without address vectors (simt_mem_run) next to uninitialised reads,
   * out-of-bounds reads, races and the general path's fallbacks */
  "__global__ void rstep(int *out, int n)\n"
  "{\n"
  "  __shared__ float f[96];\n"
  "  __shared__ int a[96];\n"
  "  __shared__ unsigned u[96];\n"
  "  f[threadIdx.x] = (float)threadIdx.x * 0.25f;\n"
  "  if (n != 1) a[threadIdx.x] = threadIdx.x * 5 - n;\n"
  "  u[threadIdx.x] = threadIdx.x + 1;\n"
  "  __syncthreads();\n"
  "  int st = n * n % 3 + 1;\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) f[threadIdx.x] += f[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (int k = n * 4; k > 0; k /= 2) {\n"
  "    if (threadIdx.x < k) a[threadIdx.x] -= a[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (unsigned k = 1; k < blockDim.x / 2; k += st) {\n"
  "    if (threadIdx.x < k + 1) u[threadIdx.x] *= u[threadIdx.x + k];\n"
  "    if (n == 2) __syncthreads();\n"
  "  }\n"
  "  int m = threadIdx.x % 4, c = 0;\n"
  "  for (int j = 8; j > 0; j -= m) { if (m == 0) break; c += j; }\n"
  "  float fk = n * n * 0.5f + 1.0f;\n"
  "  for (int k = 3; k < 40; k += fk) c += k;\n"
  "  for (unsigned w = 5; w != 0u; w >>= m) { if (m == 0) break; c += (int)w; }\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x < n) a[threadIdx.x] += a[threadIdx.x * 2];\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x >= 8u) f[threadIdx.x] -= f[threadIdx.x + 1]; else u[threadIdx.x] += u[threadIdx.x + 2];\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x % 5 == 3) return;\n"
  "  for (int k = 16; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) f[threadIdx.x + 40] += f[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (int q = threadIdx.x % 4 - 1; q; q--) { c += q; if (q < -2) break; }\n"
  "  for (long long q = n - 20; q; q /= 2) c += (int)q;\n"
  "  int lim = n * 3;\n"
  "  for (unsigned w = threadIdx.x; w < 40u; w += 16u) c += (int)w;\n"
  "  for (int q = (int)threadIdx.x - 20; q >= -3; q -= 8) c += q;\n"
  "  for (int q = threadIdx.x; q <= lim; q += 7) c ^= q;\n"
  "  for (unsigned q = threadIdx.x; q > 3u; q -= 4u) c += (int)q;\n"
  "  for (int q = threadIdx.x % 2; q == 0; q++) c += 5;\n"
  "  for (int q = threadIdx.x % 4; q != 4; q++) c -= q;\n"
  "  unsigned un = (unsigned)n;\n"
  "  int im = -2147483647 - n, zz = n - n;\n"
  "  c += (int)(un / zz + un / 3u + (un >> 33) + (un << 31) + (un >> 1) - un * 3u + (un < 7u) + (un >= 2u));\n"
  "  c += im / -1 + im / zz + (n << 31) + (n >> 35) + (im >> 3) + n / 2 + (-n) / 3 + (n << 3);\n"
  "  out[threadIdx.x + 64] = c;\n"
  "  out[threadIdx.x] = __float_as_int(f[threadIdx.x]) ^ a[threadIdx.x] ^ (int)u[threadIdx.x];\n"
  "}\n"
  /* a tree reduction's iterations { if (tid < k) sh[tid] op= sh[tid + u];
   * __syncthreads(); }: quiet steps (nothing in the race shadow) and the
   * ones that are not: uninitialised cells, overlapping ranges (a race),
   * an earlier store in the interval, part of the block at the barrier */
  "__global__ void rtree(int *out, int n)\n"
  "{\n"
  "  __shared__ float f[128];\n"
  "  __shared__ int a[128];\n"
  "  f[threadIdx.x] = threadIdx.x * 0.5f;\n"
  "  f[threadIdx.x + blockDim.x] = 1.0f;\n"
  "  a[threadIdx.x] = threadIdx.x - n;\n"
  "  if (n != 3) a[threadIdx.x + blockDim.x] = n;\n"
  "  __syncthreads();\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) f[threadIdx.x] += f[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) a[threadIdx.x] -= a[threadIdx.x + 2 * k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (int k = n; k > 0; k >>= 1) {\n"
  "    if (threadIdx.x < k) f[threadIdx.x] *= f[threadIdx.x + k / 2];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  a[threadIdx.x] += 1;\n"
  "  a[(threadIdx.x * 3) % 32] = threadIdx.x;\n"
  "  for (unsigned k = 16; k > 0; k /= 2) {\n"
  "    if (threadIdx.x < k) a[threadIdx.x + 64] += a[threadIdx.x + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (threadIdx.x < 32) {\n"
  "    for (int k = 16; k > 0; k >>= 1) {\n"
  "      if (threadIdx.x < k) f[threadIdx.x] -= f[threadIdx.x + k];\n"
  "      __syncthreads();\n"
  "    }\n"
  "  }\n"
  "  out[threadIdx.x] = __float_as_int(f[threadIdx.x]) ^ a[threadIdx.x] ^ a[threadIdx.x + 64];\n"
  "}\n"
  /* parameters assigned in the kernel get a register of their own a block
   * (the others are the launch's argument vectors, simt_params_ro) */
  "__global__ void pwrite(int *out, int n, int m)\n"
  "{\n"
  "  n += threadIdx.x;\n"
  "  __syncthreads();\n"
  "  out += blockIdx.x * blockDim.x;\n"
  "  out[threadIdx.x] = n * 1000 + m;\n"
  "}\n"
  /* registers start at zero in every block; only declarations that write
   * them before any read skip it (simt_slots_set). A local declared without
   * a value lives in memory (fe_stmt.c): its read before a write (b, q) is
   * an uninitialised read, not a 0 */
  "__global__ void zinit(int *out, int n)\n"
  "{\n"
  "  if (threadIdx.x == 5) return;\n"
  "  int a = n;\n"
  "  float f = 2.0f;\n"
  "  int b;\n"
  "  for (int i = b; i < 2; i++) b += i;\n"
  "  { int q; a += q; q = 3; }\n"
  "  __syncthreads();\n"
  "  out[blockIdx.x * blockDim.x + threadIdx.x] = a * 100 + b * 10 + (int)f;\n"
  "}\n"
  /* races the fast paths once hid: a warp's tree without the __syncwarp
   * between its loads and store (m odd), shared bins zeroed, counted with
   * atomics and read with a barrier missing (m 1, 2) or none (0) */
  "__global__ void wtree(int *y, int m)\n"
  "{\n"
  "  __shared__ int s[64];\n"
  "  int tid = threadIdx.x;\n"
  "  s[tid] = tid * 3;\n"
  "  __syncthreads();\n"
  "  if (tid < 32) {\n"
  "    for (int off = 32; off > 0; off >>= 1) {\n"
  "      int v = s[tid] + s[tid + off];\n"
  "      if (m % 2 == 0) __syncwarp();\n"
  "      s[tid] = v;\n"
  "      __syncwarp();\n"
  "    }\n"
  "  }\n"
  "  if (tid == 0) y[blockIdx.x] = s[0];\n"
  "}\n"
  "__global__ void hist(int *h, const int *x, int N, int K, int m)\n"
  "{\n"
  "  __shared__ int bins[64];\n"
  "  for (int b = threadIdx.x; b < K; b += blockDim.x) bins[b] = 0;\n"
  "  if (m != 1) __syncthreads();\n"
  "  for (int i = threadIdx.x; i < N; i += blockDim.x) atomicAdd(&bins[(x[i] + 50) % K], 1);\n"
  "  if (m != 2) __syncthreads();\n"
  "  for (int b = threadIdx.x; b < K; b += blockDim.x) h[blockIdx.x * K + b] = bins[b];\n"
  "}\n"
  "__global__ void pkio(int *a, int n)\n"
  "{\n"
  "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (g % 5 == 3) return;\n"
  "  a[g] = a[g] * 2 + n;\n"
  "}\n";

typedef struct { int64_t bytes; bool init, isf; } bufspec;
typedef struct {
  const char *kernel;
  uint32_t grid[3], block[3];
  uint64_t seed;
  int nbufs;
  bufspec bufs[3];
  int nints;
  int64_t ints[4];
  bool has_f;
  double f;
  int packs;           /* 1: the fast run packs its blocks, 2: it runs them one by one, 0: either */
  bool writers;        /* the first buffer keeps a writer map (compared) */
} tcase;

typedef struct {
  uint8_t *bytes[3];
  bool *init[3];
  simt_event ev[64];
  size_t nev;
  uint64_t ops;
  simt_status st;
  uint64_t packed;
  int64_t *writer;
  int *nwriters;
  dg_span trace[256];
  size_t ntrace;
} outcome;

static void run(dg_module *mod, const tcase *c, dom *d, bool trace, outcome *o)
{
  dg_func *k = fe_find(mod, c->kernel);
  simt *m = simt_new(d);
  simt_arg a[8];
  int na = 0;
  for (int i = 0; i < c->nbufs; i++) {
    const bufspec *b = &c->bufs[i];
    int id = simt_buf_new(m, "b", NULL, b->bytes, b->init ? SIMT_BUF_INIT : 0);
    uint8_t *p = simt_buf_data(m, id);
    for (int64_t j = 0; j < b->bytes / 4; j++) {
      float fv = sinf((float)(j * 7 + i)) * 3.0f;
      int32_t iv = (int32_t)(j * 37 % 101) - 50;
      memcpy(p + j * 4, b->isf ? (void *)&fv : (void *)&iv, 4);
    }
    a[na++] = (simt_arg){ .kind = SIMT_ARG_BUF, .buf = id };
  }
  for (int i = 0; i < c->nints; i++) a[na++] = (simt_arg){ .kind = SIMT_ARG_INT, .i = c->ints[i] };
  if (c->has_f) a[na++] = (simt_arg){ .kind = SIMT_ARG_FLOAT, .f = c->f };
  if (trace) simt_trace_thread(m, 1, 3);
  if (c->writers) simt_track_writes(m, 1);
  simt_launch L = { .grid = { c->grid[0], c->grid[1], c->grid[2] },
                    .block = { c->block[0], c->block[1], c->block[2] }, .seed = c->seed };
  o->st = simt_run(m, k, &L, a, na);
  o->ops = simt_last_stats(m).lane_ops;
  o->packed = simt_last_stats(m).packed;
  if (c->writers) {
    int64_t n = c->bufs[0].bytes;
    o->writer = malloc(sizeof *o->writer * (size_t)n), o->nwriters = malloc(sizeof *o->nwriters * (size_t)n);
    for (int64_t j = 0; j < n; j++) o->writer[j] = simt_writer(m, 1, j, &o->nwriters[j]);
  }
  const simt_event *ev = simt_events(m, &o->nev);
  if (o->nev > 64) o->nev = 64;
  if (o->nev) memcpy(o->ev, ev, sizeof *ev * o->nev);
  const dg_span *tr = simt_trace(m, &o->ntrace);
  if (o->ntrace > 256) o->ntrace = 256;
  if (o->ntrace) memcpy(o->trace, tr, sizeof *tr * o->ntrace);
  for (int i = 0; i < c->nbufs; i++) {
    int64_t n = c->bufs[i].bytes;
    o->bytes[i] = malloc((size_t)n), o->init[i] = malloc((size_t)n);
    simt_buf_read(m, i + 1, 0, o->bytes[i], n);
    for (int64_t j = 0; j < n; j++) o->init[i][j] = simt_buf_is_init(m, i + 1, j);
  }
  simt_free(m);
}

static bool same_event(const simt_event *a, const simt_event *b)
{
  return a->kind == b->kind && a->span.line == b->span.line && a->span.col == b->span.col
      && a->block == b->block && a->thread == b->thread && a->thread2 == b->thread2 && a->count == b->count
      && a->buf == b->buf && a->off == b->off && !strcmp(a->msg, b->msg);
}

static void compare(dg_module *mod, const tcase *c, const char *what)
{
  static dom slow;
  slow = *dom_concrete();                  /* the same operations at another address: no fast paths */
  slow.name = "concrete (general path)";
  for (int tr = 0; tr < 2; tr++) {
    outcome f = {0}, s = {0};
    run(mod, c, NULL, tr, &f);
    run(mod, c, &slow, tr, &s);
    is_int(f.st, s.st, "%s%s: same status", what, tr ? " (traced)" : "");
    is_int((long long)f.ops, (long long)s.ops, "%s%s: same thread-instruction count", what, tr ? " (traced)" : "");
    bool evs = f.nev == s.nev;
    for (size_t i = 0; evs && i < f.nev; i++) evs = same_event(&f.ev[i], &s.ev[i]);
    ok(evs, "%s%s: same %zu events", what, tr ? " (traced)" : "", f.nev);
    if (!evs)
      for (size_t i = 0; i < f.nev || i < s.nev; i++)
        printf("#   %zu: fast %s | general %s\n", i, i < f.nev ? f.ev[i].msg : "-", i < s.nev ? s.ev[i].msg : "-");
    int bad = -1;
    for (int i = 0; i < c->nbufs && bad < 0; i++)
      if (memcmp(f.bytes[i], s.bytes[i], (size_t)c->bufs[i].bytes)
          || memcmp(f.init[i], s.init[i], (size_t)c->bufs[i].bytes))
        bad = i;
    ok(bad < 0, "%s%s: same buffers and shadows (first differing buffer %d)", what, tr ? " (traced)" : "", bad);
    if (c->writers) {
      size_t n = (size_t)c->bufs[0].bytes;
      ok(!memcmp(f.writer, s.writer, n * sizeof *f.writer) && !memcmp(f.nwriters, s.nwriters, n * sizeof *f.nwriters),
         "%s%s: same writer map", what, tr ? " (traced)" : "");
      free(f.writer), free(s.writer), free(f.nwriters), free(s.nwriters);
    }
    if (c->packs && !tr)
      ok((f.packed > 0) == (c->packs == 1) && !s.packed, "%s: %s (%llu blocks packed)", what,
         c->packs == 1 ? "packed" : "block by block", (unsigned long long)f.packed);
    if (tr) ok(!f.packed, "%s (traced): block by block", what);
    if (tr) {
      bool same = f.ntrace == s.ntrace && f.ntrace > 0;
      for (size_t i = 0; same && i < f.ntrace; i++)
        same = f.trace[i].line == s.trace[i].line && f.trace[i].col == s.trace[i].col;
      ok(same, "%s: same trace of block 1 thread 3 (%zu spans)", what, f.ntrace);
    }
    for (int i = 0; i < c->nbufs; i++) free(f.bytes[i]), free(s.bytes[i]), free(f.init[i]), free(s.init[i]);
  }
}

int main(void)
{
  dg_srcmgr_init(&sm);
  uint32_t file = dg_srcmgr_add(&sm, "fast.cu", dg_strdup(src), sizeof src - 1);
  dg_diags d = {0};
  dg_module *mod = fe_load_file(&sm, file, NULL, &d);
  if (d.nerrors) dg_diags_print(stdout, &sm, &d);
  dg_diags_free(&d);
  ok(mod && fe_find(mod, "mix") && fe_find(mod, "racy"), "kernels lowered");
  if (!mod) return tap_done();
  const tcase cases[] = {
    { "mix", { 3 }, { 24 }, 0, 2, { { 3 * 24 * 32, true, false }, { 64, true, false } }, 1, { 3 }, true, 0.3 },
    { "mix", { 2 }, { 40 }, 7, 2, { { 2 * 40 * 32, false, false }, { 64, true, false } }, 1, { 5 }, true, -1.7 },
    { "reduce", { 3 }, { 16 }, 0, 2, { { 12, false, true }, { 3 * 37 * 4, true, true } }, 1, { 37 } },
    { "reduce", { 2 }, { 64 }, 11, 2, { { 8, false, true }, { 2 * 100 * 4, true, true } }, 1, { 100 } },
    { "matmul", { 2, 3, 1 }, { 8, 8, 1 }, 0, 3, { { 20 * 13 * 4, false, true }, { 20 * 11 * 4, true, true }, { 11 * 13 * 4, true, true } }, 3, { 20, 13, 11 } },
    { "matmul", { 2, 2, 1 }, { 8, 8, 1 }, 5, 3, { { 16 * 16 * 4, false, true }, { 16 * 16 * 4, true, true }, { 16 * 16 * 4, true, true } }, 3, { 16, 16, 16 } },
    { "conv", { 1, 6, 4 }, { 32, 1, 1 }, 0, 3, { { 2 * 2 * 6 * 8 * 4, false, true }, { 2 * 3 * 8 * 10 * 4, true, true }, { 2 * 3 * 9 * 4, true, true } }, 4, { 3, 8, 10, 2 }, .packs = 1 },
    { "racy", { 2 }, { 16 }, 0, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "racy", { 2 }, { 8 }, 3, 1, { { 64 * 4, true, false } }, 1, { 40 } },
    { "bcast", { 2 }, { 16 }, 0, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "bcast", { 2 }, { 40 }, 9, 1, { { 64 * 4, false, false } }, 1, { 2 } },
    { "wsync", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "wsync", { 2 }, { 64 }, 5, 1, { { 64 * 4, false, false } }, 1, { 40 } },
    { "tidr", { 2 }, { 40 }, 0, 1, { { 80 * 4, false, false } }, 1, { 7 } },
    { "tidr", { 2 }, { 33 }, 3, 1, { { 80 * 4, false, false } }, 1, { -1 } },
    { "tidr", { 2 }, { 16 }, 0, 1, { { 80 * 4, false, false } }, 1, { 0 } },
    { "crun", { 2 }, { 32 }, 0, 1, { { 64 * 4, false, false } }, 1, { 1 } },
    { "crun", { 2 }, { 40 }, 7, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "tree", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 0 } },
    { "tree", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 1 } },
    { "tree", { 2 }, { 64 }, 13, 1, { { 64 * 4, false, false } }, 1, { 2 } },
    { "tree", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "tree", { 3 }, { 32 }, 4, 1, { { 64 * 4, false, false } }, 1, { 2 } },
    { "uload", { 2 }, { 32 }, 0, 1, { { 64 * 4, false, false } }, 1, { 0 } },
    { "uload", { 2 }, { 40 }, 0, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "uload", { 2 }, { 64 }, 21, 1, { { 64 * 4, false, false } }, 1, { 7 } },
    { "fuse", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 4 } },
    { "fuse", { 2 }, { 64 }, 9, 1, { { 64 * 4, false, false } }, 1, { 32 } },
    { "fuse", { 2 }, { 40 }, 0, 1, { { 64 * 4, false, false } }, 1, { 1 } },
    { "fuse", { 2 }, { 48 }, 3, 1, { { 64 * 4, false, false } }, 1, { 20 } },
    { "fuse", { 2 }, { 32 }, 0, 1, { { 64 * 4, false, false } }, 1, { 0 } },
    { "fuse", { 2 }, { 16, 2, 1 }, 0, 1, { { 64 * 4, false, false } }, 1, { 4 } },
    { "steps", { 2 }, { 40 }, 0, 1, { { 64 * 4, false, false } }, 1, { 6 } },
    { "steps", { 2 }, { 24 }, 5, 1, { { 64 * 4, false, false } }, 1, { 0 } },
    { "umath", { 2 }, { 40 }, 0, 1, { { 64 * 4, false, false } }, 1, { 5 } },
    { "umath", { 2 }, { 64 }, 3, 1, { { 64 * 4, false, false } }, 1, { 0 } },
    { "rstep", { 2 }, { 64 }, 0, 1, { { 128 * 4, false, false } }, 1, { 3 } },
    { "rstep", { 2 }, { 48 }, 5, 1, { { 128 * 4, false, false } }, 1, { 1 } },
    { "rstep", { 2 }, { 64 }, 0, 1, { { 128 * 4, false, false } }, 1, { 2 } },
    { "rstep", { 2 }, { 40 }, 0, 1, { { 128 * 4, false, false } }, 1, { 20 } },
    { "rstep", { 3 }, { 32 }, 9, 1, { { 128 * 4, false, false } }, 1, { -4 } },
    { "rtree", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 5 } },
    { "rtree", { 2 }, { 64 }, 0, 1, { { 64 * 4, false, false } }, 1, { 3 } },
    { "rtree", { 3 }, { 32 }, 7, 1, { { 64 * 4, false, false } }, 1, { 8 } },
    { "rtree", { 2 }, { 48 }, 0, 1, { { 64 * 4, false, false } }, 1, { 0 } },
    { "rtree", { 2 }, { 64 }, 11, 1, { { 64 * 4, false, false } }, 1, { 40 } },
    /* packing: 2-D grids (blockIdx.x and .y vary across a pack), a partial
     * last pack, retired threads, per-block branches and loop counts, local
     * arrays, a device function reading blockIdx, uniform loads */
    { "pk", { 3, 4, 1 }, { 32 }, 0, 2, { { 12 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 0 }, .packs = 1, .writers = true },
    { "pk", { 19, 1, 1 }, { 32 }, 0, 2, { { 19 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 2, 0 }, .packs = 1 },
    { "pk", { 4, 5, 1 }, { 64 }, 0, 2, { { 20 * 64 * 4, true, false }, { 80 * 4, true, false } }, 2, { 4, 0 }, .packs = 1 },
    { "pk", { 7, 1, 1 }, { 96 }, 0, 2, { { 7 * 96 * 4, false, false }, { 80 * 4, true, false } }, 2, { 1, 0 }, .packs = 1 },
    /* ... and where it must not: an out-of-bounds load in the pack's 2nd
     * block, an uninitialised load in its 3rd, out of bounds everywhere,
     * blocks reading what the previous block stored, every block storing
     * to the same bytes, one block storing to another's bytes, a barrier
     * in one block (no packing: barriers), a seed (another order), blocks
     * of 16 or 256 threads, a buffer loaded and stored in one pack */
    { "pk", { 3, 4, 1 }, { 32 }, 0, 2, { { 12 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 1 }, .packs = 2 },
    { "pk", { 3, 4, 1 }, { 32 }, 0, 2, { { 12 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 2 }, .packs = 2 },
    { "pk", { 4, 1, 1 }, { 32 }, 0, 2, { { 4 * 32 * 4, true, false }, { 80 * 4, true, false } }, 2, { 3, 3 }, .packs = 2 },
    { "pk", { 9, 1, 1 }, { 32 }, 0, 2, { { 9 * 32 * 4, true, false }, { 80 * 4, true, false } }, 2, { 3, 4 }, .packs = 2, .writers = true },
    { "pk", { 8, 1, 1 }, { 32 }, 0, 2, { { 8 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 5 }, .packs = 2, .writers = true },
    { "pk", { 6, 1, 1 }, { 32 }, 0, 2, { { 6 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 6 }, .packs = 2 },
    { "pkbar", { 4, 1, 1 }, { 32 }, 0, 1, { { 4 * 32 * 4, false, false } }, 1, { 3 }, .packs = 2 },
    { "pk", { 4, 1, 1 }, { 32 }, 7, 2, { { 4 * 32 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 0 }, .packs = 2 },
    { "pk", { 6, 1, 1 }, { 16 }, 0, 2, { { 6 * 16 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 0 }, .packs = 2 },
    { "pk", { 2, 1, 1 }, { 256 }, 0, 2, { { 2 * 256 * 4, false, false }, { 80 * 4, true, false } }, 2, { 3, 0 }, .packs = 2 },
    { "pkio", { 7, 1, 1 }, { 64 }, 0, 1, { { 7 * 64 * 4, true, false } }, 1, { 5 }, .packs = 2 },
    { "wtree", { 2 }, { 64 }, 0, 1, { { 2 * 4, false, false } }, 1, { 0 } },
    { "wtree", { 2 }, { 64 }, 0, 1, { { 2 * 4, false, false } }, 1, { 1 } },
    { "wtree", { 2 }, { 40 }, 7, 1, { { 2 * 4, false, false } }, 1, { 1 } },
    { "hist", { 2 }, { 32 }, 0, 2, { { 2 * 64 * 4, false, false }, { 200 * 4, true, false } }, 3, { 200, 64, 0 } },
    { "hist", { 2 }, { 32 }, 0, 2, { { 2 * 64 * 4, false, false }, { 200 * 4, true, false } }, 3, { 200, 64, 1 } },
    { "hist", { 2 }, { 64 }, 5, 2, { { 2 * 64 * 4, false, false }, { 200 * 4, true, false } }, 3, { 200, 64, 2 } },
    { "hist", { 2 }, { 40 }, 0, 2, { { 2 * 40 * 4, false, false }, { 200 * 4, true, false } }, 3, { 200, 40, 2 } },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char what[64];
    snprintf(what, sizeof what, "%s #%zu", cases[i].kernel, i);
    compare(mod, &cases[i], what);
  }
  {
    /* the race cases report on both paths (compare checks they agree) */
    const struct { const char *k; int m, block; const char *what; } rc[] = {
      { "wtree", 0, 64, NULL }, { "wtree", 1, 64, "read-write" }, { "hist", 0, 32, NULL },
      { "hist", 1, 32, "write-atomic" }, { "hist", 2, 64, "atomic-read" },
    };
    for (size_t i = 0; i < sizeof rc / sizeof *rc; i++) {
      bool h = rc[i].k[0] == 'h';
      tcase c = { rc[i].k, { 2 }, { (uint32_t)rc[i].block }, 0, h ? 2 : 1,
                  { { 2 * 64 * 4, false, false }, { 200 * 4, true, false } }, h ? 3 : 1,
                  { h ? 200 : rc[i].m, 64, rc[i].m } };
      outcome o = {0};
      run(mod, &c, NULL, false, &o);
      const simt_event *e = NULL;
      for (size_t j = 0; j < o.nev && !e; j++) if (o.ev[j].kind == SIMT_EV_RACE) e = &o.ev[j];
      if (rc[i].what)
        ok(e && strstr(e->msg, rc[i].what) && e->thread2 >= 0 && e->thread2 != e->thread,
           "%s m=%d: a %s race between two named threads (%s)", rc[i].k, rc[i].m, rc[i].what, e ? e->msg : "none");
      else
        ok(!o.nev, "%s m=%d: no event (%zu)", rc[i].k, rc[i].m, o.nev);
      for (int b = 0; b < c.nbufs; b++) free(o.bytes[b]), free(o.init[b]);
    }
  }
  {
    /* a wrapped buffer (emu_lazy's reservations fill and evict in touch
     * order): the blocks run one by one; without it the launch packs */
    static uint8_t ext[8 * 32 * 4];
    for (int wrap = 0; wrap < 2; wrap++) {
      simt *m = simt_new(NULL);
      int out = wrap ? simt_buf_wrap(m, "out", NULL, ext, sizeof ext, 0)
                     : simt_buf_new(m, "out", NULL, sizeof ext, 0);
      int in = simt_buf_new(m, "in", NULL, 80 * 4, SIMT_BUF_INIT);
      simt_arg a[4] = { { .kind = SIMT_ARG_BUF, .buf = out }, { .kind = SIMT_ARG_BUF, .buf = in },
                        { .kind = SIMT_ARG_INT, .i = 3 }, { .kind = SIMT_ARG_INT, .i = 0 } };
      simt_launch L = { .grid = { 8, 1, 1 }, .block = { 32, 1, 1 } };
      simt_status st = simt_run(m, fe_find(mod, "pk"), &L, a, 4);
      ok(st == SIMT_OK && (simt_last_stats(m).packed > 0) == !wrap, "pk %s: %llu blocks packed",
         wrap ? "into a wrapped buffer" : "into an owned buffer", (unsigned long long)simt_last_stats(m).packed);
      simt_free(m);
    }
  }
  {
    simt *m = simt_new(NULL);
    int out = simt_buf_new(m, "out", NULL, 3 * 32 * 4, 0);
    simt_arg a[3] = { { .kind = SIMT_ARG_BUF, .buf = out }, { .kind = SIMT_ARG_INT, .i = 7 },
                      { .kind = SIMT_ARG_INT, .i = 5 } };
    simt_launch L = { .grid = { 3, 1, 1 }, .block = { 32, 1, 1 } };
    simt_status st = simt_run(m, fe_find(mod, "pwrite"), &L, a, 3);
    int32_t got[96];
    simt_buf_read(m, out, 0, got, sizeof got);
    int bad = -1;
    for (int i = 0; i < 96 && bad < 0; i++) if (got[i] != (7 + i % 32) * 1000 + 5) bad = i;
    ok(st == SIMT_OK && bad < 0, "pwrite: every block sees the parameters as launched (first wrong element %d)", bad);
    ok(simt_params_ro(fe_find(mod, "pwrite")) == 4, "pwrite: only m is read-only");
    simt_free(m);
  }
  {
    simt *m = simt_new(NULL);
    int out = simt_buf_new(m, "out", NULL, 3 * 32 * 4, 0);
    simt_arg a[2] = { { .kind = SIMT_ARG_BUF, .buf = out }, { .kind = SIMT_ARG_INT, .i = 7 } };
    simt_launch L = { .grid = { 3, 1, 1 }, .block = { 32, 1, 1 } };
    simt_status st = simt_run(m, fe_find(mod, "zinit"), &L, a, 2);
    int32_t got[96];
    simt_buf_read(m, out, 0, got, sizeof got);
    int bad = -1;
    for (int i = 0; i < 96 && bad < 0; i++) if (got[i] % 10 != (i % 32 == 5 ? 0 : 2)) bad = i;
    ok(bad < 0, "zinit: register f is right in every block (first wrong element %d: %d)", bad, bad < 0 ? 0 : got[bad]);
    size_t nev;
    const simt_event *ev = simt_events(m, &nev);
    int ub = 0, uq = 0;
    for (size_t i = 0; i < nev; i++)
      if (ev[i].kind == SIMT_EV_UNINIT) ub += strstr(ev[i].msg, "of local b,") != NULL, uq += strstr(ev[i].msg, "of local q,") != NULL;
    ok(st == SIMT_OK && ub && uq, "zinit: the reads of b and q before they are written are uninitialised reads naming them "
       "(%zu events)", nev);
    simt_free(m);
  }
  fe_module_free(mod);
  dg_srcmgr_free(&sm);
  return tap_done();
}
