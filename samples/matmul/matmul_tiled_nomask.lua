return problem {
  source = "matmul_tiled_nomask.cu",
  op     = "matmul",
  sizes  = { M = 33, N = 20, K = 37 },
  launch = "matmul_tiled<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(c, a, b, M, N, K)",
  seeded_bug = {
    pattern = "missing-tail-mask",
    detail  = "the tile loads check row < M and col < N but not k0 + tx < K / k0 + ty < K, so the last K tile reads past the row of A (the next row's values, or past the end of A) and past the last row of B; invisible when K % 16 == 0, wrong for K = 37",
  },
}
