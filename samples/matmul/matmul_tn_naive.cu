// C = A^T @ B with A stored {K, M}: one thread per output, reads of A and B both coalesced over m/n.
#include <cuda_runtime.h>

__global__ void matmul_tn_naive(float* __restrict__ C, const float* __restrict__ At, const float* __restrict__ B,
                                int M, int N, int K, float alpha)
{
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    const int m = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += At[(size_t)k * M + m] * B[(size_t)k * N + n];
    C[(size_t)m * N + n] = alpha * acc;
}
