return problem {
  source = "softmax_block_race.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 300 },
  launch = "softmax_block<128><<<N, 128>>>(y, x, C)",
  seeded_bug = {
    pattern = "race-on-shared",
    detail  = "block_reduce returns smem[0] without a barrier after it, so thread 0 of the sum reduction can overwrite smem[0] (smem[threadIdx.x] = v) while slower warps still read the max from it; a read-write race on smem[0] between the two reductions, at any size",
  },
}
