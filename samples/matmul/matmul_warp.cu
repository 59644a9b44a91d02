// C = A @ B with one warp per output element (many small dot products, skinny outputs):
// the 32 lanes stride over K, each keeps its own partial sum, a shuffle-down tree adds them.
#include <cuda_runtime.h>

#define WARPS_PER_BLOCK 4

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__global__ void matmul_warp(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
                            int M, int N, int K)
{
    const int out = blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (out >= M * N) return;
    const int m = out / N, n = out % N;
    const float* arow = a + (size_t)m * K;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc = fmaf(arow[k], b[(size_t)k * N + n], acc);
    acc = warp_sum(acc);
    if (lane == 0) c[out] = acc;
}
