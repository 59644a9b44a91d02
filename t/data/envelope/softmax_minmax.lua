-- t/cli/envelope.sh: softmax_warp with its warp-wide max combined by fminf
-- (a min/max swap). At huge values (adversarial's case 2, |x| near 1e37)
-- exp(x - m) overflows and the row is NaN; the validator's non-finite rule
-- passed it up to session 10 (any intermediate within 64x of FLT_MAX
-- explained an Inf or NaN), though no order of the correct softmax overflows.
return problem {
  seeded_bug = { pattern = "minmax-swap", detail = "softmax_minmax.cu:15: fminf in warp_max" },
  source = "softmax_minmax.cu",
  op     = "softmax",
  sizes  = { N = 7, C = 77 },
  launch = "softmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
