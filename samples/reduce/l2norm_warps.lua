return problem {
  source  = "l2norm_warps.cu",
  op      = "l2norm",
  sizes   = { N = 5, C = 300 },
  scratch = { acc = { shape = { "N" }, dtype = "f32", zero_bytes = "N*4" } },
  launch  = {
    "sumsq_warps<<<N, 128>>>(acc, x, N, C)",
    "sqrt_rows<<<(N + 31) / 32, 32>>>(y, acc, N)",
  },
  seeded_bug = {
    pattern = "missing-atomic-warps",
    detail  = "the four warps of a row's block add their partial sums into acc[row] with a plain load and store instead of atomicAdd, with no barrier between them; on a GPU the warps' read-modify-writes interleave and partials are lost",
  },
}
