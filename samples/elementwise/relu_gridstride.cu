/* dirigo:
  op     = "relu",
  sizes  = { N = 1000 },
  launch = "relu_kernel<<<2, 128>>>(y, x, N)",
*/
// ReLU with a grid-stride loop: a fixed small grid covers any N.
#include <cuda_runtime.h>

__global__ void relu_kernel(float* __restrict__ y, const float* __restrict__ x, int N)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}
