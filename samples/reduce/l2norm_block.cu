// Row L2 norm, one block per row: grid-stride sum of squares, warp shuffles, one partial per warp.
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void l2norm_block(float* __restrict__ y, const float* __restrict__ x, int C)
{
    __shared__ float partial[BLOCK / 32];
    const float* xr = x + (size_t)blockIdx.x * C;
    float ss = 0.0f;
    for (int c = threadIdx.x; c < C; c += BLOCK) ss = fmaf(xr[c], xr[c], ss);
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffffu, ss, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
#pragma unroll
        for (int w = 0; w < BLOCK / 32; ++w) t += partial[w];
        y[blockIdx.x] = sqrtf(t);
    }
}

template __global__ void l2norm_block<128>(float*, const float*, int);
