return problem {
  source      = "attention_online_offbyone.cu",
  op          = "causal_attention",
  sizes       = { B = 1, H = 2, T = 33, D = 40 },
  constraints = { "D <= 64" },
  launch      = "attention_online<<<dim3((T + 3) / 4, B*H), 128>>>(o, q, k, v, T, D)",
  seeded_bug = {
    pattern = "off-by-one-loop",
    detail  = "kv_len is q_last instead of q_last + 1, so the tile loop (t0 < kv_len) skips the key tile that starts at q_last; this only loses a key when q_last % 32 == 0, i.e. in the last block when T % 32 == 1 (T = 1, 33, 65, ...: query T-1 misses its own key, and for T = 1 divides 0 by 0)",
  },
}
