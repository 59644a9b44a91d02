-- GELU, tanh approximation (GPT-2, PyTorch approximate="tanh"); 0.79788... = sqrt(2/pi)
return op "gelu_tanh" {
  inputs  = { x = {"N"} },
  outputs = { y = {"N"} },
  attrs   = {  },
  sizes   = { N = {1, 2, 3, 4, 7, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099} },
  realistic = { N = 16777216 },  -- 64 MiB of f32 activations
  tolerance = { f32 = {atol = 1e-5, rtol = 1e-5}, f16 = {atol = 2e-3, rtol = 2e-3}, bf16 = {atol = 1.6e-2, rtol = 1.6e-2} },
  ref = function(T, i)
    local x = T.x[i]
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
  end,
}
