-- a 3-D output for the picker tests
return problem {
  source = "bmm.cu",
  op     = "bmm",
  sizes  = { B = 3, M = 17, N = 20, K = 18 },
  launch = "bmm_naive<<<dim3((N + 15) / 16, (M + 15) / 16, B), dim3(16, 16)>>>(c, a, b, M, N, K)",
}
