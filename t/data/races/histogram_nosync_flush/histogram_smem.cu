// Histogram with per-block privatised bins in shared memory: shared atomics for the counting,
// one global atomicAdd per bin per block. h is added to (the caller zeroes it or keeps counting).
#include <cuda_runtime.h>

__global__ void histogram_smem(int* __restrict__ h, const int* __restrict__ x, int N, int K)
{
    extern __shared__ int bins[];
    for (int b = threadIdx.x; b < K; b += blockDim.x) bins[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[x[i]], 1);
    ;

    for (int b = threadIdx.x; b < K; b += blockDim.x)
        if (bins[b] != 0) atomicAdd(&h[b], bins[b]);
}
