-- pow2-only: the literature's "regular" strategy, powers of two only: every size
-- the largest power of two not above the spec's value, or twice that, normal
-- and uniform values by turns. dirigo's own `regular` starts at the spec's
-- sizes (case 0) and keeps them among its choices, so it is not the
-- literature's; bench/strategies.sh scores this one beside it for the row
-- "regular power-of-two shapes caught 0% of softmax tail-mask bugs".
return strategy "pow2-only" {
  help = "every size a power of two near the spec's (the literature's regular shapes); normal, uniform values",
  gen = function(space, k, rng)
    for _ = 1, 32 do
      local sizes = {}
      for _, s in ipairs(space.sizes) do
        local p = 1
        while p * 2 <= s.default do p = p * 2 end
        sizes[s.name] = rng:below(2) == 0 and p or 2 * p
      end
      if space:admissible(sizes) then
        return { sizes = sizes, values = k % 2 == 0 and "normal" or "uniform" }
      end
    end
    return nil
  end,
}
