-- Causal scaled dot-product attention, heads batched: q, k, v, o are {B, H, T, D}.
-- o[b][h][i] = sum_{j <= i} softmax_j(scale * q_i . k_j) v_j. scale = 0 means 1/sqrt(D).
return op "causal_attention" {
  inputs  = { q = {"B", "H", "T", "D"}, k = {"B", "H", "T", "D"}, v = {"B", "H", "T", "D"} },
  outputs = { o = {"B", "H", "T", "D"} },
  attrs   = { scale = 0 },
  sizes   = { B = {1, 2, 3}, H = {1, 2, 3}, T = {1, 2, 3, 7, 16, 17, 31, 32, 33, 64, 65}, D = {1, 2, 3, 4, 8, 16, 32, 48, 64} },
  realistic = { B = 8, H = 12, T = 1024, D = 64 },   -- GPT-2 small
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 5e-3, rtol = 1e-2}, bf16 = {atol = 3e-2, rtol = 3e-2} },
  ref = function(T, b, h, i, d)
    local scale = T.scale
    if scale == 0 then scale = 1 / T.D ^ 0.5 end
    local q, k, v = T.q[b][h], T.k[b][h], T.v[b][h]
    local s = {}
    for j = 0, i do
      local dot = 0
      for e = 0, T.D - 1 do dot = dot + q[i][e] * k[j][e] end
      s[j] = scale * dot
    end
    local m = s[0]
    for j = 1, i do m = max(m, s[j]) end
    local den, num = 0, 0
    for j = 0, i do
      local p = exp(s[j] - m)
      den = den + p
      num = num + p * v[j][d]
    end
    return num / den
  end,
  -- per query row: the scores and their exponentials once, shared by the D outputs
  ref_all = function(T, out)
    local scale = T.scale
    if scale == 0 then scale = 1 / T.D ^ 0.5 end
    local B, H, N, D = T.B, T.H, T.T, T.D
    for b = 0, B - 1 do
      for h = 0, H - 1 do
        local q, k, v = T.q[b][h], T.k[b][h], T.v[b][h]
        for i = 0, N - 1 do
          local qi, s = q[i], {}
          for j = 0, i do
            local kj, dot = k[j], 0
            for e = 0, D - 1 do dot = dot + qi[e] * kj[e] end
            s[j] = scale * dot
          end
          local m = s[0]
          for j = 1, i do m = max(m, s[j]) end
          local den = 0
          for j = 0, i do s[j] = exp(s[j] - m); den = den + s[j] end
          local base = ((b * H + h) * N + i) * D
          for d = 0, D - 1 do
            local num = 0
            for j = 0, i do num = num + s[j] * v[j][d] end
            out[base + d] = num / den
          end
        end
      end
    end
  end,
}
