// RMSNorm (LLaMA), one warp per row.
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void rmsnorm_warp(float* __restrict__ y, const float* __restrict__ x, const float* __restrict__ w,
                             int N, int C, float eps)
{
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= N) return;
    const float* xr = x + (size_t)row * C;

    float ss = 0.0f;
    for (int c = lane; c < C; c += 32) ss += xr[c] * xr[c];
    const float r = rsqrtf(warp_sum(ss) / (float)C + eps);

    for (int c = lane; c < C; c += 32) y[(size_t)row * C + c] = xr[c] * r * w[c];
}
