return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[embedding_gather_int32.cu:11:24: cast to `size_t` dropped]==] },
  source = "embedding_gather_int32.cu",
  op     = "embedding",
  dtypes = { ids = "i32" },
  ranges = { ids = { 0, "V-1" } },
  sizes  = { N = 6, V = 11, D = 40 },
  launch = "embedding_gather<<<N, 32>>>(y, ids, w, N, D)",
}
