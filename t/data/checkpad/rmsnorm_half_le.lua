-- session 8 mutation bench, rmsnorm_half-rel-02: `c <= C` in the sum of squares (line 14): a row adds
-- the next row's first value (the last row reads past x: out-of-bounds).
return problem {
  source = "rmsnorm_half_le.cu",
  op     = "rmsnorm",
  dtype  = "f16",
  sizes  = { N = 4, C = 200 },
  launch = "rmsnorm_half<<<N, 32>>>(y, x, w, N, C, eps)",
}
