return problem {
  source = "layernorm_warp_eps.cu",
  op     = "layernorm",
  attrs  = { eps = 1e-5 },
  sizes  = { N = 5, C = 70 },
  launch = "layernorm_warp<<<(N + 3) / 4, 128>>>(y, x, w, b, N, C, eps)",
  seeded_bug = {
    pattern = "eps-misplaced",
    detail  = "rstd is 1/(sqrt(var) + eps) instead of 1/sqrt(var + eps); the difference is below tolerance for unit-variance rows and large only when the row variance is near or below eps (nearly constant rows)",
  },
}
