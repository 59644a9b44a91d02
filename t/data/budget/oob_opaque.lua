-- 200,000 out-of-bounds loads a thread, on the side of a ?: that only the
-- symbolic run takes (t/cli/checkopaque.sh): each is an opaque value there.
return problem {
  source = "oob_opaque.cu",
  op     = "relu",
  sizes  = { N = 32, K = 200000 },
  launch = "oob_opaque<<<1, 32>>>(y, x, N, K)",
}
