return problem {
  source = "attention_naive_noscale.cu",
  op     = "causal_attention",
  sizes  = { B = 2, H = 2, T = 7, D = 8 },
  launch = "attention_naive<<<(B*H*T*D + 127) / 128, 128>>>(o, q, k, v, B*H, T, D)",
  seeded_bug = {
    pattern = "missing-scale",
    detail  = "scale = 1/sqrt(D) is computed but never applied to the scores, so the softmax is too sharp; identical for D = 1 and for rows with a single key (i = 0), wrong elsewhere",
  },
}
