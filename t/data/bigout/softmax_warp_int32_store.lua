return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[softmax_warp_int32_store.cu:30:21: cast to `size_t` dropped]==] },
  source = "softmax_warp_int32_store.cu",
  op     = "softmax",
  sizes  = { N = 7, C = 77 },
  launch = "softmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
