-- Histogram of integer values into K bins, added to the bins' previous contents (the kernel
-- atomically increments a buffer the host zeroed or that holds earlier counts).
return op "histogram" {
  inputs  = { x = {"N"} },
  outputs = { h = {"K"} },
  accumulate = { "h" },
  dtypes  = { x = "i32", h = "i32" },
  ranges  = { x = {0, "K-1"}, h = {0, 1000} },
  attrs   = { },
  sizes   = { N = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 4099}, K = {1, 2, 3, 16, 31, 32, 33, 255, 256, 257, 300} },
  realistic = { N = 1 << 26, K = 256 },
  tolerance = { i32 = {atol = 0, rtol = 0} },
  ref = function(T, b)
    local c = T.h[b]
    for i = 0, T.N - 1 do if T.x[i] == b then c = c + 1 end end   -- x is index-valued
    return c
  end,
}
