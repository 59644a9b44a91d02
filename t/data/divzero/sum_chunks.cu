// Row sums in `chunks` chunks of C / chunks columns, then the tail. With
// chunks == 0 the sum is still right (no chunk, the tail is the row), but
// `len /= chunks` divides by zero first: undefined behaviour whatever the
// values (a GPU does not trap; the quotient is garbage, unused here).
__global__ void sum_chunks(float* y, const float* x, int N, int C, int chunks)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    int len = C;
    len /= chunks;
    float s = 0.0f;
    for (int k = 0; k < chunks; k++)
        for (int c = 0; c < len; c++) s += x[row * C + k * len + c];
    for (int c = chunks * len; c < C; c++) s += x[row * C + c];
    y[row] = s;
}

// One row per team of blockDim.x / TEAMS threads, lane 0 of a team sums it.
// Written for blocks of at least TEAMS threads: with fewer a team has no
// thread, and threadIdx.x / T (unsigned) divides by zero.
template <int TEAMS>
__global__ void sum_teams(float* y, const float* x, int N, int C)
{
    const unsigned T = blockDim.x / TEAMS;
    const unsigned team = threadIdx.x / T, lane = threadIdx.x % T;
    const int row = blockIdx.x * TEAMS + team;
    if (row >= N || lane != 0) return;
    float s = 0.0f;
    for (int c = 0; c < C; c++) s += x[row * C + c];
    y[row] = s;
}

// sum_chunks with the chunk length in one uniform expression (the engine's
// uniform programs never divide by anything but a literal other than 0 and -1).
__global__ void sum_chunks_expr(float* y, const float* x, int N, int C, int chunks)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const int len = (C + 0) / chunks + 0 * row;
    const int tail = chunks * (C / chunks);
    float s = 0.0f;
    for (int k = 0; k < chunks; k++)
        for (int c = 0; c < len; c++) s += x[row * C + k * len + c];
    for (int c = tail; c < C; c++) s += x[row * C + c];
    y[row] = s;
}
