// Row L2 norm in two kernels: a split-row sum of squares whose per-block partials are added into an
// accumulator (the host zeroes it), then a square root per row. Seeded bug: the add is a plain
// read-modify-write, not atomicAdd, though two blocks add into each row.
#include <cuda_runtime.h>

__global__ void sumsq_plain(float* __restrict__ acc, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.y;
    const float* xr = x + (size_t)row * C;
    float s = 0.0f;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < C; c += gridDim.x * blockDim.x) s += xr[c] * xr[c];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) acc[row] += s;
}

__global__ void sqrt_rows(float* __restrict__ y, const float* __restrict__ acc, int N)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) y[i] = sqrtf(acc[i]);
}
