-- t/cli/envelope.sh: a softmax that stores its input. adversarial's case 2
-- (huge values, near 1e37) passed it before session 9: the envelope's order
-- term moved x - m by ~1e31, exp overflowed, and a non-finite evaluation
-- explained any output.
return problem {
  seeded_bug = { pattern = "returns-input", detail = "softmax_copy.cu:40: yr[c] = xr[c]" },
  source = "softmax_copy.cu",
  op     = "softmax",
  sizes  = { N = 7, C = 77 },
  launch = "softmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
