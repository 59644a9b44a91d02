return problem {
  source = "k.cu",
  op     = "argmax",
  sizes  = { N = 2, C = 3 },
  launch = "argmax_rows<<<N, 32>>>(y, x, N, C)",
}
