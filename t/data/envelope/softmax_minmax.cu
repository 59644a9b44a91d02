// Softmax, one warp per row, whose warp-wide max combines the lanes with fminf
// (the min/max swap of `dirigo mutants`, softmax_warp-minmax-01): the row max m
// is the smallest lane maximum, so x - m > 0 for the larger values. The output
// is shift-invariant while every exp(x - m) stays finite (normal values); at
// huge values exp overflows, s = Inf and the row is NaN (t/cli/envelope.sh).
#include <cuda_runtime.h>
#include <math_constants.h>

#define WARP 32
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = WARP / 2; o > 0; o >>= 1) v = fminf(v, __shfl_xor_sync(FULL_MASK, v, o));   // the bug: fminf
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
    for (int c = lane; c < C; c += WARP) yr[c] = __expf(xr[c] - m) * inv;
}
