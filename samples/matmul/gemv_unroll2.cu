// y = A @ x, one thread per row, inner loop unrolled by two for ILP.
#include <cuda_runtime.h>

__global__ void gemv_unroll2(float* __restrict__ y, const float* __restrict__ A, const float* __restrict__ x, int M, int K)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M) return;
    const float* a = A + (size_t)row * K;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k = 0; k < K; k += 2) {
        acc0 = fmaf(a[k], x[k], acc0);
        acc1 = fmaf(a[k + 1], x[k + 1], acc1);
    }
    y[row] = acc0 + acc1;
}
