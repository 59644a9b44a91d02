-- Rank-4 permute: y = x.permute(perm) made contiguous. Default perm {0,2,1,3} turns
-- (B, T, H, D) into (B, H, T, D), the head split of attention.
local dims = {"D0", "D1", "D2", "D3"}
return op "permute" {
  inputs  = { x = {"D0", "D1", "D2", "D3"} },
  outputs = { y = function(a)
    local p = a.perm
    return { dims[p[1] + 1], dims[p[2] + 1], dims[p[3] + 1], dims[p[4] + 1] }
  end },
  attrs   = { perm = {0, 2, 1, 3} },
  sizes   = { D0 = {1, 2, 3}, D1 = {1, 2, 5, 17, 32, 33}, D2 = {1, 2, 3, 4, 12}, D3 = {1, 4, 8, 31, 32, 64} },
  realistic = { D0 = 8, D1 = 1024, D2 = 12, D3 = 64 },
  tolerance = { f32 = {atol = 0, rtol = 0}, f16 = {atol = 0, rtol = 0}, bf16 = {atol = 0, rtol = 0} },
  ref = function(T, o0, o1, o2, o3)
    local o, i = {o0, o1, o2, o3}, {}
    for d = 1, 4 do i[T.perm[d] + 1] = o[d] end   -- output axis d is input axis perm[d]
    return T.x[i[1]][i[2]][i[3]][i[4]]
  end,
}
