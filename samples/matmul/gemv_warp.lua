return problem {
  source = "gemv_warp.cu",
  op     = "gemv",
  sizes  = { M = 10, K = 77 },
  launch = "gemv_warp<<<(M + 3) / 4, 128>>>(y, a, x, M, K)",
}
