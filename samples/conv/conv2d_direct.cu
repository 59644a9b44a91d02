// Direct 2-D convolution, NCHW x KCRS, one thread per output element; stride/padding/dilation.
#include <cuda_runtime.h>

__global__ void conv2d_direct(float* __restrict__ y, const float* __restrict__ x, const float* __restrict__ w,
                              int N, int C, int H, int W, int K, int R, int S, int OH, int OW,
                              int stride, int pad, int dil)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * K * OH * OW) return;
    const int ow = idx % OW;
    const int oh = (idx / OW) % OH;
    const int k = (idx / (OW * OH)) % K;
    const int n = idx / (OW * OH * K);

    float acc = 0.0f;
    for (int c = 0; c < C; ++c) {
        const float* xc = x + ((size_t)n * C + c) * H * W;
        const float* wc = w + ((size_t)k * C + c) * R * S;
        for (int r = 0; r < R; ++r) {
            const int ih = oh * stride - pad + r * dil;
            if (ih < 0 || ih >= H) continue;
            for (int s = 0; s < S; ++s) {
                const int iw = ow * stride - pad + s * dil;
                if (iw < 0 || iw >= W) continue;
                acc = fmaf(xc[ih * W + iw], wc[r * S + s], acc);
            }
        }
    }
    y[idx] = acc;
}
