return problem {
  source = "matmul_tn_naive.cu",
  op     = "matmul",
  attrs  = { transA = true, alpha = 2.0 },
  sizes  = { M = 9, N = 35, K = 6 },
  launch = "matmul_tn_naive<<<dim3((N + 31) / 32, (M + 3) / 4), dim3(32, 4)>>>(c, a, b, M, N, K, alpha)",
}
