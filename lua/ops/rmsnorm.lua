-- RMSNorm over the last axis: y = x / sqrt(mean(x^2) + eps) * w  (LLaMA, T5)
return op "rmsnorm" {
  inputs  = { x = {"N", "C"}, w = {"C"} },
  outputs = { y = {"N", "C"} },
  attrs   = { eps = 1e-5 },
  sizes   = { N = {1, 2, 3, 4, 5, 8, 31, 33, 64}, C = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097} },
  realistic = { N = 4096, C = 4096 },   -- LLaMA-7B hidden size
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-4}, f16 = {atol = 5e-3, rtol = 1e-2}, bf16 = {atol = 3e-2, rtol = 2e-2} },
  ref = function(T, n, c)
    local ss = 0
    for k = 0, T.C - 1 do ss = ss + T.x[n][k] * T.x[n][k] end
    return T.x[n][c] * rsqrt(ss / T.C + T.eps) * T.w[c]
  end,
  ref_all = function(T, out)
    local C, w = T.C, T.w
    for n = 0, T.N - 1 do
      local x, base = T.x[n], n * C
      local ss = 0
      for k = 0, C - 1 do ss = ss + x[k] * x[k] end
      local r = rsqrt(ss / C + T.eps)
      for c = 0, C - 1 do out[base + c] = x[c] * r * w[c] end
    end
  end,
}
