-- session 8 mutation bench, conv2d_k3-cast-01: the filter offset `(k) * C * KS * KS` in int (the
-- size_t cast dropped, line 11): past 2^31 filter elements it wraps negative.
return problem {
  source      = "conv2d_k3_wcast.cu",
  op          = "conv2d",
  attrs       = { stride = 1, padding = 1, dilation = 1 },
  sizes       = { N = 2, C = 3, H = 6, W = 11, K = 2, R = 3, S = 3 },
  constraints = { "R == 3", "S == 3", "padding == 1", "stride == 1", "dilation == 1" },
  launch      = "conv2d_same<3><<<dim3((H*W + 63) / 64, K, N), 64, C*9*4>>>(y, x, w, C, H, W, K)",
}
