return problem {
  source = "matmul_tiled.cu",
  op     = "matmul",
  sizes  = { M = 33, N = 20, K = 37 },
  launch = "matmul_tiled<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(c, a, b, M, N, K)",
}
