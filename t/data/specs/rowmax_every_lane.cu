/* dirigo:
  op     = "max",
  sizes  = { N = 65536, C = 8 },
  launch = "rowmax_every_lane<<<N, 32>>>(y, x, N, C)",
*/
// One warp per row; every lane stores the row's maximum (the same value, 32
// stores to one address: a race the engine reports). A grid of 65536 blocks:
// the checker tries to invert the store address (check_invert.c), finds 32
// threads that may store y[row], and falls back to the writer search.
#include <cuda_runtime.h>
#include <math_constants.h>

__global__ void rowmax_every_lane(float* __restrict__ y, const float* __restrict__ x, int N, int C)
{
    const int row = blockIdx.x;
    const int lane = threadIdx.x;
    float m = -CUDART_INF_F;
    for (int c = lane; c < C; c += 32) m = fmaxf(m, x[row * C + c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    y[row] = m;
}
