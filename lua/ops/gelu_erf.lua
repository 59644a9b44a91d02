-- exact GELU: 0.5 x (1 + erf(x / sqrt 2))
return op "gelu_erf" {
  inputs  = { x = {"N"} },
  outputs = { y = {"N"} },
  attrs   = {  },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },  -- 64 MiB of f32 activations
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 2e-3, rtol = 2e-3}, bf16 = {atol = 1.6e-2, rtol = 1.6e-2} },
  ref = function(T, i)
    local x = T.x[i]
    return 0.5 * x * (1 + erf(x * 0.7071067811865476))
  end,
}
