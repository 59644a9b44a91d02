// Exact GELU, float4 grid-stride body plus a grid-stride scalar remainder.
#include <cuda_runtime.h>

#define INV_SQRT2 0.70710678118654752f

__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * INV_SQRT2)); }

__global__ void gelu_erf_vec(float* __restrict__ y, const float* __restrict__ x, int N)
{
    const int stride = gridDim.x * blockDim.x;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int nvec = N >> 2;
    for (int i = tid; i < nvec; i += stride) {
        float4 v = __ldg(reinterpret_cast<const float4*>(x) + i);
        v.x = gelu_erf(v.x);
        v.y = gelu_erf(v.y);
        v.z = gelu_erf(v.z);
        v.w = gelu_erf(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    }
    for (int i = (nvec << 2) + tid; i < N; i += stride) {
        y[i] = gelu_erf(x[i]);
    }
}
