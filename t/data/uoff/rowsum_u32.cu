// One block of one thread per row. The row's offset blockIdx.x * C is an unsigned int
// product (unsigned int * int -> unsigned int in C++): in bounds for every
// row below 2^32 elements, past 2^31 too. The symbolic run once read it as a
// signed 32-bit value and reported a load at a negative offset that the
// emulator never made (t/check/uoff.sh).
__global__ void rowsum_u32(float* y, const float* x, int C)
{
    const float* r = x + blockIdx.x * C;
    float s = 0.0f;
    for (int c = 0; c < C; c++) s += r[c];
    y[blockIdx.x] = s;
}

// The same offset added in two steps: a pointer += an unsigned count.
__global__ void rowsum_u32_step(float* y, const float* x, int C)
{
    const float* r = x;
    r += blockIdx.x * C;
    float s = 0.0f;
    for (int c = 0; c < C; c++) s += r[c];
    y[blockIdx.x] = s;
}
