// Row max, one warp per row, each lane takes two neighbouring elements per step (fewer loop
// iterations for short rows).
#include <cuda_runtime.h>
#include <math_constants.h>

__global__ void max_rows_pairs(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= N) return;
    const float* xr = x + (size_t)row * C;

    float m = -CUDART_INF_F;
    for (int c = 2 * lane; c + 1 < C; c += 64) m = fmaxf(m, fmaxf(xr[c], xr[c + 1]));
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) y[row] = m;
}
