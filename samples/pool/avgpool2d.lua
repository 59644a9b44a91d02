return problem {
  source = "avgpool2d.cu",
  op     = "avgpool2d",
  attrs  = { kernel = 3, stride = 2, padding = 1, count_include_pad = false },
  sizes  = { N = 1, C = 3, H = 8, W = 9 },
  launch = "avgpool2d<<<(N*C*((H + 2*padding - kernel)/stride + 1)*((W + 2*padding - kernel)/stride + 1) + 63) / 64, 64>>>"
        .. "(y, x, N*C, H, W, (H + 2*padding - kernel)/stride + 1, (W + 2*padding - kernel)/stride + 1, kernel, stride, padding, count_include_pad)",
}
