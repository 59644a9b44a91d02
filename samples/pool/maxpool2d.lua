return problem {
  source = "maxpool2d.cu",
  op     = "maxpool2d",
  attrs  = { kernel = 3, stride = 2, padding = 1 },   -- the ResNet stem pool
  sizes  = { N = 2, C = 3, H = 9, W = 8 },
  launch = "maxpool2d<<<(N*C*((H + 2*padding - kernel)/stride + 1)*((W + 2*padding - kernel)/stride + 1) + 63) / 64, 64>>>"
        .. "(y, x, N*C, H, W, (H + 2*padding - kernel)/stride + 1, (W + 2*padding - kernel)/stride + 1, kernel, stride, padding)",
}
