return problem {
  source = "histogram_uninit.cu",
  op     = "histogram",
  sizes  = { N = 1000, K = 300 },
  launch = "histogram_smem<<<3, 128, K*4>>>(h, x, N, K)",
  seeded_bug = {
    pattern = "uninit-shared",
    detail  = "each thread zeroes only bins[threadIdx.x], so with K > blockDim.x (300 bins, 128 threads) bins 128..299 start with whatever shared memory held and that garbage is added to h; correct whenever K <= blockDim.x",
  },
}
