return problem {
  source = "silu_half2.cu",
  op     = "silu",
  dtype  = "f16",
  sizes  = { N = 999 },
  launch = "silu_half2_kernel<<<4, 64>>>(y, x, N)",
}
