-- logistic sigmoid
return op "sigmoid" {
  inputs  = { x = {"N"} },
  outputs = { y = {"N"} },
  attrs   = {  },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },  -- 64 MiB of f32 activations
  tolerance = { f32 = {atol = 1e-6, rtol = 1e-5}, f16 = {atol = 1e-3, rtol = 2e-3}, bf16 = {atol = 8e-3, rtol = 1.6e-2} },
  ref = function(T, i)
    local x = T.x[i]
    return 1 / (1 + exp(-x))
  end,
}
