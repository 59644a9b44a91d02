-- t/cli/sizet.sh: a size_t index of -2 from a pointer inside the tensor
return problem {
  source = "prev.cu",
  op     = "relu",
  sizes  = { N = 100 },
  launch = "prev<<<(N + 63) / 64, 64>>>(y, x, N)",
}
