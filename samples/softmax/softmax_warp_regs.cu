// Softmax, one warp per row, the row cached in registers (COLS per lane): one global read per element.
#include <cuda_runtime.h>
#include <math_constants.h>

#define FULL_MASK 0xffffffffu

template <int COLS>
__global__ void softmax_warp_regs(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= N) return;
    const float* xr = x + (size_t)row * C;

    float v[COLS];
    float m = -CUDART_INF_F;
#pragma unroll
    for (int i = 0; i < COLS; ++i) {
        const int c = lane + 32 * i;
        v[i] = c < C ? xr[c] : -CUDART_INF_F;  // padding must not change max or sum
        m = fmaxf(m, v[i]);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, o));

    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < COLS; ++i) {
        v[i] = __expf(v[i] - m);
        s += v[i];
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL_MASK, s, o);

    const float inv = __fdividef(1.0f, s);
#pragma unroll
    for (int i = 0; i < COLS; ++i) {
        const int c = lane + 32 * i;
        if (c < C) y[(size_t)row * C + c] = v[i] * inv;
    }
}

template __global__ void softmax_warp_regs<4>(float*, const float*, int, int);
