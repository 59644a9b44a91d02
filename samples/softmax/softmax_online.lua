return problem {
  source = "softmax_online.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 50 },
  launch = "softmax_online<<<N, 32>>>(y, x, N, C)",
}
