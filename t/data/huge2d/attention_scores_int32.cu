// Scaled causal scores S = QK^T / sqrt(D), one thread per (bh, i, j); the masked upper triangle is
// written as -inf for a following softmax (the reference leaves it unchecked).
#include <cuda_runtime.h>
#include <math_constants.h>

__global__ void attention_scores(float* __restrict__ s, const float* __restrict__ q, const float* __restrict__ k,
                                 int BH, int T, int D)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y;
    const int bh = blockIdx.z;
    if (j >= T) return;
    float* out = s + ((size_t)bh * T + i) * T;
    if (j > i) {
        out[j] = -CUDART_INF_F;
        return;
    }
    const float* qi = q + ((bh) * T + i) * D;
    const float* kj = k + ((size_t)bh * T + j) * D;
    float dot = 0.0f;
#pragma unroll 8
    for (int e = 0; e < D; ++e) dot = fmaf(qi[e], kj[e], dot);
    out[j] = dot * rsqrtf((float)D);
}
