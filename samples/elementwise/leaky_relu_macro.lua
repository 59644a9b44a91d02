return problem {
  source  = "leaky_relu_macro.cu",
  op      = "leaky_relu",
  attrs   = { negative_slope = 0.01 },
  defines = { NEG_SLOPE = "0.01f" },
  sizes   = { N = 777 },
  launch  = "leaky_relu_kernel<<<min((N + 255) / 256, 2), 256>>>(y, x, N)",
}
