// A vectorised SiLU that drops the tail: n % 4 != 0 loses the last elements; N = 1000 hides it.
/* dirigo:
  op     = "silu",
  sizes  = { N = 1000 },
  launch = "silu_vec4<<<(N / 4 + 255) / 256, 256>>>(y, x, N)",
*/
#include <cuda_runtime.h>

__global__ void silu_vec4(float* __restrict__ y, const float* __restrict__ x, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i + 3 < n) {
        float4 v = *reinterpret_cast<const float4*>(x + i);
        v.x = v.x / (1.0f + __expf(-v.x));
        v.y = v.y / (1.0f + __expf(-v.y));
        v.z = v.z / (1.0f + __expf(-v.z));
        v.w = v.w / (1.0f + __expf(-v.w));
        *reinterpret_cast<float4*>(y + i) = v;
    }
}
