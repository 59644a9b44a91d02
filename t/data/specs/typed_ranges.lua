return problem {
  source = "k.cu",
  op     = "cross_entropy",
  dtypes = { targets = "i64", x = "f16" },
  ranges = { targets = {1, "V-2"} },
  sizes  = { N = 4, V = 8 },
  launch = "k<<<1, 32>>>(loss, x, targets, N, V)",
}
