return problem {
  source  = "pipe_loops.cu",
  op      = "sum",
  sizes   = { N = 1, C = 1000 },
  constraints = { "N == 1" },
  scratch = { part = { shape = { 4 }, dtype = "f32" } },
  launch  = {
    "part_sum_stride0<<<4, 64>>>(x, part, C)",
    "combine<<<1, 32>>>(part, y, 4)",
  },
}
