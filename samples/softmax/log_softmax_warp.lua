return problem {
  source = "log_softmax_warp.cu",
  op     = "log_softmax",
  sizes  = { N = 6, C = 45 },
  launch = { kernel = "log_softmax_warp", grid = { "(N + 3) / 4" }, block = { 32, 4 }, args = { "y", "x", "N", "C" } },
}
