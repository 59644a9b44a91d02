return problem {
  source = "gelu_tanh_float4.cu",
  op     = "gelu_tanh",
  sizes  = { N = 1001 },
  -- one thread per float4; (N + 1023) / 1024 blocks keeps at least one block for N < 4
  launch = "gelu_tanh_f4<<<(N + 1023) / 1024, 256>>>(y, x, N)",
}
