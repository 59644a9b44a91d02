-- samples/attention/attention_online with the q load's 64-bit cast dropped
-- (t/data/prefix/attention_online_qint.cu; t/cli/checkprefix.sh)
return problem {
  source      = "attention_online_qint.cu",
  op          = "causal_attention",
  sizes       = { B = 1, H = 2, T = 33, D = 40 },
  constraints = { "D <= 64" },
  launch      = "attention_online<<<dim3((T + 3) / 4, B*H), 128>>>(o, q, k, v, T, D)",
}
