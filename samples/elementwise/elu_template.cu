// ELU for any element type via a template; math in fp32.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

template <typename T> __device__ __forceinline__ float to_f(T v) { return static_cast<float>(v); }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v) { return static_cast<T>(v); }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half(v); }

template <typename T>
__global__ void elu_kernel(T* __restrict__ y, const T* __restrict__ x, float alpha, int N)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float v = to_f(x[i]);
    y[i] = from_f<T>(v > 0.0f ? v : alpha * expm1f(v));
}

template __global__ void elu_kernel<float>(float*, const float*, float, int);
template __global__ void elu_kernel<__half>(__half*, const __half*, float, int);
