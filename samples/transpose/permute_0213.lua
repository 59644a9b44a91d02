return problem {
  source = "permute_0213.cu",
  op     = "permute",
  attrs  = { perm = { 0, 2, 1, 3 } },
  sizes  = { D0 = 2, D1 = 5, D2 = 3, D3 = 12 },
  launch = "permute_0213<<<(D0 * D1 * D2 * D3 + 127) / 128, 128>>>(y, x, D0, D1, D2, D3)",
}
