// Inclusive/exclusive prefix sum along rows, one block per row. Each BLOCK-wide chunk is scanned
// with a double-buffered Hillis-Steele scan in shared memory; a running carry joins the chunks.
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void cumsum_block(float* __restrict__ y, const float* __restrict__ x, int C, bool exclusive)
{
    __shared__ float buf[2][BLOCK];
    const int tid = threadIdx.x;
    const float* xr = x + (blockIdx.x) * C;
    float* yr = y + (size_t)blockIdx.x * C;

    float carry = 0.0f;
    for (int base = 0; base < C; base += BLOCK) {
        const int c = base + tid;
        const float v = c < C ? xr[c] : 0.0f;
        int cur = 0;
        buf[cur][tid] = v;
        __syncthreads();
#pragma unroll
        for (int off = 1; off < BLOCK; off <<= 1) {
            float t = buf[cur][tid];
            if (tid >= off) t += buf[cur][tid - off];
            buf[cur ^ 1][tid] = t;
            cur ^= 1;
            __syncthreads();
        }
        const float incl = buf[cur][tid];
        if (c < C) yr[c] = carry + (exclusive ? incl - v : incl);
        carry += buf[cur][BLOCK - 1];
        __syncthreads();  // everyone has read the chunk total before the next chunk is stored
    }
}

template __global__ void cumsum_block<64>(float*, const float*, int, bool);
