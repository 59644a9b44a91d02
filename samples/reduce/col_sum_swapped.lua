return problem {
  source = "col_sum_swapped.cu",
  op     = "sum",
  attrs  = { dim = 0 },
  sizes  = { N = 5, C = 70 },
  launch = "col_sum<<<(C + 63) / 64, 64>>>(y, x, N, C)",
  seeded_bug = {
    pattern = "swapped-index",
    detail  = "the load uses x[c * N + n] (the column-major address) instead of x[n * C + c], so for N > 1 each column sums a scattered set of elements (still in bounds); correct only for N == 1, where a one-row test passes",
  },
}
