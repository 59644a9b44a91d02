return problem {
  source = "attention_scores.cu",
  op     = "causal_scores",
  sizes  = { B = 2, H = 1, T = 9, D = 16 },
  launch = "attention_scores<<<dim3((T + 31) / 32, T, B*H), 32>>>(s, q, k, B*H, T, D)",
}
