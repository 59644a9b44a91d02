-- y = alpha * x
return op "scale" {
  inputs  = { x = {"N"} },
  outputs = { y = {"N"} },
  attrs   = { alpha = 0.5 },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },  -- 64 MiB of f32 activations
  tolerance = { f32 = {atol = 0, rtol = 1e-6} },
  ref = function(T, i)
    local x = T.x[i]
    return T.alpha * x
  end,
}
