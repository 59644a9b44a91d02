// Row sums, one thread a row. rowsum_uninit forgets to start its
// accumulator at zero (a register that happens to hold 0 on most GPUs);
// rowsum_late declares it without a value and sets it before any read.
__global__ void rowsum_uninit(float* y, const float* x, int N, int C)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= N) return;
    float s;
    for (int c = 0; c < C; ++c) s += x[(size_t)r * C + c];
    y[r] = s;
}

__global__ void rowsum_late(float* y, const float* x, int N, int C)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float s;
    if (r < N) {
        s = 0.0f;
        for (int c = 0; c < C; ++c) s += x[(size_t)r * C + c];
        y[r] = s;
    }
}
