// Max pooling, NCHW, one thread per output; window positions in the padding are skipped.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void maxpool2d(float* __restrict__ y, const float* __restrict__ x,
                          int NC, int H, int W, int OH, int OW, int ks, int stride, int pad)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= NC * OH * OW) return;
    const int ow = idx % OW, oh = (idx / OW) % OH, nc = idx / (OW * OH);
    const float* xp = x + (size_t)nc * H * W;
    const int h0 = oh * stride - pad, w0 = ow * stride - pad;

    float m = -FLT_MAX;
    for (int i = 0; i < ks; ++i) {
        const int h = h0 + i;
        if (h < 0 || h >= H) continue;
        for (int j = 0; j < ks; ++j) {
            const int w = w0 + j;
            if (w < 0 || w >= W) continue;
            m = fmaxf(m, xp[h * W + w]);
        }
    }
    y[idx] = m;
}
