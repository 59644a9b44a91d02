return problem {
  source = "rmsnorm_warp.cu",
  op     = "rmsnorm",
  sizes  = { N = 6, C = 96 },
  launch = "rmsnorm_warp<<<(N + 1) / 2, 64>>>(y, x, w, N, C, eps)",
}
