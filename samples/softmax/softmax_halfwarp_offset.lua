return problem {
  source = "softmax_halfwarp_offset.cu",
  op     = "softmax",
  sizes  = { N = 5, C = 21 },
  launch = "softmax_halfwarp<<<(N * 16 + 63) / 64, 64>>>(y, x, N, C)",
  seeded_bug = {
    pattern = "wrong-shuffle-offset",
    detail  = "group_sum starts its xor butterfly at offset LANES (16) instead of LANES/2, so the denominator adds the other half-warp's row sum (the max, also shared the same way, would cancel); wrong for every row that shares its warp with another row, i.e. whenever N >= 2",
  },
}
