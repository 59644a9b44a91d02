-- 2-D convolution (cross-correlation, as PyTorch), NCHW input, KCRS filters, no bias, groups = 1.
-- Output size per PyTorch: (H + 2 pad - dil (R - 1) - 1) / stride + 1, integer division.
return op "conv2d" {
  inputs  = { x = {"N", "C", "H", "W"}, w = {"K", "C", "R", "S"} },
  outputs = { y = {"N", "K", "(H + 2*padding - dilation*(R-1) - 1)/stride + 1", "(W + 2*padding - dilation*(S-1) - 1)/stride + 1"} },
  attrs   = { stride = 1, padding = 0, dilation = 1 },
  sizes   = { N = {1, 2, 3}, C = {1, 2, 3, 4, 16, 17}, K = {1, 2, 3, 8, 9},
              H = {1, 3, 5, 7, 8, 9, 14, 15}, W = {1, 3, 5, 7, 8, 9, 14, 17},
              R = {1, 2, 3, 5}, S = {1, 2, 3, 5} },
  constraints = { "H + 2*padding >= dilation*(R-1) + 1", "W + 2*padding >= dilation*(S-1) + 1" },
  realistic = { N = 32, C = 64, H = 56, W = 56, K = 64, R = 3, S = 3 },   -- ResNet-50 conv2_x 3x3
  tolerance = { f32 = {atol = 1e-4, rtol = 1e-4}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, n, k, oh, ow)
    local acc = 0
    for c = 0, T.C - 1 do
      for r = 0, T.R - 1 do
        local ih = oh * T.stride - T.padding + r * T.dilation
        if ih >= 0 and ih < T.H then                      -- index branch: allowed
          for s = 0, T.S - 1 do
            local iw = ow * T.stride - T.padding + s * T.dilation
            if iw >= 0 and iw < T.W then acc = acc + T.x[n][c][ih][iw] * T.w[k][c][r][s] end
          end
        end
      end
    end
    return acc
  end,
}
