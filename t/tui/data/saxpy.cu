// saxpy: y = a*x + y, one thread per element
#define BLOCK 256

__device__ float twice(float v) { return 2.0f * v; }

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void saxpy_twice(int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = twice(a * x[i]) + y[i];   /* “wide” · chars: ü 漢字 */
}

int main()
{
  saxpy<<<(1000 + BLOCK - 1) / BLOCK, BLOCK>>>(1000, 2.0f, 0, 0);
  return 0;
}
