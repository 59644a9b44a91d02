// y[n][d] += w[ids[n]][d], one thread per element (64-bit offsets). An
// accumulate output under block sampling: only the elements of the blocks
// that ran may be validated (the writer map), the rest keep their old values.
#include <cuda_runtime.h>

__global__ void gather_add(float* __restrict__ y, const int* __restrict__ ids,
                           const float* __restrict__ w, int N, int D)
{
    const size_t d = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const int n = blockIdx.y;
    if (d >= (size_t)D || n >= N) return;
    y[(size_t)n * D + d] += w[(size_t)ids[n] * D + d];
}
