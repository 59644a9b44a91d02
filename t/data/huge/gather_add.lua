-- An inline op whose output is also an input (accumulate), for huge cases.
return problem {
  source = "gather_add.cu",
  op = op "gather_add" {
    inputs  = { ids = {"N"}, w = {"V", "D"} },
    outputs = { y = {"N", "D"} },
    accumulate = { "y" },
    dtypes  = { ids = "i32" },
    ranges  = { ids = {0, "V-1"} },
    sizes   = { N = {1, 2, 3}, V = {1, 5, 17}, D = {1, 31, 257} },
    ref = function(T, n, d) return T.y[n][d] + T.w[T.ids[n]][d] end,
  },
  sizes  = { N = 3, V = 7, D = 300 },
  launch = "gather_add<<<dim3((D + 255) / 256, N), 256>>>(y, ids, w, N, D)",
}
