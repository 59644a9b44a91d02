return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[attention_scores_int32.cu:18:28: cast to `size_t` dropped]==] },
  source = "attention_scores_int32.cu",
  op     = "causal_scores",
  sizes  = { B = 2, H = 1, T = 9, D = 16 },
  launch = "attention_scores<<<dim3((T + 31) / 32, T, B*H), 32>>>(s, q, k, B*H, T, D)",
}
