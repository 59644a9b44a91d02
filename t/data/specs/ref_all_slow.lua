-- A ref_all that never ends: sampled validation's batch attempt gives up at its
-- time budget and the per-element path takes over.
return problem {
  source = "k.cu",
  op = op "slow_all" {
    inputs  = { x = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2} },
    ref = function(T, i) return T.x[i] end,
    ref_all = function(T, out)
      local k = 0
      while true do k = k + 1 end
    end,
  },
  sizes  = { N = 4 },
  launch = "k<<<1, 32>>>(y, x, N)",
}
