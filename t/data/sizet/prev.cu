// y[i] = relu(x[i]), read through a row pointer two past the element and a
// size_t index of -2: row[(size_t)(j - 2)] is row[-2] on the GPU (64-bit
// address arithmetic wraps), inside x for every i: correct.
__global__ void prev(float* y, const float* x, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        const float* row = x + i + 2;
        int j = 0;
        float v = row[(size_t)(j - 2)];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}
