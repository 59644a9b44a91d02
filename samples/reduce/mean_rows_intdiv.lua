return problem {
  source = "mean_rows_intdiv.cu",
  op     = "mean",
  sizes  = { N = 9, C = 50 },
  launch = "mean_rows<<<(N + 7) / 8, 256>>>(y, x, N, C)",
  seeded_bug = {
    pattern = "returns-zeros",
    detail  = "inv = 1 / C is integer division (0 for C > 1) before the conversion to float, so every mean is 0; correct only for C == 1",
  },
}
