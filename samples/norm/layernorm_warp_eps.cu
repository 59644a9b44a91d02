// LayerNorm forward, one warp per row, two-pass mean/variance (as llm.c's layernorm_forward_kernel3).
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void layernorm_warp(float* __restrict__ out, const float* __restrict__ inp,
                               const float* __restrict__ weight, const float* __restrict__ bias,
                               int N, int C, float eps)
{
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= N) return;
    const float* x = inp + (size_t)row * C;

    float sum = 0.0f;
    for (int c = lane; c < C; c += 32) sum += x[c];
    const float mean = warp_sum(sum) / C;

    float var = 0.0f;
    for (int c = lane; c < C; c += 32) {
        const float d = x[c] - mean;
        var += d * d;
    }
    const float rstd = 1.0f / (sqrtf(warp_sum(var) / C) + eps);

    float* o = out + (size_t)row * C;
    for (int c = lane; c < C; c += 32) o[c] = (x[c] - mean) * rstd * weight[c] + bias[c];
}

#ifdef TORCH_EXTENSION_NAME
#include <torch/extension.h>

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps)
{
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32, "x: contiguous f32 CUDA");
    const int C = x.size(-1), N = x.numel() / C;
    auto out = torch::empty_like(x);
    const int warps_per_block = 4;
    layernorm_warp<<<(N + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(
        out.data_ptr<float>(), x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), N, C, (float)eps);
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &layernorm_forward, "LayerNorm forward (CUDA)"); }
#endif
