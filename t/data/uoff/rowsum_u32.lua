return problem {
  source = "rowsum_u32.cu",
  op     = "sum",
  sizes  = { N = 3, C = 64 },
  launch = "rowsum_u32<<<N, 1>>>(y, x, C)",
}
