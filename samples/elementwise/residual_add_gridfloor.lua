return problem {
  source = "residual_add_gridfloor.cu",
  op     = "residual_add",
  attrs  = { alpha = 0.5 },
  sizes  = { N = 1000 },
  -- as the wrapper in the file launches it
  launch = "residual_add_kernel<<<N / 256, 256>>>(y, x, r, alpha, N)",
  seeded_bug = {
    pattern = "grid-floors",
    detail  = "the wrapper sizes the grid as N / threads, which rounds down: the last N % 256 elements get no thread and y keeps garbage there (N = 1000 leaves 232; N = 1..255 launches no block at all)",
  },
}
