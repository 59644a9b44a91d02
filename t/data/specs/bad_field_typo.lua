return problem {
  source = "k.cu",
  op     = "softmax",
  sizez  = { N = 4, C = 8 },
  launch = "k<<<N, 32>>>(x, y, C)",
}
