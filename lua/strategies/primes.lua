-- primes: every size a prime (2, 3, 5, 7, 11, 13, …), so no size is a multiple
-- of a tile, a warp, a vector width or an unroll factor. Each size is either
-- the largest prime not above the spec's value or a random prime up to twice
-- it; values cycle through normal, uniform, max-last and negative.
local cache = {}
local function primes_upto(n)
  if cache[n] then return cache[n] end
  local list, sieve = {}, {}
  for i = 2, n do
    if not sieve[i] then
      list[#list + 1] = i
      for j = i * i, n, i do sieve[j] = true end
    end
  end
  cache[n] = list
  return list
end

local function below_or_at(list, v)
  local best = list[1]
  for _, p in ipairs(list) do if p <= v then best = p end end
  return best
end

local values = { "normal", "uniform", "max-last", "negative" }

return strategy "primes" {
  help = "prime sizes only (none divides a tile, warp or vector width); normal, uniform, max-last, negative values",
  gen = function(space, k, rng)
    for _ = 1, 32 do
      local sizes = {}
      for _, s in ipairs(space.sizes) do
        local list = primes_upto(math.max(2 * s.default, 13))
        sizes[s.name] = rng:below(2) == 0 and below_or_at(list, s.default) or rng:pick(list)
      end
      if space:admissible(sizes) then
        return { sizes = sizes, values = values[k % #values + 1] }
      end
    end
    return nil
  end,
}
