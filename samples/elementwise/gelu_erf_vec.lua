return problem {
  source = "gelu_erf_vec.cu",
  op     = "gelu_erf",
  sizes  = { N = 1027 },
  launch = "gelu_erf_vec<<<2, 64>>>(y, x, N)",
}
