return problem { seeded_bug = { pattern = "mutant-sync", detail = [==[sum_rows_smem.cu:13:9: `__syncwarp();` removed]==] },
  source = "sum_rows_smem.cu",
  op     = "sum",
  sizes  = { N = 3, C = 300 },
  launch = "sum_rows_smem<<<N, 128>>>(y, x, C)",
}
