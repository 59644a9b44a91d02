// log_softmax, one warp per row (2D block: threadIdx.x = lane, threadIdx.y = row in block).
#include <cuda_runtime.h>
#include <math_constants.h>

__device__ __forceinline__ float warp_allreduce_max(float v)
{
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_allreduce_sum(float v)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void log_softmax_warp(float* __restrict__ out, const float* __restrict__ inp, int N, int C)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= N) return;
    const float* x = inp + (size_t)row * C;

    float m = -CUDART_INF_F;
    for (int c = threadIdx.x; c < C; c += 32) m = fmaxf(m, x[c]);
    m = warp_allreduce_max(m);

    float s = 0.0f;
    for (int c = threadIdx.x; c < C; c += 32) s += expf(x[c] - m);
    const float lse = m + logf(warp_allreduce_sum(s));

    for (int c = threadIdx.x; c < C; c += 32) out[(size_t)row * C + c] = x[c] - lse;
}
