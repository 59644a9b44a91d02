return problem {
  source = "elu_template.cu",
  op     = "elu",
  attrs  = { alpha = 1.5 },
  sizes  = { N = 300 },
  launch = "elu_kernel<float><<<(N + 127) / 128, 128>>>(y, x, alpha, N)",
}
