return problem {
  source = "softmax_halfwarp.cu",
  op     = "softmax",
  sizes  = { N = 5, C = 21 },
  launch = "softmax_halfwarp<<<(N * 16 + 63) / 64, 64>>>(y, x, N, C)",
}
