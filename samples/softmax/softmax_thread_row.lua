return problem {
  source = "softmax_thread_row.cu",
  op     = "softmax",
  sizes  = { N = 5, C = 37 },
  launch = "softmax_thread_row<<<(N + 63) / 64, 64>>>(y, x, N, C)",
}
