return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[cumsum_block_u32ld.cu:10:27: cast to `size_t` dropped]==] },
  source = "cumsum_block_u32ld.cu",
  op     = "cumsum",
  attrs  = { exclusive = false },
  sizes  = { N = 3, C = 150 },
  launch = "cumsum_block<64><<<N, 64>>>(y, x, C, exclusive)",
}
