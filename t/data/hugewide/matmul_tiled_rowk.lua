return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[matmul_tiled_rowk.cu:17:51: cast to `size_t` dropped]==] },
  source = "matmul_tiled_rowk.cu",
  op     = "matmul",
  sizes  = { M = 33, N = 20, K = 37 },
  launch = "matmul_tiled<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(c, a, b, M, N, K)",
}
