-- y = a @ x, a row-major {M, K}
return op "gemv" {
  inputs  = { a = {"M", "K"}, x = {"K"} },
  outputs = { y = {"M"} },
  attrs   = { },
  sizes   = { M = {1, 2, 3, 7, 31, 32, 33, 128, 129},
              K = {1, 2, 3, 4, 5, 7, 31, 32, 33, 127, 128, 129, 1000, 1024, 1025} },
  realistic = { M = 4096, K = 4096 },   -- one decode step of a 7B projection
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, m)
    local acc = 0
    for k = 0, T.K - 1 do acc = acc + T.a[m][k] * T.x[k] end
    return acc
  end,
}
