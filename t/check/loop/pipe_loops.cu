// Grid-stride partial sums and their combination (t/check/runaway.sh):
// part_sum is correct however long its loop runs; the part_sum_* variants
// never advance their loop variable and loop forever.
__global__ void part_sum(const float* x, float* part, int C)
{
    __shared__ float sh[64];
    float s = 0.0f;
    for (int c = blockIdx.x * 64 + threadIdx.x; c < C; c += 64 * gridDim.x) s += x[c];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int k = 32; k > 0; k >>= 1) {
        if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}
__global__ void part_sum_zero(const float* x, float* part, int C)
{
    __shared__ float sh[64];
    float s = 0.0f;
    for (int c = blockIdx.x * 64 + threadIdx.x; c < C; c += 0) s += x[c];
    sh[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < 64; ++k) t += sh[k];
        part[blockIdx.x] = t;
    }
}
__global__ void part_sum_stride0(const float* x, float* part, int C)
{
    __shared__ float sh[64];
    float s = 0.0f;
    int stride = blockDim.x * 0;
    for (int c = blockIdx.x * 64 + threadIdx.x; c < C; c += stride) s += x[c];
    sh[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < 64; ++k) t += sh[k];
        part[blockIdx.x] = t;
    }
}
__global__ void combine(const float* part, float* y, int P)
{
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int p = 0; p < P; ++p) s += part[p];
        y[0] = s;
    }
}
// one thread walks the whole row: C iterations
__global__ void sum_one(const float* x, float* y, int C)
{
    float s = 0.0f;
    for (int c = 0; c < C; ++c) s += x[c];
    y[0] = s;
}
// the increment is missing: c never moves
__global__ void sum_stuck(const float* x, float* y, int C)
{
    float s = 0.0f;
    int c = threadIdx.x;
    while (c < C) {
        s += x[c];
    }
    y[0] = s;
}
// R passes over the row, the last one kept: correct, and R * C iterations long
__global__ void rep_sum(const float* x, float* y, int C, int R)
{
    float s = 0.0f;
    for (int r = 0; r < R; ++r) {
        float t = 0.0f;
        for (int c = 0; c < C; ++c) t += x[c];
        s = t;
    }
    if (blockIdx.x == 0) y[0] = s;
}
// block 0 drops the last element (a bug, in a cheap block); block 1 spins
// R * C iterations and stores nothing
__global__ void drop_last_spin(const float* x, float* y, int C, int R)
{
    if (blockIdx.x == 0) {
        float s = 0.0f;
        for (int c = 0; c + 1 < C; ++c) s += x[c];
        y[0] = s;
    } else {
        float t = 0.0f;
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) t += x[c];
    }
}
