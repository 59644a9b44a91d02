// The signed twin of rowsum_u32.cu: `int row` makes row * C a signed int
// product, which wraps past 2^31 elements to a negative offset (a genuine
// out-of-bounds load at huge sizes).
__global__ void rowsum_i32(float* y, const float* x, int C)
{
    int row = blockIdx.x;
    const float* r = x + row * C;
    float s = 0.0f;
    for (int c = 0; c < C; c++) s += r[c];
    y[row] = s;
}
