return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[softmax_block_u32ld.cu:28:27: cast to `size_t` dropped]==] },
  source = "softmax_block_u32ld.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 300 },
  launch = "softmax_block<128><<<N, 128>>>(y, x, C)",
}
