return problem {
  source = "conv2d_direct.cu",
  op     = "conv2d",
  attrs  = { stride = 2, padding = 1, dilation = 1 },
  sizes  = { N = 2, C = 3, H = 9, W = 7, K = 4, R = 3, S = 3 },
  launch = "conv2d_direct<<<(N*K*((H + 2*padding - dilation*(R-1) - 1)/stride + 1)*((W + 2*padding - dilation*(S-1) - 1)/stride + 1) + 127) / 128, 128>>>"
        .. "(y, x, w, N, C, H, W, K, R, S, (H + 2*padding - dilation*(R-1) - 1)/stride + 1, (W + 2*padding - dilation*(S-1) - 1)/stride + 1, stride, padding, dilation)",
}
