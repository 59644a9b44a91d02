return problem {
  source = "sum_chunks.cu",
  op     = "sum",
  sizes  = { N = 40, C = 37 },
  launch = "sum_chunks<<<(N + 31) / 32, 32>>>(y, x, N, C, 0)",
}
