// (B, T, H, D) -> (B, H, T, D): split attention heads out of a fused projection.
// One thread per output element; the index is decomposed in output order so writes coalesce.
#include <cuda_runtime.h>

__global__ void permute_0213(float* __restrict__ out, const float* __restrict__ inp, int B, int T, int H, int D)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H * T * D) return;
    const int d = idx % D;
    const int t = (idx / D) % T;
    const int h = (idx / (D * T)) % H;
    const int b = idx / (D * T * H);
    out[idx] = __ldg(&inp[((b * T + t) * H + h) * D + d]);
}
