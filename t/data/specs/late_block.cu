#include <cuda_runtime.h>
/* a header comment */ /* dirigo:
  op     = "relu",
  sizes  = { N = 100 },
  launch = "relu_kernel<<<(N + 127) / 128, 128>>>(y, x, N)",
*/
__global__ void relu_kernel(float *y, const float *x, int N) {}
