return problem {
  source = "matmul_warp.cu",
  op     = "matmul",
  sizes  = { M = 5, N = 6, K = 300 },
  launch = "matmul_warp<<<(M * N + 3) / 4, 128>>>(c, a, b, M, N, K)",
}
