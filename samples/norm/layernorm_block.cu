// LayerNorm forward, one block per row; sum and sum of squares reduced in one sweep
// (warp shuffles, then one partial per warp in shared memory, then warp 0). The values are
// shifted by the row's first element first, so E[x^2] - E[x]^2 does not cancel catastrophically
// when the mean is large against the spread.
#include <cuda_runtime.h>

#define WARP_SIZE 32

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <int BLOCK>
__global__ void layernorm_block(float* __restrict__ out, const float* __restrict__ inp,
                                const float* __restrict__ w, const float* __restrict__ b, int C, float eps)
{
    constexpr int NWARPS = BLOCK / WARP_SIZE;
    static_assert(BLOCK % WARP_SIZE == 0 && NWARPS <= WARP_SIZE, "block shape");
    __shared__ float s_sum[NWARPS];
    __shared__ float s_sq[NWARPS];
    __shared__ float s_mean, s_rstd;

    const int tid = threadIdx.x, lane = tid % WARP_SIZE, warp = tid / WARP_SIZE;
    const float* x = inp + (size_t)blockIdx.x * C;

    const float shift = x[0];
    float sum = 0.0f, sq = 0.0f;
    for (int c = tid; c < C; c += BLOCK) {
        const float v = x[c] - shift;
        sum += v;
        sq += v * v;
    }
    sum = warp_sum(sum);
    sq = warp_sum(sq);
    if (lane == 0) {
        s_sum[warp] = sum;
        s_sq[warp] = sq;
    }
    __syncthreads();
    if (warp == 0) {
        sum = lane < NWARPS ? s_sum[lane] : 0.0f;
        sq = lane < NWARPS ? s_sq[lane] : 0.0f;
        sum = warp_sum(sum);
        sq = warp_sum(sq);
        if (lane == 0) {
            const float dmean = sum / C;  // mean of the shifted values
            s_mean = shift + dmean;
            s_rstd = rsqrtf(sq / C - dmean * dmean + eps);
        }
    }
    __syncthreads();
    const float mean = s_mean, rstd = s_rstd;
    float* o = out + (size_t)blockIdx.x * C;
    for (int c = tid; c < C; c += BLOCK) o[c] = (x[c] - mean) * rstd * w[c] + b[c];
}

template __global__ void layernorm_block<256>(float*, const float*, const float*, const float*, int, float);
