return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[transpose_tiled_int32.cu:17:82: cast to `size_t` dropped]==] },
  source = "transpose_tiled_int32.cu",
  op     = "transpose",
  sizes  = { M = 40, N = 70 },
  launch = "transpose_tiled<<<dim3((N + 31) / 32, (M + 31) / 32), dim3(32, 8)>>>(y, x, M, N)",
}
