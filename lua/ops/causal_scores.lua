-- Scaled attention scores with the causal triangle left out: s[b][h][i][j] = scale * q_i . k_j
-- for j <= i; elements with j > i are not checked (ref returns nil), whatever the kernel writes.
return op "causal_scores" {
  inputs  = { q = {"B", "H", "T", "D"}, k = {"B", "H", "T", "D"} },
  outputs = { s = {"B", "H", "T", "T"} },
  attrs   = { scale = 0 },
  sizes   = { B = {1, 2, 3}, H = {1, 2, 3}, T = {1, 2, 3, 7, 16, 17, 31, 32, 33, 64, 65}, D = {1, 2, 3, 4, 8, 16, 32, 48, 64} },
  realistic = { B = 8, H = 12, T = 1024, D = 64 },
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 5e-3, rtol = 1e-2}, bf16 = {atol = 3e-2, rtol = 3e-2} },
  ref = function(T, b, h, i, j)
    if j > i then return nil end
    local scale = T.scale
    if scale == 0 then scale = 1 / T.D ^ 0.5 end
    local dot = 0
    for e = 0, T.D - 1 do dot = dot + T.q[b][h][i][e] * T.k[b][h][j][e] end
    return scale * dot
  end,
}
