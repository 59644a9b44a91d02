return problem {
  source = "cross_entropy.cu",
  op     = "cross_entropy",
  dtypes = { targets = "i32" },
  ranges = { targets = { 0, "V-1" } },
  sizes  = { N = 7, V = 90 },
  launch = "cross_entropy_fwd<<<(N + 3) / 4, 128>>>(loss, x, targets, N, V, ignore_index)",
}
