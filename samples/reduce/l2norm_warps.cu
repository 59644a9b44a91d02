// Row L2 norm in two kernels: a sum of squares, one block of four warps per row, whose warps add
// their partials into an accumulator (the host zeroes it), then a square root per row.
// Seeded bug: each warp adds its partial with a plain read-modify-write, not atomicAdd, and no
// barrier orders the four warps' adds.
#include <cuda_runtime.h>

__global__ void sumsq_warps(float* __restrict__ acc, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * C;
    float s = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) s += xr[c] * xr[c];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) acc[row] += s;
}

__global__ void sqrt_rows(float* __restrict__ y, const float* __restrict__ acc, int N)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) y[i] = sqrtf(acc[i]);
}
