return problem {
  source = "layernorm_welford_merge.cu",
  op     = "layernorm",
  attrs  = { eps = 1e-5 },
  sizes  = { N = 5, C = 70 },
  launch = "layernorm_welford<<<(N + 3) / 4, 128>>>(y, x, w, b, N, C, eps)",
  seeded_bug = {
    pattern = "wrong-merge",
    detail  = "the pairwise Welford merge takes the plain average of the two means instead of weighting them by the counts (mean_a + delta * n_b / n); exact whenever both halves saw equally many elements, so rows whose length is a multiple of 32 pass, and wrong as soon as the lanes' counts differ (C not a multiple of 32, or C < 32 where idle lanes merge with count 0)",
  },
}
