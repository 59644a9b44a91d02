return problem {
  source = "rmsnorm_warp_noscale.cu",
  op     = "rmsnorm",
  sizes  = { N = 6, C = 96 },
  launch = "rmsnorm_warp<<<(N + 1) / 2, 64>>>(y, x, w, N, C, eps)",
  seeded_bug = {
    pattern = "missing-scale",
    detail  = "the sum of squares is not divided by C before rsqrt (sum instead of mean), so outputs are sqrt(C) times too small; correct only for C == 1",
  },
}
