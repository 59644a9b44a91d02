// Softmax, one thread per row: three passes over the row from one thread. Fine for small C.
#include <cuda_runtime.h>
#include <math_constants.h>

__global__ void softmax_thread_row(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const float* xr = x + (size_t)row * C;
    float* yr = y + (size_t)row * C;

    float m = -CUDART_INF_F;
    for (int c = 0; c < C; ++c) m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < C; ++c) {
        const float e = expf(xr[c] - m);
        yr[c] = e;
        s += e;
    }
    const float inv = 1.0f / s;
    for (int c = 0; c < C; ++c) yr[c] *= inv;
}
