-- relu, wrong on lane 31 of each block (negative inputs pass through)
return problem {
  source = "relu_tail.cu",
  op     = "relu",
  sizes  = { N = 40 },
  launch = "relu_tail<<<(N + 31) / 32, 32>>>(y, x, N)",
}
