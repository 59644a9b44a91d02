// GELU (tanh form) on bf16 data, two elements per thread through __nv_bfloat162; fp32 math.
#include <cuda_bf16.h>

#define SQRT_2_OVER_PI 0.7978845608028654f

__device__ __forceinline__ float gelu_f(float x)
{
    const float u = SQRT_2_OVER_PI * fmaf(0.044715f * x, x * x, x);
    return 0.5f * x * (1.0f + tanhf(u));
}

__global__ void gelu_bf16x2(__nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ x, int N)
{
    const int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i + 1 < N) {
        const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(x + i));
        *reinterpret_cast<__nv_bfloat162*>(y + i) = __floats2bfloat162_rn(gelu_f(f.x), gelu_f(f.y));
    } else if (i < N) {
        y[i] = __float2bfloat16(gelu_f(__bfloat162float(x[i])));
    }
}
