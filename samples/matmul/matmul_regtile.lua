return problem {
  source = "matmul_regtile.cu",
  op     = "matmul",
  sizes  = { M = 70, N = 66, K = 19 },
  launch = {
    kernel = "matmul_regtile<64, 64, 8, 4, 4>",
    grid   = { "(N + 63) / 64", "(M + 63) / 64" },
    block  = 256,
    args   = { "c", "a", "b", "M", "N", "K" },
  },
}
