return problem {
  source = "adamw_eps.cu",
  op     = "adamw",
  attrs  = { lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.1, step = 3 },
  sizes  = { N = 1000 },
  launch = "adamw_kernel<<<(N + 255) / 256, 256>>>(p, g, m, v, N, lr, beta1, beta2, eps, weight_decay, step)",
  seeded_bug = {
    pattern = "eps-misplaced",
    detail  = "the update divides by sqrtf(v + eps) instead of sqrtf(v) + eps; indistinguishable when v >> eps, but for parameters whose second moment is tiny (v near 1e-8, e.g. rarely-used embedding rows with near-zero gradients) the step differs by orders of magnitude",
  },
}
