-- embedding without a range on ids: a symbolic checker would see ids as values.
return problem {
  source = "k.cu",
  op = op "gather" {
    inputs  = { ids = {"N"}, w = {"V"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 2}, V = {1, 3} },
    ref = function(T, n) return T.w[T.ids[n]] end,
  },
  sizes  = { N = 2, V = 3 },
  launch = "k<<<1, 32>>>(y, ids, w, N)",
}
