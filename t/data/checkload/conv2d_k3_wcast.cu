// 3x3 convolution, stride 1, padding 1 ("same"), NCHW. The filter size is a template parameter
// so the window loops unroll; the filter of the block's output channel is staged in shared memory.
#include <cuda_runtime.h>

template <int KS>
__global__ void conv2d_same(float* __restrict__ y, const float* __restrict__ x, const float* __restrict__ w,
                            int C, int H, int W, int K)
{
    extern __shared__ float wsh[];  // C * KS * KS weights of output channel k
    const int k = blockIdx.y, n = blockIdx.z;
    for (int i = threadIdx.x; i < C * KS * KS; i += blockDim.x) wsh[i] = w[(k) * C * KS * KS + i];
    __syncthreads();

    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= H * W) return;
    const int oh = p / W, ow = p % W;
    constexpr int PAD = KS / 2;
    float acc = 0.0f;
    for (int c = 0; c < C; ++c) {
        const float* xc = x + ((size_t)n * C + c) * H * W;
#pragma unroll
        for (int r = 0; r < KS; ++r) {
#pragma unroll
            for (int s = 0; s < KS; ++s) {
                const int ih = oh + r - PAD, iw = ow + s - PAD;
                const bool in = ih >= 0 && ih < H && iw >= 0 && iw < W;
                acc += in ? xc[ih * W + iw] * wsh[(c * KS + r) * KS + s] : 0.0f;
            }
        }
    }
    y[(((size_t)n * K + k) * H + oh) * W + ow] = acc;
}

template __global__ void conv2d_same<3>(float*, const float*, const float*, int, int, int, int);
