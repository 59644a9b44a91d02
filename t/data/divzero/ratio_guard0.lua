return problem {
  source = "ratio_divmod.cu",
  op = op "ratio" {
    inputs  = { num = {"N"}, den = {"N"} },
    outputs = { y = {"N"} },
    sizes   = { N = {1, 7, 64} },
    ref = function(T, i) return T.num[i] / T.den[i] end,
  },
  dtypes = { num = "i32", den = "i32", y = "f32" },
  sizes  = { N = 64 },
  launch = "ratio_guard0<<<(N + 31) / 32, 32>>>(y, num, den, N)",
}
