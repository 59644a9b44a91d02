// Sum reduction after the CUDA samples' reduce6: several elements per thread in a grid-stride
// loop, a shared-memory tree, then a warp finished with shuffles. One launch turns n values into
// one partial sum per block; a second launch with one block sums the partials.
#include <cuda_runtime.h>

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T* __restrict__ g_idata, T* __restrict__ g_odata, unsigned int n)
{
    extern __shared__ unsigned char smem_raw[];
    T* sdata = reinterpret_cast<T*>(smem_raw);

    const unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    const unsigned int gridSize = blockSize * 2 * gridDim.x;

    T mySum = 0;
    // we reduce multiple elements per thread; the number is determined by the number of blocks
    while (i < n) {
        mySum += g_idata[i];
        // ensure we don't read out of bounds -- this is optimised away for powerOf2 sized arrays
        if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = mySum;
    __syncthreads();

    if (blockSize >= 512) { if (tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256]; ; }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64]; __syncthreads(); }

    if (tid < 32) {
        if (blockSize >= 64) mySum += sdata[tid + 32];
        for (int offset = warpSize / 2; offset > 0; offset /= 2)
            mySum += __shfl_down_sync(0xffffffffu, mySum, offset);
    }
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

template __global__ void reduce6<float, 256, false>(const float*, float*, unsigned int);
template __global__ void reduce6<float, 256, true>(const float*, float*, unsigned int);
template __global__ void reduce6<float, 64, false>(const float*, float*, unsigned int);

// Host side: sum 2^20 ones with 64 blocks, then the 64 partials with one block.
#include <cstdio>
#include <vector>

int main()
{
    const unsigned int n = 1u << 20;
    const int threads = 256, blocks = 64;
    std::vector<float> h(n, 1.0f);
    float *d_in, *d_part, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_part, blocks * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    reduce6<float, 256, true><<<blocks, threads, threads * sizeof(float)>>>(d_in, d_part, n);
    reduce6<float, 64, false><<<1, 64, 64 * sizeof(float)>>>(d_part, d_out, blocks);
    float sum = 0.0f;
    cudaMemcpy(&sum, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum = %.1f (expected %u)\n", sum, n);
    cudaFree(d_in);
    cudaFree(d_part);
    cudaFree(d_out);
    return sum == (float)n ? 0 : 1;
}
