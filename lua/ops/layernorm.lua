-- LayerNorm over the last axis with biased variance (divide by C), eps inside the root:
-- y = (x - mean) / sqrt(var + eps) * w + b
return op "layernorm" {
  inputs  = { x = {"N", "C"}, w = {"C"}, b = {"C"} },
  outputs = { y = {"N", "C"} },
  attrs   = { eps = 1e-5 },
  sizes   = { N = {1, 2, 3, 4, 5, 8, 31, 33, 64}, C = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097} },
  realistic = { N = 8 * 1024, C = 768 },   -- GPT-2 small, B*T = 8k tokens
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, n, c)
    local s = 0
    for k = 0, T.C - 1 do s = s + T.x[n][k] end
    local mean = s / T.C
    local v = 0
    for k = 0, T.C - 1 do local d = T.x[n][k] - mean; v = v + d * d end
    return (T.x[n][c] - mean) * rsqrt(v / T.C + T.eps) * T.w[c] + T.b[c]
  end,
  ref_all = function(T, out)
    local C, w, b = T.C, T.w, T.b
    for n = 0, T.N - 1 do
      local x, base = T.x[n], n * C
      local s = 0
      for k = 0, C - 1 do s = s + x[k] end
      local mean = s / C
      local v = 0
      for k = 0, C - 1 do local d = x[k] - mean; v = v + d * d end
      local r = rsqrt(v / C + T.eps)
      for c = 0, C - 1 do out[base + c] = (x[c] - mean) * r * w[c] + b[c] end
    end
  end,
}
