-- sum_one (correct) at a size where its one thread passes the emulator's
-- step limit (2^20 iterations): fuzz does not judge such a case (t/cli/fuzz_longloop.sh)
return problem {
  source  = "pipe_loops.cu",
  op      = "sum",
  sizes   = { N = 1, C = 1100000 },
  constraints = { "N == 1" },
  launch  = { "sum_one<<<1, 1>>>(x, y, C)" },
}
