return problem {
  source = "sum_chunks.cu",
  op     = "sum",
  sizes  = { N = 40, C = 37 },
  launch = "sum_teams<4><<<(N + 3) / 4, 2>>>(y, x, N, C)",
}
