return problem {
  source      = "softmax_warp_regs.cu",
  op          = "softmax",
  sizes       = { N = 5, C = 100 },
  constraints = { "C <= 128" },   -- 4 registers per lane
  launch      = "softmax_warp_regs<4><<<(N + 1) / 2, 64>>>(y, x, N, C)",
}
