return problem {
  source = "layernorm_block.cu",
  op     = "layernorm",
  sizes  = { N = 3, C = 600 },
  launch = "layernorm_block<256><<<N, 256>>>(y, x, w, b, C, eps)",
}
