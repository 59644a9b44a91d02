-- One AdamW step (Loshchilov & Hutter; torch.optim.AdamW), in place on p, m, v.
-- Inside ref, T.p / T.m / T.v are the contents BEFORE the step (accumulate outputs).
--   m' = b1 m + (1-b1) g ;  v' = b2 v + (1-b2) g^2
--   p' = p - lr (wd p + (m'/(1-b1^t)) / (sqrt(v'/(1-b2^t)) + eps))
local function moments(T, i)
  local g = T.g[i]
  local m = T.beta1 * T.m[i] + (1 - T.beta1) * g
  local v = T.beta2 * T.v[i] + (1 - T.beta2) * g * g
  return m, v
end
return op "adamw" {
  inputs  = { g = {"N"} },
  outputs = { p = {"N"}, m = {"N"}, v = {"N"} },
  accumulate = { "p", "m", "v" },
  positive = { v = true },     -- a second moment is never negative
  attrs   = { lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01, step = 1 },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 255, 256, 257, 1000, 1025} },
  realistic = { N = 124475904 },   -- GPT-2 small parameter count
  -- rtol 1e-4: kernels take beta1/beta2 as float, and (1 - 0.999f) is 4.7e-5 off
  -- 0.001, so an exact fp32 kernel differs from the exact reference by that much.
  tolerance = { f32 = {atol = 1e-6, rtol = 1e-4} },
  ref = {
    p = function(T, i)
      local m, v = moments(T, i)
      local mhat = m / (1 - T.beta1 ^ T.step)        -- attrs are plain numbers: Lua '^' is fine
      local vhat = v / (1 - T.beta2 ^ T.step)
      return T.p[i] - T.lr * (T.weight_decay * T.p[i] + mhat / (sqrt(vhat) + T.eps))
    end,
    m = function(T, i) local m = moments(T, i); return m end,
    v = function(T, i) local _, v = moments(T, i); return v end,
  },
}
