/* dirigo:
  op     = "relu",
  sizes  = { N = 100 },
  launch = "relu_kernel<<<(N + 127) / 128, 128>>>(y, q, N)",
*/
__global__ void relu_kernel(float *y, const float *x, int N) {}
