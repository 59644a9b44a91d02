return problem {
  source = "max_block.cu",
  op     = "max",
  sizes  = { N = 4, C = 100 },
  launch = "max_block<<<N, 128>>>(y, x, C)",
}
