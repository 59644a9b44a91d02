return problem {
  source = "max_block_padzero.cu",
  op     = "max",
  sizes  = { N = 4, C = 100 },
  launch = "max_block<<<N, 128>>>(y, x, C)",
  seeded_bug = {
    pattern = "pad-zero-not-neginf",
    detail  = "threads with no element (tid >= C, only when C < 128) seed the tree with 0 instead of -inf, so a row whose values are all negative reports max 0; needs C < 128 and an all-negative row",
  },
}
