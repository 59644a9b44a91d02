-- session 8 mutation bench, attention_naive-pad-01: the score max starts at 0.0f, not -inf (line 19).
-- NaN when every score q.k is below about -87 (q and k of opposite signs, large).
return problem {
  source = "attention_naive_max0.cu",
  op     = "causal_attention",
  sizes  = { B = 2, H = 2, T = 7, D = 8 },
  launch = "attention_naive<<<(B*H*T*D + 127) / 128, 128>>>(o, q, k, v, B*H, T, D)",
}
