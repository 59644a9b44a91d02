// LayerNorm forward, one warp per row, one pass: each lane runs Welford's update over its
// elements into a {mean, m2, count} struct, then the warp combines the lanes' structs pairwise
// (Chan et al.'s parallel merge) through a butterfly of shuffles, one per field.
#include <cuda_runtime.h>

struct Welford {
    float mean;  // running mean
    float m2;    // sum of squared deviations from the mean
    int count;   // elements seen
};

__device__ __forceinline__ Welford welford_push(Welford w, float x)
{
    w.count += 1;
    const float d = x - w.mean;
    w.mean += d / w.count;
    w.m2 += d * (x - w.mean);
    return w;
}

// Chan's merge: the combined mean, m2 plus the between-group term.
__device__ __forceinline__ Welford welford_merge(const Welford& a, const Welford& b)
{
    const int n = a.count + b.count;
    if (n == 0) return a;
    const float nb_n = (float)b.count / n;
    const float delta = b.mean - a.mean;
    Welford r;
    r.mean = 0.5f * (a.mean + b.mean);
    r.m2 = a.m2 + b.m2 + delta * delta * a.count * nb_n;
    r.count = n;
    return r;
}

__global__ void layernorm_welford(float* __restrict__ out, const float* __restrict__ inp,
                                  const float* __restrict__ weight, const float* __restrict__ bias,
                                  int N, int C, float eps)
{
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= N) return;
    const float* x = inp + (size_t)row * C;

    Welford w = {0.0f, 0.0f, 0};
    for (int c = lane; c < C; c += 32) w = welford_push(w, x[c]);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        Welford other;
        other.mean = __shfl_xor_sync(0xffffffffu, w.mean, o);
        other.m2 = __shfl_xor_sync(0xffffffffu, w.m2, o);
        other.count = __shfl_xor_sync(0xffffffffu, w.count, o);
        w = welford_merge(w, other);
    }
    const float rstd = rsqrtf(w.m2 / C + eps);

    float* o = out + (size_t)row * C;
    for (int c = lane; c < C; c += 32) o[c] = (x[c] - w.mean) * rstd * weight[c] + bias[c];
}

#ifdef TORCH_EXTENSION_NAME
#include <torch/extension.h>

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps)
{
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32, "x: contiguous f32 CUDA");
    const int C = x.size(-1), N = x.numel() / C;
    auto out = torch::empty_like(x);
    const int warps_per_block = 4;
    layernorm_welford<<<(N + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(
        out.data_ptr<float>(), x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), N, C, (float)eps);
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &layernorm_forward, "LayerNorm forward (CUDA)"); }
#endif
