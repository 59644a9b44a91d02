return problem {
  source = "softmax_halfwarp_mask.cu",
  op     = "softmax",
  sizes  = { N = 5, C = 21 },
  launch = "softmax_halfwarp<<<(N * 16 + 63) / 64, 64>>>(y, x, N, C)",
  seeded_bug = {
    pattern = "wrong-shuffle-mask",
    detail  = "the shuffles use mask 0x0000ffff in all 32 lanes: lanes 16-31 call __shfl_xor_sync with a mask that does not name them, which is undefined; the odd rows of each warp (row 1, 3, ...) are computed by those lanes",
  },
}
