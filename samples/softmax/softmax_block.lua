return problem {
  source = "softmax_block.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 300 },
  launch = "softmax_block<128><<<N, 128>>>(y, x, C)",
}
