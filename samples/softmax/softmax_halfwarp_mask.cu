// Softmax for short rows: 16 lanes per row, two rows per warp. Shuffles use a 16-lane mask and
// xor offsets below 16, so values never cross into the other row.
#include <cuda_runtime.h>
#include <math_constants.h>

#define LANES 16
#define FULL_MASK 0x0000ffffu  // one row = 16 lanes

__device__ __forceinline__ float group_max(float v)
{
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

__device__ __forceinline__ float group_sum(float v)
{
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__global__ void softmax_halfwarp(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / LANES;
    const int lane = threadIdx.x % LANES;
    const bool valid = row < N;  // no early return: the partner half-warp still needs this half
    const float* xr = x + (size_t)row * C;

    float m = -CUDART_INF_F;
    if (valid)
        for (int c = lane; c < C; c += LANES) m = fmaxf(m, xr[c]);
    m = group_max(m);

    float s = 0.0f;
    if (valid)
        for (int c = lane; c < C; c += LANES) s += expf(xr[c] - m);
    s = group_sum(s);

    if (valid)
        for (int c = lane; c < C; c += LANES) y[(size_t)row * C + c] = expf(xr[c] - m) / s;
}
