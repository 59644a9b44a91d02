return problem {
  source = "gelu_tanh_float4_notail.cu",
  op     = "gelu_tanh",
  sizes  = { N = 1001 },
  launch = "gelu_tanh_f4<<<(N + 1023) / 1024, 256>>>(y, x, N)",
  seeded_bug = {
    pattern = "missing-tail-mask",
    detail  = "the vector index runs to (N+3)/4 with no mask, so the last float4 reads and writes up to 3 floats past the end of x and y; invisible when N % 4 == 0 (N = 1001 triggers it)",
  },
}
