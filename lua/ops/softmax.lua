-- Softmax along the last axis, with the max subtracted (the form every stable kernel uses;
-- in real arithmetic the shift cancels, so it is the same function as the unshifted one).
return op "softmax" {
  inputs  = { x = {"N", "C"} },
  outputs = { y = {"N", "C"} },
  attrs   = { },
  sizes   = { N = {1, 2, 3, 4, 5, 8, 31, 33, 64}, C = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097} },
  realistic = { N = 16, C = 16384 },
  tolerance = { f32 = {atol = 1e-6, rtol = 1e-5}, f16 = {atol = 1e-3, rtol = 5e-3}, bf16 = {atol = 8e-3, rtol = 2e-2} },
  ref = function(T, n, c)
    local m = T.x[n][0]
    for k = 1, T.C - 1 do m = max(m, T.x[n][k]) end
    local s = 0
    for k = 0, T.C - 1 do s = s + exp(T.x[n][k] - m) end
    return exp(T.x[n][c] - m) / s
  end,
  -- the batch form (doc/ops.md): a row's max and sum once, then its C outputs
  ref_all = function(T, out)
    local C = T.C
    if C == 0 then return end
    for n = 0, T.N - 1 do
      local x, base = T.x[n], n * C
      local m = x[0]
      for k = 1, C - 1 do m = max(m, x[k]) end
      local s = 0
      for k = 0, C - 1 do s = s + exp(x[k] - m) end
      for c = 0, C - 1 do out[base + c] = exp(x[c] - m) / s end
    end
  end,
}
