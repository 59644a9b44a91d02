return problem {
  source = "batchnorm_infer.cu",
  op     = "batchnorm",
  sizes  = { N = 2, C = 3, H = 5, W = 7 },
  launch = "batchnorm_infer<<<2, 64>>>(y, x, mean, var, w, b, N, C, H*W, eps)",
}
