return problem {
  source = "sum_rows_smem.cu",
  op     = "sum",
  sizes  = { N = 3, C = 300 },
  launch = "sum_rows_smem<<<N, 128>>>(y, x, C)",
}
