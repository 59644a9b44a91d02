-- Max pooling, NCHW, square window `kernel`, floor output size; padded positions never win
-- (PyTorch pads with -inf), so they are simply skipped.
return op "maxpool2d" {
  inputs  = { x = {"N", "C", "H", "W"} },
  outputs = { y = {"N", "C", "(H + 2*padding - kernel)/stride + 1", "(W + 2*padding - kernel)/stride + 1"} },
  attrs   = { kernel = 2, stride = 2, padding = 0 },
  sizes   = { N = {1, 2, 3}, C = {1, 3, 4, 17}, H = {2, 3, 4, 5, 7, 8, 9, 15, 16, 17}, W = {2, 3, 4, 5, 7, 8, 9, 15, 16, 17} },
  constraints = { "padding * 2 <= kernel", "H + 2*padding >= kernel", "W + 2*padding >= kernel" },
  realistic = { N = 32, C = 64, H = 112, W = 112 },   -- ResNet stem: kernel 3, stride 2, padding 1
  tolerance = { f32 = {atol = 0, rtol = 0}, f16 = {atol = 0, rtol = 0}, bf16 = {atol = 0, rtol = 0} },
  ref = function(T, n, c, oh, ow)
    local m
    for r = 0, T.kernel - 1 do
      local ih = oh * T.stride - T.padding + r
      for s = 0, T.kernel - 1 do
        local iw = ow * T.stride - T.padding + s
        if ih >= 0 and ih < T.H and iw >= 0 and iw < T.W then
          local v = T.x[n][c][ih][iw]
          if m == nil then m = v else m = max(m, v) end   -- branch on "first seen", an index fact
        end
      end
    end
    return m
  end,
}
