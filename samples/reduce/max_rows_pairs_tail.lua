return problem {
  source = "max_rows_pairs_tail.cu",
  op     = "max",
  sizes  = { N = 4, C = 37 },
  launch = "max_rows_pairs<<<(N + 3) / 4, 128>>>(y, x, N, C)",
  seeded_bug = {
    pattern = "off-by-one-loop",
    detail  = "the pair loop runs while c + 1 < C and nothing handles the last element of an odd-length row, so x[C-1] never enters the max; the result is wrong only for odd C and only when the row maximum is that last element (about 1 row in C with random data)",
  },
}
