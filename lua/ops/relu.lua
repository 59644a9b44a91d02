-- y = max(x, 0)
return op "relu" {
  inputs  = { x = {"N"} },
  outputs = { y = {"N"} },
  attrs   = {  },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },  -- 64 MiB of f32 activations
  tolerance = { f32 = {atol = 0, rtol = 0}, f16 = {atol = 0, rtol = 0}, bf16 = {atol = 0, rtol = 0} },
  ref = function(T, i)
    local x = T.x[i]
    return max(x, 0)
  end,
}
