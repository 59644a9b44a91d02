return problem {
  source  = "pipe_loops.cu",
  op      = "sum",
  sizes   = { N = 1, C = 1000 },
  constraints = { "N == 1" },
  scratch = { part = { shape = { 1 }, dtype = "f32" } },
  launch  = {
    "sum_one<<<1, 1>>>(x, part, C)",
    "combine<<<1, 32>>>(part, y, 1)",
  },
}
