return problem {
  source = "adamw.cu",
  op     = "adamw",
  attrs  = { lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.1, step = 3 },
  sizes  = { N = 1000 },
  launch = "adamw_kernel<<<(N + 255) / 256, 256>>>(p, g, m, v, N, lr, beta1, beta2, eps, weight_decay, step)",
}
