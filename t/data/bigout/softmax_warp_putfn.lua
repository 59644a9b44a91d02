return problem {
  source = "softmax_warp_putfn.cu",
  op     = "softmax",
  sizes  = { N = 7, C = 77 },
  launch = "softmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
