return problem {
  source = "cumsum_block.cu",
  op     = "cumsum",
  attrs  = { exclusive = false },
  sizes  = { N = 3, C = 150 },
  launch = "cumsum_block<64><<<N, 64>>>(y, x, C, exclusive)",
}
