return problem {
  source = "transpose_tiled.cu",
  op     = "transpose",
  sizes  = { M = 40, N = 70 },
  launch = "transpose_tiled<<<dim3((N + 31) / 32, (M + 31) / 32), dim3(32, 8)>>>(y, x, M, N)",
}
