return problem {
  source  = "l2norm_plain.cu",
  op      = "l2norm",
  sizes   = { N = 5, C = 300 },
  scratch = { acc = { shape = { "N" }, dtype = "f32", zero_bytes = "N*4" } },
  launch  = {
    "sumsq_plain<<<dim3(2, N), 32>>>(acc, x, N, C)",
    "sqrt_rows<<<(N + 31) / 32, 32>>>(y, acc, N)",
  },
  seeded_bug = {
    pattern = "missing-atomic",
    detail  = "two blocks per row add their partial sums into acc[row] with a plain load and store instead of atomicAdd; the emulator runs blocks one after another and gets the sum right, a GPU interleaves the read-modify-writes and loses one block's partial now and then",
  },
}
