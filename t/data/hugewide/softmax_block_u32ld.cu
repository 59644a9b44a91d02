// Softmax, one block per row, block-wide reductions through shared memory.
#include <cuda_runtime.h>
#include <math_constants.h>

struct MaxOp { __device__ static float apply(float a, float b) { return fmaxf(a, b); } };
struct SumOp { __device__ static float apply(float a, float b) { return a + b; } };

// Tree reduction over BLOCK values; every thread returns the total.
template <typename Op, int BLOCK>
__device__ __forceinline__ float block_reduce(float v, float* smem)
{
    smem[threadIdx.x] = v;
    __syncthreads();
#pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) smem[threadIdx.x] = Op::apply(smem[threadIdx.x], smem[threadIdx.x + s]);
        __syncthreads();
    }
    const float r = smem[0];
    __syncthreads();  // smem[0] is read by all before the next reduction overwrites it
    return r;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) softmax_block(float* __restrict__ y, const float* __restrict__ x, int C)
{
    __shared__ float smem[BLOCK];
    const float* xr = x + (blockIdx.x) * C;
    float* yr = y + (size_t)blockIdx.x * C;

    float m = -CUDART_INF_F;
    for (int c = threadIdx.x; c < C; c += BLOCK) m = fmaxf(m, xr[c]);
    m = block_reduce<MaxOp, BLOCK>(m, smem);

    float s = 0.0f;
    for (int c = threadIdx.x; c < C; c += BLOCK) s += expf(xr[c] - m);
    s = block_reduce<SumOp, BLOCK>(s, smem);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < C; c += BLOCK) yr[c] = expf(xr[c] - m) * inv;
}

template __global__ void softmax_block<128>(float*, const float*, int);
