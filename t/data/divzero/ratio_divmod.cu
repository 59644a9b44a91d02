// num / den as an integer quotient plus the remainder's fraction: equal to
// num / den over the reals whenever den != 0. A zero den is undefined
// behaviour in C++ (the GPU does not trap: the result is garbage), and so
// is INT_MIN / -1 (t/check/divzero.sh).
__global__ void ratio_divmod(float* y, const int* num, const int* den, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        int q = num[i] / den[i];
        int r = num[i] % den[i];
        y[i] = (float)q + (float)r / (float)den[i];
    }
}

// The same, guarded: a zero den takes the float division, whose 1/0 is an
// infinity as the reference's (no undefined behaviour). The symbolic run
// merges both sides, so the solver's zero reaches the division's term; only
// the replay shows that no thread divides by it.
__global__ void ratio_guarded(float* y, const int* num, const int* den, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        int d = den[i];
        if (d != 0 && d != -1) {
            int q = num[i] / d;
            int r = num[i] % d;
            y[i] = (float)q + (float)r / (float)d;
        } else {
            y[i] = (float)num[i] / (float)d;
        }
    }
}

// Guarded against a zero den only: INT_MIN / -1 still overflows (undefined).
__global__ void ratio_guard0(float* y, const int* num, const int* den, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        int d = den[i];
        if (d != 0) {
            int q = num[i] / d;
            int r = num[i] % d;
            y[i] = (float)q + (float)r / (float)d;
        } else {
            y[i] = (float)num[i] / (float)d;
        }
    }
}
