return problem {
  source      = "embedding_vec4.cu",
  op          = "embedding",
  dtypes      = { ids = "i64" },
  sizes       = { N = 5, V = 13, D = 24 },
  constraints = { "D % 4 == 0" },
  launch      = "embedding_vec4<<<dim3(1, N), 32>>>(y, ids, w, N, D)",
}
