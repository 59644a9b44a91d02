return problem {
  source = "k.cu",
  op     = "softmx",
  sizes  = { N = 4, C = 8 },
  launch = "k<<<1, 32>>>(y, x, N, C)",
}
