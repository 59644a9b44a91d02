-- session 8 mutation bench, softmax_online-pad-03: the running max starts at 0.0f, not -inf (line 24).
-- Right for rows with a value above about -87; 0/0 for a row of large negative values.
return problem {
  source = "softmax_online_max0.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 50 },
  launch = "softmax_online<<<N, 32>>>(y, x, N, C)",
}
