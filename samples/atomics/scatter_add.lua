return problem {
  source = "scatter_add.cu",
  op     = "scatter_add",
  sizes  = { N = 20, M = 5, D = 7 },
  launch = "scatter_add_rows<<<(N*D + 63) / 64, 64>>>(y, src, index, N, D)",
}
