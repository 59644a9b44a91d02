-- t/cli/sizet.sh: the out-of-bounds offset of a wrapped size_t index
return problem {
  source = "negidx.cu",
  op     = "relu",
  sizes  = { N = 32, A = 53687092 },
  launch = "negidx<<<1, 32>>>(y, x, N, A)",
}
