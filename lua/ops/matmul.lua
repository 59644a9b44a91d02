-- c = alpha * op(a) @ op(b), row-major. transA: a is stored {K, M}; transB: b is stored {N, K}
-- (the stored shape is a function of the attributes; see doc/ops.md "shapes").
return op "matmul" {
  inputs  = {
    a = function(at) if at.transA then return {"K", "M"} else return {"M", "K"} end end,
    b = function(at) if at.transB then return {"N", "K"} else return {"K", "N"} end end,
  },
  outputs = { c = {"M", "N"} },
  attrs   = { transA = false, transB = false, alpha = 1.0 },
  sizes   = { M = {1, 2, 3, 15, 16, 17, 31, 32, 33, 64, 65, 127, 128, 129},
              N = {1, 2, 3, 15, 16, 17, 31, 32, 33, 64, 65, 127, 128, 129},
              K = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 257} },
  realistic = { M = 1024, N = 1024, K = 1024 },
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, m, n)
    local acc = 0
    for k = 0, T.K - 1 do
      local av, bv                       -- branches on attributes, never on values
      if T.transA then av = T.a[k][m] else av = T.a[m][k] end
      if T.transB then bv = T.b[n][k] else bv = T.b[k][n] end
      acc = acc + av * bv
    end
    return T.alpha * acc
  end,
}
