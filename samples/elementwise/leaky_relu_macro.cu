// Leaky ReLU through a macro; the slope comes from the build (-DNEG_SLOPE=0.01f).
#include <cuda_runtime.h>

#ifndef NEG_SLOPE
#error "build with -DNEG_SLOPE=<slope>"
#endif
#define THREADS 256
#define LEAKY(v) ((v) > 0.0f ? (v) : NEG_SLOPE * (v))

__global__ void __launch_bounds__(THREADS)
leaky_relu_kernel(float* __restrict__ y, const float* __restrict__ x, int N)
{
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < N; i += gridDim.x * THREADS) {
        const float v = __ldg(x + i);
        y[i] = LEAKY(v);
    }
}
