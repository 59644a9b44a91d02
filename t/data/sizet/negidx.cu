// A negative int converted to size_t indexes as the GPU's 64-bit address
// arithmetic does: it wraps. x[(size_t)0 + A * 40] with A * 40 past INT_MAX
// (int overflow: -2147483616) is x - 2147483616, byte -8589934464.
__global__ void negidx(float* y, const float* x, int N, int A)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) y[i] = x[(size_t)0 + A * 40] + x[i];
}
