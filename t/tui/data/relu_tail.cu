// relu with a seeded bug: the element at the end of each block of 32 is skipped
__global__ void relu_tail(float *y, const float *x, int N)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && threadIdx.x != 31) y[i] = fmaxf(x[i], 0.0f);
  else if (i < N) y[i] = x[i];
}
