-- c = a * b
return op "mul" {
  inputs  = { a = {"N"}, b = {"N"} },
  outputs = { c = {"N"} },
  attrs   = { },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },
  tolerance = { f32 = {atol = 1e-6, rtol = 1e-6} },
  ref = function(T, i)
    local a, b = T.a[i], T.b[i]
    return a * b
  end,
}
