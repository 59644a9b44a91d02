// One AdamW step in place (as llm.c's adamw_kernel2): moments via lerp, decoupled weight decay.
// The step counter t starts at 1.
#include <cuda_runtime.h>

__device__ __forceinline__ float lerp(float start, float end, float weight)
{
    return fmaf(weight, end, fmaf(-weight, start, start));
}

__global__ void adamw_kernel(float* __restrict__ params, const float* __restrict__ grads,
                             float* __restrict__ m_mem, float* __restrict__ v_mem, long num_parameters,
                             float lr, float beta1, float beta2, float eps, float weight_decay, int t)
{
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;
    const float grad = grads[i];
    float m = lerp(grad, m_mem[i], beta1);
    float v = lerp(grad * grad, v_mem[i], beta2);
    m_mem[i] = m;
    v_mem[i] = v;
    params[i] -= lr * (m / (sqrtf(v) + eps) + weight_decay * params[i]);
}
