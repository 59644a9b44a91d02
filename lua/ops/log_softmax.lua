-- log softmax along the last axis: x - max - log(sum exp(x - max))
return op "log_softmax" {
  inputs  = { x = {"N", "C"} },
  outputs = { y = {"N", "C"} },
  attrs   = { },
  sizes   = { N = {1, 2, 3, 4, 5, 8, 31, 33, 64}, C = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097} },
  realistic = { N = 4096, C = 32000 },   -- LLaMA vocabulary
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 5e-3, rtol = 5e-3}, bf16 = {atol = 3e-2, rtol = 2e-2} },
  ref = function(T, n, c)
    local m = T.x[n][0]
    for k = 1, T.C - 1 do m = max(m, T.x[n][k]) end
    local s = 0
    for k = 0, T.C - 1 do s = s + exp(T.x[n][k] - m) end
    return T.x[n][c] - m - log(s)
  end,
  ref_all = function(T, out)
    local C = T.C
    if C == 0 then return end
    for n = 0, T.N - 1 do
      local x, base = T.x[n], n * C
      local m = x[0]
      for k = 1, C - 1 do m = max(m, x[k]) end
      local s = 0
      for k = 0, C - 1 do s = s + exp(x[k] - m) end
      local ls = log(s)
      for c = 0, C - 1 do out[base + c] = x[c] - m - ls end
    end
  end,
}
