return problem {
  source = "k.cu",
  op     = "cross_entropy",
  ranges = { targets = {0, "V-1"}, target = {0, 3} },
  sizes  = { N = 4, V = 8 },
  launch = "k<<<1, 32>>>(loss, x, targets, N, V)",
}
