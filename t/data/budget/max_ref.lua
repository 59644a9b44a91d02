-- A reference whose one Lua instruction is seconds of term callbacks:
-- max(table.unpack(t)) folds 900,000 symbolic values in C (8 s of terms), and
-- the count hook of the reference's call looks at the deadline only between
-- Lua instructions. check --budget must stop it inside the call
-- (t/check/budget.sh). Reading the 900,000 values first takes ~1 s of CPU.
return problem {
  source = "copy.cu",
  op = op "max_copy" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i)
      local t = {}
      for k = 0, T.N - 1 do t[k + 1] = T.x[k] end
      return max(table.unpack(t))
    end,
  },
  sizes  = { N = 900000 },
  launch = "copy<<<(N + 255) / 256, 256>>>(y, x, N)",
}
