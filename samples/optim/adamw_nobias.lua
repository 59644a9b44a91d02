return problem {
  source = "adamw_nobias.cu",
  op     = "adamw",
  attrs  = { lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.1, step = 3 },
  sizes  = { N = 1000 },
  launch = "adamw_kernel<<<(N + 255) / 256, 256>>>(p, g, m, v, N, lr, beta1, beta2, eps, weight_decay, step)",
  seeded_bug = {
    pattern = "missing-scale",
    detail  = "the bias corrections m / (1 - beta1^t) and v / (1 - beta2^t) are not applied, so early steps move parameters by a different amount (at t = 3 the ratio is 0.27/sqrt(0.003) of the corrected one); the error fades only after thousands of steps",
  },
}
