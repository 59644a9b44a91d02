return problem {
  source = "layernorm_block_nosync.cu",
  op     = "layernorm",
  sizes  = { N = 3, C = 600 },
  launch = "layernorm_block<256><<<N, 256>>>(y, x, w, b, C, eps)",
  seeded_bug = {
    pattern = "missing-syncthreads",
    detail  = "no __syncthreads() between the lane-0 stores of the per-warp partials (s_sum/s_sq) and warp 0 reading them, so warp 0 can read partials of warps 1..7 before they are written: a race that shows whenever the block has more than one warp",
  },
}
