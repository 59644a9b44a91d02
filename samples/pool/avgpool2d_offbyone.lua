return problem {
  source = "avgpool2d_offbyone.cu",
  op     = "avgpool2d",
  attrs  = { kernel = 3, stride = 2, padding = 1, count_include_pad = false },
  sizes  = { N = 1, C = 3, H = 8, W = 9 },
  launch = "avgpool2d<<<(N*C*((H + 2*padding - kernel)/stride + 1)*((W + 2*padding - kernel)/stride + 1) + 63) / 64, 64>>>"
        .. "(y, x, N*C, H, W, (H + 2*padding - kernel)/stride + 1, (W + 2*padding - kernel)/stride + 1, kernel, stride, padding, count_include_pad)",
  seeded_bug = {
    pattern = "off-by-one-loop",
    detail  = "the window end is clamped to H - 1 / W - 1 (the last valid index) but used as an exclusive bound, so windows that reach the bottom row or right column drop it; interior windows are right, only the last output row/column is wrong",
  },
}
