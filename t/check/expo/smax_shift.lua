return problem {
  source = "softmax_exp.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 10 },
  launch = "smax_shift<<<(N + 31) / 32, 32>>>(y, x, N, C)",
}
