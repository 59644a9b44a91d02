return problem {
  source = "conv2d_nostride.cu",
  op     = "conv2d",
  attrs  = { stride = 2, padding = 1, dilation = 1 },
  sizes  = { N = 2, C = 3, H = 9, W = 7, K = 4, R = 3, S = 3 },
  launch = "conv2d_direct<<<(N*K*((H + 2*padding - dilation*(R-1) - 1)/stride + 1)*((W + 2*padding - dilation*(S-1) - 1)/stride + 1) + 127) / 128, 128>>>"
        .. "(y, x, w, N, C, H, W, K, R, S, (H + 2*padding - dilation*(R-1) - 1)/stride + 1, (W + 2*padding - dilation*(S-1) - 1)/stride + 1, stride, padding, dilation)",
  seeded_bug = {
    pattern = "wrong-stride",
    detail  = "the input coordinates are oh - pad + r*dil and ow - pad + s*dil: the output position is not multiplied by the stride, so every output except the first row/column samples the wrong window; correct for stride 1 (the default), wrong with stride = 2 as in this spec",
  },
}
