return problem {
  source = "matmul_tiled_nosync.cu",
  op     = "matmul",
  sizes  = { M = 33, N = 20, K = 37 },
  launch = "matmul_tiled<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(c, a, b, M, N, K)",
  seeded_bug = {
    pattern = "missing-syncthreads",
    detail  = "no barrier after the inner product loop, so a fast warp loads the next K tile into As/Bs while slower warps still read the current one; needs at least two K tiles (K > 16)",
  },
}
