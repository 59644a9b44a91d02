// index_add of rows: y[index[i], :] += src[i, :], one thread per source element.
#include <cuda_runtime.h>

__global__ void scatter_add_rows(float* __restrict__ y, const float* __restrict__ src, const int* __restrict__ index,
                                 int N, int D)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= N * D) return;
    const int i = t / D, d = t % D;
    y[(size_t)index[i] * D + d] = src[t];
}
