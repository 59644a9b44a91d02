-- Embedding gather: y[n][d] = w[ids[n]][d]. ids are index-valued (concrete inside ref).
return op "embedding" {
  inputs  = { ids = {"N"}, w = {"V", "D"} },
  outputs = { y = {"N", "D"} },
  dtypes  = { ids = "i32" },
  ranges  = { ids = {0, "V-1"} },
  attrs   = { },
  sizes   = { N = {1, 2, 3, 7, 32, 33, 100}, V = {1, 2, 5, 17, 1000}, D = {1, 3, 4, 8, 31, 32, 33, 64, 768} },
  realistic = { N = 8 * 1024, V = 50257, D = 768 },   -- GPT-2 token embedding
  tolerance = { f32 = {atol = 0, rtol = 0}, f16 = {atol = 0, rtol = 0}, bf16 = {atol = 0, rtol = 0} },
  ref = function(T, n, d) return T.w[T.ids[n]][d] end,
}
