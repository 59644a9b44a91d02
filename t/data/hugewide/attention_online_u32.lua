return problem { seeded_bug = { pattern = "mutant-cast", detail = [==[attention_online_u32.cu:27:25: cast to `size_t` dropped]==] },
  source      = "attention_online_u32.cu",
  op          = "causal_attention",
  sizes       = { B = 1, H = 2, T = 33, D = 40 },
  constraints = { "D <= 64" },
  launch      = "attention_online<<<dim3((T + 3) / 4, B*H), 128>>>(o, q, k, v, T, D)",
}
