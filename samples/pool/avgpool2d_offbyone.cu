// Average pooling, NCHW, one thread per output. include_pad selects the divisor:
// kernel^2, or the number of window elements inside the image.
#include <cuda_runtime.h>

__global__ void avgpool2d(float* __restrict__ y, const float* __restrict__ x,
                          int NC, int H, int W, int OH, int OW, int ks, int stride, int pad, bool include_pad)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= NC * OH * OW) return;
    const int ow = idx % OW, oh = (idx / OW) % OH, nc = idx / (OW * OH);
    int hstart = oh * stride - pad, wstart = ow * stride - pad;
    const int hend = min(hstart + ks, H - 1), wend = min(wstart + ks, W - 1);  // last valid row/column
    hstart = max(hstart, 0);
    wstart = max(wstart, 0);

    const float* xp = x + (size_t)nc * H * W;
    float s = 0.0f;
    for (int h = hstart; h < hend; ++h)
        for (int w = wstart; w < wend; ++w) s += xp[h * W + w];
    const int count = include_pad ? ks * ks : (hend - hstart) * (wend - wstart);
    y[idx] = s / count;
}
