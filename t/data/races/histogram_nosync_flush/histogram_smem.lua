return problem { seeded_bug = { pattern = "mutant-sync", detail = [==[histogram_smem.cu:13:5: `__syncthreads();` removed]==] },
  source = "histogram_smem.cu",
  op     = "histogram",
  sizes  = { N = 1000, K = 300 },
  launch = "histogram_smem<<<3, 128, K*4>>>(h, x, N, K)",
}
