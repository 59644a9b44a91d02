/* dirigo:
  op     = "relu",
  sizes  = { N = 2097152 },
  launch = "relu_refptr<<<65536, 32>>>(y, x, N)",
*/
// A second writer of y[N - 1] hidden in a callee, which stores through a
// reference to the caller's local pointer: the writer inversion
// (check_invert.c) may pass over a call only where no argument reaches a
// pointer (argmax_merge(best, idx, ...) with references to floats and ints),
// so here it gives up and the search finds both writers: thread 0 of block 0
// and thread 31 of block 65535, a race between blocks.
#include <cuda_runtime.h>

__device__ void put(float*& p, int i, float v) { p[i] = v; }

__global__ void relu_refptr(float* y, const float* x, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* q = y;
    if (i < N) y[i] = fmaxf(x[i], 0.0f);
    if (i == 0) put(q, N - 1, 0.5f);
}
