// Row sums, one block of 128 threads per row: a shared-memory tree down to 64 values, then the
// first warp finishes in shared memory. Since Volta, lanes of a warp are not in lockstep, so each
// warp step reads, synchronises the warp, then writes.
#include <cuda_runtime.h>

#define BLOCK 128

__device__ __forceinline__ void warp_tree(float* s, int tid)
{
#pragma unroll
    for (int off = 32; off > 0; off >>= 1) {
        const float v = s[tid] + s[tid + off];
        __syncwarp();
        s[tid] = v;
        __syncwarp();
    }
}

__global__ void __launch_bounds__(BLOCK) sum_rows_smem(float* __restrict__ y, const float* __restrict__ x, int C)
{
    __shared__ float s[BLOCK];
    const int tid = threadIdx.x;
    const float* xr = x + (blockIdx.x) * C;

    float acc = 0.0f;
    for (int c = tid; c < C; c += BLOCK) acc += xr[c];
    s[tid] = acc;
    __syncthreads();
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
    if (tid < 32) warp_tree(s, tid);
    if (tid == 0) y[blockIdx.x] = s[0];
}
