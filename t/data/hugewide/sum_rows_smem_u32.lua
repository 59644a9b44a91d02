return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[sum_rows_smem_u32.cu:23:27: cast to `size_t` dropped]==] },
  source = "sum_rows_smem_u32.cu",
  op     = "sum",
  sizes  = { N = 3, C = 300 },
  launch = "sum_rows_smem<<<N, 128>>>(y, x, C)",
}
