return problem {
  source = "gemv_unroll2.cu",
  op     = "gemv",
  sizes  = { M = 10, K = 77 },
  launch = "gemv_unroll2<<<1, 32>>>(y, a, x, M, K)",
  seeded_bug = {
    pattern = "read-past-end-n1",
    detail  = "the unrolled loop reads a[k + 1] and x[k + 1] without checking k + 1 < K: for odd K the last step reads x[K], one past the end of x, and the first element of the next row of A (past the end of A for the last row), adding garbage; invisible for even K",
  },
}
