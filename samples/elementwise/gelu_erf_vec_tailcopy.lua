return problem {
  source = "gelu_erf_vec_tailcopy.cu",
  op     = "gelu_erf",
  sizes  = { N = 1027 },
  launch = "gelu_erf_vec<<<2, 64>>>(y, x, N)",
  seeded_bug = {
    pattern = "returns-input",
    detail  = "the scalar remainder loop copies x to y instead of applying gelu_erf, so the last N % 4 outputs equal their inputs; only visible when N % 4 != 0 (N = 1027: the last 3)",
  },
}
