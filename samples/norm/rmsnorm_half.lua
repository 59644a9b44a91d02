return problem {
  source = "rmsnorm_half.cu",
  op     = "rmsnorm",
  dtype  = "f16",
  sizes  = { N = 4, C = 200 },
  launch = "rmsnorm_half<<<N, 32>>>(y, x, w, N, C, eps)",
}
