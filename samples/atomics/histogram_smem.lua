return problem {
  source = "histogram_smem.cu",
  op     = "histogram",
  sizes  = { N = 1000, K = 300 },
  launch = "histogram_smem<<<3, 128, K*4>>>(h, x, N, K)",
}
