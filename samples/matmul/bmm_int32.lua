return problem {
  source = "bmm_int32.cu",
  op     = "bmm",
  sizes  = { B = 3, M = 17, N = 20, K = 18 },
  launch = "bmm_tiled<<<dim3((N + 15) / 16, (M + 15) / 16, B), dim3(16, 16)>>>(c, a, b, M, N, K)",
  seeded_bug = {
    pattern = "int32-index-overflow",
    detail  = "the batch offsets batch * M * K, batch * K * N and batch * M * N are computed in 32-bit int, which overflows once an offset reaches 2^31 (M = K = 4096: from batch 128 on, so B >= 129); the spec sizes are far below that, see doc/samples.md",
  },
}
