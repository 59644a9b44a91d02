#!/bin/sh
# bench/gen_kernels.sh LINES — writes a CUDA file of about LINES lines to
# stdout: a mix of elementwise, grid-stride, reduction, tiled and templated
# kernels with device helpers, the shapes the front end meets in practice.
lines=${1:-5000}
cat <<'HDR'
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define TILE 16
template <typename T> __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
HDR
i=0; n=9
while [ $n -lt "$lines" ]; do
  cat <<KERNELS
__device__ __forceinline__ float act_$i(float x) { return x > 0.0f ? x : 0.01f * x * (float)$i; }
__global__ void ew_$i(float* __restrict__ y, const float* __restrict__ x, int N) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) y[idx] = act_$i(x[idx]) + tanhf(x[idx] * 0.5f);
}
__global__ void gs_$i(float* y, const float* x, const float* r, float alpha, int N) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < N; k += gridDim.x * blockDim.x) {
    float v = x[k] * alpha + r[k];
    y[k] = v < 0.0f ? 0.0f : v;
  }
}
__global__ void red_$i(const float* __restrict__ x, float* out, int N) {
  __shared__ float s[256];
  float acc = 0.0f;
  for (int k = threadIdx.x; k < N; k += blockDim.x) acc += x[blockIdx.x * N + k];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) {
    if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = warp_sum(s[0]);
}
__global__ void mm_$i(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = (row < M && t * TILE + threadIdx.x < K) ? A[row * K + t * TILE + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (col < N && t * TILE + threadIdx.y < K) ? B[(t * TILE + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
template <typename T, int VEC>
__global__ void tv_$i(T* y, const T* x, int N) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
  switch (VEC) {
  case 4: if (base + 3 < N) { y[base + 3] = x[base + 3]; }
  case 2: if (base + 1 < N) { y[base + 1] = x[base + 1]; }
  default: if (base < N) y[base] = x[base];
  }
}
template __global__ void tv_$i<float, 4>(float*, const float*, int);
KERNELS
  i=$((i + 1)); n=$((n + 48))
done
