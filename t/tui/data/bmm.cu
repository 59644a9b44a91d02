// naive batched matmul: one thread per output element
__global__ void bmm_naive(float *c, const float *a, const float *b, int M, int N, int K)
{
  int z = blockIdx.z;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++)
    acc += a[(z * M + i) * K + k] * b[(z * K + k) * N + j];
  c[(z * M + i) * N + j] = acc;
}
