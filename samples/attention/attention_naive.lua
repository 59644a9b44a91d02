return problem {
  source = "attention_naive.cu",
  op     = "causal_attention",
  sizes  = { B = 2, H = 2, T = 7, D = 8 },
  launch = "attention_naive<<<(B*H*T*D + 127) / 128, 128>>>(o, q, k, v, B*H, T, D)",
}
