return problem {
  source = "sum_rows_volatile.cu",
  op     = "sum",
  sizes  = { N = 3, C = 300 },
  launch = "sum_rows_smem<<<N, 128>>>(y, x, C)",
  seeded_bug = {
    pattern = "race-on-shared",
    detail  = "the last-warp unrolled tree (the pre-Volta reduce4/5 idiom) has no __syncwarp: lane t reads s[t + off] while lane t + off writes it in the same step, which is only correct if the warp runs in lockstep; with independent thread scheduling (sm_70+) it is a shared-memory race, at any C",
  },
}
