-- Batched matmul: c[z] = op(a[z]) @ op(b[z]) for z < B, row-major, same attributes as matmul.
return op "bmm" {
  inputs  = {
    a = function(at) if at.transA then return {"B", "K", "M"} else return {"B", "M", "K"} end end,
    b = function(at) if at.transB then return {"B", "N", "K"} else return {"B", "K", "N"} end end,
  },
  outputs = { c = {"B", "M", "N"} },
  attrs   = { transA = false, transB = false, alpha = 1.0 },
  sizes   = { B = {1, 2, 3, 5, 12},
              M = {1, 2, 3, 16, 17, 31, 32, 33, 64, 65},
              N = {1, 2, 3, 16, 17, 31, 32, 33, 64, 65},
              K = {1, 2, 3, 7, 16, 17, 32, 33, 64, 65} },
  realistic = { B = 96, M = 1024, N = 1024, K = 64 },   -- attention scores, 8 x 12 heads
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, z, m, n)
    local acc = 0
    for k = 0, T.K - 1 do
      local av, bv                       -- branches on attributes, never on values
      if T.transA then av = T.a[z][k][m] else av = T.a[z][m][k] end
      if T.transB then bv = T.b[z][n][k] else bv = T.b[z][k][n] end
      acc = acc + av * bv
    end
    return T.alpha * acc
  end,
}
