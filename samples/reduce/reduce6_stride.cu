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
    const unsigned int gridSize = blockSize * gridDim.x;

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

    if (blockSize >= 512) { if (tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256]; __syncthreads(); }
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
