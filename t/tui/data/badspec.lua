-- a spec with a mistake: the op does not exist
return problem {
  source = "saxpy.cu",
  op     = "no_such_op",
  sizes  = { N = 4 },
  launch = "saxpy<<<1, 32>>>(N, 2.0, x, y)",
}
