return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[cumsum_warp_int32.cu:10:27: cast to `size_t` dropped]==] },
  source = "cumsum_warp_int32.cu",
  op     = "cumsum",
  attrs  = { exclusive = true },
  sizes  = { N = 5, C = 70 },
  launch = "cumsum_warp<<<(N + 1) / 2, 64>>>(y, x, N, C, exclusive)",
}
