-- An inline op with its own ref, scratch, constraints and a table-form launch.
return problem {
  source = "k.cu",
  op = op "axpb" {
    inputs  = { x = {"N"}, w = {"N"} },
    outputs = { y = {"N"} },
    attrs   = { a = 2.0, b = 3, flag = true },
    sizes   = { N = {1, 2, 3} },
    ref = function(T, i)
      if T.flag then return T.a * T.x[i] + T.b * T.w[i] end
      return 0
    end,
  },
  attrs = { b = 5 },
  sizes = { N = 8, BLK = 4 },
  defines = { WARP = 32, USE_FAST = true },
  template = { "float", 256, true },
  scratch = { part = { shape = {"N / BLK"}, dtype = "f32", zero_bytes = "4*2" } },
  constraints = { "N % BLK == 0" },
  tolerance = { atol = 1e-3, rtol = 1e-2 },
  launch = {
    "k1<float, 256><<<N / BLK, dim3(BLK, 1), BLK*4>>>(x, part, N, a, b, flag, NULL)",
    { kernel = "k2", grid = 1, block = { "N / BLK", 1 }, args = { "part", "w", "y", "N", 1.5 } },
  },
  seeded_bug = { pattern = "none", detail = "scoring only" },
}
