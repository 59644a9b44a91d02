-- A reference that costs many seconds an element when it builds terms (a
-- long loop of term callbacks, far under the 10^9-instruction bound of a
-- reference call): check --budget must stop it (t/check/budget.sh).
return problem {
  source = "copy.cu",
  op = op "slow_copy" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i)
      local s = T.x[i]
      for k = 1, 30000000 do s = s + T.x[i] - T.x[i] end
      return s
    end,
  },
  sizes  = { N = 64 },
  launch = "copy<<<1, 64>>>(y, x, N)",
}
