return problem {
  source = "embedding_int32.cu",
  op     = "embedding",
  dtypes = { ids = "i32" },
  ranges = { ids = { 0, "V-1" } },
  sizes  = { N = 6, V = 11, D = 40 },
  launch = "embedding_gather<<<N, 32>>>(y, ids, w, N, D)",
  seeded_bug = {
    pattern = "int32-index-overflow",
    detail  = "the row offset id * D (and n * D) is a 32-bit int product: it overflows once id * D >= 2^31, e.g. V = 128256, D = 16768 or any table above 8 GiB of f32, and reads a wrong (negative) address; unreachable at the spec sizes, see doc/samples.md",
  },
}
