return problem {
  source = "scatter_add_assign.cu",
  op     = "scatter_add",
  sizes  = { N = 20, M = 5, D = 7 },
  launch = "scatter_add_rows<<<(N*D + 63) / 64, 64>>>(y, src, index, N, D)",
  seeded_bug = {
    pattern = "assign-not-accumulate",
    detail  = "the store assigns src into y instead of adding to it, dropping y's previous contents and all but one of the source rows that share an index; looks right when y starts at zero and the indices are a permutation",
  },
}
