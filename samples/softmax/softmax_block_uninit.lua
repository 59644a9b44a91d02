return problem {
  source = "softmax_block_uninit.cu",
  op     = "softmax",
  sizes  = { N = 3, C = 100 },
  launch = "softmax_block<128><<<N, 128>>>(y, x, C)",
  seeded_bug = {
    pattern = "uninit-shared",
    detail  = "block_reduce stores only threads below C into shared memory, but the tree reads all 128 slots; when C < 128 (C = 100 here) slots C..127 are uninitialised and enter the max and the sum; invisible for C >= 128",
  },
}
