return problem {
  source      = "softmax_warp_regs_padzero.cu",
  op          = "softmax",
  sizes       = { N = 5, C = 100 },
  constraints = { "C <= 128" },
  tolerance   = { atol = 1e-6, rtol = 1e-4 },
  launch      = "softmax_warp_regs<4><<<(N + 1) / 2, 64>>>(y, x, N, C)",
  seeded_bug = {
    pattern = "pad-zero-not-neginf",
    detail  = "register slots past C are padded with 0 instead of -inf, so each of the 128 - C padding slots adds exp(0 - max) to the denominator (and 0 can become the max when the row is all negative); harmless only when C == 128 or the row max is large",
  },
}
