-- Index of the first maximum over an axis (ties pick the lowest index, as torch.argmax).
-- Branch-free on values: the running best is max(), the index is chosen with where(gt()),
-- strict so that a later equal value never replaces an earlier one. NaN is not special-cased.
local function get(T, i, k) if T.dim == 1 then return T.x[i][k] else return T.x[k][i] end end
return op "argmax" {
  inputs  = { x = {"N", "C"} },
  outputs = { y = function(a) if a.dim == 0 then return {"C"} else return {"N"} end end },
  dtypes  = { y = "i64" },     -- index output; a spec may narrow it (dtypes = { y = "i32" })
  attrs   = { dim = 1 },
  sizes   = { N = {1, 2, 3, 5, 8, 31, 32, 33, 64, 257}, C = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 255, 256, 257, 1000, 1024, 1025, 4099} },
  realistic = { N = 4096, C = 50257 },   -- greedy decoding over a GPT-2 vocabulary
  tolerance = { f32 = {atol = 0, rtol = 0} },
  ref = function(T, i)
    local len = T.dim == 1 and T.C or T.N
    local best, idx = get(T, i, 0), 0
    for k = 1, len - 1 do
      local v = get(T, i, k)
      idx = where(gt(v, best), k, idx)
      best = max(best, v)
    end
    return idx
  end,
}
