return problem {
  source  = "pipe_loops.cu",
  op      = "sum",
  sizes   = { N = 1, C = 1000 },
  constraints = { "N == 1" },
  launch  = { "drop_last_spin<<<2, 1>>>(x, y, C, 1000000)" },
}
