// Softmax with the online (one-pass) max/sum recurrence, one warp per row:
// each lane keeps (m, d) with d = sum exp(x - m); merging rescales by exp(m_old - m_new).
#include <cuda_runtime.h>
#include <math_constants.h>

struct MD { float m, d; };

__device__ __forceinline__ MD md_merge(MD a, MD b)
{
    const float m = fmaxf(a.m, b.m);
    // guard: a lane that saw no element has m = -inf, and exp(-inf - -inf) is NaN
    const float da = a.m == -CUDART_INF_F ? 0.0f : a.d * __expf(a.m - m);
    const float db = b.m == -CUDART_INF_F ? 0.0f : b.d * __expf(b.m - m);
    return MD{m, da + db};
}

__global__ void softmax_online(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= N) return;
    const float* xr = x + (size_t)row * C;

    MD acc{0.0f, 0.0f};
    for (int c = lane; c < C; c += 32) acc = md_merge(acc, MD{xr[c], 1.0f});
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        MD other;
        other.m = __shfl_xor_sync(0xffffffffu, acc.m, o);
        other.d = __shfl_xor_sync(0xffffffffu, acc.d, o);
        acc = md_merge(acc, other);
    }
    const float inv = 1.0f / acc.d;
    for (int c = lane; c < C; c += 32) y[(size_t)row * C + c] = __expf(xr[c] - acc.m) * inv;
}
