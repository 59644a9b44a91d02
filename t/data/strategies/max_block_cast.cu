/* dirigo:
  seeded_bug = { pattern = "mutant-cast", detail = [==[max_block.cu:16:27: cast to `size_t` dropped]==] },
  op     = "max",
  sizes  = { N = 4, C = 100 },
  launch = "max_block<<<N, 128>>>(y, x, C)",
*/
// Row max, one block per row; each thread seeds its running max from its first element.
#include <cuda_runtime.h>
#include <math_constants.h>

#define BLOCK 128

__global__ void __launch_bounds__(BLOCK) max_block(float* __restrict__ y, const float* __restrict__ x, int C)
{
    __shared__ float s[BLOCK];
    const int tid = threadIdx.x;
    const float* xr = x + (blockIdx.x) * C;

    float m = tid < C ? xr[tid] : -CUDART_INF_F;
    for (int c = tid + BLOCK; c < C; c += BLOCK) m = fmaxf(m, xr[c]);
    s[tid] = m;
    __syncthreads();
#pragma unroll
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] = fmaxf(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) y[blockIdx.x] = s[0];
}
