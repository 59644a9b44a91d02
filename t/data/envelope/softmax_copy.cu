// Softmax, one warp per row, whose output loop stores the input (a copy-paste slip).
#include <cuda_runtime.h>
#include <math_constants.h>

#define WARP 32
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = WARP / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = WARP / 2; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__global__ void softmax_warp(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int warps_per_block = blockDim.x / WARP;
    const int row = blockIdx.x * warps_per_block + threadIdx.x / WARP;
    const int lane = threadIdx.x % WARP;
    if (row >= N) return;  // the whole warp leaves together
    const float* xr = x + (size_t)row * C;
    float* yr = y + (size_t)row * C;

    float m = -CUDART_INF_F;
    for (int c = lane; c < C; c += WARP) m = fmaxf(m, xr[c]);
    m = warp_max(m);

    float s = 0.0f;
    for (int c = lane; c < C; c += WARP) s += __expf(xr[c] - m);
    s = warp_sum(s);

    const float inv = 1.0f / s;
    for (int c = lane; c < C; c += WARP) yr[c] = xr[c];   // the bug: the input, not __expf(xr[c] - m) * inv
}
