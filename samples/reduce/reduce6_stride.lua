return problem {
  source  = "reduce6_stride.cu",
  op      = "sum",
  sizes   = { N = 1, C = 3000 },
  constraints = { "N == 1" },   -- the pipeline reduces one vector; scratch holds the 4 block partials
  scratch = { part = { shape = { 4 }, dtype = "f32" } },
  launch  = {
    "reduce6<float, 256, false><<<4, 256, 1024>>>(x, part, C)",
    "reduce6<float, 64, false><<<1, 64, 256>>>(part, y, 4)",
  },
  seeded_bug = {
    pattern = "wrong-stride",
    detail  = "the grid-stride step is blockSize * gridDim.x although each thread consumes two elements blockSize apart per step, so a thread's second step re-reads elements another block already summed; correct while the loop runs once (C <= 256 * 4 = 1024), wrong for C = 3000",
  },
}
