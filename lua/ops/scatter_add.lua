-- index_add / scatter-add of rows: y[index[i]][d] += src[i][d], duplicates accumulate.
-- y is read and updated (accumulate): T.y is its content before the launch.
return op "scatter_add" {
  inputs  = { src = {"N", "D"}, index = {"N"} },
  outputs = { y = {"M", "D"} },
  accumulate = { "y" },
  dtypes  = { index = "i32" },
  ranges  = { index = {0, "M-1"} },
  attrs   = { },
  sizes   = { N = {1, 2, 3, 7, 32, 33, 100}, M = {1, 2, 3, 5, 17}, D = {1, 2, 4, 7, 32, 33} },
  realistic = { N = 1 << 20, M = 65536, D = 64 },   -- embedding backward
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5} },
  ref = function(T, j, d)
    local s = T.y[j][d]
    for i = 0, T.N - 1 do if T.index[i] == j then s = s + T.src[i][d] end end
    return s
  end,
}
