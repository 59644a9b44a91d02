-- Per-row cross-entropy from logits: loss[n] = logsumexp(x[n]) - x[n][targets[n]].
-- Rows whose target equals ignore_index get 0 (targets are concrete, so this branch is allowed).
return op "cross_entropy" {
  inputs  = { x = {"N", "V"}, targets = {"N"} },
  outputs = { loss = {"N"} },
  dtypes  = { targets = "i32" },
  ranges  = { targets = {0, "V-1"} },
  attrs   = { ignore_index = -100 },
  sizes   = { N = {1, 2, 3, 5, 8, 33}, V = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1025} },
  realistic = { N = 8 * 1024, V = 50257 },   -- GPT-2 LM head
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 1e-2, rtol = 1e-2}, bf16 = {atol = 5e-2, rtol = 2e-2} },
  ref = function(T, n)
    local t = T.targets[n]
    if t == T.ignore_index then return 0 end
    local m = T.x[n][0]
    for k = 1, T.V - 1 do m = max(m, T.x[n][k]) end
    local s = 0
    for k = 0, T.V - 1 do s = s + exp(T.x[n][k] - m) end
    return m + log(s) - T.x[n][t]
  end,
}
