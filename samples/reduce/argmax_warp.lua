return problem {
  source = "argmax_warp.cu",
  op     = "argmax",
  dtypes = { y = "i32" },
  sizes  = { N = 6, C = 75 },
  launch = "argmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
