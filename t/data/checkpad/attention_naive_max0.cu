// Causal attention, one thread per output element (b*h, i, d): scores are recomputed per d.
// Slow but obviously right; the reference other kernels are compared with on the GPU.
#include <cuda_runtime.h>
#include <math_constants.h>

__global__ void attention_naive(float* __restrict__ out, const float* __restrict__ q, const float* __restrict__ k,
                                const float* __restrict__ v, int BH, int T, int D)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= BH * T * D) return;
    const int d = idx % D;
    const int i = (idx / D) % T;
    const int bh = idx / (D * T);
    const float* qi = q + ((size_t)bh * T + i) * D;
    const float* kb = k + (size_t)bh * T * D;
    const float* vb = v + (size_t)bh * T * D;
    const float scale = 1.0f / sqrtf((float)D);

    float m = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int e = 0; e < D; ++e) dot += qi[e] * kb[j * D + e];
        m = fmaxf(m, dot * scale);
    }
    float l = 0.0f, acc = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int e = 0; e < D; ++e) dot += qi[e] * kb[j * D + e];
        const float p = expf(dot * scale - m);
        l += p;
        acc += p * vb[j * D + d];
    }
    out[idx] = acc / l;
}
