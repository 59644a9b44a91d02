-- y = x + alpha * r (residual connection with a scaled branch; alpha = 1 is a plain add)
return op "residual_add" {
  inputs  = { x = {"N"}, r = {"N"} },
  outputs = { y = {"N"} },
  attrs   = { alpha = 1.0 },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 8 * 1024 * 768 },   -- GPT-2 small: B*T tokens x 768 channels
  tolerance = { f32 = {atol = 1e-6, rtol = 1e-6}, f16 = {atol = 1e-3, rtol = 1e-3}, bf16 = {atol = 8e-3, rtol = 8e-3} },
  ref = function(T, i)
    return T.x[i] + T.alpha * T.r[i]
  end,
}
