return problem {
  source = "l2norm_block.cu",
  op     = "l2norm",
  sizes  = { N = 3, C = 333 },
  launch = "l2norm_block<128><<<N, 128>>>(y, x, C)",
}
