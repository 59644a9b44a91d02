// Inclusive prefix sum along rows, one block of 64 threads a row (C <= 64), scanned in place in
// the output row (Hillis-Steele). Seeded bug: no __syncthreads() between a step's load of
// yr[c - off] and its store of yr[c], so warp 1 may load yr[31] after or before warp 0 adds to
// it. The emulator runs each statement for the whole block, every load before any store, and its
// sums come out right; the race is warp 0's store of an element warp 1 loaded in the interval.
#include <cuda_runtime.h>

__global__ void cumsum_inplace(float* y, const float* __restrict__ x, int C)
{
    const int c = threadIdx.x;
    float* yr = y + (size_t)blockIdx.x * C;
    if (c < C) yr[c] = x[(size_t)blockIdx.x * C + c];
    __syncthreads();
    for (int off = 1; off < C; off <<= 1) {
        float t = c < C && c >= off ? yr[c - off] : 0.0f;
        if (c < C) yr[c] += t;
        __syncthreads();
    }
}
