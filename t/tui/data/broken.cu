__global__ void k(float *y, int n)
{
  int i = threadIdx.x
  if (i < n) y[i] = 1.0f;
}
