-- Full reduction of a vector: the sum op with N = 1 row of C elements.
return problem { seeded_bug = { pattern = "mutant-sync", detail = [==[reduce6.cu:27:91: `__syncthreads();` removed]==] },
  source  = "reduce6.cu",
  op      = "sum",
  sizes   = { N = 1, C = 3000 },
  constraints = { "N == 1" },   -- the pipeline reduces one vector; scratch holds the 4 block partials
  scratch = { part = { shape = { 4 }, dtype = "f32" } },
  launch  = {
    "reduce6<float, 256, false><<<4, 256, 1024>>>(x, part, C)",
    "reduce6<float, 64, false><<<1, 64, 256>>>(part, y, 4)",
  },
}
