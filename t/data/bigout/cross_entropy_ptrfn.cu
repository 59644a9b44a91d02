/* dirigo:
  op     = "cross_entropy",
  dtypes = { targets = "i32" },
  ranges = { targets = { 0, "V-1" } },
  sizes  = { N = 7, V = 90 },
  launch = "cross_entropy_fwd<<<(N + 3) / 4, 128>>>(loss, x, targets, N, V, ignore_index)",
*/
// samples/loss/cross_entropy.cu with its row max in a __device__ function that takes a
// pointer into the logits: a call that may store, so the store-address inversion
// (check_invert.c) gives up and the writer of a huge instance is searched block by block
// (t/cli/checkhuge.sh: the budget holds there). Calls without pointers are looked past.
// Per-row cross-entropy from logits, one warp per row: loss = logsumexp(x) - x[target].
// Rows whose target is ignore_index get loss 0.
#include <cuda_runtime.h>
#include <math_constants.h>

#define FULL 0xffffffffu

__device__ float warp_sum(float s)
{
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
    return s;
}

// takes a pointer into the logits: the inversion must assume it may store
__device__ float row_max(const float* x, int lane, int V)
{
    float m = -CUDART_INF_F;
    for (int c = lane; c < V; c += 32) m = fmaxf(m, x[c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL, m, o));
    return m;
}

__global__ void cross_entropy_fwd(float* __restrict__ loss, const float* __restrict__ logits,
                                  const int* __restrict__ targets, int N, int V, int ignore_index)
{
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= N) return;
    const int t = targets[row];
    if (t == ignore_index) {
        if (lane == 0) loss[row] = 0.0f;
        return;
    }
    const float* x = logits + (size_t)row * V;

    const float m = row_max(x, lane, V);
    float s = 0.0f;
    for (int c = lane; c < V; c += 32) s += expf(x[c] - m);
    s = warp_sum(s);

    if (lane == 0) loss[row] = m + logf(s) - x[t];
}
