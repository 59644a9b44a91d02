// Column sums of a row-major {N, C} matrix: one thread per column walks down the rows,
// so consecutive threads read consecutive addresses.
#include <cuda_runtime.h>

__global__ void col_sum(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float s = 0.0f;
#pragma unroll 4
    for (int n = 0; n < N; ++n) s += x[(size_t)n * C + c];
    y[c] = s;
}
