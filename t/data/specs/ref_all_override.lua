-- The spec's ref overrides the op's: the op's ref_all (here deliberately
-- different) must not run next to it; the spec's own ref_all does.
return problem {
  source = "k.cu",
  op = op "twice" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i) return 2 * T.x[i] end,
    ref_all = function(T, out) for i = 0, T.N - 1 do out[i] = 3 * T.x[i] end end,
  },
  ref = function(T, i) return 5 * T.x[i] end,
  sizes  = { N = 4 },
  launch = "k<<<1, 32>>>(y, x, N)",
}
