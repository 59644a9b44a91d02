return problem {
  source = "rmsnorm_half_accum.cu",
  op     = "rmsnorm",
  dtype  = "f16",
  sizes  = { N = 4, C = 200 },
  launch = "rmsnorm_half<<<N, 32>>>(y, x, w, N, C, eps)",
  seeded_bug = {
    pattern = "fp16-accum-overflow",
    detail  = "the sum of squares is accumulated in __half: it overflows to inf once sum x^2 > 65504 (e.g. C = 200 with |x| around 20, common for LLM activations), giving 0 outputs, and loses precision well before that; fine for unit-scale inputs",
  },
}
