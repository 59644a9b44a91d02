return problem {
  source  = "pipe_loops.cu",
  op      = "sum",
  sizes   = { N = 1, C = 1000 },
  constraints = { "N == 1" },
  launch  = { "sum_one<<<1, 1>>>(x, y, C)" },
}
