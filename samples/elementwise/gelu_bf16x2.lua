return problem {
  source = "gelu_bf16x2.cu",
  op     = "gelu_tanh",
  dtype  = "bf16",
  sizes  = { N = 515 },
  launch = "gelu_bf16x2<<<(N + 255) / 256, 128>>>(y, x, N)",
}
