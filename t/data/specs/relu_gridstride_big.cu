/* dirigo:
  op     = "relu",
  sizes  = { N = 16777216 },
  launch = "relu_kernel<<<65536, 128>>>(y, x, N)",
*/
// samples/elementwise/relu_gridstride.cu on a grid of 65536 blocks: each thread
// stores twice, at i and i + 8388608. The writer of y[i] is found by inverting
// the store address with the loop variable as init + k * stride (check_invert.c).
#include <cuda_runtime.h>

__global__ void relu_kernel(float* __restrict__ y, const float* __restrict__ x, int N)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}
