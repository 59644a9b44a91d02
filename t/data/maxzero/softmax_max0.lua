-- softmax_warp with its running max started at 0 instead of -inf (a `pad`
-- mutant, doc/mutants.md): right for any row with a value above about -87,
-- NaN for a row whose values are all far below 0 (every exp underflows)
return problem {
  source = "softmax_max0.cu",
  op     = "softmax",
  sizes  = { N = 7, C = 77 },
  launch = "softmax_warp<<<(N + 3) / 4, 128>>>(y, x, N, C)",
}
