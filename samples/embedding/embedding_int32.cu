// Embedding lookup: one block per token, threads copy the row of its id.
#include <cuda_runtime.h>

__global__ void embedding_gather(float* __restrict__ out, const int* __restrict__ ids,
                                 const float* __restrict__ table, int N, int D)
{
    const int n = blockIdx.x;
    if (n >= N) return;
    const int id = ids[n];
    const float* row = table + id * D;
    float* dst = out + n * D;
    for (int d = threadIdx.x; d < D; d += blockDim.x) dst[d] = __ldg(row + d);
}
