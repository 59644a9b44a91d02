// Max pooling, NCHW, one thread per output; the padding ring reads as zero.
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
        for (int j = 0; j < ks; ++j) {
            const int w = w0 + j;
            const bool inside = h >= 0 && h < H && w >= 0 && w < W;
            m = fmaxf(m, inside ? xp[h * W + w] : 0.0f);
        }
    }
    y[idx] = m;
}
