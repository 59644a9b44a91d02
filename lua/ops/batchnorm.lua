-- BatchNorm2d in inference mode, NCHW, running statistics as inputs:
-- y = (x - mean[c]) / sqrt(var[c] + eps) * w[c] + b[c]
return op "batchnorm" {
  inputs  = { x = {"N", "C", "H", "W"}, mean = {"C"}, var = {"C"}, w = {"C"}, b = {"C"} },
  outputs = { y = {"N", "C", "H", "W"} },
  positive = { var = true },   -- variances are drawn > 0 (a negative variance is not an input)
  attrs   = { eps = 1e-5 },
  sizes   = { N = {1, 2, 3}, C = {1, 3, 16, 17, 64}, H = {1, 2, 5, 7, 14, 56}, W = {1, 3, 7, 14, 33, 56} },
  realistic = { N = 32, C = 256, H = 56, W = 56 },   -- ResNet-50 conv2 stage
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 5e-3, rtol = 5e-3}, bf16 = {atol = 3e-2, rtol = 2e-2} },
  ref = function(T, n, c, h, w)
    return (T.x[n][c][h][w] - T.mean[c]) * rsqrt(T.var[c] + T.eps) * T.w[c] + T.b[c]
  end,
}
