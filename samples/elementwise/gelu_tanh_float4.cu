// GELU (tanh approximation), float4 loads/stores with a scalar tail for N % 4.
#include <cuda_runtime.h>

#define GELU_SCALE 0.7978845608028654f  // sqrt(2/pi)

__device__ __forceinline__ float gelu_tanh(float x)
{
    float cube = 0.044715f * x * x * x;
    return 0.5f * x * (1.0f + tanhf(GELU_SCALE * (x + cube)));
}

__global__ void gelu_tanh_f4(float* __restrict__ y, const float* __restrict__ x, int N)
{
    const int nvec = N / 4;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nvec) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = gelu_tanh(v.x);
        v.y = gelu_tanh(v.y);
        v.z = gelu_tanh(v.z);
        v.w = gelu_tanh(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    }
    // the last N % 4 elements, one per thread of the first block
    if (i < N % 4) {
        const int j = nvec * 4 + i;
        y[j] = gelu_tanh(x[j]);
    }
}
