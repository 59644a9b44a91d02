-- sum over an axis
-- Reduces x {N, C} over axis `dim` (1: along a row, y has N elements; 0: down a column,
-- y has C elements). A full reduction of a vector is N = 1, dim = 1.
local function get(T, i, k) if T.dim == 1 then return T.x[i][k] else return T.x[k][i] end end
return op "sum" {
  inputs  = { x = {"N", "C"} },
  outputs = { y = function(a) if a.dim == 0 then return {"C"} else return {"N"} end end },
  attrs   = { dim = 1 },
  sizes   = { N = {1, 2, 3, 5, 8, 31, 32, 33, 64, 257}, C = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 255, 256, 257, 1000, 1024, 1025, 4099} },
  realistic = { N = 4096, C = 4096 },
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, i)
    local len = T.dim == 1 and T.C or T.N
    local acc = get(T, i, 0)
    for k = 1, len - 1 do
      local v = get(T, i, k)
      acc = acc + v
    end
    return acc
  end,
}
