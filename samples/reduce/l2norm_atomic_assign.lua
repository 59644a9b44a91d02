return problem {
  source  = "l2norm_atomic_assign.cu",
  op      = "l2norm",
  sizes   = { N = 5, C = 300 },
  scratch = { acc = { shape = { "N" }, dtype = "f32", zero_bytes = "N*4" } },
  launch  = {
    "sumsq_atomic<<<dim3(2, N), 64>>>(acc, x, N, C)",
    "sqrt_rows<<<(N + 31) / 32, 32>>>(y, acc, N)",
  },
  seeded_bug = {
    pattern = "assign-not-accumulate",
    detail  = "the first kernel stores each warp's partial into acc[row] instead of atomically adding it, so the row keeps one arbitrary warp's partial sum and the norm is too small; correct only when a row has a single warp-sized chunk (C <= 32 with one block per row)",
  },
}
