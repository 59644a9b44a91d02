return problem {
  source = "k.cu",
  opp    = "softmax",
  sizes  = { N = 4, C = 8 },
  launch = "k<<<N, 32>>>(x, y, C)",
}
