// Row mean, one warp per row.
#include <cuda_runtime.h>

__global__ void mean_rows(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= N) return;
    float s = 0.0f;
    for (int c = lane; c < C; c += 32) s += x[(size_t)row * C + c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    const float inv = 1.0f / C;
    if (lane == 0) y[row] = s * inv;
}
