return problem {
  source = "maxpool2d_padzero.cu",
  op     = "maxpool2d",
  attrs  = { kernel = 3, stride = 2, padding = 1 },   -- the ResNet stem pool
  sizes  = { N = 2, C = 3, H = 9, W = 8 },
  launch = "maxpool2d<<<(N*C*((H + 2*padding - kernel)/stride + 1)*((W + 2*padding - kernel)/stride + 1) + 63) / 64, 64>>>"
        .. "(y, x, N*C, H, W, (H + 2*padding - kernel)/stride + 1, (W + 2*padding - kernel)/stride + 1, kernel, stride, padding)",
  seeded_bug = {
    pattern = "pad-zero-not-neginf",
    detail  = "window positions in the padding contribute 0 to the max instead of being skipped (-inf), so an edge window whose real values are all negative returns 0; needs padding > 0 and negative inputs at the border",
  },
}
