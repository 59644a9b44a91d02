// The out-of-bounds loads are on the side of a ?: the concrete run's normal
// values never take; the symbolic run evaluates both sides.
__global__ void oob_opaque(float* y, const float* x, int N, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float s = x[i];
        for (int k = 0; k < K; ++k) s += x[0] > 1e30f ? x[N + k] : 0.0f;
        y[i] = s;
    }
}
