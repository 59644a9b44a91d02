return problem { seeded_bug = { pattern = "mutant-pad", detail = [==[softmax_warp.cu:31:15: `-CUDART_INF_F` -> `0.0f`]==] },
  source = "softmax_warp_pad.cu",
  op     = "softmax",
  sizes  = { N = 7, C = 77 },
  launch = "softmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
