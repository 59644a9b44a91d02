return problem {
  source = "cumsum_block_race.cu",
  op     = "cumsum",
  attrs  = { exclusive = false },
  sizes  = { N = 3, C = 150 },
  launch = "cumsum_block<64><<<N, 64>>>(y, x, C, exclusive)",
  seeded_bug = {
    pattern = "race-on-shared",
    detail  = "the scan updates buf in place (buf[tid] += buf[tid - off]) within one barrier interval, so thread tid may read buf[tid - off] before or after thread tid - off has added to it; a read-write race at any C >= 2 whose outcome depends on warp scheduling (within one warp it usually comes out right, across warps it does not)",
  },
}
