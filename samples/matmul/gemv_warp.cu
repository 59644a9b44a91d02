// y = A @ x, one warp per row, lanes stride over K, shuffle-down reduction, lane 0 writes.
#include <cuda_runtime.h>

__global__ void gemv_warp(float* __restrict__ y, const float* __restrict__ A, const float* __restrict__ x, int M, int K)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= M) return;
    const float* a = A + (size_t)row * K;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc = fmaf(__ldg(a + k), __ldg(x + k), acc);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}
