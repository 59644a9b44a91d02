-- 2-D transpose: y[j][i] = x[i][j], x row-major {M, N}
return op "transpose" {
  inputs  = { x = {"M", "N"} },
  outputs = { y = {"N", "M"} },
  attrs   = { },
  sizes   = { M = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 100}, N = {1, 2, 5, 8, 31, 32, 33, 64, 65, 97} },
  realistic = { M = 8192, N = 8192 },
  tolerance = { f32 = {atol = 0, rtol = 0}, f16 = {atol = 0, rtol = 0}, bf16 = {atol = 0, rtol = 0} },
  ref = function(T, j, i) return T.x[i][j] end,
}
