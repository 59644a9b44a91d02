-- ref_all must be a function or a table of them.
return problem {
  source = "k.cu",
  op = op "typo" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i) return T.x[i] end,
    ref_all = 3,
  },
  sizes  = { N = 4 },
  launch = "k<<<1, 32>>>(y, x, N)",
}
