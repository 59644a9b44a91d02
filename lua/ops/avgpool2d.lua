-- Average pooling, NCHW, square window, floor output size. count_include_pad = true divides by
-- kernel^2 (PyTorch default); false divides by the number of in-bounds elements.
return op "avgpool2d" {
  inputs  = { x = {"N", "C", "H", "W"} },
  outputs = { y = {"N", "C", "(H + 2*padding - kernel)/stride + 1", "(W + 2*padding - kernel)/stride + 1"} },
  attrs   = { kernel = 2, stride = 2, padding = 0, count_include_pad = true },
  sizes   = { N = {1, 2, 3}, C = {1, 3, 4, 17}, H = {2, 3, 4, 5, 7, 8, 9, 15, 16, 17}, W = {2, 3, 4, 5, 7, 8, 9, 15, 16, 17} },
  constraints = { "padding * 2 <= kernel", "H + 2*padding >= kernel", "W + 2*padding >= kernel" },
  realistic = { N = 32, C = 2048, H = 7, W = 7 },   -- ResNet-50 head, kernel 7
  tolerance = { f32 = {atol = 1e-6, rtol = 1e-5}, f16 = {atol = 1e-3, rtol = 2e-3}, bf16 = {atol = 8e-3, rtol = 1.6e-2} },
  ref = function(T, n, c, oh, ow)
    local s, cnt = 0, 0
    for r = 0, T.kernel - 1 do
      local ih = oh * T.stride - T.padding + r
      for q = 0, T.kernel - 1 do
        local iw = ow * T.stride - T.padding + q
        if ih >= 0 and ih < T.H and iw >= 0 and iw < T.W then
          s = s + T.x[n][c][ih][iw]; cnt = cnt + 1
        end
      end
    end
    if T.count_include_pad then cnt = T.kernel * T.kernel end
    return s / cnt
  end,
}
