return problem {
  source = "k.cu",
  op     = "softmax",
  sizes  = { N = 4 },
}
