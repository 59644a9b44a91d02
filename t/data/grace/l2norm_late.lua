return problem {
  source  = "l2norm_late.cu",
  op      = "l2norm",
  sizes   = { N = 5, C = 300 },
  scratch = { part = { shape = { "N", 2 }, dtype = "f32" }, count = { shape = { "N" }, dtype = "i32", zero_bytes = "N*4" } },
  launch  = { "sumsq_last<<<dim3(2, N), 32>>>(y, part, count, x, N, C)" },
}
