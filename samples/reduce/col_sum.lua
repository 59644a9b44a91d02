return problem {
  source = "col_sum.cu",
  op     = "sum",
  attrs  = { dim = 0 },
  sizes  = { N = 5, C = 70 },
  launch = "col_sum<<<(C + 63) / 64, 64>>>(y, x, N, C)",
}
