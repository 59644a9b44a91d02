-- A reference that reads 100,000 inputs and returns one that the kernel does
-- not store (y[i] = x[0] + x[i] - x[i] against y[i] = x[i]): the terms differ,
-- so the solver stage asserts the bounds of all 100,000 inputs (check_bounds:
-- 200,000 comparisons, one chain of nested ands). Z3 took that chain minutes
-- in one Z3_solver_assert, past any --budget (t/check/budget.sh).
return problem {
  source = "copy.cu",
  op = op "first_of_all" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i)
      local t = {}
      for k = 0, T.N - 1 do t[k + 1] = T.x[k] end
      return t[1] + t[i + 1] - t[i + 1]
    end,
  },
  sizes  = { N = 100000 },
  launch = "copy<<<(N + 255) / 256, 256>>>(y, x, N)",
}
