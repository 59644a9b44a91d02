return problem {
  source = "residual_add.cu",
  op     = "residual_add",
  attrs  = { alpha = 0.5 },
  sizes  = { N = 1000 },
  launch = "residual_add_kernel<<<(N + 255) / 256, 256>>>(y, x, r, alpha, N)",
}
