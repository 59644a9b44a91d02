// A gather with 64-bit row offsets that is wrong only for the last rows of a
// table past 2^31 elements: right at every size the emulator can hold, found
// only by validating what the sampled blocks of a huge case wrote.
#include <cuda_runtime.h>

__global__ void embedding_gather(float* __restrict__ out, const int* __restrict__ ids,
                                 const float* __restrict__ table, int N, int D)
{
    const int n = blockIdx.x;
    if (n >= N) return;
    const int id = ids[n];
    const float* row = table + (size_t)id * D;
    float* dst = out + (size_t)n * D;
    const float scale = (size_t)id * D >= (1ull << 31) ? 2.0f : 1.0f;
    for (int d = threadIdx.x; d < D; d += blockDim.x) dst[d] = __ldg(row + d) * scale;
}
