return problem {
  source = "transpose_swapped.cu",
  op     = "transpose",
  sizes  = { M = 40, N = 70 },
  launch = "transpose_tiled<<<dim3((N + 31) / 32, (M + 31) / 32), dim3(32, 8)>>>(y, x, M, N)",
  seeded_bug = {
    pattern = "swapped-index",
    detail  = "the store uses the input's row length (cols) as the output's leading dimension instead of rows, so outputs land at the wrong place (and past the end of y for some rows); identical to the correct kernel for square matrices, wrong for M = 40, N = 70",
  },
}
