return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[matmul_regtile_int32.cu:52:35: cast to `size_t` dropped]==] },
  source = "matmul_regtile_int32.cu",
  op     = "matmul",
  sizes  = { M = 70, N = 66, K = 19 },
  launch = {
    kernel = "matmul_regtile<64, 64, 8, 4, 4>",
    grid   = { "(N + 63) / 64", "(M + 63) / 64" },
    block  = 256,
    args   = { "c", "a", "b", "M", "N", "K" },
  },
}
