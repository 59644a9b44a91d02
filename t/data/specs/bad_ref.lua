-- The reference reads past the end of x: the error names this file and line.
return problem {
  source = "k.cu",
  op = op "oops" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i)
      return T.x[i + 1]
    end,
  },
  sizes  = { N = 4 },
  launch = "k<<<1, 32>>>(y, x, N)",
}
