return problem {
  source      = "softmax_warp_regs.cu",
  op          = "softmax",
  sizes       = { N = 5, C = 100 },
  constraints = { "C <= 128" },   -- 4 registers per lane
  tolerance   = { atol = 1e-6, rtol = 1e-4 },   -- __expf and __fdividef are approximate
  launch      = "softmax_warp_regs<4><<<(N + 1) / 2, 64>>>(y, x, N, C)",
}
