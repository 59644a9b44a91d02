-- pow2-edge: sizes one off a power of two (2^j - 1 and 2^j + 1, from 3 up to
-- twice the spec's value), for every size at once: tree reductions, unrolled
-- loops and tiles that assume powers of two go wrong just past one. Values
-- cycle through normal, huge, tiny and large-offset (overflow in a narrow
-- accumulator, denormals, cancellation) — numerics change with the length.
local values = { "normal", "huge", "tiny", "large-offset" }

local function edges(limit)                 -- 1, 3, 5, 7, 9, 15, 17, 31, 33, … <= limit
  local list, p = { 1 }, 2
  while p - 1 <= limit do
    if p - 1 > 1 then list[#list + 1] = p - 1 end
    if p + 1 <= limit then list[#list + 1] = p + 1 end
    p = p * 2
  end
  return list
end

return strategy "pow2-edge" {
  help = "every size one off a power of two (2^j-1, 2^j+1); normal, huge, tiny, large-offset values",
  gen = function(space, k, rng)
    for _ = 1, 32 do
      local sizes = {}
      for _, s in ipairs(space.sizes) do
        local list = edges(math.max(2 * s.default, 9))
        -- half the time the largest edge not above the spec's value: realistic sizes
        local near = 1
        for i, v in ipairs(list) do if v <= s.default then near = i end end
        sizes[s.name] = list[rng:below(2) == 0 and near or rng:below(#list) + 1]
      end
      if space:admissible(sizes) then return { sizes = sizes, values = values[k % #values + 1] } end
    end
    return nil
  end,
}
