return problem {
  source  = "l2norm_atomic.cu",
  op      = "l2norm",
  sizes   = { N = 5, C = 300 },
  scratch = { acc = { shape = { "N" }, dtype = "f32", zero_bytes = "N*4" } },
  launch  = {
    "sumsq_atomic<<<dim3(2, N), 64>>>(acc, x, N, C)",
    "sqrt_rows<<<(N + 31) / 32, 32>>>(y, acc, N)",
  },
}
