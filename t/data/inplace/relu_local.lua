return problem { source = "relu_inplace.cu", op = "relu", sizes = { N = 100 },
                 launch = "relu_local<<<(N + 63) / 64, 64>>>(y, x, N)" }
