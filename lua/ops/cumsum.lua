-- Prefix sum along the last axis. exclusive = false: y[n][c] = sum_{k <= c} x[n][k];
-- exclusive = true: sum_{k < c} (so y[n][0] = 0).
return op "cumsum" {
  inputs  = { x = {"N", "C"} },
  outputs = { y = {"N", "C"} },
  attrs   = { exclusive = false },
  sizes   = { N = {1, 2, 3, 5, 8}, C = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 1024, 1025, 2049} },
  realistic = { N = 64, C = 65536 },
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, n, c)
    local last = T.exclusive and c - 1 or c
    local s = 0
    for k = 0, last do s = s + T.x[n][k] end
    return s
  end,
  -- a running sum per row (the same additions, in the same order, as ref)
  ref_all = function(T, out)
    local C, excl = T.C, T.exclusive
    for n = 0, T.N - 1 do
      local x, base, s = T.x[n], n * C, 0
      for c = 0, C - 1 do
        if excl then out[base + c] = s; s = s + x[c]
        else s = s + x[c]; out[base + c] = s end
      end
    end
  end,
}
