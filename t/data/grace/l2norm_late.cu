// l2norm_last's bug: each block fences, counts itself with atomicAdd, then stores its partial; the
// fence and the atomic publish nothing stored after them: on a GPU the block that counts last may
// add the other's partial before it lands (the emulator runs blocks in turn: the norm comes out right).
#include <cuda_runtime.h>

__global__ void sumsq_last(float* __restrict__ y, float* part, int* count, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.y;
    const float* xr = x + (size_t)row * C;
    float s = 0.0f;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < C; c += gridDim.x * blockDim.x) s += xr[c] * xr[c];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) {
        __threadfence();
        int v = atomicAdd(&count[row], 1);
        part[row * gridDim.x + blockIdx.x] = s;
        if (v == gridDim.x - 1) {
            float t = 0.0f;
            for (int b = 0; b < gridDim.x; b++) t += part[row * gridDim.x + b];
            y[row] = sqrtf(t);
            count[row] = 0;
        }
    }
}
