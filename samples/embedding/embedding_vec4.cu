// Embedding lookup with int64 ids and float4 copies (D % 4 == 0); grid.y is the token,
// grid.x strides over the row so wide rows use several blocks.
#include <cuda_runtime.h>

__global__ void embedding_vec4(float* __restrict__ out, const long long* __restrict__ ids,
                               const float* __restrict__ table, int N, int D)
{
    const int n = blockIdx.y;
    const int D4 = D / 4;
    const float4* src = reinterpret_cast<const float4*>(table + ids[n] * (long long)D);
    float4* dst = reinterpret_cast<float4*>(out + (size_t)n * D);
    for (int d = blockIdx.x * blockDim.x + threadIdx.x; d < D4; d += gridDim.x * blockDim.x) dst[d] = src[d];
}
