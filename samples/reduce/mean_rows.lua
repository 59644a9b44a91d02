return problem {
  source = "mean_rows.cu",
  op     = "mean",
  sizes  = { N = 9, C = 50 },
  launch = "mean_rows<<<(N + 7) / 8, 256>>>(y, x, N, C)",
}
