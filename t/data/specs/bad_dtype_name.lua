return problem {
  source = "k.cu",
  op     = "cross_entropy",
  dtypes = { targets = "int7" },
  sizes  = { N = 4, V = 8 },
  launch = "k<<<1, 32>>>(loss, x, targets, N, V)",
}
