// Embedding lookup: one block per token, threads copy the row of its id. 64-bit row offsets,
// since V * D passes 2^31 for large vocabularies with wide rows.
#include <cuda_runtime.h>

__global__ void embedding_gather(float* __restrict__ out, const int* __restrict__ ids,
                                 const float* __restrict__ table, int N, int D)
{
    const int n = blockIdx.x;
    if (n >= N) return;
    const float* row = table + (size_t)ids[n] * D;
    float* dst = out + (n) * D;
    for (int d = threadIdx.x; d < D; d += blockDim.x) dst[d] = __ldg(row + d);
}
