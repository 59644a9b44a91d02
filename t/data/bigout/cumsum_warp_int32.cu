// A mutant of samples/scan/cumsum_warp.cu (the mutation bench): the row offset in int32.
// Prefix sum along rows, one warp per row, 32 elements per step with __shfl_up_sync and a carry.
#include <cuda_runtime.h>

__global__ void cumsum_warp(float* __restrict__ y, const float* __restrict__ x, int N, int C, bool exclusive)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= N) return;
    const float* xr = x + (row) * C;
    float* yr = y + (size_t)row * C;

    float carry = 0.0f;
    for (int base = 0; base < C; base += 32) {
        const int c = base + lane;
        const float v = c < C ? xr[c] : 0.0f;
        float s = v;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const float t = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += t;
        }
        // exclusive: the inclusive value of the previous lane (0 for lane 0)
        float e = __shfl_up_sync(0xffffffffu, s, 1);
        if (lane == 0) e = 0.0f;
        if (c < C) yr[c] = carry + (exclusive ? e : s);
        carry += __shfl_sync(0xffffffffu, s, 31);
    }
}
