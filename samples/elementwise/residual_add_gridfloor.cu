// y = x + alpha * r, one element per thread, with the PyTorch extension wrapper that launches it.
#include <cuda_runtime.h>

__global__ void residual_add_kernel(float* __restrict__ y, const float* __restrict__ x,
                                    const float* __restrict__ r, float alpha, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        y[i] = fmaf(alpha, r[i], x[i]);
    }
}

#ifdef TORCH_EXTENSION_NAME
#include <torch/extension.h>

torch::Tensor residual_add(torch::Tensor x, torch::Tensor r, double alpha)
{
    auto y = torch::empty_like(x);
    const int N = x.numel();
    const int threads = 256;
    residual_add_kernel<<<N / threads, threads>>>(
        y.data_ptr<float>(), x.data_ptr<float>(), r.data_ptr<float>(), (float)alpha, N);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("residual_add", &residual_add); }
#endif
