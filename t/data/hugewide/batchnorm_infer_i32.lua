return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[batchnorm_infer_i32.cu:9:26: cast to `size_t` dropped]==] },
  source = "batchnorm_infer_i32.cu",
  op     = "batchnorm",
  sizes  = { N = 2, C = 3, H = 5, W = 7 },
  launch = "batchnorm_infer<<<2, 64>>>(y, x, mean, var, w, b, N, C, H*W, eps)",
}
