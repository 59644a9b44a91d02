return problem {
  source = "max_rows_pairs.cu",
  op     = "max",
  sizes  = { N = 4, C = 37 },
  launch = "max_rows_pairs<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
