-- session 8 mutation bench, attention_online-pad-01: the running max starts at 0.0f, not -inf (line 38).
-- NaN when every score q.k is below about -87 (q and k of opposite signs, large).
return problem {
  source      = "attention_online_max0.cu",
  op          = "causal_attention",
  sizes       = { B = 1, H = 2, T = 33, D = 40 },
  constraints = { "D <= 64" },
  launch      = "attention_online<<<dim3((T + 3) / 4, B*H), 128>>>(o, q, k, v, T, D)",
}
