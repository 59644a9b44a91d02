return problem {
  source = "softmax_exp.cu",
  op     = "sigmoid",
  sizes  = { N = 100 },
  launch = "sigmoid<<<(N + 63) / 64, 64>>>(y, x, N)",
}
