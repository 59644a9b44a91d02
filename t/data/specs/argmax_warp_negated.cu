/* dirigo:
  op     = "argmax",
  dtypes = { y = "i32" },
  sizes  = { N = 6, C = 75 },
  launch = "argmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
*/
// samples/reduce/argmax_warp.cu with the merge condition written as a negation (correct, but not in the form smt_select.c recognises: Z3 is asked)
#include <cuda_runtime.h>
#include <math_constants.h>

__device__ __forceinline__ void argmax_merge(float& v, int& i, float ov, int oi)
{
    if (!(ov < v) && (ov != v || oi < i)) {
        v = ov;
        i = oi;
    }
}

__global__ void argmax_warp(int* __restrict__ out, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= N) return;
    const float* xr = x + (size_t)row * C;

    float best = -CUDART_INF_F;
    int idx = C;
    for (int c = lane; c < C; c += 32) argmax_merge(best, idx, xr[c], c);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, best, o);
        const int oi = __shfl_xor_sync(0xffffffffu, idx, o);
        argmax_merge(best, idx, ov, oi);
    }
    if (lane == 0) out[row] = idx;
}
