-- ref_all writes past the end of its output: the error names this file and line.
return problem {
  source = "k.cu",
  op = op "oops_all" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i) return T.x[i] end,
    ref_all = function(T, out)
      for i = 0, T.N do out[i] = T.x[i] end
    end,
  },
  sizes  = { N = 4 },
  launch = "k<<<1, 32>>>(y, x, N)",
}
