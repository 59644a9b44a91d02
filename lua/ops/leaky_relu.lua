-- leaky ReLU (PyTorch name of the attribute)
return op "leaky_relu" {
  inputs  = { x = {"N"} },
  outputs = { y = {"N"} },
  attrs   = { negative_slope = 0.01 },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },  -- 64 MiB of f32 activations
  tolerance = { f32 = {atol = 0, rtol = 1e-6}, f16 = {atol = 1e-3, rtol = 1e-3}, bf16 = {atol = 8e-3, rtol = 8e-3} },
  ref = function(T, i)
    local x = T.x[i]
    return where(gt(x, 0), x, T.negative_slope * x)
  end,
}
