return problem {
  source = "embedding_top.cu",
  op     = "embedding",
  dtypes = { ids = "i32" },
  ranges = { ids = { 0, "V-1" } },
  sizes  = { N = 6, V = 11, D = 40 },
  launch = "embedding_gather<<<N, 32>>>(y, ids, w, N, D)",
}
